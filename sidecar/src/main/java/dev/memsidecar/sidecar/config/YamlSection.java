package dev.memsidecar.sidecar.config;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * One mapping of a parsed YAML document, with typed, strict access. Every failure is a {@link
 * ConfigException} naming the source, the dotted key path and the bad value. A key whose value is
 * {@code null} (written with nothing after the colon) counts as absent.
 */
final class YamlSection {
  private static final int SHOWN_VALUE_MAX = 80;

  private final String source;
  private final String suffix;
  private final String path;
  private final Map<?, ?> values;

  private YamlSection(String source, String suffix, String path, Map<?, ?> values) {
    this.source = source;
    this.suffix = suffix;
    this.path = path;
    this.values = values;
  }

  /**
   * The top-level mapping of a document; {@code null} (an empty document) is an empty mapping.
   *
   * @param source names the file in messages, e.g. "memsidecar.yaml"
   * @param suffix appended to every message, e.g. " (document 2)", or ""
   */
  static YamlSection root(String source, String suffix, Object document) {
    if (document == null) {
      return new YamlSection(source, suffix, "", Map.of());
    }
    if (!(document instanceof Map<?, ?> map)) {
      throw new ConfigException(
          source + ": the document must be a mapping, got " + describe(document) + suffix);
    }
    return new YamlSection(source, suffix, "", map);
  }

  /** Fails on the first key, in document order, that is not one of {@code allowed}. */
  YamlSection allowOnly(Set<String> allowed) {
    for (Object key : values.keySet()) {
      if (!(key instanceof String name) || !allowed.contains(name)) {
        throw fail(
            "unknown key '"
                + keyPath(String.valueOf(key))
                + "'; expected one of "
                + new ArrayList<>(allowed));
      }
    }
    return this;
  }

  boolean has(String key) {
    return values.get(key) != null;
  }

  /** A nested mapping; absent gives an empty one. */
  YamlSection section(String key) {
    Object value = values.get(key);
    if (value == null) {
      return new YamlSection(source, suffix, keyPath(key), Map.of());
    }
    if (!(value instanceof Map<?, ?> map)) {
      throw wrongType(key, "a mapping", value);
    }
    return new YamlSection(source, suffix, keyPath(key), map);
  }

  /** A string scalar; numbers and booleans fail (quote them to make them strings). */
  Optional<String> string(String key) {
    Object value = values.get(key);
    if (value == null) {
      return Optional.empty();
    }
    if (!(value instanceof String text)) {
      throw wrongType(key, "a string", value);
    }
    return Optional.of(text);
  }

  /** A non-blank string scalar. */
  Optional<String> nonBlankString(String key) {
    Optional<String> text = string(key);
    if (text.isPresent() && text.get().isBlank()) {
      throw fail("key '" + keyPath(key) + "' must not be blank");
    }
    return text;
  }

  /** A real boolean: {@code true} or {@code false}; {@code yes}, {@code "true"} or 1 fail. */
  Optional<Boolean> bool(String key) {
    Object value = values.get(key);
    if (value == null) {
      return Optional.empty();
    }
    if (!(value instanceof Boolean flag)) {
      throw wrongType(key, "a boolean (true or false)", value);
    }
    return Optional.of(flag);
  }

  /** An integer within {@code min..max}. */
  Optional<Integer> integer(String key, int min, int max) {
    Object value = values.get(key);
    if (value == null) {
      return Optional.empty();
    }
    if (!(value instanceof Integer || value instanceof Long || value instanceof BigInteger)) {
      throw wrongType(key, "an integer", value);
    }
    BigInteger number = new BigInteger(value.toString());
    if (number.compareTo(BigInteger.valueOf(min)) < 0
        || number.compareTo(BigInteger.valueOf(max)) > 0) {
      throw fail("key '" + keyPath(key) + "' must be in " + min + ".." + max + ", got " + number);
    }
    return Optional.of(number.intValue());
  }

  /** A number (integer or decimal) within {@code min..max}. */
  Optional<Double> number(String key, double min, double max) {
    Object value = values.get(key);
    if (value == null) {
      return Optional.empty();
    }
    if (!(value instanceof Number number) || value instanceof BigDecimal) {
      throw wrongType(key, "a number", value);
    }
    double result = number.doubleValue();
    if (!(result >= min && result <= max)) {
      throw fail("key '" + keyPath(key) + "' must be in " + min + ".." + max + ", got " + value);
    }
    return Optional.of(result);
  }

  /** A list of strings. */
  Optional<List<String>> strings(String key) {
    Object value = values.get(key);
    if (value == null) {
      return Optional.empty();
    }
    if (!(value instanceof List<?> list)) {
      throw wrongType(key, "a list of strings", value);
    }
    List<String> result = new ArrayList<>();
    for (int i = 0; i < list.size(); i++) {
      Object item = list.get(i);
      if (!(item instanceof String text)) {
        throw wrongType(key + "[" + i + "]", "a string", item);
      }
      result.add(text);
    }
    return Optional.of(List.copyOf(result));
  }

  /**
   * A mapping of scalars, each value turned into a string ({@code 5} becomes "5", {@code true}
   * becomes "true", an empty value becomes ""); nested mappings and lists fail.
   */
  Map<String, String> scalarMap(String key) {
    YamlSection section = section(key);
    Map<String, String> result = new LinkedHashMap<>();
    for (Map.Entry<?, ?> entry : section.values.entrySet()) {
      String name = String.valueOf(entry.getKey());
      Object value = entry.getValue();
      if (value instanceof Map<?, ?> || value instanceof List<?>) {
        throw section.wrongType(name, "a scalar", value);
      }
      result.put(name, value == null ? "" : String.valueOf(value));
    }
    return result;
  }

  /** The dotted path of {@code key} from the document's top, e.g. "spec.provider". */
  String keyPath(String key) {
    return path.isEmpty() ? key : path + "." + key;
  }

  /** A failure in this section's source: {@code <source>: <problem><suffix>}. */
  ConfigException fail(String problem) {
    return new ConfigException(source + ": " + problem + suffix);
  }

  /** A failure about the value of {@code key}, showing the value. */
  ConfigException invalid(String key, String problem) {
    return fail("key '" + keyPath(key) + "' " + problem);
  }

  private ConfigException wrongType(String key, String expected, Object value) {
    return invalid(key, "must be " + expected + ", got " + describe(value));
  }

  private static String describe(Object value) {
    String kind =
        switch (value) {
          case Map<?, ?> map -> "a mapping";
          case List<?> list -> "a list";
          case String text -> "the string";
          case Boolean flag -> "the boolean";
          case Number number -> "the number";
          default -> "a " + value.getClass().getSimpleName();
        };
    if (value instanceof Map<?, ?> || value instanceof List<?>) {
      return kind;
    }
    return kind + " '" + shown(String.valueOf(value)) + "'";
  }

  static String shown(String value) {
    return value.length() > SHOWN_VALUE_MAX ? value.substring(0, SHOWN_VALUE_MAX) + "..." : value;
  }

  /** An ordered, immutable key set, so "expected one of" lists keys as the docs show them. */
  static Set<String> keys(String... names) {
    return Collections.unmodifiableSet(new LinkedHashSet<>(List.of(names)));
  }
}
