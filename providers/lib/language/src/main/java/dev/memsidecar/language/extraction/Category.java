package dev.memsidecar.language.extraction;

/**
 * What an informative sentence tells, from the least to the most telling (a turn takes the most
 * telling of its sentences): a statement, a plan, an event, a preference, an identity.
 */
public enum Category {
  /** Anything else with substance. */
  STATEMENT,
  /** Something intended ("I'm opening a studio next month"). */
  PLAN,
  /** Something done or dated ("I went to a support group yesterday"). */
  EVENT,
  /** A like or dislike ("I prefer tabs", "我不喜欢香菜"). */
  PREFERENCE,
  /** Who the speaker is ("my name is", "I work at", "我叫"). */
  IDENTITY;

  /**
   * What {@code sentence} tells: an identity or a preference by {@code lexicon} (the sentence's
   * language), a plan when it speaks of the future or names a future date, an event when it names a
   * date ({@code dated}) or tells of something done, else a statement.
   */
  public static Category of(String sentence, ExtractionLexicon lexicon, boolean dated) {
    if (lexicon.isIdentity(sentence)) {
      return IDENTITY;
    }
    if (lexicon.isPreference(sentence)) {
      return PREFERENCE;
    }
    if (DatePhrases.isFuture(sentence) || AnyLanguage.namesFutureDate(sentence)) {
      return PLAN;
    }
    if (dated || AnyLanguage.tellsOfSomethingDone(sentence)) {
      return EVENT;
    }
    return STATEMENT;
  }
}
