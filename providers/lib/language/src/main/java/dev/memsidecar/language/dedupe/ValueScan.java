package dev.memsidecar.language.dedupe;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The values of one text being collected, type by type: each value found is recorded under a key
 * (its normal form) with the text it was shown as, and blanked out of the text so that no later
 * pattern finds it again (a date's digits are not also a number). The language-neutral patterns
 * (numeric dates, clock times, numbers) run here; a language's {@link DedupeRules} add its own
 * (month names, 周二, 下午3点). For one text on one thread.
 */
public final class ValueScan {
  private static final Pattern SPACES_DOTS = Pattern.compile("[\\s.]+");

  private final char[] work;
  private final String lower;
  private final boolean digits;
  private final Map<ValueType, Map<String, String>> values = new EnumMap<>(ValueType.class);
  private final List<Found> found = new ArrayList<>();

  /** One value found: its type, key, and where it stands in the text. */
  record Found(ValueType type, String key, int start, int end) {}

  ValueScan(char[] work, String lower) {
    this.work = work;
    this.lower = lower;
    this.digits = hasDigit(lower);
  }

  /** The whole text, lower-cased (values found so far still in it). */
  public String lower() {
    return lower;
  }

  /** The text as it stands: what earlier values left, the rest blanked. */
  public String current() {
    return new String(work);
  }

  /** Whether the text holds an ASCII digit. */
  public boolean hasDigits() {
    return digits;
  }

  /**
   * Whether a digit is followed (after optional spaces) by one of {@code chars}, and then by a
   * digit when {@code thenDigit}: a cheap test before a pattern that costs microseconds even when
   * it finds nothing.
   */
  public boolean digitThen(String chars, boolean thenDigit) {
    String s = lower;
    for (int i = 0; i + 1 < s.length(); i++) {
      if (s.charAt(i) < '0' || s.charAt(i) > '9') {
        continue;
      }
      int j = i + 1;
      while (j < s.length() && s.charAt(j) == ' ') {
        j++;
      }
      if (j < s.length() && chars.indexOf(s.charAt(j)) >= 0) {
        if (!thenDigit) {
          return true;
        }
        if (j + 1 < s.length() && s.charAt(j + 1) >= '0' && s.charAt(j + 1) <= '9') {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * Every match of {@code pattern} in the text as it stands, as a value of {@code type}: keyed by
   * its lower-cased form without spaces and dots (a number: lower-cased, without a leading "v").
   */
  public void collect(Pattern pattern, ValueType type) {
    Matcher m = pattern.matcher(current());
    while (m.find()) {
      String shown = m.group().strip();
      if (shown.isEmpty()) {
        continue;
      }
      String key;
      if (type == ValueType.NUMBER) {
        key = shown.toLowerCase(Locale.ROOT);
        key = key.startsWith("v") ? key.substring(1) : key;
      } else {
        key = SPACES_DOTS.matcher(shown.toLowerCase(Locale.ROOT)).replaceAll("");
      }
      values.computeIfAbsent(type, k -> new LinkedHashMap<>()).putIfAbsent(key, shown);
      found.add(new Found(type, key, m.start(), m.end()));
      CanonicalTokens.blank(work, m.start(), m.end());
    }
  }

  /**
   * A value a language found at {@code [start, end)}: recorded under {@code key} (the first shown
   * form of a key is kept) and blanked.
   */
  public void add(ValueType type, String key, String shown, int start, int end) {
    values.computeIfAbsent(type, k -> new LinkedHashMap<>()).putIfAbsent(key, shown);
    found.add(new Found(type, key, start, end));
    CanonicalTokens.blank(work, start, end);
  }

  /** Start and end of each run of letters, digits and underscores of {@code s}. */
  public static List<int[]> wordRuns(String s) {
    return CanonicalTokens.wordRuns(s);
  }

  char[] work() {
    return work;
  }

  Map<ValueType, Map<String, String>> values() {
    return values;
  }

  /** Every value found, in the order found. */
  List<Found> found() {
    return found;
  }

  private static boolean hasDigit(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c >= '0' && c <= '9') {
        return true;
      }
    }
    return false;
  }
}
