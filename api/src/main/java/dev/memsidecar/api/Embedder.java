package dev.memsidecar.api;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Turns text into a fixed-length vector whose cosine similarity says how alike two texts are. Found
 * with {@link java.util.ServiceLoader} by {@link #name()} (lower case, {@link MemoryProvider#NAME};
 * two embedders with one name fail start-up). Implementations are thread-safe and deterministic:
 * the same text always gives the same vector.
 */
public interface Embedder {
  /** The longest vector an embedder may return. */
  int MAX_DIMENSIONS = 4096;

  /** The name configuration selects it by ({@code memory.embedder}), e.g. "hash". */
  String name();

  /** Length of every vector this embedder returns, 1..{@value #MAX_DIMENSIONS}. */
  int dimensions();

  /**
   * The vector of {@code text}, of length {@link #dimensions()} and unit L2 norm (all zeros when
   * the text has nothing to embed).
   */
  float[] embed(String text);

  /**
   * The vectors of {@code texts}, in order: each the vector {@link #embed} gives for that text
   * (within float rounding). This default calls {@link #embed} once per text; an embedder that runs
   * a model overrides it to embed many texts per model run, which is much faster than one at a
   * time, so callers with several texts at hand (re-embedding, bulk import) should use it.
   *
   * @return an unmodifiable list of {@code texts.size()} vectors
   * @throws NullPointerException if {@code texts} or one of its texts is null
   */
  default List<float[]> embedAll(List<String> texts) {
    requireNonNull(texts, "texts is null");
    List<float[]> vectors = new ArrayList<>(texts.size());
    for (String text : texts) {
      vectors.add(embed(requireNonNull(text, "texts holds a null")));
    }
    return Collections.unmodifiableList(vectors);
  }

  /** Cosine similarity of two unit vectors of equal length: their dot product, -1..1. */
  static float cosine(float[] a, float[] b) {
    if (a.length != b.length) {
      throw new IllegalArgumentException("vector lengths differ: " + a.length + " vs " + b.length);
    }
    float dot = 0;
    for (int i = 0; i < a.length; i++) {
      dot += a[i] * b[i];
    }
    return dot;
  }

  /**
   * {@code v} scaled to unit L2 norm: {@code v} itself when it already is (or is all zeros), else a
   * new array. The one normalisation every embedder, store and query shares.
   *
   * @throws IllegalArgumentException if {@code v} holds a NaN or an infinity
   */
  static float[] unit(float[] v) {
    double norm = 0;
    for (float x : v) {
      if (!Float.isFinite(x)) {
        throw new IllegalArgumentException("vector holds " + x);
      }
      norm += (double) x * x;
    }
    if (norm == 0 || Math.abs(norm - 1.0) < 1e-6) {
      return v;
    }
    float[] unit = new float[v.length];
    double inv = 1.0 / Math.sqrt(norm);
    for (int i = 0; i < v.length; i++) {
      unit[i] = (float) (v[i] * inv);
    }
    return unit;
  }
}
