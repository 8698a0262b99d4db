package dev.memsidecar.core;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.Ids;
import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.MemoryFile;
import dev.memsidecar.core.curated.CuratedMemory;
import dev.memsidecar.core.skills.SkillFiles;
import dev.memsidecar.core.skills.SkillService;
import jakarta.inject.Inject;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The deepagentsMem path: each enabled profile's markdown file, seen by the agent as {@code
 * /memories/<profile>.md} and resolved inside the caller's scope (a workspace profile's file is
 * shared within its workspace, a user profile's file is per user, and so on). Paths are virtual:
 * anything but exactly {@code /memories/<profile id>.md} is INVALID_ARGUMENT. Reads answer to
 * {@code deepagentsMem.read}, writes and edits to {@code deepagentsMem.write}, and a read-only
 * request may not write or edit ({@link AccessPolicy}).
 *
 * <p>The same calls reach the workspace's other markdown, which no flag governs (only a read-only
 * request may not change it) and no listing shows: the curated {@code /MEMORY.md} of the workspace
 * and {@code /USER.md} of the scope's user ({@link CuratedMemory}), read and written like the
 * memory files, and a published skill's {@code /skills/<name>/SKILL.md}, read only (PublishSkill
 * writes it). Their leading slash may be left out.
 */
public final class MemoryFiles {
  public static final String ROOT = "/memories/";
  public static final String SUFFIX = ".md";

  private static final int EDIT_ATTEMPTS = 3;

  private final AccessPolicy access;
  private final CuratedMemory curated;
  private final SkillService skills;

  /** A file and its virtual path. */
  public record FileView(String path, MemoryFile file) {}

  /** One file, whichever kind: read it, or replace it if the etag (when given) is current. */
  private interface Slot {
    MemoryFile read();

    MemoryFile write(String content, String etag);
  }

  @Inject
  public MemoryFiles(AccessPolicy access, CuratedMemory curated, SkillService skills) {
    this.access = requireNonNull(access, "access is null");
    this.curated = requireNonNull(curated, "curated is null");
    this.skills = requireNonNull(skills, "skills is null");
  }

  /** The virtual path of a profile's file. */
  public static String pathOf(String profileId) {
    return ROOT + profileId + SUFFIX;
  }

  /**
   * Every file the scope can reach: one per enabled profile whose scope id the caller sent, whether
   * or not it was written yet (content left empty). Empty when deepagentsMem.read is off.
   */
  public List<FileView> list(Scope scope, RequestOptions options) {
    List<FileView> out = new ArrayList<>();
    for (AccessPolicy.Target t : access.readable(scope, List.of(), Access.FILES_READ, options)) {
      options.checkNotCancelled();
      MemoryFile f = t.store().readFile(t.namespace());
      out.add(new FileView(pathOf(t.profileId()), new MemoryFile("", f.etag(), f.updateTime())));
    }
    return List.copyOf(out);
  }

  public FileView read(Scope scope, String path, RequestOptions options) {
    String workspaceFile = workspacePath(path);
    if (workspaceFile != null) {
      String skill = SkillFiles.nameOf(workspaceFile);
      if (skill != null) {
        access.workspace(scope, Access.READ, options);
        return new FileView(workspaceFile, skills.file(scope, skill));
      }
      return new FileView(workspaceFile, slot(scope, workspaceFile, false, options).read());
    }
    AccessPolicy.Target t = access.resolve(scope, profileOf(path), Access.FILES_READ, options);
    return new FileView(path, t.store().readFile(t.namespace()));
  }

  /** Replaces the file; a non-empty {@code etag} that is stale is ABORTED. */
  public FileView write(
      Scope scope, String path, String content, String etag, RequestOptions options) {
    String workspaceFile = workspacePath(path);
    if (workspaceFile != null) {
      checkSize(content);
      return new FileView(
          workspaceFile, slot(scope, workspaceFile, true, options).write(content, etag));
    }
    checkSize(content);
    AccessPolicy.Target t = access.resolve(scope, profileOf(path), Access.FILES_WRITE, options);
    return new FileView(path, t.store().writeFile(t.namespace(), content, etag));
  }

  /** What {@link #write} checks before it writes, without writing (an import checks first). */
  public void checkWrite(Scope scope, String path, String content, RequestOptions options) {
    checkSize(content);
    String workspaceFile = workspacePath(path);
    if (workspaceFile != null) {
      slot(scope, workspaceFile, true, options);
    } else {
      access.resolve(scope, profileOf(path), Access.FILES_WRITE, options);
    }
  }

