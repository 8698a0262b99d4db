package dev.memsidecar.core.skills;

import dev.memsidecar.api.Ids;
import dev.memsidecar.core.curated.WorkspaceFiles;

/**
 * How the files API names a published skill's file: {@code /skills/<name>/SKILL.md}, the name an id
 * (the leading slash may be left out). Stateless.
 */
public final class SkillFiles {
  public static final String ROOT = "/skills/";
  public static final String SUFFIX = "/" + WorkspaceFiles.SKILL_FILE;

  private SkillFiles() {}

  /** The path of skill {@code name}'s file. */
  public static String pathOf(String name) {
    return ROOT + name + SUFFIX;
  }

  /** The skill a path names, or null when it names no skill file. */
  public static String nameOf(String path) {
    String p = path.startsWith("/") ? path : "/" + path;
    if (!p.startsWith(ROOT) || !p.endsWith(SUFFIX)) {
      return null;
    }
    String name = p.substring(ROOT.length(), p.length() - SUFFIX.length());
    return Ids.isValid(name) ? name : null;
  }
}
