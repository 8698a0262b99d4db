package dev.memsidecar.language.extraction;

/**
 * How one sentence of a person's turn is read into a {@link Statement}, in one language: what it
 * states (its question tag, its opening interjections and forms of address dropped), whether it is
 * small talk (greetings, thanks, reactions, advice that names nothing), and the statement rewritten
 * to stand alone (its relative dates resolved, in the third person). Implementations are stateless
 * and thread-safe.
 */
public interface StatementReader {
  /**
   * {@code sentence} (one normalized sentence of the language) as a statement, or null when it is
   * small talk or states too little.
   *
   * @param utterance who says it, to whom, and on which day
   * @param continues whether a statement of the same turn was kept before it: then a verdict ("It
   *     was a really peaceful experience") is about what the speaker just told
   */
  Statement read(String sentence, Utterance utterance, boolean continues);
}
