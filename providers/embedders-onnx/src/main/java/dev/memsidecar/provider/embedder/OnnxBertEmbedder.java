package dev.memsidecar.provider.embedder;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.Embedder;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * An {@link Embedder} over one {@link OnnxBertEncoder}, loaded on first use: single texts go
 * through a {@link MicroBatcher} (concurrent callers share model runs), lists through {@link
 * #embedAll} in length-sorted batches on the calling thread. Thread-safe.
 *
 * <p>The public embedders share one instance per model ({@link #shared}), so a model is loaded at
 * most once per process however many times {@link java.util.ServiceLoader} instantiates them.
 */
final class OnnxBertEmbedder implements Embedder {
  /** How long the batching worker waits for more requests when callers are concurrent. */
  static final long LINGER_NANOS = 1_000_000;

  /**
   * ONNX Runtime's threads per run: system property, then environment (0: ONNX Runtime's own
   * choice, a thread per physical core); default {@link #defaultThreads}.
   */
  static final String THREADS_PROPERTY = "memsidecar.embedder.threads";

  static final String THREADS_VARIABLE = "MEMSIDECAR_EMBEDDER_THREADS";

  /**
   * Whether ONNX Runtime keeps runs' working memory in its CPU arena ({@code on}) or takes it from
   * the C library per run ({@code off}, the default): system property, then environment. The arena
   * grew to ~100 MiB more resident memory under a mixed load and never shrinks; see {@link
   * OnnxBertEncoder}.
   */
  static final String ARENA_PROPERTY = "memsidecar.embedder.arena";

  static final String ARENA_VARIABLE = "MEMSIDECAR_EMBEDDER_ARENA";

  private static final System.Logger LOG = System.getLogger(OnnxBertEmbedder.class.getName());
  private static final Map<ModelSpec, OnnxBertEmbedder> SHARED = new ConcurrentHashMap<>();

  private final ModelSpec spec;
  private final int threads;
  private final boolean arena;
  private final long lingerNanos;
  private final Object lock = new Object();
  private volatile Loaded loaded;
  private RuntimeException failure;

  private record Loaded(OnnxBertEncoder encoder, MicroBatcher batcher) {}

  /** The process-wide embedder of {@code spec}, configured from system properties. */
  static OnnxBertEmbedder shared(ModelSpec spec) {
    return SHARED.computeIfAbsent(
        spec, s -> new OnnxBertEmbedder(s, threadsSetting(), arenaSetting(), LINGER_NANOS));
  }

  /**
   * A new, unshared embedder (benchmarks and tests), without ONNX Runtime's arena.
   *
   * @param threads ONNX Runtime threads per run, 0 for its default
   * @param lingerNanos how long the batching worker waits for more requests
   */
  OnnxBertEmbedder(ModelSpec spec, int threads, long lingerNanos) {
    this(spec, threads, false, lingerNanos);
  }

  /**
   * A new, unshared embedder (benchmarks and tests).
   *
   * @param threads ONNX Runtime threads per run, 0 for its default
   * @param arena whether ONNX Runtime keeps runs' working memory in its CPU arena
   * @param lingerNanos how long the batching worker waits for more requests
   */
  OnnxBertEmbedder(ModelSpec spec, int threads, boolean arena, long lingerNanos) {
    this.spec = requireNonNull(spec, "spec is null");
    if (threads < 0) {
      throw new IllegalArgumentException("threads must be >= 0: " + threads);
    }
    this.threads = threads;
    this.arena = arena;
    this.lingerNanos = lingerNanos;
  }

  /**
   * One thread fewer than the processors, at least one: the model, busy behind writes for seconds
   * after a burst, never takes the core requests are served on (on two cores, EndRun's p50 in the
   * turn replay went from 10.2 to 9.1 ms), nor the agent's beside it.
   */
  static int defaultThreads() {
    return Math.max(1, Runtime.getRuntime().availableProcessors() - 1);
  }

  private static int threadsSetting() {
    String value = System.getProperty(THREADS_PROPERTY);
    String source = THREADS_PROPERTY;
    if (value == null || value.isBlank()) {
      value = System.getenv(THREADS_VARIABLE);
      source = THREADS_VARIABLE;
    }
    if (value == null || value.isBlank()) {
      return defaultThreads();
    }
    try {
      int n = Integer.parseInt(value.strip());
      if (n >= 0 && n <= 256) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException(source + " must be a number of threads 0..256: " + value);
  }

  /** {@link #ARENA_PROPERTY}, then {@link #ARENA_VARIABLE}: {@code on} or {@code off} (default). */
  static boolean arenaSetting() {
    return arenaSetting(System.getProperty(ARENA_PROPERTY), System.getenv(ARENA_VARIABLE));
  }

  static boolean arenaSetting(String property, String variable) {
    String value = property;
    String source = ARENA_PROPERTY;
    if (value == null || value.isBlank()) {
      value = variable;
      source = ARENA_VARIABLE;
    }
    if (value == null || value.isBlank()) {
      return false;
    }
    return switch (value.strip().toLowerCase(Locale.ROOT)) {
      case "on", "true" -> true;
      case "off", "false" -> false;
      default -> throw new IllegalArgumentException(source + " must be on or off: " + value);
    };
  }

  @Override
  public String name() {
    return spec.name();
  }

  @Override
  public int dimensions() {
    return spec.dimensions();
  }

  @Override
  public float[] embed(String text) {
    requireNonNull(text, "text is null");
    Loaded l = loaded();
    int[] ids = l.encoder.tokenize(text);
    if (ids.length <= 2) {
      return new float[spec.dimensions()];
    }
    return l.batcher.embed(ids);
  }

  @Override
  public List<float[]> embedAll(List<String> texts) {
    requireNonNull(texts, "texts is null");
    if (texts.isEmpty()) {
      return List.of();
    }
    Loaded l = loaded();
    int n = texts.size();
    float[][] out = new float[n][];
    int[][] ids = new int[n][];
    List<Integer> order = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      ids[i] = l.encoder.tokenize(requireNonNull(texts.get(i), "texts holds a null"));
      if (ids[i].length <= 2) {
        out[i] = new float[spec.dimensions()];
      } else {
        order.add(i);
      }
    }
    order.sort(Comparator.comparingInt(i -> ids[i].length));
    int[] lengths = new int[order.size()];
    for (int k = 0; k < lengths.length; k++) {
      lengths[k] = ids[order.get(k)].length;
    }
    int start = 0;
    for (int end : BatchPlan.cut(lengths, spec.maxBatch())) {
      List<int[]> rows = new ArrayList<>(end - start);
      for (int k = start; k < end; k++) {
        rows.add(ids[order.get(k)]);
      }
      float[][] vectors = l.encoder.run(rows);
      for (int k = start; k < end; k++) {
        out[order.get(k)] = vectors[k - start];
      }
      start = end;
    }
    return List.of(out);
  }

  /** Changes how long the batching worker lingers for more requests (bench). */
  void linger(long nanos) {
    loaded().batcher.linger(nanos);
  }

  /** The loaded encoder (bench). */
  OnnxBertEncoder encoder() {
    return loaded().encoder;
  }

  /** The loaded model, loading it on first use; a load that failed fails every later call too. */
  private Loaded loaded() {
    Loaded l = loaded;
    if (l != null) {
      return l;
    }
    synchronized (lock) {
      if (loaded != null) {
        return loaded;
      }
      if (failure != null) {
        throw failure;
      }
      long start = System.nanoTime();
      try {
        OnnxBertEncoder encoder = OnnxBertEncoder.load(spec, threads, arena);
        MicroBatcher batcher =
            new MicroBatcher(
                "memsidecar-embedder-" + spec.name(), spec.maxBatch(), lingerNanos, encoder::run);
        loaded = new Loaded(encoder, batcher);
      } catch (IOException | RuntimeException | LinkageError e) {
        failure = new IllegalStateException(spec.name() + ": cannot load the model: " + e, e);
        throw failure;
      }
      LOG.log(
          System.Logger.Level.INFO,
          "{0}: model loaded in {1} ms ({2})",
          spec.name(),
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start),
          loaded.encoder.loadTimes());
      return loaded;
    }
  }
}
