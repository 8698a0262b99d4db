package dev.memsidecar.sidecar.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonMappingException.Reference;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.type.LogicalType;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * Binds one parsed YAML document of one file ({@link StrictYaml}: maps, lists and scalars) to a
 * record of {@link ConfigFiles} with Jackson, strictly: an unknown key fails, and so does a value
 * of another type (no coercion: {@code "7411"} is no integer, {@code 1} no boolean, {@code 7.5} no
 * integer, {@code 5} no string); the loader then checks the values with {@link #nonBlank}, {@link
 * #within} and {@link #oneOf}. Every failure is a {@link ConfigException} naming the file, the
 * dotted key path ({@code memory.refs[1]}) and the bad value, e.g. {@code memsidecar.yaml: key
 * 'memory.LangMem.read' must be a boolean (true or false), got the string 'yes'}. Thread-safe.
 */
final class YamlBinding {
  private static final int SHOWN_VALUE_MAX = 80;

  private static final ObjectMapper MAPPER = strictMapper();

  private final String source;
  private final String suffix;

  /**
   * @param source names the file in messages, e.g. "config/memory/user.yaml"
   * @param suffix appended to every message, e.g. " (document 2)", or ""
   */
  YamlBinding(String source, String suffix) {
    this.source = source;
    this.suffix = suffix;
  }

  /** The record {@code type} holding {@code document}; {@code null} (an empty document) is {}. */
  <T extends Record> T bind(Object document, Class<T> type) {
    if (document != null && !(document instanceof Map<?, ?>)) {
      throw fail("the document must be a mapping, got " + describe(document));
    }
    try {
      return MAPPER.convertValue(document == null ? Map.of() : document, type);
    } catch (IllegalArgumentException e) {
      if (!(e.getCause() instanceof JsonMappingException problem)) {
        throw e;
      }
      String key = keyPath(problem.getPath());
      switch (problem) {
        case UnrecognizedPropertyException unknown ->
            throw fail("unknown key '" + key + "'; expected one of " + keys(unknown));
        case MismatchedInputException mismatch -> {
          Object value = valueAt(document, problem.getPath());
          throw invalid(
              key, "must be " + expected(mismatch.getTargetType()) + ", got " + describe(value));
        }
        default ->
            throw new ConfigException(source + ": " + problem.getOriginalMessage() + suffix, e);
      }
    }
  }

  private static ObjectMapper strictMapper() {
    ObjectMapper mapper =
        JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
            .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
            .build();
    // A string key takes a string only: 5, 1.5 and true are not quietly turned into text.
    for (CoercionInputShape scalar :
        List.of(CoercionInputShape.Integer, CoercionInputShape.Float, CoercionInputShape.Boolean)) {
      mapper.coercionConfigFor(LogicalType.Textual).setCoercion(scalar, CoercionAction.Fail);
    }
    return mapper;
  }

  /** A failure in this file: {@code <source>: <problem><suffix>}. */
  ConfigException fail(String problem) {
    return new ConfigException(source + ": " + problem + suffix);
  }

  /** A failure about the value of {@code key}, a dotted path from the document's top. */
  ConfigException invalid(String key, String problem) {
    return fail("key '" + key + "' " + problem);
  }

  // ---- checks of the bound values, each naming the key when it fails

  /** {@code value}, which must not be blank when given (null). */
  String nonBlank(String key, String value) {
    if (value != null && value.isBlank()) {
      throw invalid(key, "must not be blank");
    }
    return value;
  }

  /** {@code value}, which must be in {@code min..max}, or {@code fallback} when it is null. */
  int within(String key, BigInteger value, int min, int max, int fallback) {
    if (value == null) {
      return fallback;
    }
    if (value.compareTo(BigInteger.valueOf(min)) < 0
        || value.compareTo(BigInteger.valueOf(max)) > 0) {
      throw invalid(key, "must be in " + min + ".." + max + ", got " + value);
    }
    return value.intValue();
  }

  /** {@code value}, which must be in {@code min..max}, or {@code fallback} when it is null. */
  double within(String key, Number value, double min, double max, double fallback) {
    if (value == null) {
      return fallback;
    }
    double number = value.doubleValue();
    if (!(number >= min && number <= max)) {
      throw invalid(key, "must be in " + min + ".." + max + ", got " + value);
    }
    return number;
  }

  /** {@code value}, which must be one of {@code accepted} when given (null). */
  String oneOf(String key, String value, List<String> accepted) {
    if (value != null && !accepted.contains(value)) {
      String expected = accepted.size() == 1 ? "'" + accepted.get(0) + "'" : "one of " + accepted;
      throw invalid(key, "must be " + expected + ", got '" + shown(value) + "'");
    }
    return value;
  }

  // ---- messages

  /** Describes a value of a document, e.g. "the string 'yes'", "a mapping". */
  static String describe(Object value) {
    return switch (value) {
      case null -> "nothing";
      case Map<?, ?> map -> "a mapping";
      case List<?> list -> "a list";
      case String text -> "the string '" + shown(text) + "'";
      case Boolean flag -> "the boolean '" + flag + "'";
      case Number number -> "the number '" + shown(number.toString()) + "'";
      default -> "a " + value.getClass().getSimpleName() + " '" + shown(value.toString()) + "'";
    };
  }

  /** {@code value} as messages show it: cut after 80 characters. */
  static String shown(String value) {
    String text = String.valueOf(value);
    return text.length() > SHOWN_VALUE_MAX ? text.substring(0, SHOWN_VALUE_MAX) + "..." : text;
  }

  private static final Map<Class<?>, String> EXPECTED =
      Map.of(
          Boolean.class, "a boolean (true or false)",
          BigInteger.class, "an integer",
          Number.class, "a number",
          String.class, "a string");

  private static String expected(Class<?> type) {
    String scalar = EXPECTED.get(type);
    if (scalar != null) {
      return scalar;
    }
    return Collection.class.isAssignableFrom(type) ? "a list of strings" : "a mapping";
  }

  /** The keys of the record that has no such key, in the order docs/configuration.md shows them. */
  private static List<String> keys(UnrecognizedPropertyException unknown) {
    return Arrays.stream(unknown.getReferringClass().getRecordComponents())
        .map(
            c ->
                c.isAnnotationPresent(JsonProperty.class)
                    ? c.getAnnotation(JsonProperty.class).value()
                    : c.getName())
        .toList();
  }

  /** {@code memory.refs[1]}. */
  private static String keyPath(List<Reference> path) {
    StringBuilder key = new StringBuilder();
    for (Reference step : path) {
      if (step.getFieldName() == null) {
        key.append('[').append(step.getIndex()).append(']');
      } else {
        key.append(key.isEmpty() ? "" : ".").append(step.getFieldName());
      }
    }
    return key.toString();
  }

  private static Object valueAt(Object document, List<Reference> path) {
    Object value = document;
    for (Reference step : path) {
      value =
          switch (value) {
            case Map<?, ?> map -> map.get(step.getFieldName());
            case List<?> list when step.getIndex() >= 0 && step.getIndex() < list.size() ->
                list.get(step.getIndex());
            case null, default -> null;
          };
    }
    return value;
  }
}
