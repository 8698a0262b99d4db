/**
 * The built-in extractors: {@code rules} ({@link
 * dev.memsidecar.provider.extractor.RulesExtractorProvider}, offline, the default) and {@code
 * openai} ({@link dev.memsidecar.provider.extractor.OpenAiExtractorProvider}, any OpenAI-compatible
 * chat completions endpoint). Both are found with {@link java.util.ServiceLoader} as {@link
 * dev.memsidecar.api.ExtractorProvider}s.
 */
package dev.memsidecar.provider.extractor;
