package dev.memsidecar.language.en;

import dev.memsidecar.language.Language;
import dev.memsidecar.language.dedupe.DedupeRules;
import dev.memsidecar.language.extraction.ExtractionRules;
import dev.memsidecar.language.extraction.WordSets;
import dev.memsidecar.language.lowvalue.LowValueRules;
import dev.memsidecar.language.prohibition.ProhibitionRules;
import dev.memsidecar.language.tool.ToolWords;
import java.util.Set;

/** English: the default language, read from any text no other language claims. */
public final class English implements Language {
  /** Words too common to carry meaning when matching keywords. */
  static final Set<String> STOPWORDS =
      Set.of(
          "a", "an", "and", "are", "as", "at", "be", "but", "by", "do", "does", "for", "from",
          "has", "have", "how", "i", "if", "in", "into", "is", "it", "its", "me", "my", "of", "on",
          "or", "our", "so", "that", "the", "their", "them", "then", "there", "these", "they",
          "this", "to", "was", "we", "were", "what", "when", "where", "which", "who", "why", "will",
          "with", "you", "your");

  @Override
  public String tag() {
    return "en";
  }

  /**
   * Never: English reads what no other language claims ({@link
   * dev.memsidecar.language.Languages#of}).
   */
  @Override
  public boolean claims(String text) {
    return false;
  }

  @Override
  public String stem(String word) {
    return EnglishStemmer.stem(word);
  }

  @Override
  public Set<String> stopwords() {
    return STOPWORDS;
  }

  private static final ProhibitionRules PROHIBITIONS = new EnglishProhibitions();
  private static final ToolWords TOOL_WORDS = new EnglishToolWords();
  private static final DedupeRules DEDUPE = new EnglishDedupe();
  private static final LowValueRules LOW_VALUE = EnglishLowValue.RULES;

  @Override
  public ProhibitionRules prohibitions() {
    return PROHIBITIONS;
  }

  @Override
  public ToolWords toolWords() {
    return TOOL_WORDS;
  }

  @Override
  public DedupeRules dedupe() {
    return DEDUPE;
  }

  @Override
  public LowValueRules lowValue() {
    return LOW_VALUE;
  }

  // --- sentences and the rules extractor ------------------------------------------------------

  /** Abbreviations that end in a dot without ending a sentence ("e.g.", "Dr."), without it. */
  private static final Set<String> ABBREVIATIONS =
      WordSets.of("e.g i.e etc vs mr mrs ms dr prof st jr sr no approx dept inc ltd co fig p.s");

  private static final ExtractionRules EXTRACTION =
      new ExtractionRules(
          new EnglishExtractionLexicon(),
          EnglishExtractionLexicon.SHARED,
          EnglishDatePhrases.RULES,
          new EnglishVoice(),
          new EnglishQuestions(),
          new EnglishStatements(),
          EnglishTranscriptWords.WORDS);

  @Override
  public Set<String> abbreviations() {
    return ABBREVIATIONS;
  }

  @Override
  public ExtractionRules extraction() {
    return EXTRACTION;
  }
}
