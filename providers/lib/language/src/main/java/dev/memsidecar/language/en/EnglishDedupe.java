package dev.memsidecar.language.en;

import dev.memsidecar.language.dedupe.DedupeRules;
import dev.memsidecar.language.dedupe.ValueScan;
import dev.memsidecar.language.dedupe.ValueType;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What comparing two memories reads in English: words meet by {@link EnglishStemmer#looseStem}
 * ("deploys", "deployed", "deploying"; "use", "used"); change markers ("now", "instead",
 * "actually", "correction", "new", "changed", "switched", "moved", "no longer", "from now on",
 * "going forward"); negations ("not", "never", "n't", "cannot", "no longer"); copulas ("is", "are",
 * "was", "set to"); "lives", "based", "located" and "moved to" as one relation; month-name dates
 * ("March 1st", "1 March 2025"), "noon" and "midnight", and day names ("Tuesday", "Tuesdays").
 * Immutable and thread-safe.
 */
final class EnglishDedupe implements DedupeRules {
  private static final Set<String> MARKER_WORDS =
      words(
          "now instead actually correction henceforth anymore new changed switched moved"
              + " relocated updated replaced");
  private static final List<String> MARKER_PHRASES =
      List.of("no longer", "from now on", "going forward", "starting today", "rather than");
  private static final Set<String> NEGATION_WORDS = words("not never cannot");
  private static final List<String> NEGATION_PHRASES = List.of("n't", "n’t", "no longer");
  private static final Set<String> COPULA_WORDS = words("is are was were equals becomes");
  private static final List<String> COPULA_PHRASES = List.of("set to");

  /** Words and stems that are no part of a subject. */
  private static final Set<String> FILLERS =
      words(
          "now actually instead currently anymore longer new again also every each today"
              + " henceforth forward go start chang switch updat correction rather replac no"
              + " not never cannot don doesn isn aren won can shouldn mustn didn wasn weren t"
              + " set equal becom");

  private static final Map<String, String> CONCEPTS =
      Map.of(
          "liv", "@location",
          "bas", "@location",
          "locat", "@location",
          "resid", "@location",
          "mov", "@moved",
          "relocat", "@moved");

  private static final String MONTHS =
      "(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
          + "|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)";
  private static final Pattern MONTH_DATE =
      Pattern.compile(
          "(?i)\\b"
              + MONTHS
              + "\\.?\\s+\\d{1,2}(?:st|nd|rd|th)?(?:,?\\s+\\d{4})?\\b"
              + "|\\b\\d{1,2}(?:st|nd|rd|th)?\\s+(?:of\\s+)?"
              + MONTHS
              + "\\b(?:,?\\s+\\d{4})?");
  private static final Pattern NOON = Pattern.compile("(?i)\\b(?:noon|midnight)\\b");
  private static final Set<String> DAYS =
      words("monday tuesday wednesday thursday friday saturday sunday");
  private static final Set<String> MONTH_WORDS =
      words(
          "jan january feb february mar march apr april may jun june jul july aug august sep"
              + " sept september oct october nov november dec december");

  /** An old value: the rest of a clause, at most 60 characters. */
  private static final String OLD = "([^,;.!?()]{1,60}?)";

  /** Where a clause ends. */
  private static final String CLAUSE_END = "(?=\\s*(?:[,;.!?)]|$))";

  private static final String OLD_VALUE_VERBS =
      "chang\\w*|mov\\w*|switch\\w*|updat\\w*|shift\\w*|went|go|goes|going|gone"
          + "|reschedul\\w*|postpon\\w*|push\\w*|bump\\w*|turn\\w*|convert\\w*|migrat\\w*"
          + "|replac\\w*|renam\\w*|upgrad\\w*|downgrad\\w*|rais\\w*|lower\\w*|increas\\w*"
          + "|decreas\\w*|cut";

  /**
   * "Thursday, not Tuesday"; "not Tuesday but Thursday"; "instead of npm", "rather than Tuesday";
   * "changed from Tuesday to Thursday"; "no longer drinks coffee"; "doesn't live in Paris anymore".
   * Group 1 is the old value.
   */
  private static final List<Pattern> RETRACTIONS =
      List.of(
          Pattern.compile(
              "(?i)(?:,|\\s[-–—])\\s*(?:and\\s+|but\\s+)?not\\s+(?:(?:on|at|in|to|the|a|an)\\s+)*"
                  + OLD
                  + "(?=\\s*(?:[,;.!?)]|$|\\s+(?:any\\s?more|now)\\b))"),
          Pattern.compile(
              "(?i)\\bnot\\s+(?:(?:on|at|in|to|the|a|an)\\s+)*" + OLD + "\\s*,?\\s+but\\b"),
          Pattern.compile("(?i)\\b(?:instead of|rather than)\\s+" + OLD + CLAUSE_END),
          Pattern.compile(
              "(?i)\\b(?:"
                  + OLD_VALUE_VERBS
                  + ")\\b[^,;.!?]{0,40}?\\bfrom\\s+"
                  + OLD
                  + "\\s+(?:to|into|for)\\b"),
          Pattern.compile(
              "(?i)\\bno longer\\s+"
                  + OLD
                  + "(?=\\s*(?:[,;.!?)]|$|\\s+(?:but|and|since|because|as)\\b))"),
          Pattern.compile("(?i)(?:\\bnot|n't|n’t|\\bnever)\\s+" + OLD + "\\s+any\\s?more\\b"));

  private static Set<String> words(String spaced) {
    return Set.of(spaced.split(" "));
  }

  @Override
  public String stem(String word) {
    return EnglishStemmer.looseStem(word);
  }

  @Override
  public boolean marksChange(Set<String> terms, String lower) {
    return any(terms, MARKER_WORDS) || any(lower, MARKER_PHRASES);
  }

  @Override
  public boolean negates(Set<String> terms, String lower) {
    return any(terms, NEGATION_WORDS) || any(lower, NEGATION_PHRASES);
  }

  @Override
  public boolean links(Set<String> terms, String lower) {
    return any(terms, COPULA_WORDS) || any(lower, COPULA_PHRASES);
  }

  @Override
  public boolean isNegation(String term) {
    return false; // "not", "never", "n't": fillers
  }

  @Override
  public boolean isFiller(String word) {
    return FILLERS.contains(word);
  }

  @Override
  public String concept(String stem) {
    return CONCEPTS.get(stem);
  }

  @Override
  public String subjectText(String text) {
    return text;
  }

  @Override
  public List<int[]> retractions(String text) {
    String lower = text.toLowerCase(Locale.ROOT);
    if (!lower.contains("not")
        && !lower.contains("n't")
        && !lower.contains("n’t")
        && !lower.contains("never")
        && !lower.contains("instead")
        && !lower.contains("rather")
        && !lower.contains("from")
        && !lower.contains("longer")) {
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
    if (scan.hasDigits() && hasMonth(scan.lower())) {
      scan.collect(MONTH_DATE, ValueType.DATE);
    }
  }

  @Override
  public void findTimes(ValueScan scan) {
    if (scan.lower().contains("noon") || scan.lower().contains("midnight")) {
      scan.collect(NOON, ValueType.TIME);
    }
  }

  /** Day names, plural too ("Tuesdays"), keyed by the singular lower-case name. */
  @Override
  public void findDays(ValueScan scan) {
    String text = scan.current();
    for (int[] w : ValueScan.wordRuns(text)) {
      String word = text.substring(w[0], w[1]);
      String lower = word.toLowerCase(Locale.ROOT);
      String day = lower.endsWith("s") ? lower.substring(0, lower.length() - 1) : lower;
      if (DAYS.contains(day)) {
        scan.add(ValueType.DAY, day, word, w[0], w[1]);
      }
    }
  }

  private static boolean hasMonth(String lower) {
    for (int[] w : ValueScan.wordRuns(lower)) {
      if (MONTH_WORDS.contains(lower.substring(w[0], w[1]))) {
        return true;
      }
    }
    return false;
  }

  private static boolean any(Set<String> words, Set<String> wanted) {
    for (String w : wanted) {
      if (words.contains(w)) {
        return true;
      }
    }
    return false;
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
