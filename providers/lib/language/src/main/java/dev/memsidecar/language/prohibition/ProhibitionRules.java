package dev.memsidecar.language.prohibition;

import java.util.List;

/**
 * How a prohibition is said in one language: its half of {@link Prohibitions}. The finder cuts a
 * message into sentences, drops questions, and hands every sentence to each language that {@link
 * #reads} it; the language finds the prohibitions in it ({@link #find}) with the finder's
 * language-neutral help (objects, nouns, the rule's wording). The word questions below are asked of
 * every language, since a sentence of one language may hold words of another (a Chinese sentence
 * naming {@code Sarah} or {@code production}). Implementations are immutable and thread-safe.
 */
public interface ProhibitionRules {
  /**
   * Whether this language looks for prohibitions in {@code sentence} at all (English: in every
   * sentence; Chinese: in one with a Han character).
   */
  boolean reads(String sentence);

  /**
   * The prohibitions of one sentence that is not a question, in order; empty when there is none.
   *
   * @param finder the finder, for what is the same in every language: {@link Prohibitions#objects},
   *     {@link Prohibitions#asRule}, {@link Prohibitions#toolWord}, ...
   */
  List<Prohibition> find(String sentence, Prohibitions finder);

  /** The full stop that ends a rule written in this language: "." or "。". */
  String fullStop();

  /**
   * Endings, lower-case, that make a statement look like a question without making it one ("Never
   * email Sarah, ok?", "，好吗？"): a sentence ending so is not skipped as a question.
   */
  List<String> tagQuestions();

  /** Final particles that make a sentence a question (吗, 呢), as one string; may be empty. */
  String questionParticles();

  /**
   * Whether {@code word} (lower-case letters right before a backticked command) runs it: "run",
   * "execute", 执行. A command found so makes the prohibition one about the shell.
   */
  boolean isRunVerb(String word);

  /**
   * Whether a capitalised {@code word} (lower-cased) is no name: function words, days, months,
   * products, tool words ("Monday", "Slack", "Email").
   */
  boolean excludesName(String word);

  /** Whether {@code word} (lower-case) before a capitalised one makes it a name: "to", "with". */
  boolean precedesName(String word);

  /**
   * Whether {@code word} (lower-case) after "to"/"on"/到 is no branch or environment: "the", "it",
   * "today".
   */
  boolean excludesTarget(String word);

  /** Whether {@code word} (lower-case) makes a prohibition conditional: "if", "unless", "today". */
  boolean isCondition(String word);
}
