package dev.memsidecar.provider.lucene;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.Capability;
import dev.memsidecar.api.MemoryProvider;
import dev.memsidecar.api.MemoryStore;
import dev.memsidecar.api.ProviderContext;
import java.lang.reflect.Field;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.lucene.util.VectorUtil;

/**
 * The {@code lucene-hnsw} provider: each profile's records in one Lucene index in {@code
 * <dataDirectory>/index} with its write-ahead log in {@code <dataDirectory>/translog}, searched by
 * BM25 and HNSW vectors together ({@link LuceneHnswStore} says what the stores promise).
 *
 * <p>Settings ({@code spec.settings}), all optional:
 *
 * <ul>
 *   <li>{@code hnsw.m}: graph neighbours per node, 2..512, default {@value #DEFAULT_M};
 *   <li>{@code hnsw.beam_width}: candidate queue while building the graph, 2..3200, default {@value
 *       #DEFAULT_BEAM_WIDTH};
 *   <li>{@code hnsw.vectors}: how new segments hold the vectors the graph is searched with, {@code
 *       float32} (default), {@code int8} or {@code int4} (Lucene's scalar-quantized HNSW, which
 *       keeps the float32 vectors beside the quantized ones); see {@link VectorEncoding}. Changing
 *       it leaves existing segments as they are until merged;
 *   <li>{@code hnsw.ef_search}: how deep each ranked list of a search goes (for kNN also its
 *       candidate queue), 1..10000, default {@value #DEFAULT_EF_SEARCH}; the depth used is {@code
 *       max(2 topK, ef_search)};
 *   <li>{@code commit.max_wait_ms}: how long a group fsync of the write-ahead log (which
 *       acknowledges writes) waits for writes already under way to join it, 0..1000, default
 *       {@value #DEFAULT_COMMIT_MAX_WAIT_MS}; a lone writer never waits;
 *   <li>{@code translog.commit_interval_ms}: how often the index is committed in the background
 *       while the log holds writes no commit covers, 100..3600000, default {@value
 *       #DEFAULT_COMMIT_INTERVAL_MS}; the log generations a commit covers are deleted. Longer
 *       intervals write less but replay more after a crash (replay re-embeds every record it puts);
 *   <li>{@code translog.commit_threshold_mb}: commit at once when the log holds this many MiB no
 *       commit covers, 1..4096, default {@value #DEFAULT_COMMIT_THRESHOLD_MB};
 *   <li>{@code merge.idle_ms}: once no write has come for this long, merge the index into one
 *       segment in the background, 0..3600000 (0: never), default {@value #DEFAULT_MERGE_IDLE_MS}.
 *       A search runs one HNSW graph search per segment, so after a burst of writes has left a
 *       dozen segments, searches get several times faster once merged; writes during the merge go
 *       on, and a new burst leaves new segments for the next idle merge. The largest segment is
 *       rewritten only when the others hold a quarter of its records; else they merge beside it;
 *   <li>{@code fusion}: {@code blend} (default) or {@code rrf}, see {@link Fusion}.
 * </ul>
 *
 * Any other key fails {@link #open} with INVALID_ARGUMENT naming it. Stateless and thread-safe.
 */
public final class LuceneHnswProvider implements MemoryProvider {
  public static final String NAME = "lucene-hnsw";
  public static final String M = "hnsw.m";
  public static final String BEAM_WIDTH = "hnsw.beam_width";
  public static final String EF_SEARCH = "hnsw.ef_search";
  public static final String COMMIT_MAX_WAIT_MS = "commit.max_wait_ms";
  public static final String FUSION = "fusion";
  public static final String COMMIT_INTERVAL_MS = "translog.commit_interval_ms";
  public static final String COMMIT_THRESHOLD_MB = "translog.commit_threshold_mb";
  public static final String MERGE_IDLE_MS = "merge.idle_ms";
  public static final String VECTORS = "hnsw.vectors";
  public static final int DEFAULT_M = 16;
  public static final int DEFAULT_BEAM_WIDTH = 100;
  public static final int DEFAULT_EF_SEARCH = 100;
  public static final int DEFAULT_COMMIT_MAX_WAIT_MS = 2;
  public static final String DEFAULT_FUSION = "blend";
  public static final int DEFAULT_COMMIT_INTERVAL_MS = 5000;
  public static final int DEFAULT_COMMIT_THRESHOLD_MB = 16;
  public static final int DEFAULT_MERGE_IDLE_MS = 3000;
  public static final String DEFAULT_VECTORS = "float32";

