package dev.memsidecar.provider.deepagents;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.Namespace;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The markdown format of a memory file: how records are entries of it, and back.
 *
 * <h2>Format</h2>
 *
 * <pre>{@code
 * # workspace memory
 *
 * <!-- memsidecar:record {"id":"r1","kind":"PROCEDURAL","status":"ACTIVE","tags":["ci"],...} -->
 * The release gate is `npm run check:rules`.
 *
 * <!-- memsidecar:record {"id":"r2",...} -->
 * Alice prefers dark roast coffee.
 * }</pre>
 *
 * <ul>
 *   <li>A <b>marker</b> is a line {@code <!-- memsidecar:record {JSON} -->}: an HTML comment, so
 *       markdown viewers hide it, holding every field of the record but its content ({@link
 *       MarkerJson}). Spaces and tabs may surround its parts, and a trailing {@code \r} (CRLF
 *       files) is ignored.
 *   <li>An <b>entry</b> is a marker and the lines after it up to the next marker or the end of the
 *       file. Its <b>content</b> is those lines, less the blank lines (empty or only spaces, tabs,
 *       {@code \r}) at their start and end, joined with {@code \n}, each unescaped.
 *   <li>The <b>preamble</b> is everything before the first marker: a title, notes the agent wrote
 *       itself. It is not a record, and writing records keeps it byte for byte (adding only a line
 *       break when it does not end with one, so the first marker starts a line).
 *   <li>Any line that begins, after spaces or tabs, with {@code <!--} and then {@code memsidecar:}
 *       (any case) is a marker attempt: if it is not a well-formed marker the whole file is
 *       malformed ({@link MalformedMemoryFile} names the line). So a typo in a marker makes the
 *       file refused instead of silently merging its record into the one above.
 * </ul>
 *
 * <h2>Escaping of content</h2>
 *
 * Content is written as it is, line for line, so a person and an agent read plain markdown; a
 * content line gets one backslash in front of it (removed again when read) when it
 *
 * <ul>
 *   <li>starts with a backslash itself, so every first backslash of a line is an escape;
 *   <li>would be a marker attempt (see above), e.g. a line {@code <!-- memsidecar:record {...} -->}
 *       quoted in a memory;
 *   <li>is blank and at the start or end of the content (so leading and trailing blank lines and a
 *       final line break survive the trimming of separators).
 * </ul>
 *
 * This is markdown's own backslash escape, so a rendered file shows the content. Other {@code <!--}
 * text, code fences, headings and CJK are kept verbatim: parsing looks only at marker attempts, so
 * they cannot confuse it. Empty content is an entry with no lines. Line breaks in content are
 * {@code \n}; a {@code \r} is kept as a character of its line.
 *
 * <p>Stateless and thread-safe; {@link Document}s are immutable.
 */
final class MemoryMarkdown {
  static final String MARKER_START = "<!-- memsidecar:record ";
  static final String MARKER_END = " -->";

  /** A line that means to be a marker. */
  private static final Pattern MARKER_ATTEMPT =
      Pattern.compile("[ \\t]*<!--[ \\t]*memsidecar:", Pattern.CASE_INSENSITIVE);

  /** A well-formed marker; DOTALL because JSON strings may hold U+2028 and other separators. */
  private static final Pattern MARKER =
      Pattern.compile(
          "[ \\t]*<!--[ \\t]*memsidecar:record[ \\t]+(\\{.*\\})[ \\t]*-->[ \\t\\r]*",
          Pattern.DOTALL);

  private MemoryMarkdown() {}

  /** One entry of a parsed file: its record and where its text is. */
  record Entry(MemoryRecord record, int start, int end) {}

  /** A parsed memory file: its text, where the preamble ends, and its entries in file order. */
  static final class Document {
    private final String text;
    private final int preambleEnd;
    private final List<Entry> entries;
    private final Map<String, Integer> indexById;

    private Document(String text, int preambleEnd, List<Entry> entries) {
      this.text = text;
      this.preambleEnd = preambleEnd;
      this.entries = Collections.unmodifiableList(entries);
      this.indexById = new HashMap<>(entries.size() * 2);
      for (int i = 0; i < entries.size(); i++) {
        indexById.put(entries.get(i).record().id(), i);
      }
    }

    String text() {
      return text;
    }

    String preamble() {
      return text.substring(0, preambleEnd);
    }

    List<Entry> entries() {
      return entries;
    }

    MemoryRecord record(String id) {
      Integer i = indexById.get(id);
      return i == null ? null : entries.get(i).record();
    }

