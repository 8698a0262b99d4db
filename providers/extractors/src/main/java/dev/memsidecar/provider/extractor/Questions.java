package dev.memsidecar.provider.extractor;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a sentence ending in a question mark states. A question is dropped only when it asks; a
 * statement phrased as a question keeps its statement:
 *
 * <ul>
 *   <li>a tag question: "Sunflowers mean warmth and happiness, right?" states "Sunflowers mean
 *       warmth and happiness."; "向日葵代表温暖和快乐，对吧？" states "向日葵代表温暖和快乐。";
 *   <li>a statement followed by a question in the same sentence: "Spider-Man has always been a
 *       favorite of mine - I mean, who doesn't love him?" states its first clause; "我上周去了巴黎，你去过吗？"
 *       states "我上周去了巴黎。";
 *   <li>a declarative sentence read with a rising tone ("While roses stand for love and beauty?"),
 *       unless it is about the listener ("You went to Paris?") or too short to state anything (the
 *       caller judges that).
 * </ul>
 *
 * A sentence that opens with a question word or an inverted auxiliary ("What ...", "Did you ...",
 * "Any plans ...", "你去过吗？", "什么时候...？") asks: nothing is stated. Stateless and thread-safe.
 */
final class Questions {
  private Questions() {}

  private static final Pattern QUESTION_END = Pattern.compile("[?？][?？!！.。\\s]*$");

  private static final String AUX =
      "(?:is|are|was|were|do|does|did|have|has|had|can|could|will|would|should)";
  private static final String PRONOUN = "(?:it|they|he|she|we|you|i|that|there|those|these)";

  /** "..., right?", "..., isn't it?", "..., you know?": a confirmation asked of a statement. */
  private static final Pattern TAG_EN =
      Pattern.compile(
          "(?i)(?:[,;]\\s*(?:"
              + String.join(
                  "|",
                  "you know",
                  "ya know",
                  "y'know",
                  "huh",
                  "eh",
                  "no",
                  "yeah",
                  "yes",
                  "true",
                  "correct",
                  "agreed",
                  "am i right",
                  "or not",
                  "you see",
                  "isn't that so",
                  "ain't it",
                  AUX + "\\s+" + PRONOUN)
              + ")|[,;]?\\s*\\b(?:"
              + String.join(
                  "|",
                  "right",
                  "don't you think",
                  "wouldn't you say",
                  "don't you agree",
                  AUX + "n't\\s+" + PRONOUN)
              + "))\\s*[?？][?？!！.\\s]*$");

  /** The first words of a sentence (or clause) that asks. */
  private static final Pattern ASKS_EN =
      Pattern.compile(
          "(?i)^(?:(?:so|and|but|or|well|oh|hey|then|also|plus|anyway|i mean|i wonder|just curious"
              + "|quick question|btw|by the way|out of curiosity|maybe|perhaps)[,!]?\\s+)*(?:"
              + String.join(
                  "|",
                  "what|what's|whats|who|who's|whom|whose|where|where's|when|when's|why|why's",
                  "how|how's|hows|which|whatcha|any|anything|anyone|anybody|ever|got any",
                  "am|" + AUX + "|shall|may|might|" + AUX + "n't|isn't|aren't|wasn't|weren't",
                  "don't|doesn't|didn't|haven't|hasn't|hadn't|can't|couldn't|won't|wouldn't",
                  "you|your|you're|you've|you'd|you'll|u|ur|r u|y'all|yall|ya",
                  "care to|mind|guess what|know what|thoughts|ideas|tips|suggestions|same|really",
                  "seriously|want|wanna|need|like to|feel like|got")
              + ")\\b");

  /** Where a second clause may start: a dash, a semicolon, a colon, a comma. */
  private static final Pattern CLAUSE_BREAK = Pattern.compile("\\s+[-–—]+\\s+|[;:,]\\s+");

