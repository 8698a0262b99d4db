package dev.memsidecar.toolkit;

import dev.memsidecar.api.Embedder;
import dev.memsidecar.language.Terms;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * A deterministic, offline embedder: signed feature hashing of a text's keywords (weight 1) and of
 * their character trigrams (weight 0.5, so "prefers" is near "preference"), L2-normalised. It knows
 * no synonyms: it finds shared words and word pieces, not meaning. It is the default until a
 * semantic model is configured, and what tests use. Thread-safe.
 */
public final class HashEmbedder implements Embedder {
  public static final String NAME = "hash";
  public static final int DEFAULT_DIMENSIONS = 256;

  private final int dimensions;

  /** For {@link java.util.ServiceLoader}: {@value #DEFAULT_DIMENSIONS} dimensions. */
  public HashEmbedder() {
    this(DEFAULT_DIMENSIONS);
  }

  public HashEmbedder(int dimensions) {
    if (dimensions < 8 || dimensions > 4096) {
      throw new IllegalArgumentException("dimensions must be 8..4096: " + dimensions);
    }
    this.dimensions = dimensions;
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public int dimensions() {
    return dimensions;
  }

  @Override
  public float[] embed(String text) {
    float[] v = new float[dimensions];
    List<String> terms = Terms.keywords(text);
    for (String term : terms) {
      add(v, term, 1.0f);
      if (term.length() > 3) {
        String padded = "<" + term + ">";
        for (int i = 0; i + 3 <= padded.length(); i++) {
          add(v, padded.substring(i, i + 3), 0.5f);
        }
      }
    }
    return Embedder.unit(v);
  }

  private void add(float[] v, String feature, float weight) {
    long h = fnv1a64(feature);
    int index = (int) Long.remainderUnsigned(h, dimensions);
    v[index] += (h >>> 63) == 0 ? weight : -weight;
  }

  /**
   * FNV-1a over UTF-8: stable across JVMs and releases, unlike {@link String#hashCode()} mixing.
   */
  private static long fnv1a64(String s) {
    long h = 0xcbf29ce484222325L;
    for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
      h ^= b & 0xff;
      h *= 0x100000001b3L;
    }
    return h;
  }
}
