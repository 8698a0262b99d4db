package dev.memsidecar.provider.embedder;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.io.InputStream;
import java.text.Normalizer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The BERT WordPiece tokenizer of a HuggingFace {@code tokenizer.json}, in Java: the same ids as
 * the HuggingFace {@code tokenizers} library (checked against it in tests) for the configuration
 * the bge models ship: special tokens matched verbatim first, then {@code BertNormalizer} (control
 * characters dropped, whitespace unified, spaces around CJK ideographs, accents stripped and lower
 * case when the file says so), {@code BertPreTokenizer} (split on whitespace, each punctuation mark
 * a token), greedy longest-match-first WordPiece with the {@code ##} prefix, and {@code [CLS] ...
 * [SEP]} around the result.
 *
 * <p>Immutable and thread-safe. No native library.
 */
final class BertTokenizer {
  private static final int MAX_INPUT_CHARS_PER_WORD = 100;
  private static final String CONTINUATION = "##";

  private final Map<String, Integer> vocab;
  private final boolean lowercase;
  private final boolean stripAccents;
  private final List<String> specialTokens;
  private final int[] specialIds;
  private final int cls;
  private final int sep;
  private final int unk;

  private BertTokenizer(Map<String, Integer> vocab, boolean lowercase, boolean stripAccents) {
    this.vocab = Map.copyOf(vocab);
    this.lowercase = lowercase;
    this.stripAccents = stripAccents;
    this.cls = id("[CLS]");
    this.sep = id("[SEP]");
    this.unk = id("[UNK]");
    this.specialTokens = List.of("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]");
    this.specialIds = new int[specialTokens.size()];
    for (int i = 0; i < specialIds.length; i++) {
      specialIds[i] = id(specialTokens.get(i));
    }
  }

  private int id(String token) {
    Integer id = vocab.get(token);
    if (id == null) {
      throw new IllegalArgumentException("tokenizer vocabulary lacks " + token);
    }
    return id;
  }

