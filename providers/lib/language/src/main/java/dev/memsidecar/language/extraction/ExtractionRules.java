package dev.memsidecar.language.extraction;

import static java.util.Objects.requireNonNull;

/**
 * What the {@code rules} extractor reads and writes in one language, handed out by {@link
 * dev.memsidecar.language.Language#extraction()}: four interfaces that read and write sentences
 * ({@link ExtractionLexicon}, {@link Voice}, {@link Questions}, {@link StatementReader}) and three
 * records of patterns and words ({@link SharedLexicon}, {@link DatePhraseRules}, {@link
 * TranscriptWords}).
 *
 * <p>The extractor asks {@link dev.memsidecar.language.Languages#of} for the language of a sentence
 * and uses that language's rules; what must hold for text that mixes languages (a technical word, a
 * date phrase, an acknowledgement) it asks of every language at once ({@link AnyLanguage}, {@link
 * DatePhrases}, the transcript parser). The parts are immutable and thread-safe.
 *
 * @param lexicon the sentence patterns and word lists
 * @param shared the language's share of the rules read in every language at once
 * @param dates the relative date phrases and the tense markers
 * @param voice how a statement is written to stand alone
 * @param questions what a sentence ending in a question mark states
 * @param statements how one sentence of a person's turn is read into a statement
 * @param transcript how a transcript labels its speakers and its session date
 */
public record ExtractionRules(
    ExtractionLexicon lexicon,
    SharedLexicon shared,
    DatePhraseRules dates,
    Voice voice,
    Questions questions,
    StatementReader statements,
    TranscriptWords transcript) {
  /** Checks the arguments. */
  public ExtractionRules {
    requireNonNull(lexicon, "lexicon is null");
    requireNonNull(shared, "shared is null");
    requireNonNull(dates, "dates is null");
    requireNonNull(voice, "voice is null");
    requireNonNull(questions, "questions is null");
    requireNonNull(statements, "statements is null");
    requireNonNull(transcript, "transcript is null");
  }
}
