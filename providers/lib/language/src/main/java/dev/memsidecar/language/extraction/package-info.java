/**
 * What the {@code rules} extractor reads in text, language by language: {@link
 * dev.memsidecar.language.extraction.ExtractionRules} is one language's set (handed out by {@link
 * dev.memsidecar.language.Language#extraction()}), made of four interfaces that read and write
 * sentences ({@link dev.memsidecar.language.extraction.ExtractionLexicon}, {@link
 * dev.memsidecar.language.extraction.Voice}, {@link dev.memsidecar.language.extraction.Questions},
 * {@link dev.memsidecar.language.extraction.StatementReader}) and three records of patterns and
 * words ({@link dev.memsidecar.language.extraction.SharedLexicon}, {@link
 * dev.memsidecar.language.extraction.DatePhraseRules}, {@link
 * dev.memsidecar.language.extraction.TranscriptWords}). The classes here name no language: they
 * read a sentence with the rules of the language that reads it, or in every language at once
 * ({@link dev.memsidecar.language.extraction.AnyLanguage}, {@link
 * dev.memsidecar.language.extraction.DatePhrases}), and hold what is the same in every language
 * (session dates, weeks, command lines, canonical tokens, punctuation).
 */
package dev.memsidecar.language.extraction;
