package dev.memsidecar.api;

/**
 * Turns text into a fixed-length vector whose cosine similarity says how alike two texts are.
 * Found with {@link java.util.ServiceLoader} by {@link #name()}. Implementations are thread-safe
 * and deterministic: the same text always gives the same vector.
 */
public interface Embedder {

  /** The name configuration selects it by, e.g. "hash". */
  String name();

  /** Length of every vector this embedder returns. */
  int dimensions();

  /**
   * The vector of {@code text}, of length {@link #dimensions()} and unit L2 norm (all zeros when the
   * text has nothing to embed).
   */
  float[] embed(String text);

  /** Cosine similarity of two unit vectors of equal length: their dot product, -1..1. */
  static float cosine(float[] a, float[] b) {
    if (a.length != b.length) {
      throw new IllegalArgumentException(
          "vector lengths differ: " + a.length + " vs " + b.length);
    }
    float dot = 0;
    for (int i = 0; i < a.length; i++) {
      dot += a[i] * b[i];
    }
    return dot;
  }
}
