package dev.memsidecar.core;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.Ids;
import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.MemoryFile;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.core.ProfileCatalog.ActiveProfile;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The deepagentsMem path: each enabled profile's markdown file, seen by the agent as {@code
 * /memories/<profile>.md} and resolved inside the caller's scope (a workspace profile's file is
 * shared within its workspace, a user profile's file is per user, and so on). Paths are virtual:
 * anything but exactly {@code /memories/<profile id>.md} is INVALID_ARGUMENT. Reads answer to {@code
 * deepagentsMem.read}, writes and edits to {@code deepagentsMem.write} ({@link AccessPolicy}).
 */
public final class MemoryFiles {
  public static final String ROOT = "/memories/";
  public static final String SUFFIX = ".md";
  /** Largest file content a write or edit may leave, UTF-8 bytes. */
  public static final int MAX_FILE_BYTES = 256 * 1024;

  private static final int EDIT_ATTEMPTS = 3;

  private final ProfileCatalog profiles;
  private final NamespaceResolver namespaces;
  private final AccessPolicy access;

  /** A file and its virtual path. */
  public record FileView(String path, MemoryFile file) {}

  @Inject
  public MemoryFiles(ProfileCatalog profiles, NamespaceResolver namespaces, AccessPolicy access) {
    this.profiles = requireNonNull(profiles, "profiles is null");
    this.namespaces = requireNonNull(namespaces, "namespaces is null");
    this.access = requireNonNull(access, "access is null");
  }

  /** The virtual path of a profile's file. */
  public static String pathOf(String profileId) {
    return ROOT + profileId + SUFFIX;
  }

  /**
   * Every file the scope can reach: one per enabled profile whose scope id the caller sent,
   * whether or not it was written yet (content left empty). Empty when deepagentsMem.read is off.
   */
  public List<FileView> list(Scope scope) {
    Ids.require("scope.workspace_id", scope.workspaceId());
    List<FileView> out = new ArrayList<>();
    for (ActiveProfile p : profiles.all()) {
      if (p.files() == null || !access.mayReadFiles(p.spec()) || !namespaces.hasIdFor(scope, p.spec())) {
        continue;
      }
      MemoryFile f = p.files().readFile(namespaces.resolve(scope, p.spec()));
      out.add(new FileView(pathOf(p.id()), new MemoryFile("", f.etag(), f.updateTime())));
    }
    return List.copyOf(out);
  }

  public FileView read(Scope scope, String path) {
    Target t = target(scope, path);
    access.checkReadFiles(t.profile().spec());
    return new FileView(path, t.profile().files().readFile(t.namespace()));
  }

  /** Replaces the file; a non-empty {@code etag} that is stale is ABORTED. */
  public FileView write(Scope scope, String path, String content, String etag) {
    Target t = target(scope, path);
    checkSize(content);
    access.checkWriteFiles(t.profile().spec());
    return new FileView(path, t.profile().files().writeFile(t.namespace(), content, etag));
  }

  /**
   * Replaces the one occurrence of {@code oldText} with {@code newText}, like an agent's edit_file
   * tool. {@code oldText} must occur exactly once (INVALID_ARGUMENT otherwise). With an {@code etag}
   * the edit applies only to that version (ABORTED if stale); without one it applies to the latest,
   * retrying when a concurrent write lands between read and write.
   */
  public FileView edit(Scope scope, String path, String oldText, String newText, String etag) {
    Target t = target(scope, path);
    if (oldText.isEmpty()) {
      throw MemoryException.invalidArgument("old_text", "old_text is required");
    }
    access.checkWriteFiles(t.profile().spec());
    for (int attempt = 1; ; attempt++) {
      MemoryFile current = t.profile().files().readFile(t.namespace());
      if (!etag.isEmpty() && !etag.equals(current.etag())) {
        throw MemoryException.aborted(
            "etag '" + etag + "' is stale; the file is now at '" + current.etag() + "'");
      }
      String content = current.content();
      int at = content.indexOf(oldText);
      if (at < 0) {
        throw MemoryException.invalidArgument("old_text", "old_text does not occur in " + path);
      }
      if (content.indexOf(oldText, at + 1) >= 0) {
        throw MemoryException.invalidArgument(
            "old_text", "old_text occurs more than once in " + path + "; include more context");
      }
      String edited = content.substring(0, at) + newText + content.substring(at + oldText.length());
      checkSize(edited);
      try {
        return new FileView(
            path, t.profile().files().writeFile(t.namespace(), edited, current.etag()));
      } catch (MemoryException e) {
        if (e.code() != MemoryException.Code.ABORTED || !etag.isEmpty() || attempt == EDIT_ATTEMPTS) {
          throw e;
        }
      }
    }
  }

  private record Target(ActiveProfile profile, Namespace namespace) {}

  private Target target(Scope scope, String path) {
    ActiveProfile profile = profiles.get(profileOf(path));
    Namespace ns = namespaces.resolve(scope, profile.spec());
    if (profile.spec().enabled() && profile.files() == null) {
      throw MemoryException.unsupported(
          "profile '" + profile.id() + "' has no memory file: its provider '" + profile.provider()
              + "' keeps none and the " + ProfileCatalog.FILES_PROVIDER + " provider is absent");
    }
    return new Target(profile, ns);
  }

  /** The profile id of a path {@code /memories/<id>.md}; anything else is INVALID_ARGUMENT. */
  static String profileOf(String path) {
    if (path == null || path.isEmpty()) {
      throw MemoryException.invalidArgument("path", "path is required, e.g. /memories/workspace.md");
    }
    if (path.startsWith(ROOT) && path.endsWith(SUFFIX)) {
      String id = path.substring(ROOT.length(), path.length() - SUFFIX.length());
      if (Ids.isValid(id)) {
        return id;
      }
    }
    String shown = path.length() > 80 ? path.substring(0, 80) + "..." : path;
    throw MemoryException.invalidArgument(
        "path", "path '" + shown + "' must be /memories/<profile>.md with a profile id");
  }

  private static void checkSize(String content) {
    int bytes = content.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > MAX_FILE_BYTES) {
      throw MemoryException.resourceExhausted(
          "content", "file would be " + bytes + " bytes; the limit is " + MAX_FILE_BYTES);
    }
  }
}
