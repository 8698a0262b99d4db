package dev.memsidecar.language;

import dev.memsidecar.language.dedupe.DedupeRules;
import dev.memsidecar.language.extraction.ExtractionRules;
import dev.memsidecar.language.lowvalue.LowValueRules;
import dev.memsidecar.language.prohibition.ProhibitionRules;
import dev.memsidecar.language.tool.ToolWords;
import java.util.Set;

/**
 * One natural language's text rules: what the engine (tool rules, the low-value filter, dedupe) and
 * the {@code rules} extractor need to read text written in it. English ({@code
 * dev.memsidecar.language.en}) and Chinese ({@code dev.memsidecar.language.zh}) are built in.
 *
 * <p>A language is one class set: a package {@code dev.memsidecar.language.<tag>} with a class
 * implementing this interface and the rule classes it hands out, plus one line in {@link
 * Languages}. The code that uses the rules (finding prohibitions, relating two memories, extracting
 * candidates) is written once, against these interfaces, and never names a language. Adding one is
 * described in docs/languages.md.
 *
 * <p>Implementations are immutable and thread-safe; the rules they hand out are functions of their
 * arguments.
 */
public interface Language {
  /** The language's BCP 47 tag, lower case: {@code en}, {@code zh}. */
  String tag();

  /**
   * Whether {@code text} is written in this language, by its script or words. {@link Languages#of}
   * asks every language but the default in turn; the first that claims a text reads it.
   */
  boolean claims(String text);

  /**
   * The stem of one lower-cased word of this language, so that forms of one word meet ("painted",
   * "paints": "paint"). A word this language does not stem (another script, digits) comes back
   * unchanged.
   */
  String stem(String word);

  /** Lower-cased words too common in this language to carry meaning ("the", "is"). */
  Set<String> stopwords();

  /** How a prohibition is said in this language ("never email Sarah", 不要给张三发邮件). */
  ProhibitionRules prohibitions();

  /** This language's words for the tool nouns ("emails", 邮件: email). */
  ToolWords toolWords();

  /** What comparing two memories reads in this language: stems, markers, negations, values. */
  DedupeRules dedupe();

  /** What is not worth a memory in this language: small talk, greetings, run instructions. */
  LowValueRules lowValue();

  // --- sentences and the rules extractor ------------------------------------------------------

  /**
   * Lower-cased abbreviations of this language that end in a dot without ending a sentence, written
   * without that dot ({@code e.g}, {@code dr}); {@link Sentences} splits after none of them. Empty
   * when the language has none.
   */
  Set<String> abbreviations();

  /**
   * What the {@code rules} extractor reads and writes in this language: its sentence patterns and
   * word lists, date phrases, voice, questions, statement reading and transcript labels (see {@link
   * ExtractionRules}).
   */
  ExtractionRules extraction();
}
