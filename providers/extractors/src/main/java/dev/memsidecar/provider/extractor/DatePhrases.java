package dev.memsidecar.provider.extractor;

import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.YearMonth;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeParseException;
import java.time.temporal.TemporalAdjusters;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Dates in conversation text: reads a session date ("1:56 pm on 8 May, 2023", "2023-05-08",
 * "2023年5月8日"), and annotates relative date phrases ("yesterday", "last week", "next month", "this
 * Saturday", "two days ago", "昨天", "上周六", "三天前") with the absolute date they mean on that session
 * date, keeping the phrase: {@code "yesterday"} becomes {@code "yesterday (7 May 2023)"}.
 *
 * <p>Conventions (documented because phrases are ambiguous): weeks start on Monday; "last X" (a
 * weekday) is the latest X strictly before the session date; "this X" the first X on or after it;
 * "next X", like "下周X", the X of the following week; a bare "on X" is read as past or future from
 * the sentence's tense (and left alone in the present tense: "the deploy is on Thursday" is a
 * rule); "in June" is the next June unless the sentence is in the past tense. "last week" is
 * annotated with the Monday of that week. Seasons are northern (spring March-May, summer
 * June-August, autumn September-November, winter December-February). Stateless and thread-safe.
 */
final class DatePhrases {
  private DatePhrases() {}

  private static final String MONTHS =
      "january|february|march|april|may|june|july|august|september|october|november|december"
          + "|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec";
  private static final String WEEKDAYS =
      "monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tue|tues|wed|thu|thur|thurs|fri"
          + "|(?-i:Sat|Sun)";
  private static final String NUMBER_WORDS =
      "\\d{1,3}|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a couple of"
          + "|a couple|couple of|a few|few|several";

  private static final Pattern ISO_DATE =
      Pattern.compile("(\\d{4})\\s*[-/.年]\\s*(\\d{1,2})\\s*[-/.月]\\s*(\\d{1,2})");
  private static final Pattern DAY_MONTH_YEAR =
      Pattern.compile(
          "(?i)\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+(?:of\\s+)?(" + MONTHS + ")\\.?,?\\s+(\\d{4})\\b");
  private static final Pattern MONTH_DAY_YEAR =
      Pattern.compile("(?i)\\b(" + MONTHS + ")\\.?\\s+(\\d{1,2})(?:st|nd|rd|th)?,?\\s+(\\d{4})\\b");

  /**
   * The date {@code text} names, in {@code zone}, or null: an ISO instant or date-time (converted
   * to {@code zone} when it has an offset), {@code 2023-05-08}, {@code 2023/5/8}, {@code
   * 2023年5月8日}, {@code 8 May 2023}, {@code 8 May, 2023}, {@code May 8, 2023}, also inside longer
   * text such as {@code 1:56 pm on 8 May, 2023}.
   */
  static LocalDate parseSessionDate(String text, ZoneId zone) {
    if (text == null) {
      return null;
    }
    String s = text.strip();
    if (s.isEmpty()) {
      return null;
    }
    try {
      return Instant.parse(s).atZone(zone).toLocalDate();
    } catch (DateTimeParseException e) {
      // not an instant
    }
    try {
      return OffsetDateTime.parse(s).atZoneSameInstant(zone).toLocalDate();
    } catch (DateTimeParseException e) {
      // not an offset date-time
    }
    try {
      return LocalDateTime.parse(s).toLocalDate();
    } catch (DateTimeParseException e) {
      // not a local date-time
    }
    Matcher m = ISO_DATE.matcher(s);
    if (m.find()) {
      return date(m.group(1), m.group(2), m.group(3));
    }
    m = DAY_MONTH_YEAR.matcher(s);
    if (m.find()) {
      return date(m.group(3), String.valueOf(month(m.group(2))), m.group(1));
    }
    m = MONTH_DAY_YEAR.matcher(s);
    if (m.find()) {
      return date(m.group(3), String.valueOf(month(m.group(1))), m.group(2));
    }
    return null;
  }

  private static LocalDate date(String y, String mo, String d) {
    try {
      return LocalDate.of(Integer.parseInt(y), Integer.parseInt(mo), Integer.parseInt(d));
    } catch (RuntimeException e) {
      return null;
    }
  }

