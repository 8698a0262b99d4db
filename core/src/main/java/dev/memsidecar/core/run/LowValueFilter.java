package dev.memsidecar.core.run;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.language.Terms;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Drops memory candidates not worth a record, before the write gate sees them: what an agent run
 * says about itself, pleasantries, questions and scraps. English and Chinese. Stateless and
 * thread-safe.
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
 *       canonical token ({@link Dedupe#canonicalTokens}: a command, an ALL_CAPS identifier, a URL,
 *       an e-mail). A content word counts 1, an English stopword or single letter 0.5, "please" /
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

  private LowValueFilter() {}

  private record Phrase(String text, String reason, boolean beforeName) {}

  private static final List<Phrase> PHRASES = phrases();

  private static List<Phrase> phrases() {
    List<Phrase> out = new ArrayList<>();
    add(
        out,
        GREETING,
        true,
        "hi|hello|hey|hiya|howdy|greetings|hello there|hi there|hey there|good morning"
            + "|good afternoon|good evening|good night|bye|goodbye|bye bye|see you|see ya"
            + "|see you later|nice to meet you|你好|您好|大家好|嗨|哈喽|哈啰|早上好|早安|中午好"
            + "|下午好|晚上好|晚安|再见|拜拜");
    add(
        out,
        SMALL_TALK,
        true,
        "thanks|thank you|thank you so much|thanks a lot|many thanks|thx|ty|cheers|how are you"
            + "|how are you doing|how's it going|how is it going|what's up|whats up");
    add(
        out,
        SMALL_TALK,
        false,
        "sup|nice|cool|great|awesome|ok|okay|okey|k|kk|sure|alright|all right|fine|yes|yeah"
            + "|yep|yup|no|nope|nah|sorry|no problem|no worries|np|you're welcome"
            + "|you are welcome|wow|oh|ah|hmm|um|uh|perfect|good|sounds good|sounds great"
            + "|makes sense|that's great|that's fine|good job|well done|my pleasure|good to know"
            + "|have a nice day|谢谢|多谢|感谢|谢了|谢谢你|好的|好|好吧|嗯|嗯嗯|哦|噢|哇|行|可以"
            + "|没问题|不客气|你好吗|最近怎么样|最近好吗|太好了|不错|棒");
    add(
        out,
        RUN_INSTRUCTION,
        false,
        "noted|got it|gotcha|understood|will do|roger|roger that|copy that|acknowledged|done"
            + "|i see|收到|明白|明白了|了解|知道了|记住了|已记住|好的收到");
    out.sort(Comparator.comparingInt((Phrase p) -> p.text().length()).reversed());
    return List.copyOf(out);
  }

  private static void add(List<Phrase> out, String reason, boolean beforeName, String phrases) {
    for (String p : phrases.split("\\|")) {
      out.add(new Phrase(p, reason, beforeName));
    }
  }

  private static final Pattern LAUGHTER =
      Pattern.compile("^(?:(?:ha){2,}h?|(?:he){2,}|lo+l|lmao|rofl|xd+|哈{2,}|呵{2,}|嘿{2,})");

  private static final Pattern INSTRUCTION =
      Pattern.compile(
          "^(?:please\\s+|pls\\s+)?(?:just\\s+|only\\s+|simply\\s+)?"
              + "(?:reply|respond|answer|say|output|print|return)(?:\\s+with)?\\s+(?:only|just"
              + "|exactly|verbatim|nothing but|nothing else|in one word|in a single word)\\b"
              + "|^(?:please\\s+)?(?:reply|respond|answer|say|output|print)(?:\\s+\\S+){1,2}\\s+"
              + "(?:exactly|verbatim)\\b"
              + "|^(?:please\\s+)?(?:just|only|simply)\\s+(?:reply|respond|answer|say|output)\\b"
              + "|\\b(?:don't|do not|dont)\\s+(?:say|reply|add|write|output)\\s+anything\\s+else"
              + "|^(?:请)?(?:只|仅|直接|只需|只要|务必只)(?:回复|回答|输出|返回|说)"
              + "|不要(?:说|回复|输出)(?:任何)?其他");

  private static final Pattern ECHO =
      Pattern.compile(
          "memory (?:stored|saved|updated)|(?:stored|saved|added) (?:in|to|into) memory"
              + "|\\bi(?: will|'ll|’ll| have|'ve|’ve) (?:remember|noted|saved|stored|keep that in"
              + " mind|make a note)"
              + "|\\b(?:asked|told|requested)(?: me| you| the assistant| the agent)? to remember"
              + "|\\bwants? (?:me|you|the assistant|the agent) to remember"
              + "|已记住|记住了|我会记住|已保存|已存储|已记录|已存入|记忆已|要求记住|让我记住|请求记住|要我记住");

  private static final Pattern QUESTION_START =
      Pattern.compile(
          "^(?:(?:what|why|how|when|where|who|which|whose)(?:'s|\\s+(?:is|are|was|were|do|does"
              + "|did|can|could|should|would|will|has|have))\\b"
              + "|(?:is|are|do|does|did|can|could|should|would|will|has|have|may|shall)\\s+"
              + "(?:i|you|we|they|it|he|she|there|this|that|the|a|my|our|your)\\b"
              + "|(?:为什么|怎么|如何))");

  private static final Pattern REMEMBER_ASK =
      Pattern.compile("\\b(?:remember|note that|keep in mind)\\b|记住|记一下");

  private static final Set<String> ZERO_WEIGHT =
      Set.of("please", "pls", "remember", "note", "kindly", "just", "really", "very");

  private static final String CJK_PARTICLES = "的了吗呢吧啊呀哦嗯么";

  private static final String SEPARATORS = " \t,，、!！~～.。:：;；-—…'\"“”‘’()（）";

  /** One clause: its text, its text after stripping, and its terminator (0 when none). */
  private record Clause(String original, String rest, char end, String stripped) {}

  /**
   * Why {@code content} is not worth storing, one of the constants of this class, or empty to keep
   * it. See the class description for the rules.
   */
  public static Optional<String> reason(String content) {
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
      if (INSTRUCTION.matcher(lower).find() || ECHO.matcher(lower).find()) {
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
    boolean scrap = words < MIN_WORDS && Dedupe.canonicalTokens(text.toString()).isEmpty();
    if (scrap && firstDrop != null) {
      return Optional.of(firstDrop);
    }
    if (allQuestions) {
      return Optional.of(QUESTION);
    }
    return scrap ? Optional.of(FRAGMENT) : Optional.empty();
  }

  private static boolean isQuestion(Clause c) {
    String s = c.rest();
    if (REMEMBER_ASK.matcher(s).find()) {
      return false;
    }
    if (c.end() == '?' || c.end() == '？') {
      return true;
    }
    if (c.end() != 0 && c.end() != '\n') {
      return false;
    }
    return QUESTION_START.matcher(s).find()
        || s.endsWith("吗")
        || s.endsWith("呢")
        || s.endsWith("么");
  }

  private static double weight(String s) {
    double w = 0;
    for (String t : Terms.of(s)) {
      int cp = t.codePointAt(0);
      if (isCjk(cp)) {
        // Terms gives each Han/kana/Hangul character, then each pair: count characters only.
        if (t.codePointCount(0, t.length()) == 1 && CJK_PARTICLES.indexOf(t) < 0) {
          w += 2.0 / 3.0;
        }
        continue;
      }
      if (ZERO_WEIGHT.contains(t)) {
        continue;
      }
      w += Terms.isStopword(t) || (t.length() == 1 && !Character.isDigit(cp)) ? 0.5 : 1;
    }
    return w;
  }

  private static List<Clause> clauses(String content) {
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

  private static void add(List<Clause> out, String raw, char end) {
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
      Matcher laugh = LAUGHTER.matcher(s);
      if (laugh.find() && boundary(s, laugh.end(), true, false)) {
        s = skipSeparators(s.substring(laugh.end()));
        stripped = stripped == null ? SMALL_TALK : stripped;
        again = true;
        continue;
      }
      for (Phrase p : PHRASES) {
        if (s.startsWith(p.text())
            && boundary(s, p.text().length(), p.beforeName(), isCjk(p.text().codePointAt(0)))) {
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
        for (Phrase p : PHRASES) {
          if (lenient.startsWith(p.text())
              && boundary(lenient, p.text().length(), true, isCjk(p.text().codePointAt(0)))) {
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

  private static boolean isCjk(int cp) {
    Character.UnicodeScript s = Character.UnicodeScript.of(cp);
    return s == Character.UnicodeScript.HAN
        || s == Character.UnicodeScript.HIRAGANA
        || s == Character.UnicodeScript.KATAKANA
        || s == Character.UnicodeScript.HANGUL;
  }
}
