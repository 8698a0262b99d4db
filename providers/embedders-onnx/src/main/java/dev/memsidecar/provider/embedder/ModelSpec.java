package dev.memsidecar.provider.embedder;

import static java.util.Objects.requireNonNull;

/**
 * Where a BERT-style ONNX model and its tokenizer are on the class path, and what it returns.
 *
 * @param name the embedder's name ({@code memory.embedder})
 * @param dimensions the length of the model's hidden state, which is the vector's
 * @param model the class-path resource of the ONNX model, e.g. {@code /bge-small-en-v1.5.onnx}
 * @param tokenizer the class-path resource of its HuggingFace {@code tokenizer.json}
 * @param maxTokens the longest input the model takes, special tokens included; longer texts are cut
 * @param maxBatch the most texts one model run takes: 1 when a text's vector would depend on the
 *     others in its run
 */
record ModelSpec(
    String name, int dimensions, String model, String tokenizer, int maxTokens, int maxBatch) {
  /** The most texts one run of a float model takes. */
  static final int MAX_BATCH = 32;

  /** BAAI bge-small-en-v1.5: English, 384 dimensions, CLS pooling. */
  static final ModelSpec BGE_SMALL_EN =
      new ModelSpec(
          "bge-small-en",
          384,
          "/bge-small-en-v1.5.onnx",
          "/bge-small-en-v1.5-tokenizer.json",
          512,
          MAX_BATCH);

  /**
   * bge-small-en-v1.5 quantized to int8 (the langchain4j {@code -q} artifact): the same vectors to
   * within rounding, a quarter of the file, about 2.5 times the speed on a CPU. One text a run: the
   * model quantizes its activations with a scale computed over the whole run, so a text batched
   * with others would get a slightly different vector than alone.
   */
  static final ModelSpec BGE_SMALL_EN_Q =
      new ModelSpec(
          "bge-small-en-q",
          384,
          "/bge-small-en-v1.5-q.onnx",
          "/bge-small-en-v1.5-q-tokenizer.json",
          512,
          1);

  /** BAAI bge-small-zh-v1.5: Chinese (and some English), 512 dimensions, CLS pooling. */
  static final ModelSpec BGE_SMALL_ZH =
      new ModelSpec(
          "bge-small-zh",
          512,
          "/bge-small-zh-v1.5.onnx",
          "/bge-small-zh-v1.5-tokenizer.json",
          512,
          MAX_BATCH);

  ModelSpec {
    requireNonNull(name, "name is null");
    requireNonNull(model, "model is null");
    requireNonNull(tokenizer, "tokenizer is null");
    if (dimensions < 1 || dimensions > 4096) {
      throw new IllegalArgumentException("dimensions must be 1..4096: " + dimensions);
    }
    if (maxTokens < 2) {
      throw new IllegalArgumentException("maxTokens must be >= 2: " + maxTokens);
    }
    if (maxBatch < 1) {
      throw new IllegalArgumentException("maxBatch must be >= 1: " + maxBatch);
    }
  }
}
