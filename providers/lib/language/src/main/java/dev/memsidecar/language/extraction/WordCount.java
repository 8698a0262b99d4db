package dev.memsidecar.language.extraction;

/**
 * The content words of a sentence and how many of them are concrete.
 *
 * @param content words that are neither stopwords nor fillers
 * @param concrete content words that name a specific thing, not a feeling, a verdict or an
 *     abstraction
 */
public record WordCount(int content, int concrete) {}
