package dev.memsidecar.provider.langmem;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The few JSON shapes this provider keeps in text columns: a list of strings, a string-to-string
 * map and an array of floats. Not a general JSON library: decoding accepts exactly these shapes
 * (with any JSON whitespace) and fails with {@link IllegalArgumentException} naming the offset of
 * anything else. Stateless and thread-safe.
 *
 * <p>Encoding escapes quote, backslash, control characters and unpaired surrogates (as {@code
 * \\uXXXX}) and writes every other character as itself, so the text is valid JSON and round-trips
 * any Java string. Map keys are written in sorted order so equal maps give equal text. Floats are
 * written with {@link Float#toString(float)}, which round-trips exactly; NaN and infinities, which
 * JSON cannot hold, are rejected.
 */
final class Json {
  private Json() {}

  /** {@code ["a","b"]}. */
  static String encodeStrings(List<String> values) {
    requireNonNull(values, "values is null");
    StringBuilder out = new StringBuilder(values.size() * 16 + 2);
    out.append('[');
    for (int i = 0; i < values.size(); i++) {
      if (i > 0) {
        out.append(',');
      }
      appendString(out, requireNonNull(values.get(i), "list element is null"));
    }
    return out.append(']').toString();
  }

  /** {@code {"k":"v"}} with keys sorted. */
  static String encodeMap(Map<String, String> values) {
    requireNonNull(values, "values is null");
    StringBuilder out = new StringBuilder(values.size() * 32 + 2);
    out.append('{');
    boolean first = true;
    for (Map.Entry<String, String> e : new TreeMap<>(values).entrySet()) {
      if (!first) {
        out.append(',');
      }
      first = false;
      appendString(out, e.getKey());
      out.append(':');
      appendString(out, requireNonNull(e.getValue(), "map value is null"));
    }
    return out.append('}').toString();
  }

  /** {@code [0.5,-1.0]}. */
  static String encodeFloats(float[] values) {
    requireNonNull(values, "values is null");
    StringBuilder out = new StringBuilder(values.length * 12 + 2);
    out.append('[');
    for (int i = 0; i < values.length; i++) {
      float v = values[i];
      if (!Float.isFinite(v)) {
        throw new IllegalArgumentException("JSON cannot hold " + v + " at index " + i);
      }
      if (i > 0) {
        out.append(',');
      }
      out.append(Float.toString(v));
    }
    return out.append(']').toString();
  }

  static List<String> decodeStrings(String json) {
    Parser p = new Parser(json);
    List<String> out = new ArrayList<>();
    p.expect('[');
    if (!p.tryConsume(']')) {
      do {
        out.add(p.string());
      } while (p.tryConsume(','));
      p.expect(']');
    }
    p.end();
    return Collections.unmodifiableList(out);
  }

  static Map<String, String> decodeMap(String json) {
    Parser p = new Parser(json);
    Map<String, String> out = new LinkedHashMap<>();
    p.expect('{');
    if (!p.tryConsume('}')) {
      do {
        String key = p.string();
        p.expect(':');
        if (out.put(key, p.string()) != null) {
          throw p.error("duplicate key '" + key + "'");
        }
      } while (p.tryConsume(','));
      p.expect('}');
    }
    p.end();
    return Collections.unmodifiableMap(out);
  }

  static float[] decodeFloats(String json) {
    Parser p = new Parser(json);
    float[] out = new float[16];
    int n = 0;
    p.expect('[');
    if (!p.tryConsume(']')) {
      do {
        if (n == out.length) {
          out = Arrays.copyOf(out, n * 2);
        }
        out[n++] = p.number();
      } while (p.tryConsume(','));
      p.expect(']');
    }
    p.end();
    return Arrays.copyOf(out, n);
  }

  private static void appendString(StringBuilder out, String s) {
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
        default -> {
          if (c < 0x20 || isUnpairedSurrogate(s, i)) {
            out.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }

  private static boolean isUnpairedSurrogate(String s, int i) {
    char c = s.charAt(i);
    if (Character.isHighSurrogate(c)) {
      return i + 1 >= s.length() || !Character.isLowSurrogate(s.charAt(i + 1));
    }
    if (Character.isLowSurrogate(c)) {
      return i == 0 || !Character.isHighSurrogate(s.charAt(i - 1));
    }
    return false;
  }

  /** A cursor over one JSON text. */
  private static final class Parser {
    private final String text;
    private int pos;

    Parser(String text) {
      this.text = requireNonNull(text, "json is null");
    }

    void expect(char c) {
      skipSpace();
      if (pos >= text.length() || text.charAt(pos) != c) {
        throw error("expected '" + c + "'");
      }
      pos++;
    }

    boolean tryConsume(char c) {
      skipSpace();
      if (pos < text.length() && text.charAt(pos) == c) {
        pos++;
        return true;
      }
      return false;
    }

    void end() {
      skipSpace();
      if (pos != text.length()) {
        throw error("unexpected trailing text");
      }
    }

    String string() {
      expect('"');
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
          throw error("raw control character in string");
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

    float number() {
      skipSpace();
      int start = pos;
      while (pos < text.length() && "+-0123456789.eE".indexOf(text.charAt(pos)) >= 0) {
        pos++;
      }
      if (start == pos) {
        throw error("expected a number");
      }
      try {
        float v = Float.parseFloat(text.substring(start, pos));
        if (!Float.isFinite(v)) {
          throw error("number out of float range");
        }
        return v;
      } catch (NumberFormatException e) {
        pos = start;
        throw error("malformed number");
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

    private void skipSpace() {
      while (pos < text.length()) {
        char c = text.charAt(pos);
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
          return;
        }
        pos++;
      }
    }

    IllegalArgumentException error(String what) {
      return new IllegalArgumentException(
          String.format(Locale.ROOT, "malformed JSON at offset %d: %s", pos, what));
    }
  }
}
