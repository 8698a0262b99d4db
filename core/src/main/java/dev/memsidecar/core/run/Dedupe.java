package dev.memsidecar.core.run;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.Ids;
import dev.memsidecar.api.MemoryKind;
import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.MemoryStatus;
import dev.memsidecar.api.Validity;
import dev.memsidecar.core.Limits;
import dev.memsidecar.language.Terms;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds whether a new memory repeats or replaces one already stored in its namespace, and merges or
 * supersedes accordingly. Works across kinds: a semantic and a procedural wording of one fact are
 * one record. Thread-safe; every method is a function of its arguments (records in, records out).
 * {@link #match} keeps a bounded cache of what it computed for neighbour texts (at most 1024 texts
 * of at most 2048 characters), since the same records come back for every candidate of a run.
 *
 * <p><b>Canonical tokens</b> ({@link #canonicalTokens}) name one thing exactly, whatever the
 * wording around them:
 *
 * <ul>
 *   <li>command lines: a backticked span, or a line of a fenced block, with a space or one of
 *       {@code / : = . _ @ -} in it (a lone word such as {@code `pytest`} is not one); a line that
 *       is a command of a known CLI ({@code npm npx yarn pnpm bun mvn gradle ./gradlew make kubectl
 *       helm docker git pip uv python cargo go java node bash sh curl terraform ...}); a known CLI
 *       inside a sentence when an argument that looks like one follows ({@code check:rules}, {@code
 *       -n}, {@code ./x}, {@code a.py}), or {@code npm|yarn|pnpm|bun run <script>}. Whitespace
 *       collapsed, trailing punctuation dropped, lower-cased;
 *   <li>ALL_CAPS identifiers with an underscore or a digit, 3+ characters ({@code
 *       EASYNET_USER_MEMORY_9137}), kept as written; an assignment also gives {@code NAME=value},
 *       so {@code LOG_LEVEL=debug} and {@code LOG_LEVEL=info} differ;
 *   <li>URLs ({@code http(s)://...}) and e-mail addresses, lower-cased.
 * </ul>
 *
 * <p><b>{@link #match}</b> compares a candidate with each ACTIVE neighbour in the order given (best
 * first) and returns the first {@link Relation#DUPLICATE} if any, else the first {@link
 * Relation#SUPERSEDES}, else nothing: store a new record. For one neighbour, in order:
 *
 * <ol>
 *   <li><b>duplicate, same content</b> (reason {@code same content}): equal but for case,
 *       whitespace and final punctuation;
 *   <li><b>supersedes, new value</b> (reason {@code new value Thursday for: deploy day}): both
 *       texts hold a value of one type — a day of the week (English or 周X/星期X/礼拜X), a date, a clock
 *       time (10:00, 3pm, 下午3点), a number or version, a canonical token — and each side has a value
 *       of that type the other lacks, while the <em>subject</em> (keywords less values, change
 *       markers and filler, lightly stemmed) overlaps: Jaccard >= {@value #SUBJECT_WITH_MARKER}
 *       when the candidate has a change marker ("now", "instead", "actually", "correction", "new",
 *       "changed", "switched", "moved", "no longer", "from now on", "going forward", "不再", "改为",
 *       "改成", "换成", "现在", "其实", "目前", "更正", ...); without one, >= {@value #SUBJECT_WITHOUT_MARKER},
 *       exactly one value type differing and a copula ("is", "are", "was", ": ", "=", "set to",
 *       "是", "为", "在"). The subjects must share two words, or be the same single word. A
 *       capitalised name or place ("Berlin" for "Paris") counts only with a change marker and
 *       subject overlap >= {@value #SUBJECT_WITHOUT_MARKER} ("lives", "based", "located" and "moved
 *       to" are one relation). An episodic record or candidate (an event) is superseded only with a
 *       change marker: two incidents on two days are two events;
 *   <li><b>supersedes, contradiction</b> (reason {@code contradicts: ...}): one side is negated
 *       ("not", "never", "n't", "cannot", "no longer", "不要", "不再", "不是", "没有", "别", ...) and the
 *       other is not, and their keywords less negation words overlap >= {@value
 *       #SUBJECT_WITHOUT_MARKER}; differing polarity is otherwise never a duplicate;
 *   <li><b>duplicate, canonical token</b> (reason {@code same canonical token npm run
 *       check:rules}): they share a canonical token, the candidate has none the record lacks, and
 *       no value of another type is replaced;
 *   <li><b>duplicate, words</b> (reason {@code 0.82 word overlap} or {@code 0.93 word
 *       containment}): no value replaced, canonical tokens compatible (one side's within the
 *       other's), and keyword Jaccard >= {@value #JACCARD_DUPLICATE}, or containment (shared /
 *       smaller set) >= {@value #CONTAINMENT_DUPLICATE} with the smaller set at least 3 keywords
 *       and at least half the larger. Keywords are {@link Terms#keywords} with a light English
 *       stemmer; Chinese, Japanese and Korean text counts its characters and their bigrams.
 * </ol>
 *
 * <p>When unsure the answer is nothing: a second record costs less than a lost or wrongly replaced
 * fact. Limits: no synonyms ("deploy" vs "release"), no cross-language match without a shared
 * canonical token, lower-case values are not recognised ("prefers tea" vs "prefers coffee" are two
 * records, not a change), and a record about a command absorbs a later statement that mentions only
 * that command ("`npm run check:rules` fails on Windows" merges into "Run `npm run check:rules`
 * before committing"; the merge keeps the candidate's text only when it contains the record's).
 */
public final class Dedupe {
  /** Metadata key on a superseded record: the id of the record that replaced it. */
  public static final String SUPERSEDED_BY = "superseded_by";

  /** Metadata key on a successor: the id(s), comma-separated, of the record(s) it replaced. */
  public static final String SUPERSEDES = "supersedes";

  /** Keyword Jaccard at or above which two texts are duplicates. */
  public static final double JACCARD_DUPLICATE = 0.7;

  /** Share of the smaller keyword set found in the larger at or above which they are duplicates. */
  public static final double CONTAINMENT_DUPLICATE = 0.9;

  /** Subject overlap needed to supersede when the candidate has a change marker. */
  public static final double SUBJECT_WITH_MARKER = 0.6;

  /** Subject overlap needed to supersede without a change marker (with a copula). */
  public static final double SUBJECT_WITHOUT_MARKER = 0.8;

  /** How much one merge from a new source raises confidence (capped at 1). */
  public static final float CONFIDENCE_STEP = 0.1f;

  /** The most source refs a merged record keeps: the first one and the latest others. */
  public static final int MAX_SOURCE_REFS = 64;

  /** How two memories relate. */
  public enum Relation {
    /** The candidate says what the record says: merge it into the record. */
    DUPLICATE,
    /** The candidate gives a new value for the record's subject: store it, supersede the record. */
    SUPERSEDES
  }

  /**
   * A neighbour the candidate relates to.
   *
   * @param existing the stored record
   * @param relation how the candidate relates to it
   * @param reason why, in words, for the audit (e.g. {@code same canonical token npm run x})
   */
  public record Match(MemoryRecord existing, Relation relation, String reason) {
    public Match {
      requireNonNull(existing, "existing is null");
      requireNonNull(relation, "relation is null");
      requireNonNull(reason, "reason is null");
    }
  }

  private Dedupe() {}

  // ---------------------------------------------------------------- canonical tokens

  private static final Set<String> CLIS =
      Set.of(
          ("npm npx yarn pnpm bun deno node mvn ./mvnw mvnw gradle ./gradlew gradlew make kubectl"
                  + " helm docker docker-compose podman git gh pip pip3 uv poetry python python3"
                  + " cargo rustup go java dotnet bash sh zsh curl wget terraform ansible psql")
              .split(" "));

  private static final Set<String> SCRIPT_RUNNERS = Set.of("npm", "yarn", "pnpm", "bun");

  private static final Pattern BACKTICKS =
      Pattern.compile(
          "(?m)^[ \\t]*```[^\\n`]*+\\n(.*?)(?:^[ \\t]*```|\\z)|`([^`\\n]++)`", Pattern.DOTALL);
  private static final Pattern URL =
      Pattern.compile("(?i)\\bhttps?://[^\\s<>\"'`\\u3000-\\u303F\\uFF00-\\uFFEF]+");
  private static final Pattern EMAIL =
      Pattern.compile(
          "(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]++@[A-Za-z0-9-]++(?:\\.[A-Za-z0-9-]++){0,8}"
              + "(?<=\\.[A-Za-z]{2,63})");
  private static final Pattern ARG = Pattern.compile("[A-Za-z0-9:/._=@+%~,*-]+");
  private static final Pattern WORD = Pattern.compile("[a-z][a-z0-9-]*");
  private static final String TRAILING = ".,;:!?)]}'\"";

  /** A canonical token and where it is in the text. */
  private record Span(int start, int end, String token) {}

  /**
   * The canonical tokens of {@code text}, in order of appearance, without duplicates: commands,
   * ALL_CAPS identifiers, URLs and e-mail addresses (see the class description).
   */
  public static Set<String> canonicalTokens(String text) {
    requireNonNull(text, "text is null");
    Set<String> out = new LinkedHashSet<>();
    for (Span s : spans(text)) {
      out.add(s.token());
    }
    return out;
  }

  private static List<Span> spans(String text) {
    List<Span> out = new ArrayList<>();
    char[] plain = text.toCharArray();
    Matcher m = BACKTICKS.matcher(text);
    while (text.indexOf('`') >= 0 && m.find()) {
      if (m.group(1) != null) {
        int offset = m.start(1);
        for (String line : m.group(1).split("\n", -1)) {
          String token = spanToken(line);
          if (token != null) {
            out.add(new Span(offset, offset + line.length(), token));
          }
          offset += line.length() + 1;
        }
      } else {
        String token = spanToken(m.group(2));
        if (token != null) {
          out.add(new Span(m.start(), m.end(), token));
        }
      }
      blank(plain, m.start(), m.end());
    }
    char[] noLinks = text.toCharArray();
    m = URL.matcher(text);
    boolean links = text.contains("://");
    while (links && m.find()) {
      String url = trimTrailing(m.group());
      out.add(new Span(m.start(), m.start() + url.length(), url.toLowerCase(Locale.ROOT)));
      blank(noLinks, m.start(), m.end());
    }
    String noUrls = new String(noLinks);
    m = EMAIL.matcher(noUrls);
    while (noUrls.indexOf('@') >= 0 && m.find()) {
      out.add(new Span(m.start(), m.end(), m.group().toLowerCase(Locale.ROOT)));
      blank(noLinks, m.start(), m.end());
    }
    String linkless = new String(noLinks);
    for (int[] w : wordRuns(linkless)) {
      String caps = linkless.substring(w[0], w[1]);
      if (isCapsToken(caps)) {
        out.add(new Span(w[0], w[1], caps));
        // An assignment names a setting and its value: LOG_LEVEL=debug is not LOG_LEVEL=info.
        if (w[1] + 1 < linkless.length() && linkless.charAt(w[1]) == '=') {
          int end = w[1] + 1;
          while (end < linkless.length() && !Character.isWhitespace(linkless.charAt(end))) {
            end++;
          }
          String value = trimTrailing(linkless.substring(w[1] + 1, end));
          if (!value.isEmpty()) {
            out.add(new Span(w[0], w[1] + 1 + value.length(), caps + "=" + value));
          }
        }
      }
    }
    commands(new String(plain), out);
    out.sort((a, b) -> Integer.compare(a.start(), b.start()));
    return out;
  }

  /** Start and end of each run of letters, digits and underscores. */
  private static List<int[]> wordRuns(String s) {
    List<int[]> out = new ArrayList<>();
    int i = 0;
    while (i < s.length()) {
      while (i < s.length() && !isWordChar(s.charAt(i))) {
        i++;
      }
      int start = i;
      while (i < s.length() && isWordChar(s.charAt(i))) {
        i++;
      }
      if (i > start) {
        out.add(new int[] {start, i});
      }
    }
    return out;
  }

  private static boolean isWordChar(char c) {
    return c == '_' || Character.isLetterOrDigit(c);
  }

  private static boolean isVisibleAscii(char c) {
    return c >= 0x21 && c <= 0x7E;
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

  private static boolean isCapsToken(String s) {
    if (s.length() < 3 || s.charAt(0) < 'A' || s.charAt(0) > 'Z' || s.endsWith("_")) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (!(c >= 'A' && c <= 'Z') && !(c >= '0' && c <= '9') && c != '_') {
        return false;
      }
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '_' || (c >= '0' && c <= '9')) {
        return true;
      }
    }
    return false;
  }

  /** The token a backticked span or fenced line stands for, or null when it is not one. */
  private static String spanToken(String raw) {
    String s = raw.strip();
    if (s.startsWith("$ ") || s.startsWith("> ")) {
      s = s.substring(2).strip();
    }
    s = trimTrailing(SPACES.matcher(s).replaceAll(" "));
    if (s.isEmpty() || s.startsWith("#") || s.startsWith("//")) {
      return null;
    }
    if (isCapsToken(s)) {
      return s;
    }
    boolean letter = false;
    boolean shaped = false;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      letter |= Character.isLetter(c);
      shaped |= c == ' ' || "/:=._@-".indexOf(c) >= 0;
    }
    return letter && shaped && s.length() >= 3 ? s.toLowerCase(Locale.ROOT) : null;
  }

  /** Known-CLI command lines outside backticks: whole lines and in-sentence commands. */
  private static void commands(String plain, List<Span> out) {
    int lineStart = 0;
    while (lineStart <= plain.length()) {
      int lineEnd = plain.indexOf('\n', lineStart);
      if (lineEnd < 0) {
        lineEnd = plain.length();
      }
      String line = plain.substring(lineStart, lineEnd);
      List<int[]> runs = new ArrayList<>();
      for (int k = 0; k < line.length(); ) {
        while (k < line.length() && !isVisibleAscii(line.charAt(k))) {
          k++;
        }
        int start = k;
        while (k < line.length() && isVisibleAscii(line.charAt(k))) {
          k++;
        }
        if (k > start) {
          runs.add(new int[] {start, k});
        }
      }
      for (int i = 0; i < runs.size(); i++) {
        String cli = tokenAt(line, runs.get(i));
        if (cli.startsWith("(")) {
          cli = cli.substring(1);
        }
        if (!CLIS.contains(cli)) {
          continue;
        }
        String before = line.substring(0, runs.get(i)[0]).strip();
        boolean atLineStart = before.isEmpty() || before.equals("$") || before.equals(">");
        List<String> parts = new ArrayList<>();
        parts.add(cli);
        boolean arg = cli.contains("/");
        int j = i + 1;
        int end = runs.get(i)[1];
        boolean stop = false;
        while (j < runs.size() && !stop) {
          String raw = tokenAt(line, runs.get(j));
          String t = trimTrailing(raw);
          if (t.isEmpty()) {
            break;
          }
          stop = !t.equals(raw);
          String prev = parts.get(parts.size() - 1);
          boolean argLike = ARG.matcher(t).matches() && hasShape(t);
          boolean flagValue =
              prev.startsWith("-") && WORD.matcher(t).matches() && !Terms.isStopword(t);
          boolean word = j - i <= 2 && WORD.matcher(t).matches() && !Terms.isStopword(t);
          boolean script =
              parts.size() == 2
                  && SCRIPT_RUNNERS.contains(cli)
                  && parts.get(1).equals("run")
                  && WORD.matcher(t.replace(':', '-')).matches();
          if (argLike || script) {
            arg = true;
          } else if (!flagValue && !word) {
            break;
          }
          parts.add(t);
          end = runs.get(j)[0] + t.length();
          j++;
        }
        boolean wholeLine = atLineStart && j == runs.size() && parts.size() >= 2;
        if (parts.size() >= 2 && (arg || wholeLine)) {
          String token = String.join(" ", parts).toLowerCase(Locale.ROOT);
          out.add(new Span(lineStart + runs.get(i)[0], lineStart + end, token));
          i = j - 1;
        }
      }
      lineStart = lineEnd + 1;
    }
  }

  private static String tokenAt(String line, int[] run) {
    return line.substring(run[0], run[1]);
  }

  private static boolean hasShape(String t) {
    for (int i = 0; i < t.length(); i++) {
      if (":/._=@+%~*-".indexOf(t.charAt(i)) >= 0) {
        return true;
      }
    }
    return false;
  }

  private static String trimTrailing(String s) {
    int end = s.length();
    while (end > 0 && TRAILING.indexOf(s.charAt(end - 1)) >= 0) {
      if (s.charAt(end - 1) == ')' && s.lastIndexOf('(', end - 1) >= 0) {
        break;
      }
      end--;
    }
    return s.substring(0, end);
  }

  private static void blank(char[] chars, int start, int end) {
    for (int i = start; i < end; i++) {
      if (chars[i] != '\n') {
        chars[i] = ' ';
      }
    }
  }

  // ---------------------------------------------------------------- values and features

  private enum ValueType {
    TOKEN,
    DATE,
    TIME,
    DAY,
    NUMBER,
    NAME
  }

  private static final String MONTHS =
      "(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
          + "|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)";
  private static final Pattern NUMERIC_DATE =
      Pattern.compile(
          "\\b\\d{4}-\\d{1,2}-\\d{1,2}\\b|\\b\\d{1,2}/\\d{1,2}(?:/\\d{2,4})?\\b"
              + "|(?:\\d{4}年)?\\d{1,2}月\\d{1,2}[日号]?");
  private static final Pattern MONTH_DATE =
      Pattern.compile(
          "(?i)\\b"
              + MONTHS
              + "\\.?\\s+\\d{1,2}(?:st|nd|rd|th)?(?:,?\\s+\\d{4})?\\b"
              + "|\\b\\d{1,2}(?:st|nd|rd|th)?\\s+(?:of\\s+)?"
              + MONTHS
              + "\\b(?:,?\\s+\\d{4})?");
  private static final Pattern CLOCK =
      Pattern.compile(
          "\\b\\d{1,2}(?::\\d{2}(?:\\s?[aApP]\\.?[mM]\\.?)?(?![\\w])|\\s?[aApP]\\.?[mM]\\b\\.?)");
  private static final Pattern NOON = Pattern.compile("(?i)\\b(?:noon|midnight)\\b");
  private static final Pattern CN_TIME =
      Pattern.compile("(?:上午|下午|晚上|早上|中午)?\\d{1,2}[点點](?:\\d{1,2}分|半)?");
  private static final Pattern SPACES = Pattern.compile("\\s+");
  private static final Pattern SPACES_DOTS = Pattern.compile("[\\s.]+");
  private static final Set<String> DAYS =
      words("monday tuesday wednesday thursday friday saturday sunday");
  private static final Set<String> MONTH_WORDS =
      words(
          "jan january feb february mar march apr april may jun june jul july aug august sep"
              + " sept september oct october nov november dec december");
  private static final Pattern NUMBER = Pattern.compile("\\b[vV]?\\d++(?:\\.\\d++){0,6}%?");
  private static final String[] CN_DAYS = {
    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"
  };

  // Markers, negations and copulas are looked up by word (a regex alternation costs ~10 us).
  private static final Set<String> MARKER_WORDS =
      words(
          "now instead actually correction henceforth anymore new changed switched moved"
              + " relocated updated replaced");
  private static final List<String> MARKER_PHRASES =
      List.of(
          "no longer",
          "from now on",
          "going forward",
          "starting today",
          "rather than",
          "不再",
          "改为",
          "改成",
          "改到",
          "换成",
          "换为",
          "变为",
          "变成",
          "现在",
          "其实",
          "目前",
          "如今",
          "以后",
          "更正",
          "不对",
          "调整为",
          "更新为",
          "迁移到",
          "搬到");
  private static final List<String> CN_MARKERS =
      List.of(
          "改为", "改成", "改到", "换成", "换为", "变为", "变成", "现在", "其实", "目前", "如今", "以后", "更正", "不对", "调整为",
          "更新为", "迁移到");
  private static final Set<String> NEGATION_WORDS = words("not never cannot");
  private static final List<String> NEGATION_PHRASES =
      List.of(
          "n't",
          "n’t",
          "no longer",
          "不要",
          "不用",
          "不再",
          "不是",
          "不能",
          "不会",
          "不喜欢",
          "不想",
          "不需要",
          "没有",
          "别",
          "禁止",
          "勿",
          "不得",
          "不可");
  private static final Set<String> COPULA_WORDS = words("is are was were equals becomes");
  private static final List<String> COPULA_PHRASES = List.of("set to", "=", ": ", "是", "为", "在");

  private static final Set<String> FILLERS =
      Set.of(
          ("now actually instead currently anymore longer new again also every each today"
                  + " henceforth forward go start chang switch updat correction rather replac no"
                  + " not never cannot don doesn isn aren won can shouldn mustn didn wasn weren t"
                  + " set equal becom")
              .split(" "));
  private static final Set<String> LOCATION = Set.of("liv", "bas", "locat", "resid");
  private static final Set<String> MOVED = Set.of("mov", "relocat");
  private static final String NEGATION_CHARS = "不没别勿";
  private static final String CJK_FUNCTION = "的了是吗呢吧啊呀哦嗯么也都就很把被在为";

  /** What match needs of one text, computed once. */
  private record Features(
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
    Features {
      tokens = Collections.unmodifiableSet(tokens);
      words = Collections.unmodifiableSet(words);
      wordsNoNegation = Collections.unmodifiableSet(wordsNoNegation);
      values = Collections.unmodifiableMap(values);
      subject = Collections.unmodifiableMap(subject);
      capitalised = Collections.unmodifiableMap(capitalised);
    }
  }

  /** Features of recent neighbours: the same records come back for every candidate of a run. */
  private static final ConcurrentHashMap<String, Features> CACHE = new ConcurrentHashMap<>();

  private static final int CACHE_ENTRIES = 1024;
  private static final int CACHE_MAX_CHARS = 2048;

  private static Features cachedFeatures(String text) {
    if (text.length() > CACHE_MAX_CHARS) {
      return features(text);
    }
    Features f = CACHE.get(text);
    if (f == null) {
      if (CACHE.size() >= CACHE_ENTRIES) {
        CACHE.clear();
      }
      f = features(text);
      CACHE.put(text, f);
    }
    return f;
  }

  private static Features features(String text) {
    List<Span> spans = spans(text);
    Map<ValueType, Map<String, String>> values = new EnumMap<>(ValueType.class);
    char[] work = text.toCharArray();
    Set<String> tokens = new LinkedHashSet<>();
    for (Span s : spans) {
      tokens.add(s.token());
      values.computeIfAbsent(ValueType.TOKEN, k -> new LinkedHashMap<>()).put(s.token(), s.token());
      blank(work, s.start(), s.end());
    }
    String lower = text.toLowerCase(Locale.ROOT);
    boolean digits = hasDigit(text);
    // Cheap checks first: each value regex costs microseconds even when it finds nothing.
    if (digits && (digitThen(lower, "-/", true) || lower.contains("月"))) {
      collect(work, NUMERIC_DATE, ValueType.DATE, values);
    }
    if (digits && hasMonth(lower)) {
      collect(work, MONTH_DATE, ValueType.DATE, values);
    }
    if (digits && (digitThen(lower, ":", true) || digitThen(lower, "ap", false))) {
      collect(work, CLOCK, ValueType.TIME, values);
    }
    if (digits && digitThen(lower, "点點", false)) {
      collect(work, CN_TIME, ValueType.TIME, values);
    }
    if (lower.contains("noon") || lower.contains("midnight")) {
      collect(work, NOON, ValueType.TIME, values);
    }
    collectDays(work, values);
    if (digits) {
      collect(work, NUMBER, ValueType.NUMBER, values);
    }
    String rest = new String(work);
    Map<String, String> capitalised = new LinkedHashMap<>();
    for (int[] w : wordRuns(rest)) {
      String word = rest.substring(w[0], w[1]);
      if (isCapitalised(word) && !sentenceInitial(rest, w[0])) {
        capitalised.putIfAbsent(word.toLowerCase(Locale.ROOT), word);
      }
    }
    String subjectText = rest;
    for (String cn : CN_MARKERS) {
      if (subjectText.contains(cn)) {
        subjectText = subjectText.replace(cn, " ");
      }
    }
    Map<String, String> subject = new LinkedHashMap<>();
    for (String w : Terms.of(stripCjkFunction(subjectText))) {
      if (Terms.isStopword(w)) {
        continue;
      }
      String s = stem(w);
      if (FILLERS.contains(s) || FILLERS.contains(w) || (w.length() == 1 && w.charAt(0) < 0x80)) {
        continue;
      }
      if (LOCATION.contains(s)) {
        s = "@location";
      } else if (MOVED.contains(s)) {
        s = "@moved";
      }
      subject.putIfAbsent(s, w);
    }
    Set<String> words = new HashSet<>();
    Set<String> noNeg = new HashSet<>();
    List<String> terms = Terms.of(text);
    Set<String> all = new HashSet<>(terms);
    for (String w : terms) {
      if (Terms.isStopword(w)) {
        continue;
      }
      String s = stem(w);
      words.add(s);
      if (!FILLERS.contains(s) && NEGATION_CHARS.indexOf(s.charAt(0)) < 0) {
        noNeg.add(s);
      }
    }
    return new Features(
        normalise(text),
        tokens,
        words,
        noNeg,
        values,
        subject,
        capitalised,
        any(all, MARKER_WORDS) || any(lower, MARKER_PHRASES),
        any(all, NEGATION_WORDS) || any(lower, NEGATION_PHRASES),
        any(all, COPULA_WORDS) || any(lower, COPULA_PHRASES));
  }

  private static Set<String> words(String spaced) {
    return Set.of(spaced.split(" "));
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

  private static boolean hasDigit(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c >= '0' && c <= '9') {
        return true;
      }
    }
    return false;
  }

  /** Whether a digit is followed (after optional spaces) by one of {@code chars} [and a digit]. */
  private static boolean digitThen(String s, String chars, boolean thenDigit) {
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

  private static boolean hasMonth(String lower) {
    for (int[] w : wordRuns(lower)) {
      if (MONTH_WORDS.contains(lower.substring(w[0], w[1]))) {
        return true;
      }
    }
    return false;
  }

  /** Days of the week: English names (plural too) and 周X / 星期X / 礼拜X. */
  private static void collectDays(char[] work, Map<ValueType, Map<String, String>> values) {
    String text = new String(work);
    for (int[] w : wordRuns(text)) {
      String word = text.substring(w[0], w[1]);
      String lower = word.toLowerCase(Locale.ROOT);
      String day = lower.endsWith("s") ? lower.substring(0, lower.length() - 1) : lower;
      if (DAYS.contains(day)) {
        values.computeIfAbsent(ValueType.DAY, k -> new LinkedHashMap<>()).putIfAbsent(day, word);
        blank(work, w[0], w[1]);
      }
    }
    for (String prefix : List.of("周", "星期", "礼拜")) {
      int at = text.indexOf(prefix);
      while (at >= 0) {
        int end = at + prefix.length();
        if (end < text.length() && "一二三四五六日天".indexOf(text.charAt(end)) >= 0) {
          String shown = text.substring(at, end + 1);
          values
              .computeIfAbsent(ValueType.DAY, k -> new LinkedHashMap<>())
              .putIfAbsent(cnDay(String.valueOf(text.charAt(end))), shown);
          blank(work, at, end + 1);
        }
        at = text.indexOf(prefix, end);
      }
    }
  }

  private static void collect(
      char[] work, Pattern p, ValueType type, Map<ValueType, Map<String, String>> values) {
    Matcher m = p.matcher(new String(work));
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
      blank(work, m.start(), m.end());
    }
  }

  private static String cnDay(String c) {
    int i = "一二三四五六".indexOf(c);
    return i >= 0 ? CN_DAYS[i] : "sunday";
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

  private static String stripCjkFunction(String s) {
    StringBuilder b = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      b.append(CJK_FUNCTION.indexOf(c) >= 0 ? ' ' : c);
    }
    return b.toString();
  }

  /** A light English stemmer: enough that "deploys", "deployed" and "deploying" meet. */
  static String stem(String w) {
    if (w.length() <= 3 || !isAsciiLetters(w)) {
      return w;
    }
    String s = w;
    if (s.endsWith("ies") && s.length() > 4) {
      s = s.substring(0, s.length() - 3) + "y";
    } else if (s.endsWith("sses")) {
      s = s.substring(0, s.length() - 2);
    } else if (s.endsWith("s") && !s.endsWith("ss") && !s.endsWith("us") && !s.endsWith("is")) {
      s = s.substring(0, s.length() - 1);
    }
    if (s.endsWith("ing") && s.length() > 5) {
      s = undouble(s.substring(0, s.length() - 3));
    } else if (s.endsWith("ed") && s.length() > 4) {
      s = undouble(s.substring(0, s.length() - 2));
    }
    if (s.endsWith("e") && s.length() > 3) {
      s = s.substring(0, s.length() - 1);
    }
    return s;
  }

  private static String undouble(String s) {
    int n = s.length();
    if (n >= 3 && s.charAt(n - 1) == s.charAt(n - 2) && "aeioulsz".indexOf(s.charAt(n - 1)) < 0) {
      return s.substring(0, n - 1);
    }
    return s;
  }

  private static boolean isAsciiLetters(String w) {
    for (int i = 0; i < w.length(); i++) {
      char c = w.charAt(i);
      if (c < 'a' || c > 'z') {
        return false;
      }
    }
    return true;
  }

  // ---------------------------------------------------------------- match

  /**
   * How {@code content} relates to its neighbours (see the class description): the first {@link
   * Relation#DUPLICATE} in list order, else the first {@link Relation#SUPERSEDES}, else empty
   * (store it as a new record).
   *
   * @param content the candidate's content
   * @param kind the candidate's kind: an episodic candidate (an event) supersedes only with a
   *     change marker
   * @param neighbours records of the candidate's namespace, any kind, best match first (the store's
   *     search); records that are not ACTIVE are skipped. About ten is the intended size: a text
   *     not seen before costs some 20 microseconds, a cached one a few.
   */
  public static Optional<Match> match(
      String content, MemoryKind kind, List<MemoryRecord> neighbours) {
    requireNonNull(content, "content is null");
    requireNonNull(kind, "kind is null");
    requireNonNull(neighbours, "neighbours is null");
    Features cand = features(content);
    Match supersedes = null;
    for (MemoryRecord existing : neighbours) {
      if (existing.status() != MemoryStatus.ACTIVE) {
        continue;
      }
      Features ex = cachedFeatures(existing.content());
      Match m = relate(cand, kind, ex, existing);
      if (m == null) {
        continue;
      }
      if (m.relation() == Relation.DUPLICATE) {
        return Optional.of(m);
      }
      if (supersedes == null) {
        supersedes = m;
      }
    }
    return Optional.ofNullable(supersedes);
  }

  private static Match relate(Features c, MemoryKind kind, Features e, MemoryRecord existing) {
    if (c.normalised().equals(e.normalised())) {
      return new Match(existing, Relation.DUPLICATE, "same content");
    }
    boolean episodic = kind == MemoryKind.EPISODIC || existing.kind() == MemoryKind.EPISODIC;
    String conflict = valueConflict(c, e, episodic);
    if (conflict != null) {
      return new Match(existing, Relation.SUPERSEDES, conflict);
    }
    if (c.negated() != e.negated()) {
      double j = jaccard(c.wordsNoNegation(), e.wordsNoNegation());
      if (j >= SUBJECT_WITHOUT_MARKER
          && Math.min(c.wordsNoNegation().size(), e.wordsNoNegation().size()) >= 2
          && (!episodic || c.marker())) {
        return new Match(
            existing, Relation.SUPERSEDES, "contradicts: " + describe(c.subject().values()));
      }
      return null;
    }
    if (replaced(c.values(), e.values())) {
      return null;
    }
    for (String t : c.tokens()) {
      if (e.tokens().contains(t) && e.tokens().containsAll(c.tokens())) {
        return new Match(existing, Relation.DUPLICATE, "same canonical token " + t);
      }
    }
    if (!e.tokens().containsAll(c.tokens()) && !c.tokens().containsAll(e.tokens())) {
      return null;
    }
    double j = jaccard(c.words(), e.words());
    if (j >= JACCARD_DUPLICATE) {
      return new Match(existing, Relation.DUPLICATE, format(j) + " word overlap");
    }
    int small = Math.min(c.words().size(), e.words().size());
    int large = Math.max(c.words().size(), e.words().size());
    if (small >= 3 && large <= 2 * small) {
      double contained = (double) intersection(c.words(), e.words()) / small;
      if (contained >= CONTAINMENT_DUPLICATE) {
        return new Match(existing, Relation.DUPLICATE, format(contained) + " word containment");
      }
    }
    return null;
  }

  /** A reason when the candidate replaces a value of the existing record's subject, else null. */
  private static String valueConflict(Features c, Features e, boolean episodic) {
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

  /** The ALL_CAPS identifiers among canonical tokens ({@code NAME} of {@code NAME=value}). */
  private static Set<String> identifiers(Set<String> tokens) {
    Set<String> out = new LinkedHashSet<>();
    for (String t : tokens) {
      int eq = t.indexOf('=');
      String name = eq > 0 ? t.substring(0, eq) : t;
      if (isCapsToken(name)) {
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

  /** Whether some value type holds a value on each side that the other side lacks. */
  private static boolean replaced(
      Map<ValueType, Map<String, String>> a, Map<ValueType, Map<String, String>> b) {
    for (ValueType t : ValueType.values()) {
      Map<String, String> va = a.getOrDefault(t, Map.of());
      Map<String, String> vb = b.getOrDefault(t, Map.of());
      if (t != ValueType.TOKEN && firstMissing(va, vb) != null && firstMissing(vb, va) != null) {
        return true;
      }
    }
    return false;
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

  // ---------------------------------------------------------------- merge and supersede

  /**
   * {@code existing} with {@code candidate} folded in, as a DUPLICATE match asks. Keeps {@code
   * existing}'s id, namespace, profile, kind, status and create time, and its content — unless the
   * candidate's content contains it (case and whitespace aside) and is longer, the same statement
   * with more detail, and fits {@link MemoryRecord#MAX_CONTENT_BYTES}; then the candidate's content
   * and summary. Tags are unioned in order (up to {@link MemoryRecord#MAX_TAGS}); source refs gain
   * the candidate's and {@code sourceRef} (each once; at most {@value #MAX_SOURCE_REFS}, keeping
   * the first and the latest); confidence rises by {@value #CONFIDENCE_STEP} (capped at 1) when a
   * new source ref arrives; the gate score is the higher one; the candidate's context is appended
   * when new, cut to fit {@link MemoryRecord#MAX_CONTEXT_BYTES}; metadata keys the record lacks are
   * added within the metadata bounds; a short-term record re-taught as long-term becomes long-term,
   * and a short-term one keeps the later expire time. Idempotent: when nothing would change (the
   * same source merged twice), {@code existing} is returned as it is, update time included;
   * otherwise the update time is {@code now}.
   *
   * @throws IllegalArgumentException if the two records are in different namespaces
   */
  public static MemoryRecord merge(
      MemoryRecord existing, MemoryRecord candidate, String sourceRef, Instant now) {
    requireNonNull(existing, "existing is null");
    requireNonNull(candidate, "candidate is null");
    requireNonNull(sourceRef, "sourceRef is null");
    requireNonNull(now, "now is null");
    if (!existing.namespace().equals(candidate.namespace())) {
      throw new IllegalArgumentException(
          "cannot merge across namespaces: "
              + existing.namespace()
              + " and "
              + candidate.namespace());
    }
    MemoryRecord.Builder b = existing.toBuilder();
    if (refines(candidate.content(), existing.content())) {
      b.content(candidate.content());
      if (!candidate.summary().isEmpty()) {
        b.summary(candidate.summary());
      }
    } else if (existing.summary().isEmpty()) {
      b.summary(candidate.summary());
    }
    b.tags(unionTags(existing.tags(), candidate.tags()));
    List<String> refs = new ArrayList<>(existing.sourceRefs());
    boolean newSource = false;
    for (String ref : concat(candidate.sourceRefs(), sourceRef)) {
      if (!ref.isEmpty() && !refs.contains(ref)) {
        refs.add(ref);
        newSource = true;
      }
    }
    while (refs.size() > MAX_SOURCE_REFS) {
      refs.remove(1);
    }
    b.sourceRefs(refs);
    if (newSource) {
      float raised = Math.max(existing.confidence(), candidate.confidence()) + CONFIDENCE_STEP;
      b.confidence(Math.min(1.0f, Math.round(raised * 1000f) / 1000f));
    }
    b.gateScore(Math.max(existing.gateScore(), candidate.gateScore()));
    b.context(appendContext(existing.context(), candidate.context()));
    Map<String, String> metadata = new HashMap<>(existing.metadata());
    for (Map.Entry<String, String> e : new TreeMap<>(candidate.metadata()).entrySet()) {
      if (metadata.size() >= MemoryRecord.MAX_METADATA_ENTRIES) {
        break;
      }
      if (e.getKey().length() <= MemoryRecord.MAX_METADATA_KEY_CHARS
          && e.getValue().length() <= MemoryRecord.MAX_METADATA_VALUE_CHARS) {
        metadata.putIfAbsent(e.getKey(), e.getValue());
      }
    }
    b.metadata(metadata);
    if (existing.sensitivity().isEmpty()) {
      b.sensitivity(candidate.sensitivity());
    }
    if (existing.validity() == Validity.SHORT_TERM) {
      if (candidate.validity() == Validity.LONG_TERM) {
        b.validity(Validity.LONG_TERM).expireTime(null);
      } else if (existing.expireTime() != null
          && candidate.expireTime() != null
          && candidate.expireTime().isAfter(existing.expireTime())) {
        b.expireTime(candidate.expireTime());
      }
    }
    MemoryRecord merged = b.build();
    if (merged.equals(existing)) {
      return existing;
    }
    return merged.toBuilder().updateTime(now).build();
  }

  private static List<String> concat(List<String> refs, String one) {
    List<String> out = new ArrayList<>(refs);
    out.add(one);
    return out;
  }

  /** Whether {@code candidate} says all of {@code existing} and more. */
  private static boolean refines(String candidate, String existing) {
    String c = normalise(candidate);
    String e = normalise(existing);
    return c.length() > e.length()
        && !e.isEmpty()
        && c.contains(e)
        && candidate.getBytes(StandardCharsets.UTF_8).length <= MemoryRecord.MAX_CONTENT_BYTES;
  }

  private static String normalise(String s) {
    String n = SPACES.matcher(s.toLowerCase(Locale.ROOT)).replaceAll(" ").strip();
    int end = n.length();
    while (end > 0 && ".!。！;；".indexOf(n.charAt(end - 1)) >= 0) {
      end--;
    }
    return n.substring(0, end);
  }

  private static List<String> unionTags(List<String> a, List<String> b) {
    Set<String> out = new LinkedHashSet<>(a);
    for (String t : b) {
      if (out.size() >= MemoryRecord.MAX_TAGS) {
        break;
      }
      if (!t.isEmpty() && t.length() <= MemoryRecord.MAX_TAG_CHARS) {
        out.add(t);
      }
    }
    return List.copyOf(out);
  }

  private static String appendContext(String existing, String added) {
    if (added.isBlank() || existing.contains(added)) {
      return existing;
    }
    if (existing.isEmpty()) {
      return Limits.cutUtf8(added, MemoryRecord.MAX_CONTEXT_BYTES);
    }
    int room =
        MemoryRecord.MAX_CONTEXT_BYTES - existing.getBytes(StandardCharsets.UTF_8).length - 1;
    if (room < 64) {
      return existing;
    }
    return existing + "\n" + Limits.cutUtf8(added, room);
  }

  /**
   * {@code old} replaced by the record {@code successorId}: status {@link MemoryStatus#SUPERSEDED}
   * (kept, never deleted, no longer recalled), metadata {@value #SUPERSEDED_BY} = {@code
   * successorId}, update time {@code now}. When the metadata is full, the greatest other key (in
   * string order) makes room. Idempotent: a record already superseded by {@code successorId} is
   * returned as it is.
   */
  public static MemoryRecord supersede(MemoryRecord old, String successorId, Instant now) {
    requireNonNull(old, "old is null");
    Ids.require("successorId", successorId);
    requireNonNull(now, "now is null");
    if (old.status() == MemoryStatus.SUPERSEDED
        && successorId.equals(old.metadata().get(SUPERSEDED_BY))) {
      return old;
    }
    Map<String, String> metadata = withEntry(old.metadata(), SUPERSEDED_BY, successorId);
    return old.toBuilder()
        .status(MemoryStatus.SUPERSEDED)
        .metadata(metadata)
        .updateTime(now)
        .build();
  }

  /**
   * {@code successor} marked as replacing {@code supersededId}: metadata {@value #SUPERSEDES} holds
   * the replaced ids, comma-separated, each once (a value past {@link
   * MemoryRecord#MAX_METADATA_VALUE_CHARS} keeps the latest ids). Times are left alone: the lead
   * marks a successor before storing it.
   */
  public static MemoryRecord markSuccessor(MemoryRecord successor, String supersededId) {
    requireNonNull(successor, "successor is null");
    Ids.require("supersededId", supersededId);
    String current = successor.metadata().getOrDefault(SUPERSEDES, "");
    List<String> ids = new ArrayList<>();
    for (String id : current.split(",")) {
      if (!id.isBlank()) {
        ids.add(id.strip());
      }
    }
    if (ids.contains(supersededId)) {
      return successor;
    }
    ids.add(supersededId);
    String value = String.join(",", ids);
    while (value.length() > MemoryRecord.MAX_METADATA_VALUE_CHARS) {
      ids.remove(0);
      value = String.join(",", ids);
    }
    return successor.toBuilder()
        .metadata(withEntry(successor.metadata(), SUPERSEDES, value))
        .build();
  }

  private static Map<String, String> withEntry(Map<String, String> m, String key, String value) {
    Map<String, String> out = new HashMap<>(m);
    if (!out.containsKey(key) && out.size() >= MemoryRecord.MAX_METADATA_ENTRIES) {
      String drop = null;
      for (String k : new TreeSet<>(out.keySet()).descendingSet()) {
        if (!k.equals(SUPERSEDED_BY) && !k.equals(SUPERSEDES)) {
          drop = k;
          break;
        }
      }
      out.remove(drop);
    }
    out.put(key, value);
    return out;
  }
}