  private static final Set<String> KNOWN =
      Set.of(
          M,
          BEAM_WIDTH,
          EF_SEARCH,
          COMMIT_MAX_WAIT_MS,
          FUSION,
          COMMIT_INTERVAL_MS,
          COMMIT_THRESHOLD_MB,
          MERGE_IDLE_MS,
          VECTORS);

  /** For {@link java.util.ServiceLoader}. */
  public LuceneHnswProvider() {}

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Set<Capability> capabilities() {
    return Set.of(Capability.RECORDS);
  }

  /**
   * {@code vectorization}: see {@link #vectorizationInfo()}; {@code simd}: "on" when Lucene scores
   * vectors with the Vector API (the launcher adds {@code --add-modules jdk.incubator.vector} when
   * {@code MEMSIDECAR_VECTOR_API=on}).
   */
  @Override
  public Map<String, String> details() {
    String info = vectorizationInfo();
    return Map.of("vectorization", info, "simd", info.startsWith("Panama") ? "on" : "off");
  }

  @Override
  public MemoryStore open(ProviderContext context) {
    requireNonNull(context, "context is null");
    context.requireOnly(KNOWN);
    LuceneHnswStore.Options options =
        new LuceneHnswStore.Options(
            context.intSetting(M, DEFAULT_M, 2, 512),
            context.intSetting(BEAM_WIDTH, DEFAULT_BEAM_WIDTH, 2, 3200),
            context.intSetting(EF_SEARCH, DEFAULT_EF_SEARCH, 1, HybridSearcher.MAX_DEPTH),
            context.intSetting(COMMIT_MAX_WAIT_MS, DEFAULT_COMMIT_MAX_WAIT_MS, 0, 1000),
            Fusion.ofSetting(context.choiceSetting(FUSION, DEFAULT_FUSION, Fusion.SETTING_VALUES)),
            context.intSetting(COMMIT_INTERVAL_MS, DEFAULT_COMMIT_INTERVAL_MS, 100, 3_600_000),
            (long) context.intSetting(COMMIT_THRESHOLD_MB, DEFAULT_COMMIT_THRESHOLD_MB, 1, 4096)
                << 20,
            context.intSetting(MERGE_IDLE_MS, DEFAULT_MERGE_IDLE_MS, 0, 3_600_000),
            VectorEncoding.ofSetting(
                context.choiceSetting(VECTORS, DEFAULT_VECTORS, VectorEncoding.SETTING_VALUES)));
    return LuceneHnswStore.open(
        context.profileId(),
        context.dataDirectory().resolve("index"),
        context.dataDirectory().resolve("translog"),
        context.embedder(),
        options);
  }

  /**
   * How Lucene computes vector similarities in this JVM, for status reports: the implementation
   * class Lucene picked ({@code PanamaVectorUtilSupport} uses the incubating Vector API, {@code
   * DefaultVectorUtilSupport} plain loops) and whether module {@code jdk.incubator.vector} is
   * loaded (it is only with {@code --add-modules jdk.incubator.vector}, which the launcher adds
   * when {@code MEMSIDECAR_VECTOR_API=on}). Never fails; with the module, reading the choice may
   * initialise Lucene's vector support, which logs one notice through {@code java.util.logging}.
   */
  public static String vectorizationInfo() {
    boolean module = ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent();
    String impl;
    if (!module) {
      // Without the module Lucene can only pick plain loops; asking it would initialise its vector
      // support, which warns, at every start, even when no profile is on lucene-hnsw.
      impl = "DefaultVectorUtilSupport";
    } else {
      impl = chosenImplementation();
    }
    return String.format(
        Locale.ROOT,
        "%s (jdk.incubator.vector %s, Java %d)",
        impl,
        module ? "present" : "absent",
        Runtime.version().feature());
  }

  private static String chosenImplementation() {
    String impl;
    try {
      // VectorizationProvider.getInstance() refuses callers outside Lucene; the choice it made
      // is in VectorUtil's private IMPL field.
      Field f = VectorUtil.class.getDeclaredField("IMPL");
      f.setAccessible(true);
      impl = f.get(null).getClass().getSimpleName();
    } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
      impl = "unknown";
    }
    return impl;
  }
}