  /**
   * Reads a {@code tokenizer.json} whose model is WordPiece and whose normalizer is BertNormalizer.
   *
   * @throws IOException if the stream cannot be read or holds another kind of tokenizer
   */
  static BertTokenizer read(InputStream json) throws IOException {
    requireNonNull(json, "json is null");
    Map<String, Integer> vocab = new HashMap<>(65_536);
    Boolean lowercase = null;
    Object stripAccents = null;
    String modelType = null;
    try (JsonParser p = new JsonFactory().createParser(json)) {
      expect(p.nextToken(), JsonToken.START_OBJECT);
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        p.nextToken();
        switch (field) {
          case "normalizer" -> {
            if (p.currentToken() != JsonToken.START_OBJECT) {
              throw new IOException("tokenizer.json: normalizer is not BertNormalizer");
            }
            String type = null;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
              String key = p.currentName();
              JsonToken value = p.nextToken();
              switch (key) {
                case "type" -> type = p.getText();
                case "lowercase" -> lowercase = value == JsonToken.VALUE_TRUE;
                case "strip_accents" ->
                    stripAccents =
                        value == JsonToken.VALUE_NULL ? null : value == JsonToken.VALUE_TRUE;
                default -> p.skipChildren();
              }
            }
            if (!"BertNormalizer".equals(type)) {
              throw new IOException(
                  "tokenizer.json: normalizer " + type + " is not BertNormalizer");
            }
          }
          case "model" -> {
            expect(p.currentToken(), JsonToken.START_OBJECT);
            while (p.nextToken() == JsonToken.FIELD_NAME) {
              String key = p.currentName();
              p.nextToken();
              switch (key) {
                case "type" -> modelType = p.getText();
                case "vocab" -> {
                  expect(p.currentToken(), JsonToken.START_OBJECT);
                  while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String token = p.currentName();
                    p.nextToken();
                    vocab.put(token, p.getIntValue());
                  }
                }
                default -> p.skipChildren();
              }
            }
          }
          default -> p.skipChildren();
        }
      }
    }
    if (!"WordPiece".equals(modelType)) {
      throw new IOException("tokenizer.json: model " + modelType + " is not WordPiece");
    }
    boolean lower = lowercase == null || lowercase;
    boolean strip = stripAccents == null ? lower : (Boolean) stripAccents;
    return new BertTokenizer(vocab, lower, strip);
  }

  private static void expect(JsonToken actual, JsonToken expected) throws IOException {
    if (actual != expected) {
      throw new IOException("tokenizer.json: expected " + expected + ", found " + actual);
    }
  }

  /**
   * The ids of {@code text}: {@code [CLS]}, at most {@code maxTokens - 2} word pieces (the rest is
   * cut off), {@code [SEP]}. Two ids when the text has nothing to tokenize.
   *
   * @throws IllegalArgumentException if {@code maxTokens < 2}
   */
  int[] encode(String text, int maxTokens) {
    requireNonNull(text, "text is null");
    if (maxTokens < 2) {
      throw new IllegalArgumentException("maxTokens must be >= 2: " + maxTokens);
    }
    IntList ids = new IntList(Math.min(maxTokens, text.length() + 2));
    ids.add(cls);
    int limit = maxTokens - 1;
    int start = 0;
    while (start < text.length() && ids.size < limit) {
      int special = -1;
      int at = text.length();
      for (int i = 0; i < specialTokens.size(); i++) {
        int found = text.indexOf(specialTokens.get(i), start);
        if (found >= 0 && found < at) {
          at = found;
          special = i;
        }
      }
      tokenize(text.substring(start, at), ids, limit);
      if (special < 0) {
        break;
      }
      if (ids.size < limit) {
        ids.add(specialIds[special]);
      }
      start = at + specialTokens.get(special).length();
    }
    ids.add(sep);
    return ids.toArray();
  }

  /**
   * Normalises, pre-tokenises and word-pieces {@code text} into {@code ids}, up to {@code limit}.
   */
  private void tokenize(String text, IntList ids, int limit) {
    String normal = normalize(text);
    StringBuilder word = new StringBuilder();
    for (int i = 0; i < normal.length() && ids.size < limit; ) {
      int c = normal.codePointAt(i);
      i += Character.charCount(c);
      if (isUnicodeSpace(c)) {
        wordPieces(word, ids, limit);
      } else if (isPunctuation(c)) {
        wordPieces(word, ids, limit);
        word.appendCodePoint(c);
        wordPieces(word, ids, limit);
      } else {
        word.appendCodePoint(c);
      }
    }
    wordPieces(word, ids, limit);
  }

  /** BertNormalizer: clean text, isolate CJK ideographs, strip accents, lower case. */
  private String normalize(String text) {
    StringBuilder out = new StringBuilder(text.length() + 16);
    for (int i = 0; i < text.length(); ) {
      int c = text.codePointAt(i);
      i += Character.charCount(c);
      if (c == 0 || c == 0xFFFD || isControl(c)) {
        continue;
      }
      if (isWhitespace(c)) {
        out.append(' ');
      } else if (isChinese(c)) {
        out.append(' ').appendCodePoint(c).append(' ');
      } else {
        out.appendCodePoint(c);
      }
    }
    String s = out.toString();
    if (stripAccents) {
      String nfd = Normalizer.normalize(s, Normalizer.Form.NFD);
      StringBuilder kept = new StringBuilder(nfd.length());
      for (int i = 0; i < nfd.length(); ) {
        int c = nfd.codePointAt(i);
        i += Character.charCount(c);
        if (Character.getType(c) != Character.NON_SPACING_MARK) {
          kept.appendCodePoint(c);
        }
      }
      s = kept.toString();
    }
    return lowercase ? lowercase(s) : s;
  }

  /**
   * Lower case one code point at a time, as the Rust library does: full mappings (U+0130 becomes
   * "i" and a combining dot), no context rules (a final sigma stays σ).
   */
  private static String lowercase(String s) {
    StringBuilder out = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); ) {
      int c = s.codePointAt(i);
      i += Character.charCount(c);
      if (c == 0x130) {
        out.append("i\u0307");
      } else {
        out.appendCodePoint(Character.toLowerCase(c));
      }
    }
    return out.toString();
  }

  /** Greedy longest-match-first WordPiece of {@code word} (then cleared); [UNK] if it cannot. */
  private void wordPieces(StringBuilder word, IntList ids, int limit) {
    if (word.isEmpty()) {
      return;
    }
    String w = word.toString();
    word.setLength(0);
    if (ids.size >= limit) {
      return;
    }
    if (w.codePointCount(0, w.length()) > MAX_INPUT_CHARS_PER_WORD) {
      ids.add(unk);
      return;
    }
    Integer whole = vocab.get(w);
    if (whole != null) {
      ids.add(whole);
      return;
    }
    int mark = ids.size;
    int start = 0;
    while (start < w.length()) {
      int end = w.length();
      Integer piece = null;
      while (end > start) {
        String sub = start == 0 ? w.substring(0, end) : CONTINUATION + w.substring(start, end);
        piece = vocab.get(sub);
        if (piece != null) {
          break;
        }
        end = w.offsetByCodePoints(end, -1);
      }
      if (piece == null) {
        ids.size = mark;
        ids.add(unk);
        return;
      }
      ids.add(piece);
      start = end;
    }
    if (ids.size > limit) {
      ids.size = limit;
    }
  }

  /** Tab, newline and carriage return count as whitespace, not as control characters. */
  private static boolean isWhitespace(int c) {
    return c == '\t' || c == '\n' || c == '\r' || isUnicodeSpace(c);
  }

  /** Rust's {@code char::is_whitespace}: the Unicode White_Space property. */
  private static boolean isUnicodeSpace(int c) {
    return switch (c) {
      case 0x09,
          0x0A,
          0x0B,
          0x0C,
          0x0D,
          0x20,
          0x85,
          0xA0,
          0x1680,
          0x2028,
          0x2029,
          0x202F,
          0x205F,
          0x3000 ->
          true;
      default -> c >= 0x2000 && c <= 0x200A;
    };
  }

  /** Unicode "Other" categories (Cc, Cf, Cn, Co, Cs), but tab, newline, return are whitespace. */
  private static boolean isControl(int c) {
    if (c == '\t' || c == '\n' || c == '\r') {
      return false;
    }
    return switch (Character.getType(c)) {
      case Character.CONTROL,
          Character.FORMAT,
          Character.UNASSIGNED,
          Character.PRIVATE_USE,
          Character.SURROGATE ->
          true;
      default -> false;
    };
  }

  /** ASCII punctuation (which includes symbols such as $ and +) or a Unicode P* category. */
  private static boolean isPunctuation(int c) {
    if (c < 0x80) {
      return (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || c >= 123;
    }
    return switch (Character.getType(c)) {
      case Character.CONNECTOR_PUNCTUATION,
          Character.DASH_PUNCTUATION,
          Character.START_PUNCTUATION,
          Character.END_PUNCTUATION,
          Character.INITIAL_QUOTE_PUNCTUATION,
          Character.FINAL_QUOTE_PUNCTUATION,
          Character.OTHER_PUNCTUATION ->
          true;
      default -> false;
    };
  }

  /** The CJK Unified Ideographs blocks BERT splits into one token per character. */
  private static boolean isChinese(int c) {
    return (c >= 0x4E00 && c <= 0x9FFF)
        || (c >= 0x3400 && c <= 0x4DBF)
        || (c >= 0x20000 && c <= 0x2A6DF)
        || (c >= 0x2A700 && c <= 0x2B73F)
        || (c >= 0x2B740 && c <= 0x2B81F)
        || (c >= 0x2B920 && c <= 0x2CEAF)
        || (c >= 0xF900 && c <= 0xFAFF)
        || (c >= 0x2F800 && c <= 0x2FA1F);
  }

  /** A growable int array: ids without boxing. */
  private static final class IntList {
    int[] values;
    int size;

    IntList(int capacity) {
      values = new int[Math.max(4, capacity)];
    }

    void add(int value) {
      if (size == values.length) {
        values = Arrays.copyOf(values, size * 2);
      }
      values[size++] = value;
    }

    int[] toArray() {
      return Arrays.copyOf(values, size);
    }
  }

  /** For tests: the word pieces of {@code text} without the special tokens around them. */
  List<Integer> pieces(String text) {
    int[] ids = encode(text, Integer.MAX_VALUE);
    List<Integer> out = new ArrayList<>(ids.length);
    for (int i = 1; i < ids.length - 1; i++) {
      out.add(ids[i]);
    }
    return out;
  }
}
