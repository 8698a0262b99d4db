package dev.memsidecar.core.maintenance;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Compacts a memory file ({@code /memories/<profile>.md}) the way its reader would: a line or
 * bullet point that repeats one above it is removed, and runs of blank lines in the file's notes
 * shrink to one. What counts as a repeat: the same text once surrounding spaces are ignored, runs
 * of spaces count as one, and the bullet marks {@code -}, {@code *} and {@code +} count as one;
 * case counts. Lines without a letter or digit (rules, table borders), headings and the lines of
 * code blocks are never removed, nor is a record marker of a deepagents-files entry ({@code <!--
 * memsidecar:...}); each entry is compacted apart from the notes and from the other entries, so no
 * line leaves the entry it belongs to. Stateless and thread-safe.
 */
public final class MarkdownCompaction {
  private static final Pattern FENCE = Pattern.compile("^ {0,3}(```|~~~).*");
  private static final Pattern MARKER =
      Pattern.compile("^[ \\t]*<!--[ \\t]*memsidecar:.*", Pattern.CASE_INSENSITIVE);
  private static final Pattern BULLET = Pattern.compile("^([-*+])\\s+(.*)$");
  private static final Pattern HEADING = Pattern.compile("^ {0,3}#{1,6}(\\s.*)?$");

  private MarkdownCompaction() {}

  /**
   * What compaction made of a file.
   *
   * @param text the compacted text
   * @param duplicateLines lines removed because they repeat a line above them
   * @param blankLines blank lines removed
   */
  public record Result(String text, int duplicateLines, int blankLines) {
    /** Whether anything changed. */
    public boolean changed() {
      return duplicateLines > 0 || blankLines > 0;
    }
  }

  /** Compacts {@code text} as the class description says. */
  public static Result compact(String text) {
    requireNonNull(text, "text is null");
    boolean finalNewline = text.endsWith("\n");
    String[] lines = text.split("\n", -1);
    int count = finalNewline ? lines.length - 1 : lines.length;
    List<String> out = new ArrayList<>(count);
    Set<String> seen = new HashSet<>();
    boolean inFence = false;
    boolean inNotes = true;
    int duplicates = 0;
    int blanks = 0;
    for (int i = 0; i < count; i++) {
      String line = lines[i];
      if (inFence) {
        out.add(line);
        if (FENCE.matcher(line).matches()) {
          inFence = false;
        }
        continue;
      }
      if (FENCE.matcher(line).matches()) {
        inFence = true;
        out.add(line);
        continue;
      }
      if (MARKER.matcher(line).matches()) {
        inNotes = false;
        seen.clear();
        out.add(line);
        continue;
      }
      if (line.isBlank()) {
        if (inNotes && !out.isEmpty() && out.get(out.size() - 1).isBlank()) {
          blanks++;
          continue;
        }
        out.add(line);
        continue;
      }
      String key = key(line);
      if (key != null && !seen.add(key)) {
        duplicates++;
        continue;
      }
      out.add(line);
    }
    if (inNotes) {
      while (!out.isEmpty() && out.get(out.size() - 1).isBlank()) {
        out.remove(out.size() - 1);
        blanks++;
      }
    }
    if (duplicates == 0 && blanks == 0) {
      return new Result(text, 0, 0);
    }
    String joined = String.join("\n", out);
    return new Result(out.isEmpty() || !finalNewline ? joined : joined + "\n", duplicates, blanks);
  }

  /** What makes two lines the same, or null for a line that is never removed. */
  private static String key(String line) {
    String s = line.strip().replaceAll("\\s+", " ");
    if (HEADING.matcher(line).matches() || s.codePoints().noneMatch(Character::isLetterOrDigit)) {
      return null;
    }
    Matcher bullet = BULLET.matcher(s);
    if (bullet.matches()) {
      return "- " + bullet.group(2);
    }
    return s;
  }
}
