package dev.memsidecar.core.curated;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.Ids;
import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.MemoryFile;
import dev.memsidecar.toolkit.DurableFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Locale;

/**
 * The markdown files a workspace keeps on disk apart from any profile, where people and tools may
 * edit them too: {@code <data>/workspaces/<workspace>/MEMORY.md}, {@code
 * <data>/workspaces/<workspace>/users/<user>/USER.md} and {@code
 * <data>/workspaces/<workspace>/skills/<name>/SKILL.md}. Each id is one file name, encoded as the
 * files provider encodes namespaces: {@code a-z 0-9 _ - .} stay, any other character (upper-case
 * letters among them) becomes {@code %XX} per UTF-8 byte, and a leading {@code .} becomes {@code
 * %2E}, so no id is {@code .}, {@code ..} or hidden, and two ids never share a folder on a
 * case-insensitive file system.
 *
 * <p>A file that does not exist reads as empty ({@link MemoryFile#absent()}); its etag is that of
 * its content ({@link MemoryFile#etagOf}), however it was written. Writes replace the whole file
 * durably ({@link DurableFiles#replace}: a temporary file, forced to disk, renamed over the file,
 * the folder forced) and check the etag and write under one lock per file, so two writers of this
 * process never both win; a person editing the file meanwhile is seen by the next read.
 * Thread-safe.
 */
public final class WorkspaceFiles {
  /** The folder under the data directory. */
  public static final String DIRECTORY = "workspaces";

  public static final String MEMORY_FILE = "MEMORY.md";
  public static final String USER_FILE = "USER.md";
  public static final String SKILL_FILE = "SKILL.md";

  private final Path root;
  private final Object[] locks = new Object[64];

  /**
   * @param dataDir the data directory; the files live under its {@value #DIRECTORY} folder
   */
  public WorkspaceFiles(Path dataDir) {
    this.root = requireNonNull(dataDir, "dataDir is null").resolve(DIRECTORY).toAbsolutePath();
    for (int i = 0; i < locks.length; i++) {
      locks[i] = new Object();
    }
  }

  /** {@code <data>/workspaces}: the folder of every workspace's files. */
  public Path root() {
    return root;
  }

  /** The workspace's MEMORY.md. */
  public Path memoryFile(String workspaceId) {
    return inside(workspace(workspaceId).resolve(MEMORY_FILE));
  }

  /** The user's USER.md in the workspace. */
  public Path userFile(String workspaceId, String userId) {
    return inside(
        workspace(workspaceId).resolve("users").resolve(encode(userId)).resolve(USER_FILE));
  }

  /** The SKILL.md of the workspace's skill {@code name}. */
  public Path skillFile(String workspaceId, String name) {
    return inside(
        workspace(workspaceId).resolve("skills").resolve(encode(name)).resolve(SKILL_FILE));
  }

  /** The file at {@code file}, or the absent file's empty content and etag. */
  public MemoryFile read(Path file) {
    try {
      byte[] bytes = Files.readAllBytes(file);
      return MemoryFile.of(
          new String(bytes, StandardCharsets.UTF_8), Files.getLastModifiedTime(file).toInstant());
    } catch (NoSuchFileException e) {
      return MemoryFile.absent();
    } catch (IOException e) {
      throw MemoryException.unavailable("cannot read " + relative(file) + ": " + e, e);
    }
  }

  /** Whether the file exists. */
  public boolean exists(Path file) {
    return Files.isRegularFile(file);
  }

  /**
   * Replaces the file with {@code content}, durably, if {@code expectedEtag} is empty or the file's
   * current etag; otherwise ABORTED and nothing changes.
   */
  public MemoryFile write(Path file, String content, String expectedEtag) {
    requireNonNull(content, "content is null");
    requireNonNull(expectedEtag, "expectedEtag is null");
    synchronized (locks[Math.floorMod(file.hashCode(), locks.length)]) {
      MemoryFile current = read(file);
      if (!expectedEtag.isEmpty() && !expectedEtag.equals(current.etag())) {
        throw MemoryException.aborted(
            "etag "
                + Ids.quote(expectedEtag)
                + " is stale; "
                + relative(file)
                + " is now at '"
                + current.etag()
                + "'");
      }
      try {
        DurableFiles.replace(root, file, content.getBytes(StandardCharsets.UTF_8));
        Instant written = Files.getLastModifiedTime(file).toInstant();
        return MemoryFile.of(content, written);
      } catch (IOException e) {
        throw MemoryException.unavailable("cannot write " + relative(file) + ": " + e, e);
      }
    }
  }

  /** {@code file} relative to the data directory, for messages. */
  public String relative(Path file) {
    return DIRECTORY + "/" + root.relativize(file).toString().replace('\\', '/');
  }

  private Path workspace(String workspaceId) {
    return root.resolve(encode(Ids.require("scope.workspace_id", workspaceId)));
  }

  private Path inside(Path p) {
    Path normal = p.normalize();
    if (!normal.startsWith(root) || normal.equals(root)) {
      // Unreachable with the encoding below; a guard against a future change to it.
      throw new IllegalStateException(p + " is outside " + root);
    }
    return normal;
  }

  /** One file name for an id, as the class description says. */
  static String encode(String id) {
    StringBuilder out = new StringBuilder(id.length() + 8);
    for (int i = 0; i < id.length(); ) {
      int cp = id.codePointAt(i);
      boolean plain =
          (cp >= 'a' && cp <= 'z')
              || (cp >= '0' && cp <= '9')
              || cp == '_'
              || cp == '-'
              || (cp == '.' && i != 0);
      if (plain) {
        out.append((char) cp);
      } else {
        for (byte b : new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8)) {
          out.append('%').append(String.format(Locale.ROOT, "%02X", b & 0xff));
        }
      }
      i += Character.charCount(cp);
    }
    return out.isEmpty() ? "%" : out.toString();
  }
}
