package dev.memsidecar.language.extraction;

/**
 * What a sentence ending in a question mark states, in one language. A question is dropped only
 * when it asks; a statement phrased as a question keeps its statement: a tag question ("Sunflowers
 * mean warmth and happiness, right?" states "Sunflowers mean warmth and happiness."), a statement
 * followed by a question in the same sentence ("I finished another pottery project - want to see a
 * pic?" states its first clause), a declarative sentence read with a rising tone. Implementations
 * are stateless and thread-safe.
 */
public interface Questions {
  /**
   * What {@code sentence} states: the sentence itself when it is no question, the statement without
   * its tag or its trailing question (ending in the language's full stop), or null when it only
   * asks.
   */
  String stated(String sentence);
}
