package dev.memsidecar.core.curated;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.Digests;
import dev.memsidecar.api.MemoryException;
import dev.memsidecar.core.Limits;
import dev.memsidecar.core.Scope;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Curated memory (the engine blueprint's "curated"): {@code MEMORY.md} of a workspace and {@code
 * USER.md} of each of its users, markdown that people and tools maintain, through the files API
 * ({@code /MEMORY.md}, {@code /USER.md}) or on disk ({@link WorkspaceFiles}). Unlike the agent's
 * own notes ({@code /memories/<profile>.md}) and the records it extracts, nothing here is written
 * by the sidecar itself: what the files say is taken as given. BeginRun freezes both into one
 * prompt section with a content hash ({@link #freeze}); the run's snapshot keeps it, so a change
 * made during a run is seen by the next one. Thread-safe.
 */
public final class CuratedMemory {
  /** The workspace's curated file, as the files API names it. */
  public static final String MEMORY_PATH = "/" + WorkspaceFiles.MEMORY_FILE;

  /** The user's curated file, as the files API names it. */
  public static final String USER_PATH = "/" + WorkspaceFiles.USER_FILE;

  /** Of each curated file, at most this much goes into the curated section. */
  public static final int MAX_SECTION_FILE_BYTES = 16 * 1024;

  private final WorkspaceFiles files;

  public CuratedMemory(WorkspaceFiles files) {
    this.files = requireNonNull(files, "files is null");
  }

  /**
   * The curated files of a scope, frozen for a run.
   *
   * @param body the section's markdown: {@code ### MEMORY.md} and its content, then {@code ###
   *     USER.md} and its content, each file cut to {@value #MAX_SECTION_FILE_BYTES} bytes with a
   *     line saying how much was not shown; empty when both files are empty or absent
   * @param hash the lowercase hex SHA-256 of {@code body}
   */
  public record Frozen(String body, String hash) {
    public Frozen {
      requireNonNull(body, "body is null");
      requireNonNull(hash, "hash is null");
    }

    /** The lines of the files as shown (not the headings, not blank lines). */
    public List<String> lines() {
      List<String> out = new ArrayList<>();
      for (String line : body.split("\n")) {
        String l = line.strip();
        if (!l.isEmpty() && !l.startsWith("### ") && !l.startsWith("[... ")) {
          out.add(l);
        }
      }
      return List.copyOf(out);
    }
  }

  /** The file the files API path {@code path} names in this scope ({@link #isCurated}). */
  public Path fileOf(Scope scope, String path) {
    if (path.equals(MEMORY_PATH)) {
      return files.memoryFile(scope.workspaceId());
    }
    if (path.equals(USER_PATH)) {
      if (scope.userId().isEmpty()) {
        throw MemoryException.invalidArgument(
            "scope.user_id", "USER.md is kept per user: scope.user_id is required");
      }
      return files.userFile(scope.workspaceId(), scope.userId());
    }
    throw new IllegalArgumentException("not a curated file: " + path);
  }

  /** Whether {@code path} (canonical, with its leading slash) is a curated file. */
  public static boolean isCurated(String path) {
    return path.equals(MEMORY_PATH) || path.equals(USER_PATH);
  }

  /** The files where they live on disk. */
  public WorkspaceFiles files() {
    return files;
  }

  /**
   * MEMORY.md of the scope's workspace and, when the scope names a user, USER.md of that user, as
   * they are now. The scope's ids must be checked.
   */
  public Frozen freeze(Scope scope) {
    StringBuilder out = new StringBuilder();
    append(
        out, "MEMORY.md", MEMORY_PATH, files.read(files.memoryFile(scope.workspaceId())).content());
    if (!scope.userId().isEmpty()) {
      append(
          out,
          "USER.md",
          USER_PATH,
          files.read(files.userFile(scope.workspaceId(), scope.userId())).content());
    }
    String body = out.toString().strip();
    return new Frozen(body, Digests.sha256Hex(body, 64));
  }

  private static void append(StringBuilder out, String title, String path, String content) {
    String text = content.strip();
    if (text.isEmpty()) {
      return;
    }
    String shown = Limits.cutUtf8(text, MAX_SECTION_FILE_BYTES);
    out.append("### ").append(title).append('\n').append(shown).append('\n');
    if (shown.length() < text.length()) {
      out.append("[... ")
          .append(Limits.utf8Length(text) - Limits.utf8Length(shown))
          .append(" more bytes of ")
          .append(path)
          .append(" not shown; read the file for the rest]\n");
    }
    out.append('\n');
  }
}
