package dev.memsidecar.core;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.Embedder;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The embedder the engine hands out (to its stores, recall and the write path): the configured one,
 * with the vectors of the last {@value #CAPACITY} texts it embedded kept, so a text embedded twice
 * in a row costs one embedding. The write path relies on it: a Remember searches its neighbours
 * with the vector of the text its store embeds again when it puts the record ({@link
 * dev.memsidecar.api.MemoryRecord#indexedText()}), moments later under the same lock.
 *
 * <p>Embedders are deterministic (the same text always gives the same vector), so a kept vector is
 * the one the embedder would return. {@link #embedAll} uses kept vectors and embeds the rest in one
 * call, but keeps nothing new (bulk work such as re-embedding would only push out the recent
 * texts). Texts longer than {@value #MAX_TEXT_CHARS} characters are not kept, which bounds the
 * memory held to about {@value #CAPACITY} x ({@value #MAX_TEXT_CHARS} characters + one vector).
 * Callers get their own copy of a vector.
 *
 * <p>Thread-safe: lookups and insertions take one short lock; embedding runs outside it, so two
 * threads embedding one new text at once may both compute it.
 */
final class RecentEmbeddings implements Embedder {
  /** How many texts' vectors are kept, least recently used dropped first. */
  static final int CAPACITY = 32;

  /** The longest text whose vector is kept. */
  static final int MAX_TEXT_CHARS = 8 * 1024;

  private final Embedder embedder;

  private final Map<String, float[]> recent =
      new LinkedHashMap<>(CAPACITY * 2, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, float[]> eldest) {
          return size() > CAPACITY;
        }
      };

  RecentEmbeddings(Embedder embedder) {
    this.embedder = requireNonNull(embedder, "embedder is null");
  }

  @Override
  public String name() {
    return embedder.name();
  }

  @Override
  public int dimensions() {
    return embedder.dimensions();
  }

  @Override
  public float[] embed(String text) {
    requireNonNull(text, "text is null");
    float[] kept = kept(text);
    if (kept != null) {
      return kept;
    }
    float[] vector = embedder.embed(text);
    if (text.length() <= MAX_TEXT_CHARS) {
      synchronized (recent) {
        recent.put(text, vector.clone());
      }
    }
    return vector;
  }

  @Override
  public List<float[]> embedAll(List<String> texts) {
    requireNonNull(texts, "texts is null");
    List<float[]> vectors = new ArrayList<>(texts.size());
    List<String> missing = new ArrayList<>();
    for (String text : texts) {
      float[] kept = kept(requireNonNull(text, "texts holds a null"));
      vectors.add(kept);
      if (kept == null) {
        missing.add(text);
      }
    }
    if (!missing.isEmpty()) {
      List<float[]> embedded = embedder.embedAll(missing);
      int next = 0;
      for (int i = 0; i < vectors.size(); i++) {
        if (vectors.get(i) == null) {
          vectors.set(i, embedded.get(next++));
        }
      }
    }
    return Collections.unmodifiableList(vectors);
  }

  /** A copy of the kept vector of {@code text}, or null. */
  private float[] kept(String text) {
    if (text.length() > MAX_TEXT_CHARS) {
      return null;
    }
    synchronized (recent) {
      float[] v = recent.get(text);
      return v == null ? null : v.clone();
    }
  }
}