  /**
   * Replaces the one occurrence of {@code oldText} with {@code newText}, like an agent's edit_file
   * tool. {@code oldText} must occur exactly once (INVALID_ARGUMENT otherwise). With an {@code
   * etag} the edit applies only to that version (ABORTED if stale); without one it applies to the
   * latest, retrying when a concurrent write lands between read and write.
   */
  public FileView edit(
      Scope scope,
      String path,
      String oldText,
      String newText,
      String etag,
      RequestOptions options) {
    String workspaceFile = workspacePath(path);
    String profileId = workspaceFile == null ? profileOf(path) : null;
    if (oldText.isEmpty()) {
      throw MemoryException.invalidArgument("old_text", "old_text is required");
    }
    Limits.checkBytes("old_text", oldText, Limits.MAX_FILE_BYTES);
    Limits.checkBytes("new_text", newText, Limits.MAX_FILE_BYTES);
    Slot file;
    if (workspaceFile != null) {
      file = slot(scope, workspaceFile, true, options);
      path = workspaceFile;
    } else {
      AccessPolicy.Target t = access.resolve(scope, profileId, Access.FILES_WRITE, options);
      file =
          new Slot() {
            @Override
            public MemoryFile read() {
              return t.store().readFile(t.namespace());
            }

            @Override
            public MemoryFile write(String content, String etag) {
              return t.store().writeFile(t.namespace(), content, etag);
            }
          };
    }
    for (int attempt = 1; ; attempt++) {
      MemoryFile current = file.read();
      if (!etag.isEmpty() && !etag.equals(current.etag())) {
        throw MemoryException.aborted(
            "etag " + Ids.quote(etag) + " is stale; the file is now at '" + current.etag() + "'");
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
        return new FileView(path, file.write(edited, current.etag()));
      } catch (MemoryException e) {
        if (e.code() != MemoryException.Code.ABORTED
            || !etag.isEmpty()
            || attempt == EDIT_ATTEMPTS) {
          throw e;
        }
      }
    }
  }

  /**
   * The canonical path (with its leading slash) of a workspace file {@code path} names ({@code
   * /MEMORY.md}, {@code /USER.md}, {@code /skills/<name>/SKILL.md}), or null when it names none.
   */
  private static String workspacePath(String path) {
    if (path == null || path.isEmpty()) {
      return null;
    }
    String p = path.startsWith("/") ? path : "/" + path;
    if (CuratedMemory.isCurated(p)) {
      return p;
    }
    String skill = SkillFiles.nameOf(p);
    return skill == null ? null : SkillFiles.pathOf(skill);
  }

  /**
   * A curated file of the scope; a skill's file only to read (INVALID_ARGUMENT naming {@code path}
   * to write: PublishSkill writes it). A read-only request may not write (PERMISSION_DENIED).
   */
  private Slot slot(Scope scope, String path, boolean write, RequestOptions options) {
    access.workspace(scope, write ? Access.WRITE : Access.READ, options);
    if (SkillFiles.nameOf(path) != null) {
      throw MemoryException.invalidArgument(
          "path",
          "path "
              + Ids.quote(path)
              + " is a published skill: PublishSkill writes it, after review; edit the candidate's"
              + " draft instead (ReviewSkillCandidate)");
    }
    Path file = curated.fileOf(scope, path);
    return new Slot() {
      @Override
      public MemoryFile read() {
        return curated.files().read(file);
      }

      @Override
      public MemoryFile write(String content, String etag) {
        return curated.files().write(file, content, etag);
      }
    };
  }

  /** The profile id of a path {@code /memories/<id>.md}; anything else is INVALID_ARGUMENT. */
  static String profileOf(String path) {
    if (path == null || path.isEmpty()) {
      throw MemoryException.invalidArgument(
          "path", "path is required, e.g. /memories/workspace.md");
    }
    if (path.startsWith(ROOT) && path.endsWith(SUFFIX)) {
      String id = path.substring(ROOT.length(), path.length() - SUFFIX.length());
      if (Ids.isValid(id)) {
        return id;
      }
    }
    throw MemoryException.invalidArgument(
        "path",
        "path "
            + Ids.quote(path)
            + " must be /memories/<profile>.md with a profile id, /MEMORY.md, /USER.md or"
            + " /skills/<name>/SKILL.md");
  }

  private static void checkSize(String content) {
    Limits.checkBytes("content", content, Limits.MAX_FILE_BYTES);
  }
}
