package dev.memsidecar.core;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.Embedder;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;

/**
 * The embedder the engine hands out (to its stores, recall and the write path): the configured one,
 * with the vectors of the last {@value #CAPACITY} texts it embedded kept, so a text embedded twice
 * in a row costs one embedding: BeginRun's input is embedded once for its recalled facts and its
 * session evidence (see {@link #prefetch}), and a query an agent repeats gets its vector at once.
 * (The write path embeds nothing: a Remember finds its neighbours by their words.)
 *
 * <p>Embedders are deterministic (the same text always gives the same vector), so a kept vector is
 * the one the embedder would return. {@link #embedAll} uses kept vectors and embeds the rest in one
 * call, but keeps nothing new (bulk work such as re-embedding would only push out the recent
 * texts). Texts longer than {@value #MAX_TEXT_CHARS} characters are not kept, which bounds the
 * memory held to about {@value #CAPACITY} x ({@value #MAX_TEXT_CHARS} characters + one vector).
 * Callers get their own copy of a vector.
 *
 * <p>A text being embedded is computed once however many threads ask for it meanwhile: the later
 * ones wait for the first one's vector. {@link #prefetch} starts a text's embedding on a thread of
 * its own, so a caller can do other work (BeginRun reads what needs no vector) while the model
 * runs, and then takes the vector with {@link #embed}.
 *
 * <p>Bulk work ({@link #embedAll}: the vectors stores and sessions make behind their writes) runs
 * one call at a time: a model run already takes every core, so two at once would only split them,
 * and crowd out the calls a client waits for ({@link #embed}) twice as much. It runs {@value
 * #BULK_CHUNK} texts at a time, each after a pause between the server's calls ({@link
 * CallActivity#awaitPause}), so that it does not run beside them or beside {@link #embed}; while a
 * record's vector is overdue ({@link CallActivity#vectorsOverdue}) it runs at once.
 *
 * <p>Thread-safe: lookups and insertions take one short lock; embedding runs outside it.
 */
final class RecentEmbeddings implements Embedder {
  /** How many texts' vectors are kept, least recently used dropped first. */
  static final int CAPACITY = 32;

  /** The longest text whose vector is kept. */
  static final int MAX_TEXT_CHARS = 8 * 1024;

  /** Texts {@link #embedAll} embeds between two waits for a pause between calls. */
  static final int BULK_CHUNK = 2;

  private final Embedder embedder;
  private final CallActivity calls;

  // One embedAll at a time (see the class description).
  private final Object bulk = new Object();

  // Guarded by recent: the texts being embedded, and their vectors once done.
  private final Map<String, CompletableFuture<float[]>> inFlight = new HashMap<>();

  private static final Executor PREFETCH =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "query-embed");
            t.setDaemon(true);
            return t;
          });

  private final Map<String, float[]> recent =
      new LinkedHashMap<>(CAPACITY * 2, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, float[]> eldest) {
          return size() > CAPACITY;
        }
      };

  RecentEmbeddings(Embedder embedder, CallActivity calls) {
    this.embedder = requireNonNull(embedder, "embedder is null");
    this.calls = requireNonNull(calls, "calls is null");
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
    if (text.length() > MAX_TEXT_CHARS) {
      return calls.foreground(() -> embedder.embed(text));
    }
    CompletableFuture<float[]> pending;
    synchronized (recent) {
      float[] v = recent.get(text);
      if (v != null) {
        return v.clone();
      }
      pending = inFlight.get(text);
      if (pending == null) {
        inFlight.put(text, new CompletableFuture<>());
      }
    }
    if (pending != null) {
      return await(pending).clone();
    }
    CompletableFuture<float[]> mine;
    float[] vector;
    try {
      vector = calls.foreground(() -> embedder.embed(text));
    } catch (RuntimeException | Error e) {
      synchronized (recent) {
        mine = inFlight.remove(text);
      }
      mine.completeExceptionally(e);
      throw e;
    }
    synchronized (recent) {
      recent.put(text, vector.clone());
      mine = inFlight.remove(text);
    }
    mine.complete(vector.clone());
    return vector;
  }

  /**
   * Starts embedding {@code text} on another thread unless its vector is kept or being made; a
   * later {@link #embed} of it takes that vector. A failure is left to that {@link #embed}.
   */
  void prefetch(String text) {
    requireNonNull(text, "text is null");
    if (text.length() > MAX_TEXT_CHARS) {
      return;
    }
    synchronized (recent) {
      if (recent.containsKey(text) || inFlight.containsKey(text)) {
        return;
      }
    }
    PREFETCH.execute(
        () -> {
          try {
            embed(text);
          } catch (RuntimeException | Error ignored) {
            // The caller's own embed of the text fails the same way, where it can be reported.
          }
        });
  }

  private static float[] await(CompletableFuture<float[]> pending) {
    try {
      return pending.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      if (e.getCause() instanceof Error error) {
        throw error;
      }
      throw e;
    }
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
      List<float[]> embedded = new ArrayList<>(missing.size());
      synchronized (bulk) {
        for (int from = 0; from < missing.size(); from += BULK_CHUNK) {
          if (!calls.vectorsOverdue()) {
            calls.awaitPause();
          }
          embedded.addAll(
              embedder.embedAll(
                  missing.subList(from, Math.min(missing.size(), from + BULK_CHUNK))));
        }
      }
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
