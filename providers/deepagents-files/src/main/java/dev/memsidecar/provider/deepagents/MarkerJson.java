package dev.memsidecar.provider.deepagents;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.MemoryKind;
import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.MemoryStatus;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.api.Validity;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The JSON object of a record marker: every {@link MemoryRecord} field but the content, on one
 * line. Stateless and thread-safe.
 *
 * <p><b>Encoding</b> writes the keys in a fixed order ({@link #KEYS}), times as ISO-8601 instants
 * ({@link Instant#toString()}, nanoseconds kept), floats with {@link Float#toString(float)} (which
 * round-trips exactly; NaN and the infinities, which JSON numbers cannot hold, as the strings
 * {@code "NaN"}, {@code "Infinity"}, {@code "-Infinity"}), metadata with sorted keys, and a missing
 * expire time as {@code null}. Strings escape quote, backslash, control characters, unpaired
 * surrogates and {@code >} (as {@code \u003e}, so the text can never close the HTML comment it sits
 * in); every other character, CJK included, is written as itself.
 *
 * <p><b>Decoding</b> takes any JSON object with those keys, so a person can write a marker by hand:
 * only {@code id} and {@code createTime} are required; {@code updateTime} defaults to the create
 * time, {@code profile} to the store's profile, and the rest to {@link MemoryRecord#builder()}'s
 * defaults. {@code namespace}, when present, must be the file's own. An unknown key, a duplicate
 * key or a value of the wrong type fails with {@link IllegalArgumentException} naming it, so a typo
 * cannot silently drop a field.
 */
final class MarkerJson {
  /** Every key a marker may hold, in the order they are written. */
  static final List<String> KEYS =
      List.of(
          "id",
          "kind",
          "status",
          "tags",
          "createTime",
          "updateTime",
          "summary",
          "confidence",
          "gateScore",
          "sensitivity",
          "validity",
          "expireTime",
          "sourceRefs",
          "metadata",
          "context",
          "profile",
          "namespace");

  private static final Set<String> KNOWN = Set.copyOf(KEYS);
  private static final int MAX_DEPTH = 8;

  private MarkerJson() {}

  /** The marker JSON of {@code r}: one line, no {@code >} and no line break in it. */
  static String encode(MemoryRecord r) {
    StringBuilder out = new StringBuilder(256 + r.context().length() + r.summary().length());
    out.append('{');
    key(out, "id", true);
    string(out, r.id());
    key(out, "kind", false);
    string(out, r.kind().name());
    key(out, "status", false);
    string(out, r.status().name());
    key(out, "tags", false);
    strings(out, r.tags());
    key(out, "createTime", false);
    string(out, r.createTime().toString());
    key(out, "updateTime", false);
    string(out, r.updateTime().toString());
    key(out, "summary", false);
    string(out, r.summary());
    key(out, "confidence", false);
    number(out, r.confidence());
    key(out, "gateScore", false);
    number(out, r.gateScore());
    key(out, "sensitivity", false);
    string(out, r.sensitivity());
    key(out, "validity", false);
    string(out, r.validity().name());
    key(out, "expireTime", false);
    if (r.expireTime() == null) {
      out.append("null");
    } else {
      string(out, r.expireTime().toString());
    }
    key(out, "sourceRefs", false);
    strings(out, r.sourceRefs());
    key(out, "metadata", false);
    out.append('{');
    boolean first = true;
    for (Map.Entry<String, String> e : new TreeMap<>(r.metadata()).entrySet()) {
      if (!first) {
        out.append(',');
      }
      first = false;
      string(out, e.getKey());
      out.append(':');
      string(out, e.getValue());
    }
    out.append('}');
    key(out, "context", false);
    string(out, r.context());
    key(out, "profile", false);
    string(out, r.profile());
    key(out, "namespace", false);
    string(out, r.namespace().value());
    return out.append('}').toString();
  }

  /**
   * The record a marker describes.
   *
   * @param namespace the file's namespace, which the record gets
   * @param defaultProfile the profile of a marker without one
   * @param content the entry's text below the marker, already unescaped
   * @throws IllegalArgumentException naming what is wrong with the JSON
   */
  static MemoryRecord decode(
      String json, Namespace namespace, String defaultProfile, String content) {
    Object parsed = new Parser(json).document();
    if (!(parsed instanceof Map<?, ?> raw)) {
      throw new IllegalArgumentException("the marker must hold a JSON object");
    }
    @SuppressWarnings("unchecked")
    Map<String, Object> fields = (Map<String, Object>) raw;
    for (String key : fields.keySet()) {
      if (!KNOWN.contains(key)) {
        throw new IllegalArgumentException(
            "unknown key '"
                + key
                + "'"
                + (key.equals("content") ? " (the content is the text below the marker)" : "")
                + "; known keys: "
                + new TreeSet<>(KNOWN));
      }
    }
    String ns = optionalString(fields, "namespace");
    if (ns != null && !ns.equals(namespace.value())) {
      throw new IllegalArgumentException(
          "namespace '" + ns + "' is not this file's namespace '" + namespace + "'");
    }
    Instant createTime = instant(fields, "createTime");
    if (createTime == null) {
      throw new IllegalArgumentException("key 'createTime' is required");
    }
    Instant updateTime = instant(fields, "updateTime");
    String id = optionalString(fields, "id");
    if (id == null) {
      throw new IllegalArgumentException("key 'id' is required");
    }
    MemoryRecord.Builder b =
        MemoryRecord.builder()
            .id(id)
            .namespace(namespace)
            .content(content)
            .createTime(createTime)
            .updateTime(updateTime == null ? createTime : updateTime);
    String profile = optionalString(fields, "profile");
    b.profile(profile == null ? defaultProfile : profile);
    if (fields.containsKey("kind")) {
      b.kind(enumValue(fields, "kind", MemoryKind.class));
    }
    if (fields.containsKey("status")) {
      b.status(enumValue(fields, "status", MemoryStatus.class));
    }
    if (fields.containsKey("validity")) {
      b.validity(enumValue(fields, "validity", Validity.class));
    }
    if (fields.containsKey("tags")) {
      List<String> tags = stringList(fields, "tags");
      if (new java.util.HashSet<>(tags).size() != tags.size()) {
        throw new IllegalArgumentException("key 'tags' holds a tag twice: " + tags);
      }
      b.tags(tags);
    }
    if (fields.containsKey("sourceRefs")) {
      b.sourceRefs(stringList(fields, "sourceRefs"));
    }
    if (fields.containsKey("metadata")) {
      b.metadata(stringMap(fields, "metadata"));
    }
    String summary = optionalString(fields, "summary");
    if (summary != null) {
      b.summary(summary);
    }
    String context = optionalString(fields, "context");
    if (context != null) {
      b.context(context);
    }
    String sensitivity = optionalString(fields, "sensitivity");
    if (sensitivity != null) {
      b.sensitivity(sensitivity);
    }
    if (fields.containsKey("confidence")) {
      b.confidence(floatValue(fields, "confidence"));
    }
    if (fields.containsKey("gateScore")) {
      b.gateScore(floatValue(fields, "gateScore"));
    }
    b.expireTime(instant(fields, "expireTime"));
    try {
      return b.build();
    } catch (MemoryException | NullPointerException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
  }

  // ---- encoding

  private static void key(StringBuilder out, String key, boolean first) {
    if (!first) {
      out.append(',');
    }
    out.append('"').append(key).append("\":");
  }

  private static void strings(StringBuilder out, List<String> values) {
    out.append('[');
    for (int i = 0; i < values.size(); i++) {
      if (i > 0) {
        out.append(',');
      }
      string(out, values.get(i));
    }
    out.append(']');
  }

  private static void number(StringBuilder out, float v) {
    if (Float.isNaN(v)) {
      out.append("\"NaN\"");
    } else if (Float.isInfinite(v)) {
      out.append(v > 0 ? "\"Infinity\"" : "\"-Infinity\"");
    } else {
      out.append(Float.toString(v));
    }
  }

  static void string(StringBuilder out, String s) {
    requireNonNull(s, "string is null");
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        case '\b' -> out.append("\\b");
        case '\f' -> out.append("\\f");
        case '>' -> out.append("\\u003e");
        default -> {
          if (c < 0x20 || c == 0x7f || isUnpairedSurrogate(s, i)) {
            out.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }

  static boolean isUnpairedSurrogate(String s, int i) {
    char c = s.charAt(i);
    if (Character.isHighSurrogate(c)) {
      return i + 1 >= s.length() || !Character.isLowSurrogate(s.charAt(i + 1));
    }
    if (Character.isLowSurrogate(c)) {
      return i == 0 || !Character.isHighSurrogate(s.charAt(i - 1));
    }
    return false;
  }

  // ---- decoding of fields

  private static String optionalString(Map<String, Object> fields, String key) {
    Object v = fields.get(key);
    if (v == null || v == Parser.NULL) {
      return null;
    }
    if (v instanceof String s) {
      return s;
    }
    throw wrongType(key, "a string", v);
  }

  private static Instant instant(Map<String, Object> fields, String key) {
    String s = optionalString(fields, key);
    if (s == null) {
      return null;
    }
    try {
      return Instant.parse(s);
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException(
          "key '"
              + key
              + "' must be an ISO-8601 instant such as 2025-03-01T08:00:00Z: '"
              + s
              + "'");
    }
  }

  private static <E extends Enum<E>> E enumValue(
      Map<String, Object> fields, String key, Class<E> type) {
    String s = optionalString(fields, key);
    if (s == null) {
      throw wrongType(key, "one of " + Arrays.toString(type.getEnumConstants()), Parser.NULL);
    }
    for (E e : type.getEnumConstants()) {
      if (e.name().equals(s)) {
        return e;
      }
    }
    throw new IllegalArgumentException(
        "key '"
            + key
            + "' must be one of "
            + Arrays.toString(type.getEnumConstants())
            + ": '"
            + s
            + "'");
  }

  private static List<String> stringList(Map<String, Object> fields, String key) {
    Object v = fields.get(key);
    if (!(v instanceof List<?> list)) {
      throw wrongType(key, "an array of strings", v);
    }
    List<String> out = new ArrayList<>(list.size());
    for (Object o : list) {
      if (!(o instanceof String s)) {
        throw wrongType(key, "an array of strings", v);
      }
      out.add(s);
    }
    return out;
  }

  private static Map<String, String> stringMap(Map<String, Object> fields, String key) {
    Object v = fields.get(key);
    if (!(v instanceof Map<?, ?> map)) {
      throw wrongType(key, "an object of strings", v);
    }
    Map<String, String> out = new LinkedHashMap<>();
    for (Map.Entry<?, ?> e : map.entrySet()) {
      if (!(e.getValue() instanceof String s)) {
        throw wrongType(key, "an object of strings", v);
      }
      out.put((String) e.getKey(), s);
    }
    return out;
  }

  private static float floatValue(Map<String, Object> fields, String key) {
    Object v = fields.get(key);
    if (v instanceof Parser.Number n) {
      try {
        return Float.parseFloat(n.text());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("key '" + key + "' is not a number: " + n.text());
      }
    }
    if (v instanceof String s) {
      switch (s) {
        case "NaN":
          return Float.NaN;
        case "Infinity":
          return Float.POSITIVE_INFINITY;
        case "-Infinity":
          return Float.NEGATIVE_INFINITY;
        default:
          break;
      }
    }
    throw wrongType(key, "a number", v);
  }

  private static IllegalArgumentException wrongType(String key, String expected, Object got) {
    String kind =
        switch (got) {
          case null -> "nothing";
          case String s -> "a string";
          case Parser.Number n -> "a number";
          case Boolean b -> "a boolean";
          case List<?> l -> "an array";
          case Map<?, ?> m -> "an object";
          default -> "null";
        };
    return new IllegalArgumentException("key '" + key + "' must be " + expected + ", not " + kind);
  }

  /**
   * A JSON parser for one document: objects become insertion-ordered maps (a duplicate key is an
   * error), arrays lists, strings strings, numbers {@link Number} keeping their text, {@code
   * true}/{@code false} booleans and {@code null} {@link #NULL}.
   */
  private static final class Parser {
    static final Object NULL = new Object();

    record Number(String text) {}

    private final String text;
    private int pos;

    Parser(String text) {
      this.text = requireNonNull(text, "json is null");
    }

    Object document() {
      Object v = value(0);
      skipSpace();
      if (pos != text.length()) {
        throw error("unexpected text after the JSON object");
      }
      return v;
    }

    private Object value(int depth) {
      if (depth > MAX_DEPTH) {
        throw error("nested too deeply");
      }
      skipSpace();
      if (pos >= text.length()) {
        throw error("unexpected end");
      }
      char c = text.charAt(pos);
      return switch (c) {
        case '{' -> object(depth);
        case '[' -> array(depth);
        case '"' -> string();
        case 't' -> literal("true", Boolean.TRUE);
        case 'f' -> literal("false", Boolean.FALSE);
        case 'n' -> literal("null", NULL);
        default -> {
          if (c == '-' || (c >= '0' && c <= '9')) {
            yield number();
          }
          throw error("unexpected character '" + c + "'");
        }
      };
    }

    private Map<String, Object> object(int depth) {
      pos++;
      Map<String, Object> out = new LinkedHashMap<>();
      skipSpace();
      if (tryConsume('}')) {
        return out;
      }
      do {
        skipSpace();
        if (pos >= text.length() || text.charAt(pos) != '"') {
          throw error("expected a key in quotes");
        }
        int at = pos;
        String key = string();
        expect(':');
        Object v = value(depth + 1);
        if (out.put(key, v) != null) {
          pos = at;
          throw error("duplicate key '" + key + "'");
        }
      } while (tryConsume(','));
      expect('}');
      return Collections.unmodifiableMap(out);
    }

    private List<Object> array(int depth) {
      pos++;
      List<Object> out = new ArrayList<>();
      if (tryConsume(']')) {
        return out;
      }
      do {
        out.add(value(depth + 1));
      } while (tryConsume(','));
      expect(']');
      return Collections.unmodifiableList(out);
    }

    private Object literal(String word, Object value) {
      if (!text.startsWith(word, pos)) {
        throw error("unexpected word");
      }
      pos += word.length();
      return value;
    }

    private Number number() {
      int start = pos;
      if (text.charAt(pos) == '-') {
        pos++;
      }
      int digits = pos;
      while (pos < text.length() && Character.isDigit(text.charAt(pos))) {
        pos++;
      }
      if (pos == digits) {
        throw error("malformed number");
      }
      if (pos < text.length() && text.charAt(pos) == '.') {
        pos++;
        int frac = pos;
        while (pos < text.length() && Character.isDigit(text.charAt(pos))) {
          pos++;
        }
        if (pos == frac) {
          throw error("malformed number");
        }
      }
      if (pos < text.length() && (text.charAt(pos) == 'e' || text.charAt(pos) == 'E')) {
        pos++;
        if (pos < text.length() && (text.charAt(pos) == '+' || text.charAt(pos) == '-')) {
          pos++;
        }
        int exp = pos;
        while (pos < text.length() && Character.isDigit(text.charAt(pos))) {
          pos++;
        }
        if (pos == exp) {
          throw error("malformed number");
        }
      }
      return new Number(text.substring(start, pos));
    }

    private String string() {
      pos++; // the opening quote
      StringBuilder out = new StringBuilder();
      while (true) {
        if (pos >= text.length()) {
          throw error("unterminated string");
        }
        char c = text.charAt(pos++);
        if (c == '"') {
          return out.toString();
        }
        if (c < 0x20) {
          throw error("raw control character in a string");
        }
        if (c != '\\') {
          out.append(c);
          continue;
        }
        if (pos >= text.length()) {
          throw error("unterminated escape");
        }
        char e = text.charAt(pos++);
        switch (e) {
          case '"' -> out.append('"');
          case '\\' -> out.append('\\');
          case '/' -> out.append('/');
          case 'n' -> out.append('\n');
          case 'r' -> out.append('\r');
          case 't' -> out.append('\t');
          case 'b' -> out.append('\b');
          case 'f' -> out.append('\f');
          case 'u' -> out.append(hex4());
          default -> throw error("bad escape '\\" + e + "'");
        }
      }
    }

    private char hex4() {
      if (pos + 4 > text.length()) {
        throw error("short \\u escape");
      }
      int v = 0;
      for (int i = 0; i < 4; i++) {
        int d = Character.digit(text.charAt(pos + i), 16);
        if (d < 0) {
          throw error("bad hex digit in \\u escape");
        }
        v = v * 16 + d;
      }
      pos += 4;
      return (char) v;
    }

    private void expect(char c) {
      skipSpace();
      if (pos >= text.length() || text.charAt(pos) != c) {
        throw error("expected '" + c + "'");
      }
      pos++;
    }

    private boolean tryConsume(char c) {
      skipSpace();
      if (pos < text.length() && text.charAt(pos) == c) {
        pos++;
        return true;
      }
      return false;
    }

    private void skipSpace() {
      while (pos < text.length()) {
        char c = text.charAt(pos);
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
          return;
        }
        pos++;
      }
    }

    private IllegalArgumentException error(String what) {
      return new IllegalArgumentException(
          String.format(Locale.ROOT, "malformed JSON at character %d: %s", pos + 1, what));
    }
  }
}
