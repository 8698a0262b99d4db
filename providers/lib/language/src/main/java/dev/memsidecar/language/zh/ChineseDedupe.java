package dev.memsidecar.language.zh;

import dev.memsidecar.language.dedupe.DedupeRules;
import dev.memsidecar.language.dedupe.ValueScan;
import dev.memsidecar.language.dedupe.ValueType;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What comparing two memories reads in Chinese: change markers (不再, 改为, 改成, 换成, 现在, 其实, 目前, 更正,
 * ...), negations (不要, 不再, 不是, 没有, 别, 禁止, ...), copulas (是, 为, 在); function characters (的了是吗呢...)
 * and markers are no part of a subject; dates (3月1日, 2025年3月1日), times (下午3点, 3点半) and days (周二,
 * 星期二, 礼拜天). Words are not stemmed: text is compared by characters and their bigrams. Immutable and
 * thread-safe.
 */
final class ChineseDedupe implements DedupeRules {
  private static final List<String> MARKER_PHRASES =
      List.of(
          "不再", "改为", "改成", "改到", "换成", "换为", "变为", "变成", "现在", "其实", "目前", "如今", "以后", "更正", "不对",
          "调整为", "更新为", "迁移到", "搬到");

  /** Markers blanked out of a subject. */
  private static final List<String> SUBJECT_MARKERS =
      List.of(
          "改为", "改成", "改到", "换成", "换为", "变为", "变成", "现在", "其实", "目前", "如今", "以后", "更正", "不对", "调整为",
          "更新为", "迁移到");

  private static final List<String> NEGATION_PHRASES =
      List.of(
          "不要", "不用", "不再", "不是", "不能", "不会", "不喜欢", "不想", "不需要", "没有", "别", "禁止", "勿", "不得", "不可");
  private static final List<String> COPULA_PHRASES = List.of("是", "为", "在");
  private static final String NEGATION_CHARS = "不没别勿";
  private static final String FUNCTION_CHARS = "的了是吗呢吧啊呀哦嗯么也都就很把被在为";

  private static final Pattern DATE = Pattern.compile("(?:\\d{4}年)?\\d{1,2}月\\d{1,2}[日号]?");
  private static final Pattern TIME =
      Pattern.compile("(?:上午|下午|晚上|早上|中午)?\\d{1,2}[点點](?:\\d{1,2}分|半)?");
  private static final String[] DAYS = {
    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"
  };

  /** An old value: the rest of a clause, at most 20 characters. */
  private static final String OLD = "([^，,。；;！!？?、\\s]{1,20}?)";

  private static final String CHANGE_VERBS =
      "改成|改为|改到|换成|换为|变成|变为|调整为|调整到|更新为|推迟到|提前到|挪到|搬到|转到|升级到|降到|涨到";

  /** "不是周二，而是周四"; "从周二改成周四", "把周二改成周四"; "不再喝咖啡了", "而不是周二", "已经不是周二了". Group 1 is the old value. */
  private static final List<Pattern> RETRACTIONS =
      List.of(
          Pattern.compile("不是" + OLD + "[，,、\\s]*而是"),
          Pattern.compile("[从把]" + OLD + "(?:" + CHANGE_VERBS + ")"),
          Pattern.compile("(?:而不是|不再是|不再|已经不是)" + OLD + "(?=了?(?:[，,。；;！!？?]|$))"),
          Pattern.compile("(?<!而)不是" + OLD + "了(?=[，,。；;！!？?]|$)"));

  /** Unchanged: Chinese is compared by characters, not stems. */
  @Override
  public String stem(String word) {
    return word;
  }

  @Override
  public boolean marksChange(Set<String> terms, String lower) {
    return any(lower, MARKER_PHRASES);
  }

  @Override
  public boolean negates(Set<String> terms, String lower) {
    return any(lower, NEGATION_PHRASES);
  }

  @Override
  public boolean links(Set<String> terms, String lower) {
    return any(lower, COPULA_PHRASES);
  }

  @Override
  public boolean isNegation(String term) {
    return NEGATION_CHARS.indexOf(term.charAt(0)) >= 0;
  }

  @Override
  public boolean isFiller(String word) {
    return false;
  }

  @Override
  public String concept(String stem) {
    return null;
  }

  @Override
  public String subjectText(String text) {
    String subject = text;
    for (String marker : SUBJECT_MARKERS) {
      if (subject.contains(marker)) {
        subject = subject.replace(marker, " ");
      }
    }
    StringBuilder b = new StringBuilder(subject.length());
    for (int i = 0; i < subject.length(); i++) {
      char c = subject.charAt(i);
      b.append(FUNCTION_CHARS.indexOf(c) >= 0 ? ' ' : c);
    }
    return b.toString();
  }

  @Override
  public List<int[]> retractions(String text) {
    if (!text.contains("不") && !text.contains("从") && !text.contains("把")) {
      return List.of();
    }
    List<int[]> out = new ArrayList<>();
    for (Pattern p : RETRACTIONS) {
      Matcher m = p.matcher(text);
      while (m.find()) {
        out.add(new int[] {m.start(1), m.end(1)});
      }
    }
    return out;
  }

  @Override
  public void findDates(ValueScan scan) {
    if (scan.hasDigits() && scan.lower().contains("月")) {
      scan.collect(DATE, ValueType.DATE);
    }
  }

  @Override
  public void findTimes(ValueScan scan) {
    if (scan.hasDigits() && scan.digitThen("点點", false)) {
      scan.collect(TIME, ValueType.TIME);
    }
  }

  /** 周X, 星期X and 礼拜X, keyed by the English day name (周二 and Tuesday are one day). */
  @Override
  public void findDays(ValueScan scan) {
    String text = scan.current();
    for (String prefix : List.of("周", "星期", "礼拜")) {
      int at = text.indexOf(prefix);
      while (at >= 0) {
        int end = at + prefix.length();
        if (end < text.length() && "一二三四五六日天".indexOf(text.charAt(end)) >= 0) {
          int day = "一二三四五六".indexOf(text.charAt(end));
          scan.add(
              ValueType.DAY,
              day >= 0 ? DAYS[day] : "sunday",
              text.substring(at, end + 1),
              at,
              end + 1);
        }
        at = text.indexOf(prefix, end);
      }
    }
  }

  private static boolean any(String text, List<String> phrases) {
    for (String p : phrases) {
      if (text.contains(p)) {
        return true;
      }
    }
    return false;
  }
}
