package dev.memsidecar.core.control;

import com.fasterxml.jackson.annotation.JsonAutoDetect.Visibility;
import com.fasterxml.jackson.annotation.PropertyAccessor;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;

/**
 * The JSON form of what the control store keeps as text ({@code RunSnapshot}, {@code EndRunResult},
 * {@code WriteDecision} and everything inside them), with one Jackson mapper.
 *
 * <ul>
 *   <li>Only record components are written: getters and {@code isXxx()} methods are not properties,
 *       so {@code GateScores.isEmpty()} or {@code MemoryRecord.indexedText()} never appear; records
 *       are read back through their canonical constructors.
 *   <li>Instants are ISO-8601 text with all their nanoseconds; floats are written in their shortest
 *       exact form; map entries are sorted by key, so equal values give equal text.
 *   <li>Every character outside ASCII is written as a JSON unicode escape: the text is pure ASCII,
 *       so any database keeps it byte for byte, and an unpaired surrogate (which a UTF-8 column
 *       cannot hold) round-trips too.
 *   <li>Reading is strict: an unknown property, a duplicate key or trailing text fails.
 * </ul>
 *
 * <p>A round trip gives an equal object. Thread-safe.
 */
final class ControlJson {
  private static final ObjectMapper MAPPER =
      JsonMapper.builder()
          .addModule(new JavaTimeModule())
          .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
          .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
          .enable(JsonWriteFeature.ESCAPE_NON_ASCII)
          .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .visibility(PropertyAccessor.ALL, Visibility.NONE)
          .visibility(PropertyAccessor.FIELD, Visibility.ANY)
          .build();

  private ControlJson() {}

  /** {@code value} as JSON text. */
  static String write(Object value) {
    try {
      return MAPPER.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(
          "cannot write a " + value.getClass().getSimpleName() + " as JSON", e);
    }
  }

  /**
   * The {@code type} that {@code json} holds; an IllegalStateException naming {@code where} if the
   * text is not one (the row was not written by this store).
   */
  static <T> T read(String json, Class<T> type, String where) {
    try {
      return MAPPER.readValue(json, type);
    } catch (JsonProcessingException | RuntimeException e) {
      throw new IllegalStateException(
          "the control store holds an unreadable "
              + type.getSimpleName()
              + " at "
              + where
              + ": "
              + firstLine(e.getMessage()),
          e);
    }
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "";
    }
    int nl = message.indexOf('\n');
    return nl < 0 ? message : message.substring(0, nl);
  }
}
