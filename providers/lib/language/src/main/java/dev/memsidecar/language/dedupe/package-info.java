/**
 * The text side of dedupe: how a candidate memory relates to a stored one ({@link
 * dev.memsidecar.language.dedupe.MemoryComparison}), the canonical tokens that name one thing
 * ({@link dev.memsidecar.language.dedupe.CanonicalTokens}), and what a language says of changes,
 * negations and values ({@link dev.memsidecar.language.dedupe.DedupeRules}).
 */
package dev.memsidecar.language.dedupe;
