package dev.memsidecar.language.zh;

import dev.memsidecar.language.Language;
import dev.memsidecar.language.Scripts;
import dev.memsidecar.language.dedupe.DedupeRules;
import dev.memsidecar.language.extraction.ExtractionRules;
import dev.memsidecar.language.lowvalue.LowValueRules;
import dev.memsidecar.language.prohibition.ProhibitionRules;
import dev.memsidecar.language.tool.ToolWords;
import java.util.Set;

/**
 * Chinese: claims a text written mostly in CJK characters ({@link Scripts#isMostlyCjk}). Words are
 * not stemmed: text is matched by characters and their bigrams ({@link
 * dev.memsidecar.language.Terms}).
 */
public final class Chinese implements Language {
  @Override
  public String tag() {
    return "zh";
  }

  @Override
  public boolean claims(String text) {
    return Scripts.isMostlyCjk(text);
  }

  @Override
  public String stem(String word) {
    return word;
  }

  @Override
  public Set<String> stopwords() {
    return Set.of();
  }

  private static final ProhibitionRules PROHIBITIONS = new ChineseProhibitions();
  private static final ToolWords TOOL_WORDS = new ChineseToolWords();
  private static final DedupeRules DEDUPE = new ChineseDedupe();
  private static final LowValueRules LOW_VALUE = ChineseLowValue.RULES;

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

  private static final ExtractionRules EXTRACTION =
      new ExtractionRules(
          new ChineseExtractionLexicon(),
          ChineseExtractionLexicon.SHARED,
          ChineseDatePhrases.RULES,
          new ChineseVoice(),
          new ChineseQuestions(),
          new ChineseStatements(),
          ChineseTranscriptWords.WORDS);

  /** None: Chinese ends no abbreviation with a dot. */
  @Override
  public Set<String> abbreviations() {
    return Set.of();
  }

  @Override
  public ExtractionRules extraction() {
    return EXTRACTION;
  }
}
