package dev.memsidecar.provider.embedder;

import dev.memsidecar.api.Embedder;
import java.util.List;

/**
 * What the public model embedders share: a BERT-style model run in-process by ONNX Runtime, from
 * the model a Maven artifact ships (nothing is fetched at run time). Texts are tokenized in Java,
 * cut at 512 tokens, pooled on the {@code [CLS]} token and L2-normalised, as the bge model cards
 * prescribe; no query instruction is added (it measured no better on LoCoMo). A text with no token
 * (empty, blank) gives the zero vector.
 *
 * <p>The model loads on the first {@link #embed} or {@link #embedAll}, once per process however
 * many instances exist; the engine makes that first call at start-up. Thread-safe: single texts
 * embedded from many threads at once are batched into shared model runs; {@link #embedAll} runs its
 * list in batches. {@link NativeLibraries} says where ONNX Runtime's native libraries are loaded
 * from; {@value OnnxBertEmbedder#THREADS_PROPERTY} (or {@value OnnxBertEmbedder#THREADS_VARIABLE})
 * sets ONNX Runtime's threads per run (default: the machine's physical cores).
 */
abstract class ModelEmbedder implements Embedder {
  private final OnnxBertEmbedder model;

  /** Cheap (for {@link java.util.ServiceLoader}): the model loads on first use. */
  ModelEmbedder(ModelSpec spec) {
    this.model = OnnxBertEmbedder.shared(spec);
  }

  @Override
  public final String name() {
    return model.name();
  }

  @Override
  public final int dimensions() {
    return model.dimensions();
  }

  @Override
  public final float[] embed(String text) {
    return model.embed(text);
  }

  @Override
  public final List<float[]> embedAll(List<String> texts) {
    return model.embedAll(texts);
  }
}
