package dev.memsidecar.language.en;

import dev.memsidecar.language.extraction.DatePhraseRule;
import dev.memsidecar.language.extraction.DatePhraseRule.Resolver;
import dev.memsidecar.language.extraction.DatePhraseRule.Tense;
import dev.memsidecar.language.extraction.DatePhraseRules;
import dev.memsidecar.language.extraction.SessionDates;
import dev.memsidecar.language.extraction.Weeks;
import java.time.DayOfWeek;
import java.time.LocalDate;
import java.time.YearMonth;
import java.time.temporal.TemporalAdjusters;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The English relative date phrases: "yesterday", "last night", "two days ago", "in three weeks",
 * "last weekend", "next week", "this month", "last year", "this Saturday", "on Friday", "next
 * summer", "in June", "the other day". "last X" (a weekday) is the latest X strictly before the
 * session date, "this X" the first X on or after it, "next X" the X of the following week; a bare
 * "on X" is read by the sentence's tense; "in June" is the next June unless the sentence is in the
 * past tense, and only a capitalised month name is a month ("this may be"); "last week" is
 * annotated with the Monday of that week; seasons are northern. Dates are written "7 May 2023".
 * Immutable and thread-safe.
 */
final class EnglishDatePhrases {
  private EnglishDatePhrases() {}

  private static final String WEEKDAYS =
      "monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tue|tues|wed|thu|thur|thurs|fri"
          + "|(?-i:Sat|Sun)";
  private static final String NUMBER_WORDS =
      "\\d{1,3}|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a couple of"
          + "|a couple|couple of|a few|few|several";
  private static final String MONTHS = SessionDates.MONTHS;

  private static final String[] MONTH_NAMES = {
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December"
  };

  /** The English name of {@code month} 1..12 (never the JVM's locale). */
  private static String monthName(int month) {
    return MONTH_NAMES[month - 1];
  }

  /** Cues of a weekday's names in every form ("mon" is in "monday"). */
  private static final List<String> WEEKDAY_CUES =
      List.of("mon", "tue", "wed", "thu", "fri", "sat", "sun");

  /** Cues of a month's names in every form ("sep" is in "sept" and "september"). */
  private static final List<String> MONTH_CUES =
      List.of("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec");

  private static List<DatePhraseRule> buildRules() {
    List<DatePhraseRule> rules = new ArrayList<>();
    rule(
        rules,
        List.of("yesterday"),
        "the day before yesterday",
        (m, d, f) -> english(d.minusDays(2)));
    rule(rules, List.of("tomorrow"), "the day after tomorrow", (m, d, f) -> english(d.plusDays(2)));
    rule(
        rules,
        List.of("yesterday", "night"),
        "yesterday|last night",
        (m, d, f) -> english(d.minusDays(1)));
    rule(
        rules,
        List.of("today", "tonight", "morning", "afternoon", "evening"),
        "today|tonight|this (?:morning|afternoon|evening)",
        (m, d, f) -> english(d));
    rule(rules, List.of("tomorrow"), "tomorrow", (m, d, f) -> english(d.plusDays(1)));
    rule(
        rules,
        List.of("ago"),
        "(" + NUMBER_WORDS + ")\\s+(day|week|month|year)s?\\s+ago",
        (m, d, f) -> ago(m.group(1), m.group(2), d, -1));
    rule(
        rules,
        List.of("day", "week", "month", "year"),
        "in\\s+(" + NUMBER_WORDS + ")\\s+(day|week|month|year)s?(?!\\s+ago)",
        (m, d, f) -> ago(m.group(1), m.group(2), d, +1));
    rule(
        rules,
        List.of("ago"),
        "(" + NUMBER_WORDS + ")\\s+weekends?\\s+ago",
        (m, d, f) -> weekendsAgo(m.group(1), d));
    List<String> weekend = List.of("weekend");
    rule(
        rules,
        weekend,
        "(last|past|this past) weekend",
        (m, d, f) -> weekend(Weeks.lastWeekendStart(d)));
    rule(
        rules,
        weekend,
        "(this|this coming|the coming) weekend",
        (m, d, f) -> weekend(Weeks.thisWeekendStart(d)));
    rule(
        rules,
        weekend,
        "next weekend",
        (m, d, f) -> weekend(Weeks.thisWeekendStart(d).plusWeeks(1)));
    List<String> week = List.of("week");
    rule(
        rules,
        week,
        "(?:last|past) week|the (?:last|past) week",
        (m, d, f) -> week(Weeks.monday(d).minusWeeks(1)));
    rule(rules, week, "this week", (m, d, f) -> week(Weeks.monday(d)));
    rule(rules, week, "next week|the coming week", (m, d, f) -> week(Weeks.monday(d).plusWeeks(1)));
    List<String> month = List.of("month");
    rule(
        rules,
        month,
        "last month|the (?:last|past) month",
        (m, d, f) -> monthYear(YearMonth.from(d).minusMonths(1)));
    rule(rules, month, "this month", (m, d, f) -> monthYear(YearMonth.from(d)));
    rule(
        rules,
        month,
        "next month|the coming month",
        (m, d, f) -> monthYear(YearMonth.from(d).plusMonths(1)));
    List<String> year = List.of("year");
    rule(
        rules,
        year,
        "last year|the (?:last|past) year",
        (m, d, f) -> String.valueOf(d.getYear() - 1));
    rule(rules, year, "this year", (m, d, f) -> String.valueOf(d.getYear()));
    rule(rules, year, "next year|the coming year", (m, d, f) -> String.valueOf(d.getYear() + 1));
    rule(
        rules,
        WEEKDAY_CUES,
        "(last|this past|past|this|this coming|coming|next)\\s+(" + WEEKDAYS + ")",
        (m, d, f) -> english(weekday(m.group(1).toLowerCase(Locale.ROOT), day(m.group(2)), d)));
    rule(rules, WEEKDAY_CUES, "on\\s+(" + WEEKDAYS + ")(?!s)", (m, d, f) -> bareWeekday(m, d, f));
    rule(
        rules,
        List.of("summer", "winter", "spring", "fall", "autumn"),
        "(last|this|next)\\s+(summer|winter|spring|fall|autumn)",
        (m, d, f) -> season(m.group(1).toLowerCase(Locale.ROOT), m.group(2), d));
    rule(
        rules,
        MONTH_CUES,
        "(last|this|next|in|early|late|mid|in early|in late|in mid)[\\s-]+("
            + MONTHS
            + ")\\b(?!\\s*\\d)",
        (m, d, f) ->
            namedMonth(
                m.group(1).toLowerCase(Locale.ROOT), m.group(2), d, f.future() || !f.past()));
    rule(rules, List.of("other"), "the other day", (m, d, f) -> "shortly before " + english(d));
    return List.copyOf(rules);
  }

