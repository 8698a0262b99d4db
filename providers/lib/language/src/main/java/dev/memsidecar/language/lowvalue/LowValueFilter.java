package dev.memsidecar.language.lowvalue;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.language.Language;
import dev.memsidecar.language.Scripts;
import dev.memsidecar.language.Terms;
import dev.memsidecar.language.dedupe.CanonicalTokens;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;

/**
 * Drops memory candidates not worth a record, before the write gate sees them: what an agent run
 * says about itself, pleasantries, questions and scraps. The algorithm is the same in every
 * language; the phrases and patterns are the languages' {@link LowValueRules}, all of them asked
 * (English and Chinese are built in). Immutable and thread-safe.
 *
 * <p>The content is cut into clauses (at {@code . ! ? ;} followed by a space or the end, at {@code
 * 。！？；} and at line ends). At the start of each clause, acknowledgements and pleasantries are
 * stripped ({@code "OK, deploys are on Tuesdays"} keeps {@code deploys are on Tuesdays}); a word
 * such as "ok" or "sure" is stripped only when punctuation or the end follows, a greeting or thanks
 * also before a name ("Hi Alice"); a clause made of nothing else is stripped whole ("ok cool").
 * Then, in order:
 *
 * <ol>
 *   <li>{@value #RUN_INSTRUCTION}: a clause that tells the model how to answer ("Reply exactly
 *       ...", "Respond only with ...", "Answer with just ...", "don't say anything else", "请只回复
 *       ...", "只输出 ...", "直接回复 ..."), or echoes the memory machinery ("memory stored", "saved to
 *       memory", "I will remember that", "I'll keep that in mind", "asked to remember", "已记住",
 *       "记住了", "我会记住", "已保存", "要求记住"), or an acknowledgement alone ("Noted.", "Got it",
 *       "Understood", "Will do", "收到", "明白了", "知道了") is dropped; when nothing else is left, this is
 *       the reason. "Remember that Alice prefers tea" is none of these: it is an instruction that
 *       carries a fact;
 *   <li>{@value #GREETING} / {@value #SMALL_TALK}: nothing is left but greetings ("hi", "hello
 *       there", "good morning", "你好", "早上好") or small talk ("thanks!", "how are you", "haha",
 *       "lol", "ok", "sounds good", "谢谢", "好的", "哈哈", "没问题"), possibly around a name;
 *   <li>{@value #QUESTION}: every clause left is a question (ends with {@code ?}/{@code ？}, or
 *       unpunctuated starts like "what is", "how do", "can you", or ends with 吗/呢) — a question
 *       states nothing to remember. A question that asks to remember ("Could you remember that my
 *       birthday is May 3?") is kept;
 *   <li>{@value #FRAGMENT}: what is left has fewer than {@value #MIN_WORDS} meaningful words and no
 *       canonical token ({@link CanonicalTokens}: a command, an ALL_CAPS identifier, a URL, an
 *       e-mail). A content word counts 1, an English stopword or single letter 0.5, "please" /
 *       "remember" / "note" 0, a Han/kana/Hangul character 2/3 (particles such as 的了吗呢 0), so
 *       "Deploys are on Tuesdays" and "我喜欢茶" are kept, "Port 8080" and "remember this" are not.
 *       When something was stripped, the stripped part names the reason instead ("Hi Alice" is a
 *       greeting).
 * </ol>
 *
 * <p>Limits: a fact wrapped in an echo ("I'll remember that Alice prefers tea") is dropped as an
 * echo, on the assumption that the extractor also found the fact in the user's words; sarcasm and
 * rhetorical questions are not understood.
 */
public final class LowValueFilter {
  /** Reason: the text instructs the model how to answer, or echoes the memory machinery. */
  public static final String RUN_INSTRUCTION = "low-value: run instruction";

  /** Reason: a greeting and nothing more. */
  public static final String GREETING = "low-value: greeting";

  /** Reason: thanks, acknowledgements, laughter and other small talk. */
  public static final String SMALL_TALK = "low-value: small talk";

  /** Reason: too few words to be a memory. */
  public static final String FRAGMENT = "low-value: fragment";

  /** Reason: a question with no statement. */
  public static final String QUESTION = "low-value: question";

