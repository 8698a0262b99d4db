package dev.memsidecar.language.extraction;

import static java.util.Objects.requireNonNull;

/**
 * One informative sentence of a turn, rewritten to stand alone, with what the extractor weighs.
 *
 * @param text the sentence as it will be stored
 * @param category what it tells
 * @param contentWords its content words
 * @param concreteWords its content words that name a specific thing (not "progress", "fun")
 * @param specifics numbers, names and dates it holds
 * @param aboutSpeaker whether it is in the first person (or its subject was left out)
 * @param hedged whether it hedges
 * @param shortTerm whether it only holds now
 * @param dated whether it names a date
 * @param verdict whether it only judges what the turn told before it ("It was so peaceful"): it
 *     adds its words, not its weight
 */
public record Statement(
    String text,
    Category category,
    int contentWords,
    int concreteWords,
    int specifics,
    boolean aboutSpeaker,
    boolean hedged,
    boolean shortTerm,
    boolean dated,
    boolean verdict) {
  /** Checks the arguments. */
  public Statement {
    requireNonNull(text, "text is null");
    requireNonNull(category, "category is null");
  }

  /**
   * A sentence a language's {@link StatementReader} judged informative, as a statement: {@code
   * wording} (the sentence, perhaps with its left-out subject restored) gains the absolute dates of
   * its relative date phrases and is written in the third person by {@code voice}; the category,
   * the hedge and the time it holds are read from {@code sentence}.
   *
   * @param sentence the sentence as said, its chatter dropped
   * @param wording what is written of it
   * @param specifics how specific {@code sentence} is
   * @param lexicon the sentence's language
   * @param aboutSpeaker whether it speaks of its speaker
   * @param verdict whether it only judges what the turn told before it
   */
  public static Statement of(
      String sentence,
      String wording,
      Specifics specifics,
      Utterance utterance,
      ExtractionLexicon lexicon,
      Voice voice,
      boolean aboutSpeaker,
      boolean verdict) {
    String dated = DatePhrases.annotate(wording, utterance.day());
    boolean hasDate = !dated.equals(wording) || AnyLanguage.namesAbsoluteDate(sentence);
    String group = utterance.named() ? null : voice.team();
    String text =
        voice.terminate(
            voice.thirdPerson(dated, utterance.speaker(), utterance.addressee(), group));
    return new Statement(
        text,
        Category.of(sentence, lexicon, hasDate),
        specifics.content(),
        specifics.concrete(),
        specifics.count() + (hasDate && specifics.dates() == 0 ? 1 : 0),
        aboutSpeaker,
        AnyLanguage.isHedged(sentence),
        AnyLanguage.isShortTerm(sentence) && !AnyLanguage.tellsOfSomethingDone(sentence),
        hasDate,
        verdict);
  }
}