  private static void rule(
      List<DatePhraseRule> rules, List<String> cues, String regex, Resolver r) {
    rules.add(new DatePhraseRule(Pattern.compile("(?i)\\b(?:" + regex + ")\\b"), cues, r));
  }

  /** Markers of the future tense. */
  private static final Pattern FUTURE =
      Pattern.compile(
          "(?i)\\b(will|'ll|gonna|going to|plan|plans|planning|planned to|hope to|hoping to|want"
              + " to|wanna|can't wait|cannot wait|looking forward|next|upcoming|about to|intend"
              + " to|would like to|'d like to|schedule|scheduled)\\b");

  /** Markers of the past tense. */
  private static final Pattern PAST =
      Pattern.compile(
          "(?i)\\b(was|were|went|did|had|got|made|took|saw|ago|last|yesterday|\\w+ed)\\b(?!')");

  static final DatePhraseRules RULES = new DatePhraseRules(buildRules(), FUTURE, PAST, " (", ")");

  /** {@code 7 May 2023}. */
  static String english(LocalDate d) {
    return d.getDayOfMonth() + " " + monthName(d.getMonthValue()) + " " + d.getYear();
  }

  private static final Map<String, Integer> SMALL_NUMBERS =
      Map.ofEntries(
          Map.entry("a", 1),
          Map.entry("an", 1),
          Map.entry("one", 1),
          Map.entry("two", 2),
          Map.entry("three", 3),
          Map.entry("four", 4),
          Map.entry("five", 5),
          Map.entry("six", 6),
          Map.entry("seven", 7),
          Map.entry("eight", 8),
          Map.entry("nine", 9),
          Map.entry("ten", 10),
          Map.entry("eleven", 11),
          Map.entry("twelve", 12),
          Map.entry("a couple of", 2),
          Map.entry("a couple", 2),
          Map.entry("couple of", 2));

  /** Null for a vague count ("a few"): the phrase is then dated relative to the session day. */
  private static String ago(String count, String unit, LocalDate d, int sign) {
    String c = count.toLowerCase(Locale.ROOT).replaceAll("\\s+", " ");
    Integer n = c.chars().allMatch(Character::isDigit) ? Integer.valueOf(c) : SMALL_NUMBERS.get(c);
    String u = unit.toLowerCase(Locale.ROOT);
    if (n == null) {
      return (sign < 0 ? "some " + u + "s before " : "some " + u + "s after ") + english(d);
    }
    long k = (long) sign * n;
    return switch (u) {
      case "day" -> english(d.plusDays(k));
      case "week" -> (n == 1 ? "the week of " : "around ") + english(d.plusWeeks(k));
      case "month" -> monthYear(YearMonth.from(d).plusMonths(k));
      default -> String.valueOf(d.getYear() + k);
    };
  }

