package dev.memsidecar.language.dedupe;

import dev.memsidecar.language.Language;
import dev.memsidecar.language.Terms;
import dev.memsidecar.language.dedupe.CanonicalTokens.Span;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What {@link MemoryComparison} needs of one text, computed once: its normal form, canonical
 * tokens, stemmed keywords (with and without negation words), values by type, subject, capitalised
 * names, and whether it marks a change, is negated, or states a value with a copula.
 */
record TextFeatures(
    String normalised,
    Set<String> tokens,
    Set<String> words,
    Set<String> wordsNoNegation,
    Map<ValueType, Map<String, String>> values,
    Map<String, String> subject,
    Map<String, String> capitalised,
    boolean marker,
    boolean negated,
    boolean copula) {
  TextFeatures {
    tokens = Collections.unmodifiableSet(tokens);
    words = Collections.unmodifiableSet(words);
    wordsNoNegation = Collections.unmodifiableSet(wordsNoNegation);
    values = Collections.unmodifiableMap(values);
    subject = Collections.unmodifiableMap(subject);
    capitalised = Collections.unmodifiableMap(capitalised);
  }

  private static final Pattern NUMERIC_DATE =
      Pattern.compile("\\b\\d{4}-\\d{1,2}-\\d{1,2}\\b|\\b\\d{1,2}/\\d{1,2}(?:/\\d{2,4})?\\b");
  private static final Pattern CLOCK =
      Pattern.compile(
          "\\b\\d{1,2}(?::\\d{2}(?:\\s?[aApP]\\.?[mM]\\.?)?(?![\\w])|\\s?[aApP]\\.?[mM]\\b\\.?)");
  private static final Pattern NUMBER = Pattern.compile("\\b[vV]?\\d++(?:\\.\\d++){0,6}%?");

  /** The features of {@code text} as {@code languages} read it. */
  static TextFeatures of(String text, List<Language> languages) {
    List<Span> spans = CanonicalTokens.spans(text);
    char[] work = text.toCharArray();
    String lower = text.toLowerCase(Locale.ROOT);
    ValueScan scan = new ValueScan(work, lower);
    Set<String> tokens = new LinkedHashSet<>();
    for (Span s : spans) {
      tokens.add(s.token());
      scan.add(ValueType.TOKEN, s.token(), s.token(), s.start(), s.end());
    }
    boolean digits = scan.hasDigits();
    // Cheap checks first: each value regex costs microseconds even when it finds nothing.
    if (digits && scan.digitThen("-/", true)) {
      scan.collect(NUMERIC_DATE, ValueType.DATE);
    }
    for (Language language : languages) {
      language.dedupe().findDates(scan);
    }
    if (digits && (scan.digitThen(":", true) || scan.digitThen("ap", false))) {
      scan.collect(CLOCK, ValueType.TIME);
    }
    for (Language language : languages) {
      language.dedupe().findTimes(scan);
    }
    for (Language language : languages) {
      language.dedupe().findDays(scan);
    }
    if (digits) {
      scan.collect(NUMBER, ValueType.NUMBER);
    }
    String rest = scan.current();
    Map<String, String> capitalised = new LinkedHashMap<>();
    for (int[] w : CanonicalTokens.wordRuns(rest)) {
      String word = rest.substring(w[0], w[1]);
      if (isCapitalised(word) && !sentenceInitial(rest, w[0])) {
        capitalised.putIfAbsent(word.toLowerCase(Locale.ROOT), word);
      }
    }
    String subjectText = rest;
    for (Language language : languages) {
      subjectText = language.dedupe().subjectText(subjectText);
    }
    Map<String, String> subject = new LinkedHashMap<>();
    for (String w : Terms.of(subjectText)) {
      if (Terms.isStopword(w)) {
        continue;
      }
      String s = stem(w, languages);
      if (isFiller(s, languages)
          || isFiller(w, languages)
          || (w.length() == 1 && w.charAt(0) < 0x80)) {
        continue;
      }
      String concept = concept(s, languages);
      subject.putIfAbsent(concept != null ? concept : s, w);
    }
    Set<String> words = new HashSet<>();
    Set<String> noNeg = new HashSet<>();
    List<String> terms = Terms.of(text);
    Set<String> all = new HashSet<>(terms);
    for (String w : terms) {
      if (Terms.isStopword(w)) {
        continue;
      }
      String s = stem(w, languages);
      words.add(s);
      if (!isFiller(s, languages) && !isNegation(s, languages)) {
        noNeg.add(s);
      }
    }
    boolean marker = false;
    boolean negated = false;
    boolean copula = lower.contains("=") || lower.contains(": ");
    for (Language language : languages) {
      DedupeRules rules = language.dedupe();
      marker |= rules.marksChange(all, lower);
      negated |= rules.negates(all, lower);
      copula |= rules.links(all, lower);
    }
    return new TextFeatures(
        MemoryComparison.normalise(text),
        tokens,
        words,
        noNeg,
        scan.values(),
        subject,
        capitalised,
        marker,
        negated,
        copula);
  }

  /** The stem of the first language that stems {@code word}, else the word. */
  private static String stem(String word, List<Language> languages) {
    for (Language language : languages) {
      String s = language.dedupe().stem(word);
      if (!s.equals(word)) {
        return s;
      }
    }
    return word;
  }

  private static boolean isFiller(String word, List<Language> languages) {
    for (Language language : languages) {
      if (language.dedupe().isFiller(word)) {
        return true;
      }
    }
    return false;
  }

  private static boolean isNegation(String term, List<Language> languages) {
    for (Language language : languages) {
      if (language.dedupe().isNegation(term)) {
        return true;
      }
    }
    return false;
  }

  private static String concept(String stem, List<Language> languages) {
    for (Language language : languages) {
      String concept = language.dedupe().concept(stem);
      if (concept != null) {
        return concept;
      }
    }
    return null;
  }

  /** A name-like word: "Berlin", "GitHub" (ASCII, capital first, then lower-case letters). */
  private static boolean isCapitalised(String w) {
    if (w.length() < 2 || w.charAt(0) < 'A' || w.charAt(0) > 'Z') {
      return false;
    }
    boolean lowerSeen = false;
    for (int i = 1; i < w.length(); i++) {
      char c = w.charAt(i);
      if (c >= 'a' && c <= 'z') {
        lowerSeen = true;
      } else if (c >= 'A' && c <= 'Z' && lowerSeen) {
        lowerSeen = false;
      } else {
        return false;
      }
    }
    return lowerSeen;
  }

  private static boolean sentenceInitial(String text, int at) {
    for (int i = at - 1; i >= 0; i--) {
      char c = text.charAt(i);
      if (Character.isWhitespace(c) || c == '"' || c == '\'' || c == '(') {
        continue;
      }
      return c == '.' || c == '!' || c == '?' || c == ':' || c == ';' || c == '\n' || c > 0x2E7F;
    }
    return true;
  }
}