  /** The least weighted word count of a kept text without a canonical token. */
  public static final double MIN_WORDS = 2.5;

  /** Punctuation and space around a stripped phrase, in any script. */
  private static final String SEPARATORS = " \t,，、!！~～.。:：;；-—…'\"“”‘’()（）";

  private final List<LowValueRules.Phrase> phrases;
  private final List<LowValueRules> rules;

  /**
   * @param languages the languages whose phrases and patterns count
   */
  public LowValueFilter(List<Language> languages) {
    requireNonNull(languages, "languages is null");
    this.rules = languages.stream().map(Language::lowValue).toList();
    List<LowValueRules.Phrase> all = new ArrayList<>();
    for (LowValueRules r : rules) {
      all.addAll(r.phrases());
    }
    // Longest first, so that "thank you so much" is stripped whole, not as "thank you".
    all.sort(Comparator.comparingInt((LowValueRules.Phrase p) -> p.text().length()).reversed());
    this.phrases = List.copyOf(all);
  }

  /** One clause: its text, its text after stripping, and its terminator (0 when none). */
  private record Clause(String original, String rest, char end, String stripped) {}

  /**
   * Why {@code content} is not worth storing, one of the constants of this class, or empty to keep
   * it. See the class description for the rules.
   */
  public Optional<String> reason(String content) {
    requireNonNull(content, "content is null");
    String firstDrop = null;
    boolean instruction = false;
    List<Clause> kept = new ArrayList<>();
    for (Clause c : clauses(content)) {
      String lower = c.rest();
      if (c.stripped() != null && firstDrop == null) {
        firstDrop = c.stripped();
      }
      if (lower.isEmpty()) {
        continue;
      }
      if (instructs(lower)) {
        instruction = true;
        continue;
      }
      kept.add(c);
    }
    if (instruction) {
      firstDrop = RUN_INSTRUCTION;
    }
    if (kept.isEmpty()) {
      return Optional.of(firstDrop == null ? FRAGMENT : firstDrop);
    }
    boolean allQuestions = true;
    double words = 0;
    StringBuilder text = new StringBuilder();
    for (Clause c : kept) {
      allQuestions &= isQuestion(c);
      words += weight(c.rest());
      text.append(c.original()).append('\n');
    }
    boolean scrap = words < MIN_WORDS && CanonicalTokens.of(text.toString()).isEmpty();
    if (scrap && firstDrop != null) {
      return Optional.of(firstDrop);
    }
    if (allQuestions) {
      return Optional.of(QUESTION);
    }
    return scrap ? Optional.of(FRAGMENT) : Optional.empty();
  }

  /** Whether a clause tells the model how to answer, or echoes the memory machinery. */
  private boolean instructs(String lower) {
    for (LowValueRules r : rules) {
      if (r.instruction().matcher(lower).find()) {
        return true;
      }
    }
    for (LowValueRules r : rules) {
      if (r.echo().matcher(lower).find()) {
        return true;
      }
    }
    return false;
  }

  private boolean isQuestion(Clause c) {
    String s = c.rest();
    for (LowValueRules r : rules) {
      if (r.rememberAsk().matcher(s).find()) {
        return false;
      }
    }
    if (c.end() == '?' || c.end() == '？') {
      return true;
    }
    if (c.end() != 0 && c.end() != '\n') {
      return false;
    }
    for (LowValueRules r : rules) {
      if (r.questionStart().matcher(s).find()) {
        return true;
      }
    }
    int last = s.isEmpty() ? -1 : s.codePointBefore(s.length());
    for (LowValueRules r : rules) {
      if (last >= 0 && r.questionEndings().indexOf(last) >= 0) {
        return true;
      }
    }
    return false;
  }

  private double weight(String s) {
    double w = 0;
    for (String t : Terms.of(s)) {
      int cp = t.codePointAt(0);
      if (Scripts.isCjk(cp)) {
        // Terms gives each Han/kana/Hangul character, then each pair: count characters only.
        if (t.codePointCount(0, t.length()) == 1 && !isParticle(t)) {
          w += 2.0 / 3.0;
        }
        continue;
      }
      if (isWeightless(t)) {
        continue;
      }
      w += Terms.isStopword(t) || (t.length() == 1 && !Character.isDigit(cp)) ? 0.5 : 1;
    }
    return w;
  }

