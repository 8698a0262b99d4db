package dev.memsidecar.language.dedupe;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.language.Language;
import dev.memsidecar.language.Terms;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How a candidate memory relates to a stored one, by their texts: it repeats it ({@link
 * Relation#DUPLICATE}: merge), gives a new value for its subject ({@link Relation#SUPERSEDES}:
 * replace), or neither (store both). The text side of dedupe; the engine's {@code Dedupe} walks the
 * stored neighbours and merges or supersedes records. Thread-safe; it keeps a bounded cache of what
 * it computed for stored texts (at most {@value #CACHE_ENTRIES} texts of at most {@value
 * #CACHE_MAX_CHARS} characters), since the same records come back for every candidate of a run.
 *
 * <p>The algorithm is the same in every language; what marks a change, a negation or a copula,
 * which words are filler, how words are stemmed and how dates, times and days are written are the
 * languages' {@link DedupeRules}, asked in order and combined. For one stored text, in order:
 *
 * <ol>
 *   <li><b>duplicate, same content</b> (reason {@code same content}): equal but for case,
 *       whitespace and final punctuation;
 *   <li><b>supersedes, correction</b> (reason {@code corrects Tuesday to Thursday for: deploy
 *       day}): the candidate retracts an old value (the languages' {@link DedupeRules#retractions}:
 *       "Thursday, not Tuesday", "not Tuesday but Thursday", "changed from Tuesday to Thursday",
 *       "instead of npm", "no longer drinks coffee", "doesn't live in Paris anymore", "不是周二，而是周四",
 *       "从周二改成周四", "不再喝咖啡了") that the stored text holds as its own value, name or words, the stored
 *       text does not hold the candidate's new value already, and the subjects share two words (or
 *       are the same single word), one besides the old value, at least {@value
 *       #SUBJECT_OF_CORRECTION} of the candidate's subject and {@value
 *       #STORED_SUBJECT_OF_CORRECTION} of the stored one's. An event too: the correction says so. A
 *       retracted value is no value of the candidate for the rules below, and a retraction is a
 *       change marker;
 *   <li><b>supersedes, new value</b> (reason {@code new value Thursday for: deploy day}): both
 *       texts hold a value of one type ({@link ValueType}) — a day of the week (English or
 *       周X/星期X/礼拜X), a date, a clock time (10:00, 3pm, 下午3点), a number or version, a canonical
 *       token ({@link CanonicalTokens}) — and each side has a value of that type the other lacks,
 *       while the <em>subject</em> (keywords less values, change markers and filler, stemmed)
 *       overlaps: Jaccard >= {@value #SUBJECT_WITH_MARKER} when the candidate has a change marker
 *       ("now", "instead", "actually", "correction", "new", "changed", "switched", "moved", "no
 *       longer", "from now on", "going forward", "不再", "改为", "改成", "换成", "现在", "其实", "目前", "更正",
 *       ...); without one, >= {@value #SUBJECT_WITHOUT_MARKER}, exactly one value type differing
 *       and a copula ("is", "are", "was", ": ", "=", "set to", "是", "为", "在"). The subjects must
 *       share two words, or be the same single word. A capitalised name or place ("Berlin" for
 *       "Paris") counts only with a change marker and subject overlap >= {@value
 *       #SUBJECT_WITHOUT_MARKER} ("lives", "based", "located" and "moved to" are one relation). An
 *       episodic record or candidate (an event) is superseded only with a change marker: two
 *       incidents on two days are two events;
 *   <li><b>supersedes, contradiction</b> (reason {@code contradicts: ...}): one side is negated
 *       ("not", "never", "n't", "cannot", "no longer", "不要", "不再", "不是", "没有", "别", ...) and the
 *       other is not, and their keywords less negation words overlap >= {@value
 *       #SUBJECT_WITHOUT_MARKER}; differing polarity is otherwise never a duplicate;
 *   <li><b>duplicate, canonical token</b> (reason {@code same canonical token npm run
 *       check:rules}): they share a canonical token, the candidate has none the record lacks, no
 *       value of another type is replaced, and one side states its values in the order the other
 *       does, each as often (a subsequence: "room 4 for team 2" is not "room 2 for team 4");
 *   <li><b>duplicate, words</b> (reason {@code 0.82 word overlap} or {@code 0.93 word
 *       containment}): no value replaced nor reordered, canonical tokens compatible (one side's
 *       within the other's), and keyword Jaccard >= {@value #JACCARD_DUPLICATE}, or containment
 *       (shared / smaller set) >= {@value #CONTAINMENT_DUPLICATE} with the smaller set at least 3
 *       keywords and at least half the larger. Keywords are {@link Terms#keywords} stemmed by the
 *       languages (English: {@link dev.memsidecar.language.en.EnglishStemmer#looseStem}); Chinese,
 *       Japanese and Korean text counts its characters and their bigrams.
 * </ol>
 *
 * <p>When unsure the answer is nothing: a second record costs less than a lost or wrongly replaced
 * fact. Limits: no synonyms ("deploy" vs "release"), no cross-language match without a shared
 * canonical token, lower-case values are not recognised ("prefers tea" vs "prefers coffee" are two
 * records, not a change), and a record about a command absorbs a later statement that mentions only
 * that command ("`npm run check:rules` fails on Windows" merges into "Run `npm run check:rules`
 * before committing").
 */
public final class MemoryComparison {
  /** Keyword Jaccard at or above which two texts are duplicates. */
  public static final double JACCARD_DUPLICATE = 0.7;

  /** Share of the smaller keyword set found in the larger at or above which they are duplicates. */
  public static final double CONTAINMENT_DUPLICATE = 0.9;

  /** Subject overlap needed to supersede when the candidate has a change marker. */
  public static final double SUBJECT_WITH_MARKER = 0.6;

  /** Subject overlap needed to supersede without a change marker (with a copula). */
  public static final double SUBJECT_WITHOUT_MARKER = 0.8;

  /**
   * Share of a correction's subject the stored text must hold for the correction to supersede it.
   */
  public static final double SUBJECT_OF_CORRECTION = 0.5;

  /**
   * Share of the stored text's subject a correction must hold to supersede it: a long memory that
   * mentions the old value in passing is not superseded by a correction of one of its facts.
   */
  public static final double STORED_SUBJECT_OF_CORRECTION = 0.4;

  /** The most stored texts whose features are kept. */
  public static final int CACHE_ENTRIES = 1024;

  /** The longest stored text whose features are kept. */
  public static final int CACHE_MAX_CHARS = 2048;

  private final List<Language> languages;
  private final ConcurrentHashMap<String, TextFeatures> cache = new ConcurrentHashMap<>();

  /**
   * @param languages the languages that read a text, asked in this order
   */
  public MemoryComparison(List<Language> languages) {
    this.languages = List.copyOf(requireNonNull(languages, "languages is null"));
  }

  /**
   * A candidate's text, read once to be compared with many stored texts. A text not seen before
   * costs some 20 microseconds to read, a cached one a few.
   */
  public Candidate candidate(String content) {
    requireNonNull(content, "content is null");
    return new Candidate(TextFeatures.of(content, languages));
  }

  /** A candidate's text, read ({@link #candidate}). Immutable and thread-safe. */
  public final class Candidate {
    private final TextFeatures features;

    private Candidate(TextFeatures features) {
      this.features = features;
    }

    /**
     * How the candidate relates to a stored text (see the class description), or empty: store it as
     * a new memory.
     *
     * @param stored the stored memory's content
     * @param event whether either memory is an event (episodic): an event is superseded only with a
     *     change marker, since two incidents on two days are two events
     */
    public Optional<TextRelation> relationTo(String stored, boolean event) {
      requireNonNull(stored, "stored is null");
      return Optional.ofNullable(relate(features, cachedFeatures(stored), event));
    }
  }

  /**
   * Whether {@code candidate} says all of {@code existing} and more: it contains it (case, white
   * space and final punctuation aside) and is longer. A merge then keeps the candidate's text.
   */
  public static boolean elaborates(String candidate, String existing) {
    String c = normalise(candidate);
    String e = normalise(existing);
    return c.length() > e.length() && !e.isEmpty() && c.contains(e);
  }

  private TextFeatures cachedFeatures(String text) {
    if (text.length() > CACHE_MAX_CHARS) {
      return TextFeatures.of(text, languages);
    }
    TextFeatures f = cache.get(text);
    if (f == null) {
      if (cache.size() >= CACHE_ENTRIES) {
        cache.clear();
      }
      f = TextFeatures.of(text, languages);
      cache.put(text, f);
    }
    return f;
  }

  private static TextRelation relate(TextFeatures c, TextFeatures e, boolean episodic) {
    if (c.normalised().equals(e.normalised())) {
      return new TextRelation(Relation.DUPLICATE, "same content");
    }
    String corrected = correction(c, e);
    if (corrected != null) {
      return new TextRelation(Relation.SUPERSEDES, corrected);
    }
    String conflict = valueConflict(c, e, episodic);
    if (conflict != null) {
      return new TextRelation(Relation.SUPERSEDES, conflict);
    }
    // A retraction's own negation ("Thursday, not Tuesday") is no contradiction: correction()
    // judged it.
    if (c.negated() != e.negated() && c.old().isEmpty()) {
      double j = jaccard(c.wordsNoNegation(), e.wordsNoNegation());
      if (j >= SUBJECT_WITHOUT_MARKER
          && Math.min(c.wordsNoNegation().size(), e.wordsNoNegation().size()) >= 2
          && (!episodic || c.marker())) {
        return new TextRelation(
            Relation.SUPERSEDES, "contradicts: " + describe(c.subject().values()));
      }
      return null;
    }
    // A value on each side that the other lacks (a replaced value), or the same values in
    // another order or count: another fact.
    if (!inOrder(c.valueOrder(), e.valueOrder()) && !inOrder(e.valueOrder(), c.valueOrder())) {
      return null;
    }
    for (String t : c.tokens()) {
      if (e.tokens().contains(t) && e.tokens().containsAll(c.tokens())) {
        return new TextRelation(Relation.DUPLICATE, "same canonical token " + t);
      }
    }
    if (!e.tokens().containsAll(c.tokens()) && !c.tokens().containsAll(e.tokens())) {
      return null;
    }
    double j = jaccard(c.words(), e.words());
    if (j >= JACCARD_DUPLICATE) {
      return new TextRelation(Relation.DUPLICATE, format(j) + " word overlap");
    }
    int small = Math.min(c.words().size(), e.words().size());
    int large = Math.max(c.words().size(), e.words().size());
    if (small >= 3 && large <= 2 * small) {
      double contained = (double) intersection(c.words(), e.words()) / small;
      if (contained >= CONTAINMENT_DUPLICATE) {
        return new TextRelation(Relation.DUPLICATE, format(contained) + " word containment");
      }
    }
    return null;
  }

  /** A reason when the candidate replaces a value of the existing record's subject, else null. */
  private static String valueConflict(TextFeatures c, TextFeatures e, boolean episodic) {
    boolean marker = c.marker();
    if (episodic && !marker) {
      return null;
    }
    // An ALL_CAPS identifier names what a statement is about: FEATURE_A=on and FEATURE_B=off are
    // two subjects, never one's new value; LOG_LEVEL=info is a new value of LOG_LEVEL=debug.
    Set<String> idsC = identifiers(c.tokens());
    Set<String> idsE = identifiers(e.tokens());
    if (!idsC.isEmpty() && !idsE.isEmpty() && !idsC.equals(idsE)) {
      return null;
    }
    Set<String> namesC = new LinkedHashSet<>(c.capitalised().keySet());
    namesC.removeAll(e.capitalised().keySet());
    Set<String> namesE = new LinkedHashSet<>(e.capitalised().keySet());
    namesE.removeAll(c.capitalised().keySet());
    Map<String, String> subjC = pairSubject(c.subject(), namesC, e.subject());
    Map<String, String> subjE = pairSubject(e.subject(), namesE, c.subject());
    int shared = intersection(subjC.keySet(), subjE.keySet());
    double j = jaccard(subjC.keySet(), subjE.keySet());
    boolean subjectOk = shared >= 2 || (shared == 1 && j == 1.0);
    if (!subjectOk) {
      return null;
    }
    ValueType changed = null;
    String shown = null;
    int differing = 0;
    for (ValueType t : ValueType.values()) {
      if (t == ValueType.NAME) {
        continue;
      }
      Map<String, String> vc = c.values().getOrDefault(t, Map.of());
      Map<String, String> ve = e.values().getOrDefault(t, Map.of());
      String fresh = firstMissing(vc, ve);
      if (fresh != null && firstMissing(ve, vc) != null) {
        differing++;
        if (changed == null) {
          changed = t;
          shown = fresh;
        }
      }
    }
    if (changed == null && marker && !namesC.isEmpty() && !namesE.isEmpty()) {
      if (j >= SUBJECT_WITHOUT_MARKER) {
        changed = ValueType.NAME;
        shown = c.capitalised().get(namesC.iterator().next());
        differing = 1;
      }
    }
    if (changed == null) {
      return null;
    }
    boolean enough =
        marker ? j >= SUBJECT_WITH_MARKER : j >= SUBJECT_WITHOUT_MARKER && differing == 1;
    if (!enough || (!marker && !c.copula())) {
      return null;
    }
    return "new value " + shown + " for: " + describe(subjC.values());
  }

  /**
   * A reason when the candidate says that what the existing text states no longer holds, else null:
   * the candidate retracts an old value ("..., not Tuesday", "no longer drinks coffee", "不是
   * 周二，而是...") that the existing text holds as its own, the existing text does not already hold the
   * candidate's new value of that type, and the two share their subject: a subject word besides the
   * old value, at least {@value #SUBJECT_OF_CORRECTION} of the candidate's subject and {@value
   * #STORED_SUBJECT_OF_CORRECTION} of the existing text's.
   */
  private static String correction(TextFeatures c, TextFeatures e) {
    TextFeatures.Old old = c.old();
    if (old.isEmpty()) {
      return null;
    }
    String shown = null;
    String fresh = null;
    for (Map.Entry<ValueType, Map<String, String>> o : old.values().entrySet()) {
      Map<String, String> existing = e.values().getOrDefault(o.getKey(), Map.of());
      Map<String, String> now = c.values().getOrDefault(o.getKey(), Map.of());
      for (Map.Entry<String, String> v : o.getValue().entrySet()) {
        if (existing.containsKey(v.getKey())) {
          if (!now.isEmpty() && existing.keySet().containsAll(now.keySet())) {
            return null; // it says the new value already
          }
          shown = v.getValue().replaceAll("[.,;!?]+$", "");
          fresh = now.isEmpty() ? null : now.values().iterator().next().replaceAll("[.,;!?]+$", "");
          break;
        }
      }
      if (shown != null) {
        break;
      }
    }
    if (shown == null) {
      for (Map.Entry<String, String> n : old.names().entrySet()) {
        if (e.capitalised().containsKey(n.getKey())) {
          shown = n.getValue();
          break;
        }
      }
    }
    if (shown == null
        && !old.words().isEmpty()
        && !e.negated()
        && e.subject().keySet().containsAll(old.words().keySet())) {
      shown = describe(old.words().values());
    }
    if (shown == null) {
      return null;
    }
    Set<String> shared = new LinkedHashSet<>(c.subject().keySet());
    shared.retainAll(e.subject().keySet());
    Set<String> besides = new LinkedHashSet<>(shared);
    besides.removeAll(old.words().keySet());
    // Most of the correction's subject is the stored text's, and a good part of the stored text's
    // subject is the correction's: a long record that mentions the old value in passing stays.
    boolean sameSubject =
        shared.size() >= 2
            || shared.size() == 1 && c.subject().size() == 1 && e.subject().size() == 1;
    if (besides.isEmpty()
        || !sameSubject
        || shared.size() < SUBJECT_OF_CORRECTION * c.subject().size()
        || shared.size() < STORED_SUBJECT_OF_CORRECTION * e.subject().size()) {
      return null;
    }
    return "corrects "
        + shown
        + (fresh == null ? "" : " to " + fresh)
        + " for: "
        + describe(besides.stream().map(c.subject()::get).toList());
  }

  /** The ALL_CAPS identifiers among canonical tokens ({@code NAME} of {@code NAME=value}). */
  private static Set<String> identifiers(Set<String> tokens) {
    Set<String> out = new LinkedHashSet<>();
    for (String t : tokens) {
      int eq = t.indexOf('=');
      String name = eq > 0 ? t.substring(0, eq) : t;
      if (CanonicalTokens.isCapsToken(name)) {
        out.add(name);
      }
    }
    return out;
  }

  private static Map<String, String> pairSubject(
      Map<String, String> subject, Set<String> ownNames, Map<String, String> other) {
    Map<String, String> out = new LinkedHashMap<>();
    boolean otherLocation = other.containsKey("@location") || other.containsKey("@moved");
    for (Map.Entry<String, String> w : subject.entrySet()) {
      if (ownNames.contains(w.getValue())) {
        continue;
      }
      String key = w.getKey();
      if (key.equals("@moved")) {
        if (!otherLocation) {
          continue;
        }
        key = "@location";
      }
      out.putIfAbsent(key, w.getValue());
    }
    return out;
  }

  /**
   * Whether {@code part}'s values appear in {@code whole} in the same order, each as often: "room 4
   * for team 2" is not "room 2 for team 4", nor is "client 0 wrote entry 57" "client 0 wrote entry
   * 0", though their words and sets of values are alike.
   */
  private static boolean inOrder(List<String> part, List<String> whole) {
    int i = 0;
    for (int j = 0; i < part.size() && j < whole.size(); j++) {
      if (part.get(i).equals(whole.get(j))) {
        i++;
      }
    }
    return i == part.size();
  }

  private static String firstMissing(Map<String, String> a, Map<String, String> b) {
    for (Map.Entry<String, String> v : a.entrySet()) {
      if (!b.containsKey(v.getKey())) {
        return v.getValue();
      }
    }
    return null;
  }

  private static String describe(Collection<String> words) {
    List<String> shown = new ArrayList<>();
    for (String w : words) {
      if (shown.size() == 8) {
        break;
      }
      shown.add(w);
    }
    return String.join(" ", shown);
  }

  private static String format(double d) {
    return String.format(Locale.ROOT, "%.2f", d);
  }

  private static int intersection(Set<String> a, Set<String> b) {
    Set<String> small = a.size() <= b.size() ? a : b;
    Set<String> large = small == a ? b : a;
    int n = 0;
    for (String s : small) {
      if (large.contains(s)) {
        n++;
      }
    }
    return n;
  }

  private static double jaccard(Set<String> a, Set<String> b) {
    if (a.isEmpty() && b.isEmpty()) {
      return 0;
    }
    int inter = intersection(a, b);
    return (double) inter / (a.size() + b.size() - inter);
  }

  /** {@code s} lower-cased, white space collapsed, without final sentence punctuation. */
  static String normalise(String s) {
    String n = CanonicalTokens.SPACES.matcher(s.toLowerCase(Locale.ROOT)).replaceAll(" ").strip();
    int end = n.length();
    while (end > 0 && ".!。！;；".indexOf(n.charAt(end - 1)) >= 0) {
      end--;
    }
    return n.substring(0, end);
  }
}
