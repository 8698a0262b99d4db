/**
 * Every text rule and word list of memsidecar, English and Chinese, behind one interface per
 * concern: {@link dev.memsidecar.language.Language} is one language's class set, {@link
 * dev.memsidecar.language.Languages} picks the language that reads a text, and the language-neutral
 * code (tokens, sentences, the rules that use the word lists) lives here and in the sub-packages by
 * concern ({@code prohibition}, {@code tool}, {@code dedupe}, {@code lowvalue}). The engine uses
 * the rules through {@link dev.memsidecar.language.TextRules}. JDK only; the engine and the
 * providers both depend on it.
 */
package dev.memsidecar.language;
