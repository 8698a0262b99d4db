package dev.memsidecar.api;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A plugin's settings as plain strings (a profile's {@code spec.settings}, an extractor's {@code
 * settings}) with typed getters that parse and bound them. Every failure is INVALID_ARGUMENT naming
 * {@code spec.settings.<key>} and the owner, so every plugin reports bad settings the same way. A
 * getter never echoes a value it cannot parse (it may be a secret).
 *
 * @param owner who the settings are for, for messages, e.g. {@code profile 'team'}
 * @param values the settings
 */
public record Settings(String owner, Map<String, String> values) {
  private static final Pattern DURATION = Pattern.compile("(\\d{1,9})(ms|s|m|h|d)");

  public Settings {
    requireNonNull(owner, "owner is null");
    values = values == null ? Map.of() : Map.copyOf(values);
  }

  /** Fails with INVALID_ARGUMENT naming the first setting not in {@code known}. */
  public void requireOnly(Set<String> known) {
    for (String key : new TreeSet<>(values.keySet())) {
      if (!known.contains(key)) {
        throw bad(key, "unknown setting '" + key + "'; known settings: " + new TreeSet<>(known));
      }
    }
  }

  /** The setting {@code key} as given, or {@code fallback} when absent. */
  public String string(String key, String fallback) {
    return values.getOrDefault(key, fallback);
  }

  /** The setting {@code key} as an int in {@code min..max}, or {@code fallback} when absent. */
  public int integer(String key, int fallback, int min, int max) {
    return (int) longInteger(key, fallback, min, max);
  }

  /** The setting {@code key} as a long in {@code min..max}, or {@code fallback} when absent. */
  public long longInteger(String key, long fallback, long min, long max) {
    String raw = values.get(key);
    if (raw == null) {
      return fallback;
    }
    long value;
    try {
      value = Long.parseLong(raw.strip());
    } catch (NumberFormatException e) {
      throw bad(key, key + " must be a whole number " + min + ".." + max);
    }
    if (value < min || value > max) {
      throw bad(key, key + " must be " + min + ".." + max + ": " + value);
    }
    return value;
  }

  /** The setting {@code key} as a finite double in {@code min..max}, or {@code fallback}. */
  public double decimal(String key, double fallback, double min, double max) {
    String raw = values.get(key);
    if (raw == null) {
      return fallback;
    }
    double value;
    try {
      value = Double.parseDouble(raw.strip());
    } catch (NumberFormatException e) {
      throw bad(key, key + " must be a number " + min + ".." + max);
    }
    if (!(value >= min && value <= max)) {
      throw bad(key, key + " must be " + min + ".." + max + ": " + value);
    }
    return value;
  }

  /** The setting {@code key}, which must be {@code true} or {@code false}, or {@code fallback}. */
  public boolean bool(String key, boolean fallback) {
    String raw = values.get(key);
    if (raw == null) {
      return fallback;
    }
    return switch (raw.strip().toLowerCase(Locale.ROOT)) {
      case "true" -> true;
      case "false" -> false;
      default -> throw bad(key, key + " must be true or false");
    };
  }

  /** The setting {@code key}, which must be one of {@code allowed} (lower case), or fallback. */
  public String choice(String key, String fallback, Set<String> allowed) {
    String raw = values.get(key);
    if (raw == null) {
      return fallback;
    }
    String value = raw.strip().toLowerCase(Locale.ROOT);
    if (!allowed.contains(value)) {
      throw bad(key, key + " must be one of " + new TreeSet<>(allowed));
    }
    return value;
  }

  /**
   * The setting {@code key} as a duration in {@code min..max}, or {@code fallback} when absent: a
   * whole number with a unit, {@code ms}, {@code s}, {@code m}, {@code h} or {@code d} ({@code
   * 30s}, {@code 24h}), or an ISO-8601 duration ({@code PT30S}).
   */
  public Duration duration(String key, Duration fallback, Duration min, Duration max) {
    String raw = values.get(key);
    if (raw == null) {
      return fallback;
    }
    Duration value = parseDuration(raw.strip());
    if (value == null) {
      throw bad(key, key + " must be a duration such as 30s, 5m, 24h or PT30S");
    }
    if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
      throw bad(key, key + " must be " + min + ".." + max + ": " + value);
    }
    return value;
  }

  /** {@code text} as a duration ({@code 30s}, {@code 24h}, {@code PT30S}), or null. */
  public static Duration parseDuration(String text) {
    Matcher m = DURATION.matcher(text.toLowerCase(Locale.ROOT));
    if (m.matches()) {
      long n = Long.parseLong(m.group(1));
      return switch (m.group(2)) {
        case "ms" -> Duration.ofMillis(n);
        case "s" -> Duration.ofSeconds(n);
        case "m" -> Duration.ofMinutes(n);
        case "h" -> Duration.ofHours(n);
        default -> Duration.ofDays(n);
      };
    }
    try {
      return Duration.parse(text);
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  private MemoryException bad(String key, String message) {
    return MemoryException.invalidArgument("spec.settings." + key, owner + ": " + message);
  }
}
