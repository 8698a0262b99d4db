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
 */
record ModelSpec(String name, int dimensions, String model, String tokenizer, int maxTokens) {
  /** BAAI bge-small-en-v1.5: English, 384 dimensions, CLS pooling. */
  static final ModelSpec BGE_SMALL_EN =
      new ModelSpec(
          "bge-small-en", 384, "/bge-small-en-v1.5.onnx", "/bge-small-en-v1.5-tokenizer.json", 512);

  /** BAAI bge-small-zh-v1.5: Chinese (and some English), 512 dimensions, CLS pooling. */
  static final ModelSpec BGE_SMALL_ZH =
      new ModelSpec(
          "bge-small-zh", 512, "/bge-small-zh-v1.5.onnx", "/bge-small-zh-v1.5-tokenizer.json", 512);

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
  }
}