  private boolean isParticle(String character) {
    for (LowValueRules r : rules) {
      if (r.particles().contains(character)) {
        return true;
      }
    }
    return false;
  }

  private boolean isWeightless(String term) {
    for (LowValueRules r : rules) {
      if (r.weightless().contains(term)) {
        return true;
      }
    }
    return false;
  }

  private List<Clause> clauses(String content) {
    List<Clause> out = new ArrayList<>();
    int start = 0;
    int n = content.length();
    for (int i = 0; i < n; i++) {
      char ch = content.charAt(i);
      boolean cut =
          ch == '\n'
              || ch == '。'
              || ch == '！'
              || ch == '？'
              || ch == '；'
              || ((ch == '.' || ch == '!' || ch == '?' || ch == ';')
                  && (i + 1 == n || Character.isWhitespace(content.charAt(i + 1))));
      if (cut) {
        add(out, content.substring(start, i), ch);
        start = i + 1;
      }
    }
    add(out, content.substring(start), (char) 0);
    return out;
  }

  private void add(List<Clause> out, String raw, char end) {
    String original = raw.strip();
    if (original.isEmpty()) {
      return;
    }
    String s = original.toLowerCase(Locale.ROOT);
    s = skipSeparators(s);
    String stripped = null;
    boolean again = true;
    while (again && !s.isEmpty()) {
      again = false;
      int laugh = laughterEnd(s);
      if (laugh >= 0) {
        s = skipSeparators(s.substring(laugh));
        stripped = stripped == null ? SMALL_TALK : stripped;
        again = true;
        continue;
      }
      for (LowValueRules.Phrase p : phrases) {
        if (s.startsWith(p.text())
            && boundary(
                s, p.text().length(), p.beforeName(), Scripts.isCjk(p.text().codePointAt(0)))) {
          s = skipSeparators(s.substring(p.text().length()));
          stripped = stripped == null || p.reason().equals(RUN_INSTRUCTION) ? p.reason() : stripped;
          again = true;
          break;
        }
      }
    }
    if (!s.isEmpty()) {
      // "ok cool": words that need punctuation after them still make up a whole clause alone.
      String lenient = s;
      String reason = stripped;
      boolean matched = true;
      while (matched && !lenient.isEmpty()) {
        matched = false;
        for (LowValueRules.Phrase p : phrases) {
          if (lenient.startsWith(p.text())
              && boundary(
                  lenient, p.text().length(), true, Scripts.isCjk(p.text().codePointAt(0)))) {
            lenient = skipSeparators(lenient.substring(p.text().length()));
            reason = reason == null || p.reason().equals(RUN_INSTRUCTION) ? p.reason() : reason;
            matched = true;
            break;
          }
        }
      }
      if (lenient.isEmpty()) {
        s = lenient;
        stripped = reason;
      }
    }
    out.add(new Clause(original, s, end, stripped));
  }

  /** Where laughter at the start of {@code s} ("haha", 哈哈) ends, when it stands alone; else -1. */
  private int laughterEnd(String s) {
    for (LowValueRules r : rules) {
      Matcher laugh = r.laughter().matcher(s);
      if (laugh.find() && boundary(s, laugh.end(), true, false)) {
        return laugh.end();
      }
    }
    return -1;
  }

  /**
   * Whether a phrase ending at {@code at} stands alone: the end or punctuation follows, or a space
   * when {@code beforeName}; a Chinese phrase of two or more characters needs no separator.
   */
  private static boolean boundary(String s, int at, boolean beforeName, boolean cjk) {
    if (at >= s.length()) {
      return true;
    }
    char c = s.charAt(at);
    if (cjk && at >= 2) {
      return true;
    }
    if (Character.isWhitespace(c)) {
      return beforeName;
    }
    return SEPARATORS.indexOf(c) >= 0 || (!Character.isLetterOrDigit(c) && c != '\'' && c != '_');
  }

  private static String skipSeparators(String s) {
    int i = 0;
    while (i < s.length()) {
      int cp = s.codePointAt(i);
      if (Character.isLetterOrDigit(cp) || cp == '`' || cp == '$' || cp == '/' || cp == '_') {
        break;
      }
      i += Character.charCount(cp);
    }
    return s.substring(i);
  }
}