  /** 1..12 for an English month name or abbreviation. */
  static int month(String name) {
    String n = name.toLowerCase(Locale.ROOT);
    return switch (n.substring(0, 3)) {
      case "jan" -> 1;
      case "feb" -> 2;
      case "mar" -> 3;
      case "apr" -> 4;
      case "may" -> 5;
      case "jun" -> 6;
      case "jul" -> 7;
      case "aug" -> 8;
      case "sep" -> 9;
      case "oct" -> 10;
      case "nov" -> 11;
      default -> 12;
    };
  }

  /** {@code 7 May 2023}. */
  static String english(LocalDate d) {
    return d.getDayOfMonth() + " " + monthName(d.getMonthValue()) + " " + d.getYear();
  }

  /** {@code 2023年5月7日}. */
  static String chinese(LocalDate d) {
    return d.getYear() + "年" + d.getMonthValue() + "月" + d.getDayOfMonth() + "日";
  }

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

  // ---------------------------------------------------------------------------------------------
  // Annotation

  /** One way of reading a phrase: its pattern and what it means on a session date. */
  private record Rule(Pattern pattern, Resolver resolver) {}

  /** The tense of the sentence a phrase is in, by its markers. */
  private record Tense(boolean future, boolean past) {}

  @FunctionalInterface
  private interface Resolver {
    /** The annotation for match {@code m} on {@code day}, or null to leave the phrase alone. */
    String resolve(Matcher m, LocalDate day, Tense tense);
  }

  private static final List<Rule> ENGLISH = new ArrayList<>();
  private static final List<Rule> CHINESE = new ArrayList<>();

  private static void en(String regex, Resolver r) {
    ENGLISH.add(new Rule(Pattern.compile("(?i)\\b(?:" + regex + ")\\b"), r));
  }

  private static void zh(String regex, Resolver r) {
    CHINESE.add(new Rule(Pattern.compile(regex), r));
  }

