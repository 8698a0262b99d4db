package dev.memsidecar.provider.deepagents;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.annotation.JsonSetter;
import com.fasterxml.jackson.annotation.Nulls;
import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.io.CharacterEscapes;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.type.LogicalType;
import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.MemoryKind;
import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.MemoryStatus;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.api.Validity;
import java.lang.reflect.RecordComponent;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The JSON object of a record marker: every {@link MemoryRecord} field but the content, on one
 * line, read and written with Jackson. Stateless and thread-safe.
 *
 * <p><b>Encoding</b> writes the keys in a fixed order ({@link Marker}'s), times as ISO-8601
 * instants ({@link Instant#toString()}, nanoseconds kept), floats with {@link
 * Float#toString(float)} (which round-trips exactly; NaN and the infinities, which JSON numbers
 * cannot hold, as the strings {@code "NaN"}, {@code "Infinity"}, {@code "-Infinity"}), metadata
 * with sorted keys, and a missing expire time as {@code null}. Strings escape quote, backslash,
 * control characters, DEL, unpaired surrogates and {@code >} (as {@code \u003e}, so the text can
 * never close the HTML comment it sits in), hex digits in lower case; every other character, CJK
 * included, is written as itself. This is byte for byte what the first release's hand-written
 * encoder wrote.
 *
 * <p><b>Decoding</b> takes any JSON object with those keys, so a person can write a marker by hand:
 * only {@code id} and {@code createTime} are required; {@code updateTime} defaults to the create
 * time, {@code profile} to the store's profile, and the rest (also when {@code null}) to {@link
 * MemoryRecord#builder()}'s defaults. {@code namespace}, when present, must be the file's own. An
 * unknown key, a duplicate key or a value of the wrong type (a number for a string, a string for a
 * number but for the three names above, an enum by index) fails with {@link
 * IllegalArgumentException} naming it, so a typo cannot silently drop a field.
 */
final class MarkerJson {

  /** A marker's fields, in the order they are written. */
  @JsonPropertyOrder({
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
    "namespace"
  })
  record Marker(
      String id,
      MemoryKind kind,
      MemoryStatus status,
      List<String> tags,
      String createTime,
      String updateTime,
      String summary,
      Float confidence,
      Float gateScore,
      String sensitivity,
      Validity validity,
      String expireTime,
      List<String> sourceRefs,
      Map<String, String> metadata,
      String context,
      String profile,
      String namespace) {}

  /** Every key a marker may hold, sorted, with what its value must be. */
  private static final SortedMap<String, String> EXPECTED = expectedValues();

  private static final ObjectMapper MAPPER =
      JsonMapper.builder()
          .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .enable(DeserializationFeature.FAIL_ON_NUMBERS_FOR_ENUMS)
          .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .disable(JsonWriteFeature.WRITE_HEX_UPPER_CASE)
          .defaultSetterInfo(JsonSetter.Value.forContentNulls(Nulls.FAIL))
          .withCoercionConfig(
              LogicalType.Textual,
              c ->
                  c.setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                      .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                      .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail))
          .build();

  private static final ObjectReader READER = MAPPER.readerFor(Marker.class);
  private static final ObjectWriter WRITER =
      MAPPER.writerFor(Marker.class).with(new MarkerEscapes());

  private MarkerJson() {}

  /** The marker JSON of {@code r}: one line, no {@code >} and no line break in it. */
  static String encode(MemoryRecord r) {
    Marker m =
        new Marker(
            r.id(),
            r.kind(),
            r.status(),
            r.tags(),
            r.createTime().toString(),
            r.updateTime().toString(),
            r.summary(),
            r.confidence(),
            r.gateScore(),
            r.sensitivity(),
            r.validity(),
            r.expireTime() == null ? null : r.expireTime().toString(),
            r.sourceRefs(),
            new TreeMap<>(r.metadata()),
            r.context(),
            r.profile(),
            r.namespace().value());
    try {
      return escapeUnpairedSurrogates(WRITER.writeValueAsString(m));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("record '" + r.id() + "' cannot be written as JSON", e);
    }
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
    Marker m = read(json);
    if (m.namespace() != null && !m.namespace().equals(namespace.value())) {
      throw new IllegalArgumentException(
          "namespace '" + m.namespace() + "' is not this file's namespace '" + namespace + "'");
    }
    Instant createTime = instant("createTime", m.createTime());
    if (createTime == null) {
      throw new IllegalArgumentException("key 'createTime' is required");
    }
    if (m.id() == null) {
      throw new IllegalArgumentException("key 'id' is required");
    }
    Instant updateTime = instant("updateTime", m.updateTime());
    MemoryRecord.Builder b =
        MemoryRecord.builder()
            .id(m.id())
            .namespace(namespace)
            .content(content)
            .createTime(createTime)
            .updateTime(updateTime == null ? createTime : updateTime)
            .profile(m.profile() == null ? defaultProfile : m.profile())
            .expireTime(instant("expireTime", m.expireTime()));
    if (m.kind() != null) {
      b.kind(m.kind());
    }
    if (m.status() != null) {
      b.status(m.status());
    }
    if (m.validity() != null) {
      b.validity(m.validity());
    }
    if (m.tags() != null) {
      if (new HashSet<>(m.tags()).size() != m.tags().size()) {
        throw new IllegalArgumentException("key 'tags' holds a tag twice: " + m.tags());
      }
      b.tags(m.tags());
    }
    if (m.sourceRefs() != null) {
      b.sourceRefs(m.sourceRefs());
    }
    if (m.metadata() != null) {
      b.metadata(m.metadata());
    }
    if (m.summary() != null) {
      b.summary(m.summary());
    }
    if (m.context() != null) {
      b.context(m.context());
    }
    if (m.sensitivity() != null) {
      b.sensitivity(m.sensitivity());
    }
    if (m.confidence() != null) {
      b.confidence(m.confidence());
    }
    if (m.gateScore() != null) {
      b.gateScore(m.gateScore());
    }
    try {
      return b.build();
    } catch (MemoryException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
  }

  /**
   * Whether the char at {@code i} is a surrogate without its other half, which UTF-8 cannot hold.
   */
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

  private static Marker read(String json) {
    try {
      return READER.readValue(json);
    } catch (UnrecognizedPropertyException e) {
      String key = e.getPropertyName();
      throw new IllegalArgumentException(
          "unknown key '"
              + key
              + "'"
              + (key.equals("content") ? " (the content is the text below the marker)" : "")
              + "; known keys: "
              + EXPECTED.keySet());
    } catch (MismatchedInputException e) {
      // A value of the wrong type, a null in an array or object, or not an object at all.
      List<JsonMappingException.Reference> path = e.getPath();
      String key = path.isEmpty() ? null : path.get(0).getFieldName();
      if (key == null || !EXPECTED.containsKey(key)) {
        throw new IllegalArgumentException("the marker must hold one JSON object");
      }
      throw new IllegalArgumentException(
          "key '"
              + key
              + "' must be "
              + EXPECTED.get(key)
              + (e instanceof InvalidFormatException f ? ": '" + f.getValue() + "'" : ""));
    } catch (JacksonException e) {
      // Not JSON: report the parser's error, wrapped or not, where the parser found it.
      JacksonException cause = e.getCause() instanceof JacksonException c ? c : e;
      JsonLocation at = cause.getLocation();
      throw new IllegalArgumentException(
          String.format(
              Locale.ROOT,
              "malformed JSON at character %d: %s",
              at == null ? 0 : at.getColumnNr(),
              cause.getOriginalMessage()));
    }
  }

  private static Instant instant(String key, String s) {
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

  private static SortedMap<String, String> expectedValues() {
    SortedMap<String, String> out = new TreeMap<>();
    for (RecordComponent c : Marker.class.getRecordComponents()) {
      Class<?> type = c.getType();
      out.put(
          c.getName(),
          type.isEnum()
              ? "one of " + Arrays.toString(type.getEnumConstants())
              : type == Float.class
                  ? "a number"
                  : type == List.class
                      ? "an array of strings"
                      : type == Map.class ? "an object of strings" : "a string");
    }
    return Collections.unmodifiableSortedMap(out);
  }

  /**
   * {@code json} with each unpaired surrogate written as a {@code \}{@code uXXXX} escape. Jackson
   * escapes one char at a time, so it cannot tell a lone surrogate from half of a pair; in JSON
   * text such a char can only be inside a string, where the escape means the same char.
   */
  private static String escapeUnpairedSurrogates(String json) {
    StringBuilder out = null;
    for (int i = 0; i < json.length(); i++) {
      if (Character.isSurrogate(json.charAt(i)) && isUnpairedSurrogate(json, i)) {
        if (out == null) {
          out = new StringBuilder(json.length() + 16).append(json, 0, i);
        }
        out.append(String.format(Locale.ROOT, "\\u%04x", (int) json.charAt(i)));
      } else if (out != null) {
        out.append(json.charAt(i));
      }
    }
    return out == null ? json : out.toString();
  }

  /** JSON's standard escapes, plus {@code >} and DEL as {@code \}{@code uXXXX}. */
  private static final class MarkerEscapes extends CharacterEscapes {
    private static final long serialVersionUID = 1L;
    private final int[] ascii = standardAsciiEscapesForJSON();

    MarkerEscapes() {
      ascii['>'] = ESCAPE_STANDARD;
      ascii[0x7f] = ESCAPE_STANDARD;
    }

    @Override
    public int[] getEscapeCodesForAscii() {
      return ascii;
    }

    @Override
    public SerializableString getEscapeSequence(int ch) {
      return null;
    }
  }
}