  private static String weekendsAgo(String count, LocalDate d) {
    String c = count.toLowerCase(Locale.ROOT).replaceAll("\\s+", " ");
    Integer n = c.chars().allMatch(Character::isDigit) ? Integer.valueOf(c) : SMALL_NUMBERS.get(c);
    if (n == null || n < 1) {
      return "some weekends before " + english(d);
    }
    return weekend(Weeks.lastWeekendStart(d).minusWeeks(n - 1));
  }

  private static String week(LocalDate monday) {
    return "the week of " + english(monday);
  }

  private static String monthYear(YearMonth ym) {
    return monthName(ym.getMonthValue()) + " " + ym.getYear();
  }

  private static String weekend(LocalDate saturday) {
    LocalDate sunday = saturday.plusDays(1);
    if (saturday.getMonth() == sunday.getMonth()) {
      return saturday.getDayOfMonth() + "-" + english(sunday);
    }
    return saturday.getDayOfMonth()
        + " "
        + monthName(saturday.getMonthValue())
        + " - "
        + english(sunday);
  }

  private static DayOfWeek day(String name) {
    String n = name.toLowerCase(Locale.ROOT);
    for (DayOfWeek d : DayOfWeek.values()) {
      if (d.name().toLowerCase(Locale.ROOT).startsWith(n.substring(0, 3))) {
        return d;
      }
    }
    throw new IllegalArgumentException("not a weekday: " + name);
  }

  private static LocalDate weekday(String which, DayOfWeek target, LocalDate d) {
    return switch (which) {
      case "last", "past", "this past" -> d.with(TemporalAdjusters.previous(target));
      case "next" -> Weeks.monday(d).plusWeeks(1).with(TemporalAdjusters.nextOrSame(target));
      default -> d.with(TemporalAdjusters.nextOrSame(target));
    };
  }

  /**
   * "on Saturday": the last one in a past-tense sentence, the next one in a future one, nothing in
   * the present tense ("the deploy is on Thursday" is a rule, not a date).
   */
  private static String bareWeekday(Matcher m, LocalDate d, Tense tense) {
    if (!tense.future() && !tense.past()) {
      return null;
    }
    return english(weekday(tense.future() ? "this" : "last", day(m.group(1)), d));
  }

  private static String season(String which, String name, LocalDate d) {
    String season =
        name.toLowerCase(Locale.ROOT).equals("fall") ? "autumn" : name.toLowerCase(Locale.ROOT);
    int startMonth =
        switch (season) {
          case "spring" -> 3;
          case "summer" -> 6;
          case "autumn" -> 9;
          default -> 12;
        };
    // The season's occurrence that starts in year y (winter starts in December of y).
    int y = d.getYear();
    LocalDate start = LocalDate.of(y, startMonth, 1);
    if (startMonth == 12 && d.getMonthValue() <= 2) {
      start = start.minusYears(1);
    }
    LocalDate end = start.plusMonths(3);
    boolean inside = !d.isBefore(start) && d.isBefore(end);
    LocalDate chosen =
        switch (which) {
          case "last" -> !d.isBefore(end) ? start : start.minusYears(1);
          case "next" -> d.isBefore(start) ? start : start.plusYears(1);
          default -> inside || d.isBefore(start) ? start : start.plusYears(1);
        };
    String label = season.equals("autumn") ? name.toLowerCase(Locale.ROOT) : season;
    if (startMonth == 12) {
      return "winter " + chosen.getYear() + "-" + (chosen.getYear() + 1);
    }
    return label + " " + chosen.getYear();
  }

  private static String namedMonth(String which, String name, LocalDate d, boolean future) {
    int m = SessionDates.month(name);
    int current = d.getMonthValue();
    int year = d.getYear();
    String w = which.replace("in ", "").strip();
    int chosenYear =
        switch (w) {
          case "last" -> m < current ? year : year - 1;
          case "next" -> m > current ? year : year + 1;
          case "this" -> year;
          default -> future ? (m >= current ? year : year + 1) : (m <= current ? year : year - 1);
        };
    if (!Character.isUpperCase(name.charAt(0))) {
      // "this may be", "in march": only a capitalised month name is a month.
      return null;
    }
    return monthName(m) + " " + chosenYear;
  }
}