    /**
     * The file with {@code record}'s entry replaced in place, or appended when it has none. Other
     * entries and the preamble keep their text, and their parsed records are reused.
     *
     * @param preambleIfEmpty the preamble to start with when this document has no text at all
     * @param namespace the file's namespace
     * @throws IllegalStateException if the entry written for {@code record} would not read back as
     *     {@code record} (a bug of this format; nothing should be written then)
     */
    Document with(MemoryRecord record, String preambleIfEmpty, Namespace namespace) {
      String entryText = entry(record);
      MemoryRecord back;
      try {
        back = parse(entryText, namespace, record.profile()).entries().get(0).record();
      } catch (MalformedMemoryFile | RuntimeException e) {
        throw new IllegalStateException("entry of '" + record.id() + "' does not parse", e);
      }
      if (!back.equals(record)) {
        throw new IllegalStateException("entry of '" + record.id() + "' reads back differently");
      }
      List<Piece> pieces = new ArrayList<>(entries.size() + 1);
      boolean replaced = false;
      for (Entry e : entries) {
        if (e.record().id().equals(record.id())) {
          pieces.add(new Piece(record, entryText));
          replaced = true;
        } else {
          pieces.add(new Piece(e.record(), text.substring(e.start(), e.end())));
        }
      }
      if (!replaced) {
        pieces.add(new Piece(record, entryText));
      }
      return join(text.isEmpty() ? preambleIfEmpty : preamble(), pieces);
    }

    /** The file without the entry of {@code id}; this document when it has none. */
    Document without(String id) {
      if (!indexById.containsKey(id)) {
        return this;
      }
      List<Piece> pieces = new ArrayList<>(entries.size());
      for (Entry e : entries) {
        if (!e.record().id().equals(id)) {
          pieces.add(new Piece(e.record(), text.substring(e.start(), e.end())));
        }
      }
      return join(preamble(), pieces);
    }
  }

  /** An entry's record and the text it is written as. */
  private record Piece(MemoryRecord record, String text) {}

  /** Thrown when a file cannot be read as records; the message names the line. */
  static final class MalformedMemoryFile extends Exception {
    private static final long serialVersionUID = 1L;
    private final int line;

    MalformedMemoryFile(int line, String reason) {
      super("line " + line + ": " + reason);
      this.line = line;
    }

    int line() {
      return line;
    }
  }

  /** The preamble a new file starts with. */
  static String newFilePreamble(String profileId) {
    return "# " + profileId + " memory\n\n";
  }

  /**
   * Parses a memory file of {@code namespace}.
   *
   * @param defaultProfile the profile of a marker that names none
   * @throws MalformedMemoryFile naming the first line that is not valid
   */
  static Document parse(String text, Namespace namespace, String defaultProfile)
      throws MalformedMemoryFile {
    requireNonNull(text, "text is null");
    // Each marker: start offset, offset after its line break, line number, JSON.
    List<int[]> markers = new ArrayList<>();
    List<String> jsons = new ArrayList<>();
    Matcher attempt = MARKER_ATTEMPT.matcher(text);
    Matcher marker = MARKER.matcher(text);
    int pos = 0;
    int line = 1;
    while (pos < text.length()) {
      int nl = text.indexOf('\n', pos);
      int lineEnd = nl < 0 ? text.length() : nl;
      int next = nl < 0 ? text.length() : nl + 1;
      if (mayBeMarker(text, pos, lineEnd) && attempt.region(pos, lineEnd).lookingAt()) {
        if (!marker.region(pos, lineEnd).matches()) {
          throw new MalformedMemoryFile(
              line,
              "not a well-formed marker; expected "
                  + MARKER_START
                  + "{...}"
                  + MARKER_END
                  + " on one line");
        }
        markers.add(new int[] {pos, next, line});
        jsons.add(marker.group(1));
      }
      pos = next;
      line++;
    }
    List<Entry> entries = new ArrayList<>(markers.size());
    Map<String, Integer> lineById = new HashMap<>();
    for (int i = 0; i < markers.size(); i++) {
      int[] m = markers.get(i);
      int end = i + 1 < markers.size() ? markers.get(i + 1)[0] : text.length();
      String content = unescapeBody(text, m[1], end);
      MemoryRecord record;
      try {
        record = MarkerJson.decode(jsons.get(i), namespace, defaultProfile, content);
      } catch (IllegalArgumentException e) {
        throw new MalformedMemoryFile(m[2], "bad marker: " + e.getMessage());
      }
      Integer earlier = lineById.putIfAbsent(record.id(), m[2]);
      if (earlier != null) {
        throw new MalformedMemoryFile(
            m[2], "id '" + record.id() + "' is already the id of the entry at line " + earlier);
      }
      entries.add(new Entry(record, m[0], end));
    }
    int preambleEnd = markers.isEmpty() ? text.length() : markers.get(0)[0];
    return new Document(text, preambleEnd, entries);
  }

