package dev.memsidecar.core.maintenance;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.MemoryFile;
import dev.memsidecar.api.MemoryStore;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.core.ProfileCatalog;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@value #NAME} target: the memory files ({@code /memories/<profile>.md}) of every profile,
 * through the files capability of the store that keeps them ({@link MemoryStore#readFile}, {@link
 * MemoryStore#writeFile}), never through records. Each file is compacted ({@link
 * MarkdownCompaction}) and written back only if nothing wrote it meanwhile: the write carries the
 * etag read, and a file changed since is left alone and counted ({@code files_changed_meanwhile});
 * the next pass sees it again.
 *
 * <p>Counts {@code files}, {@code files_compacted}, {@code duplicate_lines_removed}, {@code
 * blank_lines_removed}, {@code files_changed_meanwhile}, {@code files_failed}, {@code
 * profiles_skipped} (a store that cannot list its namespaces). A file that cannot be read or
 * written does not stop the others, but fails the pass, naming it.
 */
public final class DeepAgentsTarget implements MaintenanceTarget {
  public static final String NAME = "deepagents";

  private final ProfileCatalog profiles;

  public DeepAgentsTarget(ProfileCatalog profiles) {
    this.profiles = requireNonNull(profiles, "profiles is null");
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public void run(MaintenancePass pass) {
    List<String> failures = new ArrayList<>();
    Map<MemoryStore, Boolean> done = new IdentityHashMap<>();
    for (ProfileCatalog.ActiveProfile profile : profiles.all()) {
      MemoryStore store = profile.files();
      if (store == null || done.put(store, true) != null) {
        continue;
      }
      List<Namespace> namespaces;
      try {
        namespaces = store.namespaces();
      } catch (MemoryException e) {
        if (e.code() != MemoryException.Code.UNIMPLEMENTED) {
          throw e;
        }
        pass.add("profiles_skipped", 1);
        continue;
      }
      for (Namespace ns : namespaces) {
        pass.checkStopped();
        String failure = compact(pass, profile.id(), store, ns);
        if (failure != null) {
          pass.add("files_failed", 1);
          failures.add(failure);
        }
      }
    }
    for (String count :
        List.of(
            "files",
            "files_compacted",
            "duplicate_lines_removed",
            "blank_lines_removed",
            "files_changed_meanwhile",
            "files_failed")) {
      pass.add(count, 0);
    }
    if (!failures.isEmpty()) {
      throw new IllegalStateException(
          failures.size()
              + (failures.size() == 1 ? " memory file" : " memory files")
              + " could not be maintained: "
              + String.join("; ", failures.subList(0, Math.min(3, failures.size()))));
    }
  }

  /** Compacts one file; returns why it failed, or null. */
  private static String compact(
      MaintenancePass pass, String profileId, MemoryStore store, Namespace ns) {
    String where = "profile '" + profileId + "' namespace '" + ns + "'";
    MemoryFile file;
    try {
      file = store.readFile(ns);
    } catch (MemoryException e) {
      return where + ": " + e.getMessage();
    }
    pass.add("files", 1);
    MarkdownCompaction.Result result = MarkdownCompaction.compact(file.content());
    if (!result.changed()) {
      return null;
    }
    try {
      store.writeFile(ns, result.text(), file.etag());
    } catch (MemoryException e) {
      if (e.code() == MemoryException.Code.ABORTED) {
        pass.add("files_changed_meanwhile", 1);
        return null;
      }
      return where + ": " + e.getMessage();
    }
    pass.add("files_compacted", 1);
    pass.add("duplicate_lines_removed", result.duplicateLines());
    pass.add("blank_lines_removed", result.blankLines());
    return null;
  }
}