  static {
    en("the day before yesterday", (m, d, f) -> english(d.minusDays(2)));
    en("the day after tomorrow", (m, d, f) -> english(d.plusDays(2)));
    en("yesterday|last night", (m, d, f) -> english(d.minusDays(1)));
    en("today|tonight|this (?:morning|afternoon|evening)", (m, d, f) -> english(d));
    en("tomorrow", (m, d, f) -> english(d.plusDays(1)));
    en(
        "(" + NUMBER_WORDS + ")\\s+(day|week|month|year)s?\\s+ago",
        (m, d, f) -> ago(m.group(1), m.group(2), d, -1));
    en(
        "in\\s+(" + NUMBER_WORDS + ")\\s+(day|week|month|year)s?(?!\\s+ago)",
        (m, d, f) -> ago(m.group(1), m.group(2), d, +1));
    en("(" + NUMBER_WORDS + ")\\s+weekends?\\s+ago", (m, d, f) -> weekendsAgo(m.group(1), d));
    en("(last|past|this past) weekend", (m, d, f) -> weekend(lastWeekendStart(d)));
    en("(this|this coming|the coming) weekend", (m, d, f) -> weekend(thisWeekendStart(d)));
    en("next weekend", (m, d, f) -> weekend(thisWeekendStart(d).plusWeeks(1)));
    en("(?:last|past) week|the (?:last|past) week", (m, d, f) -> week(monday(d).minusWeeks(1)));
    en("this week", (m, d, f) -> week(monday(d)));
    en("next week|the coming week", (m, d, f) -> week(monday(d).plusWeeks(1)));
    en(
        "last month|the (?:last|past) month",
        (m, d, f) -> monthYear(YearMonth.from(d).minusMonths(1)));
    en("this month", (m, d, f) -> monthYear(YearMonth.from(d)));
    en("next month|the coming month", (m, d, f) -> monthYear(YearMonth.from(d).plusMonths(1)));
    en("last year|the (?:last|past) year", (m, d, f) -> String.valueOf(d.getYear() - 1));
    en("this year", (m, d, f) -> String.valueOf(d.getYear()));
    en("next year|the coming year", (m, d, f) -> String.valueOf(d.getYear() + 1));
    en(
        "(last|this past|past|this|this coming|coming|next)\\s+(" + WEEKDAYS + ")",
        (m, d, f) -> english(weekday(m.group(1).toLowerCase(Locale.ROOT), day(m.group(2)), d)));
    en("on\\s+(" + WEEKDAYS + ")(?!s)", (m, d, f) -> bareWeekday(m, d, f));
    en(
        "(last|this|next)\\s+(summer|winter|spring|fall|autumn)",
        (m, d, f) -> season(m.group(1).toLowerCase(Locale.ROOT), m.group(2), d));
    en(
        "(last|this|next|in|early|late|mid|in early|in late|in mid)[\\s-]+("
            + MONTHS
            + ")\\b(?!\\s*\\d)",
        (m, d, f) ->
            namedMonth(
                m.group(1).toLowerCase(Locale.ROOT), m.group(2), d, f.future() || !f.past()));
    en("the other day", (m, d, f) -> "shortly before " + english(d));

    zh("大前天", (m, d, f) -> chinese(d.minusDays(3)));
    zh("前天", (m, d, f) -> chinese(d.minusDays(2)));
    zh("昨天|昨晚|昨日|昨天晚上", (m, d, f) -> chinese(d.minusDays(1)));
    zh("今天|今晚|今早|今日|今天早上", (m, d, f) -> chinese(d));
    zh("明天|明早|明晚|明日", (m, d, f) -> chinese(d.plusDays(1)));
    zh("(?<![先])后天", (m, d, f) -> chinese(d.plusDays(2)));
    zh(
        "(上|下|这|本)(?:个)?(?:周|星期|礼拜)([一二三四五六日天1-7])",
        (m, d, f) -> chinese(zhWeekday(m.group(1), m.group(2), d)));
    zh("(上|下|这|本)(?:个)?(?:周末)", (m, d, f) -> zhWeekend(m.group(1), d));
    zh("上(?:个)?(?:周|星期|礼拜)", (m, d, f) -> chinese(monday(d).minusWeeks(1)) + "那一周");
    zh("(?:这|本)(?:个)?(?:周|星期|礼拜)", (m, d, f) -> chinese(monday(d)) + "那一周");
    zh("下(?:个)?(?:周|星期|礼拜)", (m, d, f) -> chinese(monday(d).plusWeeks(1)) + "那一周");
    zh("上(?:个)?月", (m, d, f) -> zhMonth(YearMonth.from(d).minusMonths(1)));
    zh("(?:这|本)(?:个)?月", (m, d, f) -> zhMonth(YearMonth.from(d)));
    zh("下(?:个)?月", (m, d, f) -> zhMonth(YearMonth.from(d).plusMonths(1)));
    zh("前年", (m, d, f) -> (d.getYear() - 2) + "年");
    zh("去年", (m, d, f) -> (d.getYear() - 1) + "年");
    zh("今年", (m, d, f) -> d.getYear() + "年");
    zh("明年", (m, d, f) -> (d.getYear() + 1) + "年");
    zh(
        "(\\d{1,3}|[一二两三四五六七八九十几]{1,3})(?:个)?(天|周|星期|月|年)(前|后|以前|以后|之前|之后)",
        (m, d, f) -> zhAgo(m.group(1), m.group(2), m.group(3), d));
  }

