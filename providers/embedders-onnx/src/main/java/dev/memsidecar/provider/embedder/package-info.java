/**
 * Semantic embedders run in-process by ONNX Runtime: {@code bge-small-en} ({@link
 * dev.memsidecar.provider.embedder.BgeSmallEnEmbedder}) and {@code bge-small-zh} ({@link
 * dev.memsidecar.provider.embedder.BgeSmallZhEmbedder}), found with {@link java.util.ServiceLoader}
 * as {@link dev.memsidecar.api.Embedder}s and selected by {@code memory.embedder}. The models come
 * from Maven Central artifacts on the class path; the tokenizer is Java; the only native code is
 * ONNX Runtime's.
 */
package dev.memsidecar.provider.embedder;
