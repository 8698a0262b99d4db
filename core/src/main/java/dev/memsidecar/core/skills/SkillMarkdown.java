package dev.memsidecar.core.skills;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.Ids;
import dev.memsidecar.api.MemoryException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The front matter of a SKILL.md: the file opens with a line {@code ---}, then {@code key: value}
 * lines ({@code name}, an id; {@code description}, one line of at most {@value
 * #MAX_DESCRIPTION_CHARS} characters; {@code version}, written at publish; any other key is kept as
 * it is), then {@code ---}; the body follows. A value may be plain, in double quotes ({@code \"}
 * and {@code \\} escaped) or in single quotes ({@code ''} for a quote). Stateless.
 *
 * @param name the front matter's {@code name}
 * @param description its {@code description}
 * @param frontMatter its lines between the two {@code ---} lines
 * @param body what follows the front matter
 */
public record SkillMarkdown(
    String name, String description, List<String> frontMatter, String body) {
  /** The longest description the front matter may give. */
  public static final int MAX_DESCRIPTION_CHARS = 1024;

  /** The largest SKILL.md, UTF-8 bytes. */
  public static final int MAX_BYTES = 64 * 1024;

  public SkillMarkdown {
    requireNonNull(name, "name is null");
    requireNonNull(description, "description is null");
    frontMatter = List.copyOf(frontMatter);
    requireNonNull(body, "body is null");
  }

  /**
   * Reads a SKILL.md; INVALID_ARGUMENT naming {@code field} when it has no front matter, or its
   * name or description is missing or malformed.
   */
  public static SkillMarkdown parse(String field, String text) {
    String t = text.replace("\r\n", "\n");
    if (!t.startsWith("---\n")) {
      throw bad(field, "must open with a front matter block: a line ---, name: and description:");
    }
    int end = t.indexOf("\n---", 3);
    while (end >= 0 && !(end + 4 == t.length() || t.charAt(end + 4) == '\n')) {
      end = t.indexOf("\n---", end + 1);
    }
    if (end < 0) {
      throw bad(field, "has no closing --- line after its front matter");
    }
    List<String> lines = List.of(t.substring(4, end).split("\n", -1));
    String name = null;
    String description = null;
    for (String line : lines) {
      int colon = line.indexOf(':');
      if (line.isBlank() || line.startsWith("#") || colon <= 0) {
        continue;
      }
      String key = line.substring(0, colon).strip().toLowerCase(Locale.ROOT);
      String value = unquote(line.substring(colon + 1).strip());
      if (key.equals("name")) {
        name = value;
      } else if (key.equals("description")) {
        description = value;
      }
    }
    if (name == null || !Ids.isValid(name)) {
      throw bad(
          field,
          "front matter needs a name matching " + Ids.ID.pattern() + ", got " + Ids.quote(name));
    }
    if (description == null || description.isBlank()) {
      throw bad(field, "front matter needs a description");
    }
    if (description.length() > MAX_DESCRIPTION_CHARS) {
      throw bad(field, "front matter description is over " + MAX_DESCRIPTION_CHARS + " characters");
    }
    String body = end + 4 >= t.length() ? "" : t.substring(end + 5);
    return new SkillMarkdown(name, description, lines, body);
  }

  /** The markdown of a new draft: name and description, then {@code body}. */
  public static String render(String name, String description, String body) {
    return "---\nname: "
        + name
        + "\ndescription: "
        + quote(description)
        + "\n---\n\n"
        + body.strip()
        + "\n";
  }

  /** This file with {@code version: "<version>"} in its front matter, replacing one it had. */
  public String withVersion(int version) {
    List<String> lines = new ArrayList<>();
    boolean set = false;
    for (String line : frontMatter) {
      if (line.strip().toLowerCase(Locale.ROOT).startsWith("version:")) {
        if (!set) {
          lines.add("version: \"" + version + "\"");
          set = true;
        }
      } else {
        lines.add(line);
      }
    }
    if (!set) {
      lines.add("version: \"" + version + "\"");
    }
    return "---\n" + String.join("\n", lines) + "\n---\n" + body;
  }

  /** A value in double quotes, escaped, on one line. */
  static String quote(String value) {
    String one = value.replace("\r", " ").replace("\n", " ").strip();
    return "\"" + one.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }

  private static String unquote(String v) {
    if (v.length() >= 2 && v.startsWith("\"") && v.endsWith("\"")) {
      StringBuilder out = new StringBuilder();
      for (int i = 1; i < v.length() - 1; i++) {
        char c = v.charAt(i);
        if (c == '\\' && i + 1 < v.length() - 1) {
          out.append(v.charAt(++i));
        } else {
          out.append(c);
        }
      }
      return out.toString();
    }
    if (v.length() >= 2 && v.startsWith("'") && v.endsWith("'")) {
      return v.substring(1, v.length() - 1).replace("''", "'");
    }
    return v;
  }

  private static MemoryException bad(String field, String why) {
    return MemoryException.invalidArgument(field, field + " " + why);
  }
}