  /** The canonical text of {@code record}'s entry: its marker line and its escaped content. */
  static String entry(MemoryRecord record) {
    String content = record.content();
    StringBuilder out = new StringBuilder(content.length() + 512);
    out.append(MARKER_START).append(MarkerJson.encode(record)).append(MARKER_END).append('\n');
    if (content.isEmpty()) {
      return out.toString();
    }
    String[] lines = content.split("\n", -1);
    int first = 0;
    while (first < lines.length && isBlank(lines[first], 0, lines[first].length())) {
      first++;
    }
    int last = lines.length - 1;
    while (last >= first && isBlank(lines[last], 0, lines[last].length())) {
      last--;
    }
    for (int i = 0; i < lines.length; i++) {
      String l = lines[i];
      boolean escape =
          i < first
              || i > last
              || l.startsWith("\\")
              || (mayBeMarker(l, 0, l.length()) && MARKER_ATTEMPT.matcher(l).lookingAt());
      if (escape) {
        out.append('\\');
      }
      out.append(l).append('\n');
    }
    return out.toString();
  }

  /**
   * {@code preamble} then the pieces, each starting a line, with a blank line between two. Line
   * breaks added to separate them belong to no entry: a later rewrite adds them again.
   */
  private static Document join(String preamble, List<Piece> pieces) {
    int size = preamble.length() + 2;
    for (Piece p : pieces) {
      size += p.text().length() + 2;
    }
    StringBuilder out = new StringBuilder(size);
    out.append(preamble);
    List<Entry> entries = new ArrayList<>(pieces.size());
    for (int i = 0; i < pieces.size(); i++) {
      if (!out.isEmpty() && out.charAt(out.length() - 1) != '\n') {
        out.append('\n');
      }
      if (i > 0 && !endsWithBlankLine(out)) {
        out.append('\n');
      }
      int start = out.length();
      out.append(pieces.get(i).text());
      entries.add(new Entry(pieces.get(i).record(), start, out.length()));
    }
    return new Document(out.toString(), preamble.length(), entries);
  }

  /** The content held by {@code text[from, to)}, the lines after a marker. */
  private static String unescapeBody(String text, int from, int to) {
    if (to > from && text.charAt(to - 1) == '\n') {
      to--; // the last line's break ends the line; it is not a line of its own
    }
    if (from >= to) {
      return "";
    }
    List<int[]> lines = new ArrayList<>();
    int pos = from;
    while (true) {
      int nl = text.indexOf('\n', pos);
      if (nl < 0 || nl >= to) {
        lines.add(new int[] {pos, to});
        break;
      }
      lines.add(new int[] {pos, nl});
      pos = nl + 1;
    }
    int first = 0;
    while (first < lines.size() && isBlank(text, lines.get(first)[0], lines.get(first)[1])) {
      first++;
    }
    int last = lines.size() - 1;
    while (last >= first && isBlank(text, lines.get(last)[0], lines.get(last)[1])) {
      last--;
    }
    StringBuilder out = new StringBuilder(to - from);
    for (int i = first; i <= last; i++) {
      int s = lines.get(i)[0];
      int e = lines.get(i)[1];
      if (i > first) {
        out.append('\n');
      }
      if (s < e && text.charAt(s) == '\\') {
        s++;
      }
      out.append(text, s, e);
    }
    return out.toString();
  }

  /** Cheap pre-check before the regex: the first non-blank character is '<'. */
  private static boolean mayBeMarker(String s, int from, int to) {
    for (int i = from; i < to; i++) {
      char c = s.charAt(i);
      if (c != ' ' && c != '\t') {
        return c == '<';
      }
    }
    return false;
  }

  private static boolean isBlank(String s, int from, int to) {
    for (int i = from; i < to; i++) {
      char c = s.charAt(i);
      if (c != ' ' && c != '\t' && c != '\r') {
        return false;
      }
    }
    return true;
  }

  private static boolean endsWithBlankLine(StringBuilder out) {
    // out ends with '\n'; the line before that break must be blank.
    int end = out.length() - 1;
    int start = end;
    while (start > 0 && out.charAt(start - 1) != '\n') {
      start--;
    }
    if (start == 0) {
      return false;
    }
    for (int i = start; i < end; i++) {
      char c = out.charAt(i);
      if (c != ' ' && c != '\t' && c != '\r') {
        return false;
      }
    }
    return true;
  }
}
