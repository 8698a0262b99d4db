package dev.memsidecar.language.zh;

import dev.memsidecar.language.extraction.DatePhraseRule;
import dev.memsidecar.language.extraction.DatePhraseRule.Resolver;
import dev.memsidecar.language.extraction.DatePhraseRules;
import dev.memsidecar.language.extraction.Weeks;
import java.time.DayOfWeek;
import java.time.LocalDate;
import java.time.YearMonth;
import java.time.temporal.TemporalAdjusters;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * The Chinese relative date phrases: 昨天, 前天, 明天, 上周六, 下个星期三, 这周末, 上周, 下个月, 去年, 三天前, 两个月后. "上/这/下 +
 * 周X" is the X of the last, this or next week (weeks start on Monday); a count of weeks is read
 * "前后" (around). Dates are written 2023年5月7日, in full-width parentheses. Immutable and thread-safe.
 */
final class ChineseDatePhrases {
  private ChineseDatePhrases() {}

  /** Markers of the future tense. */
  private static final Pattern FUTURE = Pattern.compile("要|会|打算|准备|计划|将要|想要");

  /** Markers of the past tense. */
  private static final Pattern PAST = Pattern.compile("了|过");

  static final DatePhraseRules RULES = new DatePhraseRules(buildRules(), FUTURE, PAST, "（", "）");

  private static List<DatePhraseRule> buildRules() {
    List<DatePhraseRule> rules = new ArrayList<>();
    rule(rules, List.of("大前天"), "大前天", (m, d, f) -> chinese(d.minusDays(3)));
    rule(rules, List.of("前天"), "前天", (m, d, f) -> chinese(d.minusDays(2)));
    rule(rules, List.of("昨"), "昨天|昨晚|昨日|昨天晚上", (m, d, f) -> chinese(d.minusDays(1)));
    rule(rules, List.of("今"), "今天|今晚|今早|今日|今天早上", (m, d, f) -> chinese(d));
    rule(rules, List.of("明"), "明天|明早|明晚|明日", (m, d, f) -> chinese(d.plusDays(1)));
    rule(rules, List.of("后天"), "(?<![先])后天", (m, d, f) -> chinese(d.plusDays(2)));
    List<String> week = List.of("周", "星期", "礼拜");
    rule(
        rules,
        week,
        "(上|下|这|本)(?:个)?(?:周|星期|礼拜)([一二三四五六日天1-7])",
        (m, d, f) -> chinese(weekday(m.group(1), m.group(2), d)));
    rule(rules, List.of("周末"), "(上|下|这|本)(?:个)?(?:周末)", (m, d, f) -> weekend(m.group(1), d));
    rule(
        rules,
        week,
        "上(?:个)?(?:周|星期|礼拜)",
        (m, d, f) -> chinese(Weeks.monday(d).minusWeeks(1)) + "那一周");
    rule(rules, week, "(?:这|本)(?:个)?(?:周|星期|礼拜)", (m, d, f) -> chinese(Weeks.monday(d)) + "那一周");
    rule(
        rules,
        week,
        "下(?:个)?(?:周|星期|礼拜)",
        (m, d, f) -> chinese(Weeks.monday(d).plusWeeks(1)) + "那一周");
    rule(rules, List.of("月"), "上(?:个)?月", (m, d, f) -> month(YearMonth.from(d).minusMonths(1)));
    rule(rules, List.of("月"), "(?:这|本)(?:个)?月", (m, d, f) -> month(YearMonth.from(d)));
    rule(rules, List.of("月"), "下(?:个)?月", (m, d, f) -> month(YearMonth.from(d).plusMonths(1)));
    rule(rules, List.of("前年"), "前年", (m, d, f) -> (d.getYear() - 2) + "年");
    rule(rules, List.of("去年"), "去年", (m, d, f) -> (d.getYear() - 1) + "年");
    rule(rules, List.of("今年"), "今年", (m, d, f) -> d.getYear() + "年");
    rule(rules, List.of("明年"), "明年", (m, d, f) -> (d.getYear() + 1) + "年");
    rule(
        rules,
        List.of("前", "后"),
        "(\\d{1,3}|[一二两三四五六七八九十几]{1,3})(?:个)?(天|周|星期|月|年)(前|后|以前|以后|之前|之后)",
        (m, d, f) -> ago(m.group(1), m.group(2), m.group(3), d));
    return List.copyOf(rules);
  }

  private static void rule(
      List<DatePhraseRule> rules, List<String> cues, String regex, Resolver r) {
    rules.add(new DatePhraseRule(Pattern.compile(regex), cues, r));
  }

  /** {@code 2023年5月7日}. */
  static String chinese(LocalDate d) {
    return d.getYear() + "年" + d.getMonthValue() + "月" + d.getDayOfMonth() + "日";
  }

  private static String weekend(String which, LocalDate d) {
    LocalDate sat =
        switch (which) {
          case "上" -> Weeks.lastWeekendStart(d);
          case "下" -> Weeks.thisWeekendStart(d).plusWeeks(1);
          default -> Weeks.thisWeekendStart(d);
        };
    return chinese(sat)
        + "至"
        + (sat.plusDays(1).getMonthValue())
        + "月"
        + sat.plusDays(1).getDayOfMonth()
        + "日";
  }

  private static DayOfWeek day(String c) {
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

  private static LocalDate weekday(String which, String day, LocalDate d) {
    LocalDate monday =
        switch (which) {
          case "上" -> Weeks.monday(d).minusWeeks(1);
          case "下" -> Weeks.monday(d).plusWeeks(1);
          default -> Weeks.monday(d);
        };
    return monday.with(TemporalAdjusters.nextOrSame(day(day)));
  }

  private static String ago(String count, String unit, String direction, LocalDate d) {
    Integer n = number(count);
    if (n == null) {
      return null;
    }
    long k = direction.contains("前") ? -n : n;
    return switch (unit) {
      case "天" -> chinese(d.plusDays(k));
      case "周", "星期" -> chinese(d.plusWeeks(k)) + "前后";
      case "月" -> month(YearMonth.from(d).plusMonths(k));
      default -> (d.getYear() + k) + "年";
    };
  }

  /** 1..99 from digits or Chinese numerals (一 .. 九十九, 两), or null (几, unreadable). */
  private static Integer number(String s) {
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

  private static String month(YearMonth ym) {
    return ym.getYear() + "年" + ym.getMonthValue() + "月";
  }
}
