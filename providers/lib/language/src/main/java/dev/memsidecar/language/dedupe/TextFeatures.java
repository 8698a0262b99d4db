package dev.memsidecar.language.dedupe;

import dev.memsidecar.language.Language;
import dev.memsidecar.language.Terms;
import dev.memsidecar.language.dedupe.CanonicalTokens.Span;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.EnumMap;
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
 * names, its values in the order it states them ({@code valueOrder}: each as {@code TYPE key},
 * repeats kept, canonical tokens and retracted values left out), what it says no longer holds (the
 * old values, names and words of its retractions: "not Tuesday", "no longer drinks coffee"; they
 * are not among its values and names), and whether it marks a change (a retraction does), is
 * negated, or states a value with a copula.
 */
record TextFeatures(
    String normalised,
    Set<String> tokens,
    Set<String> words,
    Set<String> wordsNoNegation,
    Map<ValueType, Map<String, String>> values,
    List<String> valueOrder,
    Map<String, String> subject,
    Map<String, String> capitalised,
    Old old,
    boolean marker,
    boolean negated,
    boolean copula) {
  TextFeatures {
    tokens = Collections.unmodifiableSet(tokens);
    words = Collections.unmodifiableSet(words);
    wordsNoNegation = Collections.unmodifiableSet(wordsNoNegation);
    values = Collections.unmodifiableMap(values);
    valueOrder = List.copyOf(valueOrder);
    subject = Collections.unmodifiableMap(subject);
    capitalised = Collections.unmodifiableMap(capitalised);
  }

  /**
   * What a text says no longer holds.
   *
   * @param values the old values by type (key to shown form)
   * @param names the old capitalised names (lower case to shown form)
   * @param words the subject keys of the old value's other words ("drink", "coffee"), each to the
   *     word that gave it
   */
  record Old(
      Map<ValueType, Map<String, String>> values,
      Map<String, String> names,
      Map<String, String> words) {
    static final Old NONE = new Old(Map.of(), Map.of(), Map.of());

    Old {
      values = Collections.unmodifiableMap(values);
      names = Collections.unmodifiableMap(names);
      words = Collections.unmodifiableMap(words);
    }

    boolean isEmpty() {
      return values.isEmpty() && names.isEmpty() && words.isEmpty();
    }
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
    List<int[]> retractions = new ArrayList<>();
    for (Language language : languages) {
      retractions.addAll(language.dedupe().retractions(text));
    }
    Map<ValueType, Map<String, String>> values = scan.values();
    Map<ValueType, Map<String, String>> oldValues = new EnumMap<>(ValueType.class);
    if (!retractions.isEmpty()) {
      // A value found only where the text says it no longer holds is an old value, not the text's.
      Map<ValueType, Set<String>> current = new EnumMap<>(ValueType.class);
      for (ValueScan.Found f : scan.found()) {
        if (within(retractions, f.start(), f.end())) {
          oldValues
              .computeIfAbsent(f.type(), t -> new LinkedHashMap<>())
              .putIfAbsent(f.key(), values.get(f.type()).get(f.key()));
        } else {
          current.computeIfAbsent(f.type(), t -> new HashSet<>()).add(f.key());
        }
      }
      values = new EnumMap<>(ValueType.class);
      for (Map.Entry<ValueType, Map<String, String>> e : scan.values().entrySet()) {
        Set<String> keep = current.getOrDefault(e.getKey(), Set.of());
        Map<String, String> kept = new LinkedHashMap<>(e.getValue());
        kept.keySet().retainAll(keep);
        if (!kept.isEmpty()) {
          values.put(e.getKey(), kept);
        }
      }
    }
    List<String> valueOrder = new ArrayList<>();
    scan.found().stream()
        .filter(f -> f.type() != ValueType.TOKEN && !within(retractions, f.start(), f.end()))
        .sorted(Comparator.comparingInt(ValueScan.Found::start))
        .forEach(f -> valueOrder.add(f.type() + " " + f.key()));
    Map<String, String> capitalised = new LinkedHashMap<>();
    Map<String, String> oldNames = new LinkedHashMap<>();
    for (int[] w : CanonicalTokens.wordRuns(rest)) {
      String word = rest.substring(w[0], w[1]);
      if (isCapitalised(word) && !sentenceInitial(rest, w[0])) {
        (within(retractions, w[0], w[1]) ? oldNames : capitalised)
            .putIfAbsent(word.toLowerCase(Locale.ROOT), word);
      }
    }
    oldNames.keySet().removeAll(capitalised.keySet());
    Map<String, String> subject = subjectKeys(rest, languages);
    subject.values().removeIf(w -> oldNames.containsKey(w));
    Map<String, String> oldWords = new LinkedHashMap<>();
    for (int[] r : retractions) {
      subjectKeys(rest.substring(r[0], r[1]), languages).forEach(oldWords::putIfAbsent);
    }
    for (String name : oldNames.keySet()) {
      oldWords.remove(stem(name, languages));
    }
    Old old = retractions.isEmpty() ? Old.NONE : new Old(oldValues, oldNames, oldWords);
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
    boolean marker = !old.isEmpty();
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
        values,
        valueOrder,
        subject,
        capitalised,
        old,
        marker,
        negated,
        copula);
  }

  /**
   * The subject keys of {@code text} (values already blanked): its words less stopwords, filler and
   * single ASCII letters, stemmed, a relation's words as its concept ("lives", "based":
   * {@code @location}); each key to the first word that gave it.
   */
  private static Map<String, String> subjectKeys(String text, List<Language> languages) {
    String subjectText = text;
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
    return subject;
  }

  /** Whether a value or word at {@code [start, end)} starts in one of {@code spans}. */
  private static boolean within(List<int[]> spans, int start, int end) {
    for (int[] r : spans) {
      if (start >= r[0] && start < r[1] && end > start) {
        return true;
      }
    }
    return false;
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
