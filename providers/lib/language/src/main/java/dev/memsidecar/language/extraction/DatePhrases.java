package dev.memsidecar.language.extraction;

import dev.memsidecar.language.Languages;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;

/**
 * Relative date phrases in text of any language ("yesterday", "last week", "next month", "this
 * Saturday", "two days ago", "昨天", "上周六", "三天前"), each annotated with the absolute date it means on
 * a session date, keeping the phrase: {@code "yesterday"} becomes {@code "yesterday (7 May 2023)"}.
 * Every language's rules are tried ({@link DatePhraseRules}), in the order of {@link
 * Languages#all}; a phrase found once is not read again.
 *
 * <p>Conventions (documented because phrases are ambiguous): weeks start on Monday ({@link Weeks});
 * "last X" (a weekday) is the latest X strictly before the session date; "this X" the first X on or
 * after it; "next X", like "下周X", the X of the following week; a bare "on X" is read as past or
 * future from the sentence's tense (and left alone in the present tense: "the deploy is on
 * Thursday" is a rule); "in June" is the next June unless the sentence is in the past tense. "last
 * week" is annotated with the Monday of that week. Seasons are northern (spring March-May, summer
 * June-August, autumn September-November, winter December-February). Stateless and thread-safe.
 */
public final class DatePhrases {
  private DatePhrases() {}

  private static final List<DatePhraseRules> LANGUAGES =
      Languages.all().stream().map(l -> l.extraction().dates()).toList();

  /** A phrase found in a text: where, the date it names, and the language that read it. */
  private record Found(int start, int end, String date, DatePhraseRules language) {}

  /**
   * {@code text} with every relative date phrase followed by its absolute date in parentheses, read
   * on {@code day}. A phrase already followed by a parenthesis is left alone, so annotating twice
   * changes nothing.
   */
  public static String annotate(String text, LocalDate day) {
    List<Found> found = find(text, day);
    if (found.isEmpty()) {
      return text;
    }
    // Insert from the last phrase back so earlier offsets stay valid.
    List<Found> order = new ArrayList<>(found);
    order.sort((a, b) -> Integer.compare(b.end(), a.end()));
    StringBuilder out = new StringBuilder(text);
    for (Found f : order) {
      out.insert(f.end(), f.language().enclose(f.date()));
    }
    return out.toString();
  }

  /**
   * The relative date phrases of {@code text} with their dates, as {@code "phrase: date"} (e.g.
   * {@code "last night: 13 August 2023"}), in order of the rules that found them.
   */
  public static List<String> phrases(String text, LocalDate day) {
    List<String> out = new ArrayList<>();
    for (Found f : find(text, day)) {
      out.add(text.substring(f.start(), f.end()).toLowerCase(Locale.ROOT) + ": " + f.date());
    }
    return out;
  }

  /** Whether {@code text} speaks of the future rather than the past, by its tense markers. */
  public static boolean isFuture(String text) {
    return tense(text).future();
  }

  /** The tense of {@code text}: future as {@link #isFuture} reads it, past if it has a marker. */
  private static DatePhraseRule.Tense tense(String text) {
    int future = LANGUAGES.stream().mapToInt(l -> l.futureMarkers(text)).sum();
    int past = LANGUAGES.stream().mapToInt(l -> l.pastMarkers(text)).sum();
    return new DatePhraseRule.Tense(future > 0 && future >= past, past > 0);
  }

  private static List<Found> find(String text, LocalDate day) {
    List<Found> found = new ArrayList<>();
    String lowerCase = text.toLowerCase(Locale.ROOT);
    DatePhraseRule.Tense tense = null; // read once a phrase needs it: most texts have none
    for (DatePhraseRules language : LANGUAGES) {
      for (DatePhraseRule rule : language.rules()) {
        if (!rule.mayMatch(lowerCase)) {
          continue;
        }
        Matcher m = rule.pattern().matcher(text);
        while (m.find()) {
          if (overlaps(found, m.start(), m.end()) || annotatedAt(text, m.end())) {
            continue;
          }
          if (tense == null) {
            tense = tense(text);
          }
          String date = rule.resolver().resolve(m, day, tense);
          if (date != null) {
            found.add(new Found(m.start(), m.end(), date, language));
          }
        }
      }
    }
    return found;
  }

  private static boolean overlaps(List<Found> found, int start, int end) {
    for (Found f : found) {
      if (start < f.end() && end > f.start()) {
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
}
