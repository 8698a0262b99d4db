package dev.memsidecar.language.en;

import dev.memsidecar.language.lowvalue.LowValueFilter;
import dev.memsidecar.language.lowvalue.LowValueRules;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * What is not worth a memory in English: greetings ("hi", "good morning"), small talk ("thanks",
 * "sounds good", "lol"), acknowledgements ("noted", "got it"), instructions to the model ("reply
 * exactly ...", "don't say anything else"), echoes ("memory stored", "I'll remember that", "asked
 * to remember"), unpunctuated questions ("what is ...", "can you ..."). Immutable and thread-safe.
 */
final class EnglishLowValue {
  private static final Pattern LAUGHTER =
      Pattern.compile("^(?:(?:ha){2,}h?|(?:he){2,}|lo+l|lmao|rofl|xd+)");

  private static final Pattern INSTRUCTION =
      Pattern.compile(
          "^(?:please\\s+|pls\\s+)?(?:just\\s+|only\\s+|simply\\s+)?"
              + "(?:reply|respond|answer|say|output|print|return)(?:\\s+with)?\\s+(?:only|just"
              + "|exactly|verbatim|nothing but|nothing else|in one word|in a single word)\\b"
              + "|^(?:please\\s+)?(?:reply|respond|answer|say|output|print)(?:\\s+\\S+){1,2}\\s+"
              + "(?:exactly|verbatim)\\b"
              + "|^(?:please\\s+)?(?:just|only|simply)\\s+(?:reply|respond|answer|say|output)\\b"
              + "|\\b(?:don't|do not|dont)\\s+(?:say|reply|add|write|output)\\s+anything\\s+else");

  private static final Pattern ECHO =
      Pattern.compile(
          "memory (?:stored|saved|updated)|(?:stored|saved|added) (?:in|to|into) memory"
              + "|\\bi(?: will|'ll|’ll| have|'ve|’ve) (?:remember|noted|saved|stored|keep that in"
              + " mind|make a note)"
              + "|\\b(?:asked|told|requested)(?: me| you| the assistant| the agent)? to remember"
              + "|\\bwants? (?:me|you|the assistant|the agent) to remember");

  private static final Pattern QUESTION_START =
      Pattern.compile(
          "^(?:(?:what|why|how|when|where|who|which|whose)(?:'s|\\s+(?:is|are|was|were|do|does"
              + "|did|can|could|should|would|will|has|have))\\b"
              + "|(?:is|are|do|does|did|can|could|should|would|will|has|have|may|shall)\\s+"
              + "(?:i|you|we|they|it|he|she|there|this|that|the|a|my|our|your)\\b)");

  private static final Pattern REMEMBER_ASK =
      Pattern.compile("\\b(?:remember|note that|keep in mind)\\b");

  private static final Set<String> WEIGHTLESS =
      Set.of("please", "pls", "remember", "note", "kindly", "just", "really", "very");

  /** The rules: phrases, patterns and weightless words. */
  static final LowValueRules RULES =
      new LowValueRules.Table(
          Stream.of(
                  LowValueRules.phrases(
                      LowValueFilter.GREETING,
                      true,
                      "hi|hello|hey|hiya|howdy|greetings|hello there|hi there|hey there"
                          + "|good morning|good afternoon|good evening|good night|bye|goodbye"
                          + "|bye bye|see you|see ya|see you later|nice to meet you"),
                  LowValueRules.phrases(
                      LowValueFilter.SMALL_TALK,
                      true,
                      "thanks|thank you|thank you so much|thanks a lot|many thanks|thx|ty"
                          + "|cheers|how are you|how are you doing|how's it going|how is it going"
                          + "|what's up|whats up"),
                  LowValueRules.phrases(
                      LowValueFilter.SMALL_TALK,
                      false,
                      "sup|nice|cool|great|awesome|ok|okay|okey|k|kk|sure|alright|all right"
                          + "|fine|yes|yeah|yep|yup|no|nope|nah|sorry|no problem|no worries|np"
                          + "|you're welcome|you are welcome|wow|oh|ah|hmm|um|uh|perfect|good"
                          + "|sounds good|sounds great|makes sense|that's great|that's fine"
                          + "|good job|well done|my pleasure|good to know|have a nice day"),
                  LowValueRules.phrases(
                      LowValueFilter.RUN_INSTRUCTION,
                      false,
                      "noted|got it|gotcha|understood|will do|roger|roger that|copy that"
                          + "|acknowledged|done|i see"))
              .flatMap(List::stream)
              .toList(),
          LAUGHTER,
          INSTRUCTION,
          ECHO,
          QUESTION_START,
          REMEMBER_ASK,
          "",
          WEIGHTLESS,
          "");

  private EnglishLowValue() {}
}