  /**
   * {@code text} with every relative date phrase followed by its absolute date in parentheses, read
   * on {@code day}. A phrase already followed by a parenthesis is left alone, so annotating twice
   * changes nothing.
   */
  static String annotate(String text, LocalDate day) {
    List<int[]> spans = new ArrayList<>();
    List<String> notes = new ArrayList<>();
    find(text, day, spans, notes);
    if (spans.isEmpty()) {
      return text;
    }
    // Insert from the last span back so earlier offsets stay valid.
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < spans.size(); i++) {
      order.add(i);
    }
    order.sort((a, b) -> Integer.compare(spans.get(b)[1], spans.get(a)[1]));
    StringBuilder out = new StringBuilder(text);
    for (int i : order) {
      int end = spans.get(i)[1];
      boolean chineseNote = Language.hasCjk(notes.get(i));
      String note = chineseNote ? "（" + notes.get(i) + "）" : " (" + notes.get(i) + ")";
      out.insert(end, note);
    }
    return out.toString();
  }

  /**
   * The relative date phrases of {@code text} with their dates, as {@code "phrase: date"} (e.g.
   * {@code "last night: 13 August 2023"}), in order of the rules that found them.
   */
  static List<String> phrases(String text, LocalDate day) {
    List<int[]> spans = new ArrayList<>();
    List<String> notes = new ArrayList<>();
    find(text, day, spans, notes);
    List<String> out = new ArrayList<>();
    for (int i = 0; i < spans.size(); i++) {
      String phrase = text.substring(spans.get(i)[0], spans.get(i)[1]);
      out.add(phrase.toLowerCase(Locale.ROOT) + ": " + notes.get(i));
    }
    return out;
  }

  /** Words without which no rule can match: most sentences skip the rules at this price. */
  private static final Pattern TRIGGER =
      Pattern.compile(
          "(?i)\\b(?:yesterday|last|today|tonight|morning|afternoon|evening|tomorrow|ago|weeks?"
              + "|weekends?|months?|years?|days?|other day|"
              + WEEKDAYS
              + "|summer|winter|spring|fall|autumn|(?-i:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)"
              + "[a-z]*)\\b|[昨今明前后上下这本去大]");

  private static void find(String text, LocalDate day, List<int[]> spans, List<String> notes) {
    if (!TRIGGER.matcher(text).find()) {
      return;
    }
    Tense tense = new Tense(isFuture(text), PAST.matcher(text).find());
    boolean cjk = Language.hasCjk(text);
    for (Rule rule : cjk ? concat(CHINESE, ENGLISH) : ENGLISH) {
      Matcher m = rule.pattern.matcher(text);
      while (m.find()) {
        if (overlaps(spans, m.start(), m.end()) || annotatedAt(text, m.end())) {
          continue;
        }
        String note = rule.resolver.resolve(m, day, tense);
        if (note != null) {
          spans.add(new int[] {m.start(), m.end()});
          notes.add(note);
        }
      }
    }
  }

  private static List<Rule> concat(List<Rule> a, List<Rule> b) {
    List<Rule> out = new ArrayList<>(a);
    out.addAll(b);
    return out;
  }

  private static boolean overlaps(List<int[]> spans, int start, int end) {
    for (int[] s : spans) {
      if (start < s[1] && end > s[0]) {
        return true;
      }
    }
    return false;
  }

  private static boolean annotatedAt(String text, int end) {
    int i = end;
    while (i < text.length() && text.charAt(i) == ' ') {
      i++;
    }
    return i < text.length() && (text.charAt(i) == '(' || text.charAt(i) == '（');
  }

  private static final Pattern FUTURE =
      Pattern.compile(
          "(?i)\\b(will|'ll|gonna|going to|plan|plans|planning|planned to|hope to|hoping to|want"
              + " to|wanna|can't wait|cannot wait|looking forward|next|upcoming|about to|intend"
              + " to|would like to|'d like to|schedule|scheduled)\\b|要|会|打算|准备|计划|将要|想要");
  private static final Pattern PAST =
      Pattern.compile(
          "(?i)\\b(was|were|went|did|had|got|made|took|saw|ago|last|yesterday|\\w+ed)\\b(?!')|了|过");

  /** Whether {@code text} speaks of the future rather than the past, by its tense markers. */
  static boolean isFuture(String text) {
    int future = count(FUTURE, text);
    int past = count(PAST, text);
    return future > 0 && future >= past;
  }

  private static int count(Pattern p, String text) {
    Matcher m = p.matcher(text);
    int n = 0;
    while (m.find()) {
      n++;
    }
    return n;
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
    return weekend(lastWeekendStart(d).minusWeeks(n - 1));
  }

  private static LocalDate monday(LocalDate d) {
    return d.with(TemporalAdjusters.previousOrSame(DayOfWeek.MONDAY));
  }

  private static String week(LocalDate monday) {
    return "the week of " + english(monday);
  }

  private static String monthYear(YearMonth ym) {
    return monthName(ym.getMonthValue()) + " " + ym.getYear();
  }

  private static String zhMonth(YearMonth ym) {
    return ym.getYear() + "年" + ym.getMonthValue() + "月";
  }

  private static LocalDate lastWeekendStart(LocalDate d) {
    // The Saturday of the latest weekend that ended before d's week (or before d on a weekend).
    LocalDate sat = d.with(TemporalAdjusters.previous(DayOfWeek.SATURDAY));
    if (d.getDayOfWeek() == DayOfWeek.SUNDAY) {
      sat = sat.minusWeeks(1);
    }
    return sat;
  }

  private static LocalDate thisWeekendStart(LocalDate d) {
    if (d.getDayOfWeek() == DayOfWeek.SUNDAY) {
      return d.minusDays(1);
    }
    return d.with(TemporalAdjusters.nextOrSame(DayOfWeek.SATURDAY));
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

  private static String zhWeekend(String which, LocalDate d) {
    LocalDate sat =
        switch (which) {
          case "上" -> lastWeekendStart(d);
          case "下" -> thisWeekendStart(d).plusWeeks(1);
          default -> thisWeekendStart(d);
        };
    return chinese(sat)
        + "至"
        + (sat.plusDays(1).getMonthValue())
        + "月"
        + sat.plusDays(1).getDayOfMonth()
        + "日";
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
      case "next" -> monday(d).plusWeeks(1).with(TemporalAdjusters.nextOrSame(target));
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

  private static DayOfWeek zhDay(String c) {
    return switch (c) {
      case "一", "1" -> DayOfWeek.MONDAY;
      case "二", "2" -> DayOfWeek.TUESDAY;
      case "三", "3" -> DayOfWeek.WEDNESDAY;
      case "四", "4" -> DayOfWeek.THURSDAY;
      case "五", "5" -> DayOfWeek.FRIDAY;
      case "六", "6" -> DayOfWeek.SATURDAY;
      default -> DayOfWeek.SUNDAY;
    };
  }

  private static LocalDate zhWeekday(String which, String day, LocalDate d) {
    LocalDate monday =
        switch (which) {
          case "上" -> monday(d).minusWeeks(1);
          case "下" -> monday(d).plusWeeks(1);
          default -> monday(d);
        };
    return monday.with(TemporalAdjusters.nextOrSame(zhDay(day)));
  }

  private static String zhAgo(String count, String unit, String direction, LocalDate d) {
    Integer n = zhNumber(count);
    if (n == null) {
      return null;
    }
    long k = direction.contains("前") ? -n : n;
    return switch (unit) {
      case "天" -> chinese(d.plusDays(k));
      case "周", "星期" -> chinese(d.plusWeeks(k)) + "前后";
      case "月" -> zhMonth(YearMonth.from(d).plusMonths(k));
      default -> (d.getYear() + k) + "年";
    };
  }

  /** 1..99 from digits or Chinese numerals (一 .. 九十九, 两), or null (几, unreadable). */
  static Integer zhNumber(String s) {
    if (s.chars().allMatch(Character::isDigit)) {
      return Integer.valueOf(s);
    }
    String digits = "零一二三四五六七八九";
    Function<Character, Integer> digit = c -> c == '两' ? 2 : digits.indexOf(c);
    if (s.contains("几")) {
      return null;
    }
    int ten = s.indexOf('十');
    if (ten < 0) {
      return s.length() == 1 ? positive(digit.apply(s.charAt(0))) : null;
    }
    int tens = ten == 0 ? 1 : digit.apply(s.charAt(0));
    int ones = ten == s.length() - 1 ? 0 : digit.apply(s.charAt(ten + 1));
    if (tens < 0 || ones < 0) {
      return null;
    }
    return tens * 10 + ones;
  }

  private static Integer positive(int n) {
    return n > 0 ? n : null;
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
    int m = month(name);
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

  /** The session instant's local date, for requests without a session date. */
  static LocalDate today(Instant now, ZoneId zone) {
    return ZonedDateTime.ofInstant(now, zone).toLocalDate();
  }
}