  private static final Pattern TAG_ZH =
      Pattern.compile(
          "[，,]?\\s*(?:对吧|对不对|对吗|是吧|是不是|是吗|不是吗|没错吧|你说是吧|你说对吧|你知道吗|知道吗|你说呢|你觉得呢|好吗|行吗)"
              + "[？?！!。]*$|(?<=[\\p{IsHan}])吧[？?]+[？?！!。]*$");

  private static final Pattern ASKS_ZH =
      Pattern.compile(
          "^(?:那|所以|还有|另外|对了)?(?:你|您|有没有|是不是|要不要|能不能|会不会|怎么|怎样|什么|为什么|为啥|哪|谁|几|多少|多久|难道)"
              + "|(?:吗|呢|么|没有|是不是|要不要|好不好|有没有|对不对)[？?！!。]*$"
              + "|(?:什么|怎么|哪里|哪儿|哪个|谁|多少|为什么|为啥)");

  /** Whether {@code s} ends with a question mark. */
  static boolean isQuestion(String s) {
    return QUESTION_END.matcher(s).find();
  }

  /**
   * What {@code s} states, English: {@code s} itself when it is no question, the statement without
   * its tag or its trailing question, or null when it only asks.
   */
  static String statedEnglish(String s) {
    if (!isQuestion(s)) {
      return s;
    }
    Matcher tag = TAG_EN.matcher(s);
    if (tag.find() && tag.start() > 0) {
      String rest = s.substring(0, tag.start()).strip();
      return ASKS_EN.matcher(rest).lookingAt() || rest.isEmpty() ? null : rest + ".";
    }
    String body = s.replaceAll("[?？!！.\\s]+$", "");
    if (ASKS_EN.matcher(body).lookingAt()) {
      return null;
    }
    // "X - who doesn't love Y?", "I did X; have you?": keep what comes before the question.
    Matcher b = CLAUSE_BREAK.matcher(body);
    int lastStatement = -1;
    while (b.find()) {
      if (ASKS_EN.matcher(body.substring(b.end())).lookingAt()) {
        lastStatement = b.start();
        break;
      }
    }
    if (lastStatement > 0) {
      return body.substring(0, lastStatement).strip() + ".";
    }
    // A statement read with a rising tone; a short one ("For walking or running?"), one without
    // its subject ("Seen any good movies lately?") or one about "any" asks.
    boolean asks =
        body.split("\\s+").length < MIN_DECLARATIVE_WORDS
            || ELLIPTIC_EN.matcher(body).lookingAt()
            || ANY_EN.matcher(body).find();
    return asks ? null : body + ".";
  }

  private static final Pattern ELLIPTIC_EN =
      Pattern.compile(
          "(?i)^(?:been|seen|heard|tried|had|got|gotten|done|gone|met|read|watched)\\b");
  private static final Pattern ANY_EN =
      Pattern.compile("(?i)\\b(?:any|anything|anyone|anybody|ever|yet)\\b");

  private static final int MIN_DECLARATIVE_WORDS = 5;

  /** What {@code s} states, Chinese; see {@link #statedEnglish}. */
  static String statedChinese(String s) {
    String body = s.strip();
    boolean question = isQuestion(body) || body.matches(".*(?:吗|么|是不是|要不要|好不好)[。！!]*$");
    if (!question) {
      return s;
    }
    Matcher tag = TAG_ZH.matcher(body);
    if (tag.find() && tag.start() > 0) {
      String rest = body.substring(0, tag.start()).replaceAll("[，,\\s]+$", "");
      return rest.isEmpty() || ASKS_ZH.matcher(rest).find() ? null : rest + "。";
    }
    // "我上周去了巴黎，你去过吗？": the clauses before the one that asks.
    String[] clauses = body.split("[，,；;]");
    String last = clauses[clauses.length - 1];
    if (clauses.length < 2 || !ASKS_ZH.matcher(last).find()) {
      return null;
    }
    String prefix = body.substring(0, body.lastIndexOf(last)).replaceAll("[，,；;\\s]+$", "");
    if (prefix.isEmpty() || ASKS_ZH.matcher(prefix).find() || prefix.startsWith("如果")) {
      return null;
    }
    return prefix + "。";
  }
}
