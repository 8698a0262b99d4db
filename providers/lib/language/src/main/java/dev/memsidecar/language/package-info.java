/**
 * Every text rule and word list of memsidecar, English and Chinese, behind one interface per
 * concern: {@link dev.memsidecar.language.Language} is one language's class set, {@link
 * dev.memsidecar.language.Languages} picks the language that reads a text, and the language-neutral
 * code (tokens, sentences, the rules that use the word lists) lives here. JDK only; the engine and
 * the providers both depend on it.
 */
package dev.memsidecar.language;
