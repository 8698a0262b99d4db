package dev.memsidecar.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.memsidecar.api.Embedder;
import dev.memsidecar.api.MemoryKind;
import dev.memsidecar.api.MemoryProvider;
import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.MemoryStore;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.api.ProviderContext;
import dev.memsidecar.api.ScoredRecord;
import dev.memsidecar.api.SearchQuery;
import dev.memsidecar.provider.lucene.LuceneHnswProvider;
import dev.memsidecar.sidecar.bench.Figures;
import dev.memsidecar.toolkit.HashEmbedder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * Store-level benchmark of the {@code lucene-hnsw} provider, opened directly (no gRPC):
 *
 * <ol>
 *   <li><b>Recall.</b> Inserts {@code --records} records from {@code --threads} concurrent writers
 *       (each put durable before it returns) with an embedder that maps record text {@code v<N>} to
 *       pre-generated vector {@code N}: unit vectors drawn around {@code --clusters} gaussian
 *       centroids in {@code --dims} dimensions. Then, for {@code --queries} query vectors from the
 *       same distribution (query text {@code q<N>} matches no record, so ranking is by vector
 *       alone), compares the store's top 10 with the exact brute-force cosine top 10, once per
 *       {@code --ef} value: recall@10 and search latency p50/p99.
 *   <li><b>Fusion on LoCoMo.</b> Indexes each conversation's turns of {@code --locomo} ({@code
 *       speaker: text [shares caption]}, one namespace per conversation, the default hash embedder)
 *       and asks every question of categories 1-4, once per fusion mode: hit@k is the share of
 *       questions with an evidence turn among the top k, recall@10 the share of evidence turns
 *       found in the top 10, MRR the mean reciprocal rank of the first evidence turn.
 * </ol>
 *
 * Prints markdown tables on stdout, progress on stderr. Data goes to a temporary directory deleted
 * at the end, or to {@code --dir}, which is kept; with {@code --reuse} an index already there (made
 * with the same options) is searched again without inserting.
 *
 * <pre>
 * java -cp it/bench/target/memsidecar-bench.jar dev.memsidecar.bench.RecallBench
 *     [--records 100000] [--threads 4] [--queries 500] [--dims 256] [--clusters 100]
 *     [--spread 1.0] [--ef 100[,200...]] [--m 16] [--beam-width 100] [--seed 42]
 *     [--locomo ../shared/bench/locomo-dev.json | --locomo none] [--dir DIR [--reuse]]
 * </pre>
 */
public final class RecallBench {
  private static final Namespace BENCH = Namespace.of("bench:recall");
  private static final Instant T0 = Instant.parse("2025-01-01T00:00:00Z");
  private static final int TOP_K = 10;
  private static final int WARMUP_QUERIES = 200;

  private final Options options;

  private RecallBench(Options options) {
    this.options = options;
  }

  public static void main(String[] args) throws Exception {
    Options options = BenchArguments.parseOrExit(new Options(), args);
    new RecallBench(options).run();
  }

  private void run() throws Exception {
    Path root =
        options.dir != null
            ? Files.createDirectories(options.dir)
            : Files.createTempDirectory("memsidecar-recall-bench");
    System.out.println("# lucene-hnsw store benchmark");
    System.out.println();
    System.out.printf(
        Locale.ROOT,
        "Java %s, %d CPUs, vectorization: %s, data in %s%n%n",
        Runtime.version(),
        Runtime.getRuntime().availableProcessors(),
        LuceneHnswProvider.vectorizationInfo(),
        root);
    if (options.records > 0) {
      recall(root.resolve("recall"));
    }
    if (options.locomo != null) {
      locomo(root.resolve("locomo"), options.locomo);
    }
    if (options.dir == null) {
      Figures.deleteTree(root);
    }
  }

  // ---------------------------------------------------------------- recall

  private void recall(Path dir) throws Exception {
    Random random = new Random(options.seed);
    float[][] centroids = new float[options.clusters][];
    for (int c = 0; c < centroids.length; c++) {
      centroids[c] = Embedder.unit(gaussian(random, options.dims, 1.0));
    }
    float[][] vectors = new float[options.records][];
    for (int i = 0; i < vectors.length; i++) {
      vectors[i] = around(random, centroids[random.nextInt(centroids.length)]);
    }
    Embedder embedder = new ClusteredEmbedder(vectors, options.dims);

    Map<String, String> settings = new HashMap<>();
    settings.put(LuceneHnswProvider.M, Integer.toString(options.m));
    settings.put(LuceneHnswProvider.BEAM_WIDTH, Integer.toString(options.beamWidth));
    double ingestSeconds = Double.NaN;
    if (options.reuse && Files.isDirectory(dir.resolve("index"))) {
      System.err.println("reusing the index in " + dir);
    } else {
      MemoryStore store = open(dir, settings, embedder);
      System.err.printf(
          Locale.ROOT, "inserting %d records from %d threads%n", vectors.length, options.threads);
      AtomicInteger done = new AtomicInteger();
      long started = System.nanoTime();
      ExecutorService writers = Executors.newFixedThreadPool(options.threads);
      try {
        List<Future<?>> futures = new ArrayList<>();
        for (int t = 0; t < options.threads; t++) {
          int first = t;
          futures.add(
              writers.submit(
                  () -> {
                    for (int i = first; i < vectors.length; i += options.threads) {
                      store.put(benchRecord(i));
                      int n = done.incrementAndGet();
                      if (n % 10_000 == 0) {
                        System.err.printf(
                            Locale.ROOT,
                            "  %d records, %.0f/s%n",
                            n,
                            n / Figures.seconds(System.nanoTime() - started));
                      }
                    }
                    return null;
                  }));
        }
        for (Future<?> f : futures) {
          f.get();
        }
      } finally {
        writers.shutdown();
      }
      ingestSeconds = Figures.seconds(System.nanoTime() - started);
      store.close();
    }

    float[][] queries = new float[options.queries][];
    for (int q = 0; q < queries.length; q++) {
      queries[q] = around(random, centroids[random.nextInt(centroids.length)]);
    }
    System.err.println("exact top " + TOP_K + " of " + queries.length + " queries");
    int[][] exact =
        IntStream.range(0, queries.length)
            .parallel()
            .mapToObj(q -> exactTop(vectors, queries[q], TOP_K))
            .toArray(int[][]::new);
    float[][] warmup = new float[WARMUP_QUERIES][];
    for (int q = 0; q < warmup.length; q++) {
      warmup[q] = around(random, centroids[random.nextInt(centroids.length)]);
    }

    System.out.println("## Recall@10 against exact cosine top 10");
    System.out.println();
    System.out.printf(
        Locale.ROOT,
        "%d records (%d dims, %d gaussian clusters, spread %.2f), M=%d, beam_width=%d; "
            + "ingest from %d threads, every put durable (group commit)%n%n",
        vectors.length,
        options.dims,
        options.clusters,
        options.spread,
        options.m,
        options.beamWidth,
        options.threads);
    System.out.printf(
        Locale.ROOT,
        "| ingest | records/s | index size |%n|---|---|---|%n| %.1f s | %.0f | %.0f MB |%n%n",
        ingestSeconds,
        vectors.length / ingestSeconds,
        treeSize(dir) / 1e6);
    System.out.println("| hnsw.ef_search | queries | recall@10 | search p50 | search p99 |");
    System.out.println("|---|---|---|---|---|");
    for (int ef : options.efs) {
      Map<String, String> searchSettings = new HashMap<>(settings);
      searchSettings.put(LuceneHnswProvider.EF_SEARCH, Integer.toString(ef));
      try (MemoryStore s = open(dir, searchSettings, embedder)) {
        for (int q = 0; q < warmup.length; q++) {
          s.search(BENCH, vectorQuery("w" + q, warmup[q]));
        }
        long[] latencies = new long[queries.length];
        double recallSum = 0;
        for (int q = 0; q < queries.length; q++) {
          long t0 = System.nanoTime();
          List<ScoredRecord> hits = s.search(BENCH, vectorQuery("q" + q, queries[q]));
          latencies[q] = System.nanoTime() - t0;
          Set<String> want = new HashSet<>();
          for (int i : exact[q]) {
            want.add("v" + i);
          }
          int found = 0;
          for (ScoredRecord h : hits) {
            if (want.contains(h.record().id())) {
              found++;
            }
          }
          recallSum += found / (double) TOP_K;
        }
        Arrays.sort(latencies);
        System.out.printf(
            Locale.ROOT,
            "| %d | %d | %.3f | %.2f ms | %.2f ms |%n",
            ef,
            queries.length,
            recallSum / queries.length,
            Figures.millis(Figures.percentile(latencies, 50)),
            Figures.millis(Figures.percentile(latencies, 99)));
      }
    }
    System.out.println();
  }

  private static MemoryRecord benchRecord(int i) {
    return MemoryRecord.builder()
        .namespace(BENCH)
        .id("v" + i)
        .profile("bench")
        .content("v" + i)
        .times(T0.plusMillis(i))
        .build();
  }

  private static SearchQuery vectorQuery(String text, float[] vector) {
    return new SearchQuery(text, vector, TOP_K, Set.of(), List.of(), 0f, T0.plusSeconds(86_400));
  }

  /** Indexes of the {@code k} vectors with the highest dot product with {@code q}, best first. */
  private static int[] exactTop(float[][] vectors, float[] q, int k) {
    int[] best = new int[k];
    float[] scores = new float[k];
    Arrays.fill(scores, Float.NEGATIVE_INFINITY);
    for (int i = 0; i < vectors.length; i++) {
      float s = Embedder.cosine(q, vectors[i]);
      if (s <= scores[k - 1]) {
        continue;
      }
      int j = k - 1;
      while (j > 0 && scores[j - 1] < s) {
        scores[j] = scores[j - 1];
        best[j] = best[j - 1];
        j--;
      }
      scores[j] = s;
      best[j] = i;
    }
    return best;
  }

  private float[] around(Random random, float[] centroid) {
    float[] noise = gaussian(random, options.dims, options.spread / Math.sqrt(options.dims));
    for (int d = 0; d < noise.length; d++) {
      noise[d] += centroid[d];
    }
    return Embedder.unit(noise);
  }

  private static float[] gaussian(Random random, int dims, double sigma) {
    float[] v = new float[dims];
    for (int d = 0; d < dims; d++) {
      v[d] = (float) (random.nextGaussian() * sigma);
    }
    return v;
  }

  /**
   * Text {@code v<N>...} embeds to pre-generated vector {@code N}; any other text to zeros (queries
   * always come with their vector).
   */
  private static final class ClusteredEmbedder implements Embedder {
    private final float[][] vectors;
    private final int dims;

    ClusteredEmbedder(float[][] vectors, int dims) {
      this.vectors = vectors;
      this.dims = dims;
    }

    @Override
    public String name() {
      return "bench-clustered";
    }

    @Override
    public int dimensions() {
      return dims;
    }

    @Override
    public float[] embed(String text) {
      if (text.length() > 1 && text.charAt(0) == 'v') {
        int end = 1;
        while (end < text.length() && Character.isDigit(text.charAt(end))) {
          end++;
        }
        if (end > 1) {
          return vectors[Integer.parseInt(text.substring(1, end))].clone();
        }
      }
      return new float[dims];
    }
  }

  // ---------------------------------------------------------------- LoCoMo

  private static final Pattern DIA_ID = Pattern.compile("D(\\d+):(\\d+)");
  private static final Pattern SESSION = Pattern.compile("session_(\\d+)");
  private static final String[] CATEGORIES = {
    "", "multi-hop", "temporal", "open-domain", "single-hop"
  };

  private record Question(Namespace namespace, String text, int category, Set<String> evidence) {}

  private void locomo(Path dir, Path file) throws Exception {
    JsonNode parsed = new ObjectMapper().readTree(file.toFile());
    List<MemoryRecord> turns = new ArrayList<>();
    List<Question> questions = new ArrayList<>();
    for (JsonNode conv : parsed) {
      Namespace ns = Namespace.of("locomo:" + conv.path("sample_id").asText());
      Set<String> known = new HashSet<>();
      for (Map.Entry<String, JsonNode> e : conv.path("conversation").properties()) {
        Matcher m = SESSION.matcher(e.getKey());
        if (!m.matches() || !e.getValue().isArray()) {
          continue;
        }
        int session = Integer.parseInt(m.group(1));
        int n = 0;
        for (JsonNode turn : e.getValue()) {
          String diaId = turn.path("dia_id").asText();
          StringBuilder content =
              new StringBuilder()
                  .append(turn.path("speaker").asText())
                  .append(": ")
                  .append(turn.path("text").asText());
          JsonNode caption = turn.path("blip_caption");
          if (caption.isTextual()) {
            content.append(" [shares ").append(caption.asText()).append(']');
          }
          known.add(diaId);
          turns.add(
              MemoryRecord.builder()
                  .namespace(ns)
                  .id(turnId(diaId))
                  .profile("locomo")
                  .kind(MemoryKind.EPISODIC)
                  .content(content.toString())
                  .metadata(Map.of("dia_id", diaId))
                  .times(T0.plusSeconds(session * 86_400L + n++))
                  .build());
        }
      }
      for (JsonNode qa : conv.path("qa")) {
        int category = qa.path("category").asInt();
        if (category < 1 || category > 4 || !qa.path("evidence").isArray()) {
          continue;
        }
        Set<String> evidence = new HashSet<>();
        for (JsonNode raw : qa.path("evidence")) {
          for (String tok : raw.asText().replace('(', ' ').replace(')', ' ').split("[;,\\s]+")) {
            if (DIA_ID.matcher(tok).matches() && known.contains(tok)) {
              evidence.add(turnId(tok));
            }
          }
        }
        if (!evidence.isEmpty()) {
          questions.add(new Question(ns, qa.path("question").asText(), category, evidence));
        }
      }
    }

    System.err.printf(Locale.ROOT, "LoCoMo: indexing %d turns%n", turns.size());
    Embedder embedder = new HashEmbedder();
    try (MemoryStore store = open(dir, Map.of(), embedder)) {
      ExecutorService writers = Executors.newFixedThreadPool(8);
      try {
        List<Future<?>> futures = new ArrayList<>();
        for (MemoryRecord r : turns) {
          futures.add(writers.submit(() -> store.put(r)));
        }
        for (Future<?> f : futures) {
          f.get();
        }
      } finally {
        writers.shutdown();
      }
    }

    System.out.println("## Fusion on LoCoMo (dev half)");
    System.out.println();
    System.out.printf(
        Locale.ROOT,
        "%d turns of %s as records (one namespace per conversation, embedder '%s'); %d questions"
            + " of categories 1-4 with evidence, top %d%n%n",
        turns.size(),
        file.getFileName(),
        embedder.name(),
        questions.size(),
        TOP_K);
    System.out.println(
        "| fusion | category | questions | hit@1 | hit@5 | hit@10 | recall@10 | MRR@10 |");
    System.out.println("|---|---|---|---|---|---|---|---|");
    for (String fusion : List.of("rrf", "blend")) {
      Map<Integer, double[]> sums = new TreeMap<>();
      try (MemoryStore store = open(dir, Map.of(LuceneHnswProvider.FUSION, fusion), embedder)) {
        for (Question q : questions) {
          List<ScoredRecord> hits =
              store.search(
                  q.namespace(),
                  new SearchQuery(
                      q.text(), null, TOP_K, Set.of(), List.of(), 0f, T0.plusSeconds(1L << 30)));
          int firstRank = 0;
          int found = 0;
          for (int i = 0; i < hits.size(); i++) {
            if (q.evidence().contains(hits.get(i).record().id())) {
              found++;
              if (firstRank == 0) {
                firstRank = i + 1;
              }
            }
          }
          double[] row = {
            1,
            firstRank == 1 ? 1 : 0,
            firstRank >= 1 && firstRank <= 5 ? 1 : 0,
            firstRank >= 1 ? 1 : 0,
            found / (double) q.evidence().size(),
            firstRank == 0 ? 0 : 1.0 / firstRank
          };
          for (int key : new int[] {0, q.category()}) {
            double[] sum = sums.computeIfAbsent(key, k -> new double[row.length]);
            for (int i = 0; i < row.length; i++) {
              sum[i] += row[i];
            }
          }
        }
      }
      for (Map.Entry<Integer, double[]> e : sums.entrySet()) {
        double[] s = e.getValue();
        System.out.printf(
            Locale.ROOT,
            "| %s | %s | %d | %.3f | %.3f | %.3f | %.3f | %.3f |%n",
            e.getKey() == 0 ? "**" + fusion + "**" : fusion,
            e.getKey() == 0 ? "**all**" : e.getKey() + " " + CATEGORIES[e.getKey()],
            (int) s[0],
            s[1] / s[0],
            s[2] / s[0],
            s[3] / s[0],
            s[4] / s[0],
            s[5] / s[0]);
      }
    }
    System.out.println();
  }

  /** {@code D12:3} as a record id: {@code D12_3}. */
  private static String turnId(String diaId) {
    return diaId.replace(':', '_');
  }

  // ---------------------------------------------------------------- plumbing

  private static MemoryStore open(Path dir, Map<String, String> settings, Embedder embedder)
      throws IOException {
    Files.createDirectories(dir);
    MemoryProvider provider = new LuceneHnswProvider();
    return provider.open(new ProviderContext("bench", dir, settings, embedder));
  }

  private static long treeSize(Path dir) throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      return files
          .filter(Files::isRegularFile)
          .mapToLong(
              p -> {
                try {
                  return Files.size(p);
                } catch (IOException e) {
                  return 0;
                }
              })
          .sum();
    }
  }

  // ---------------------------------------------------------------- options

  @Command(
      description = "HNSW recall@10 and search latency of lucene-hnsw, and its fusion on LoCoMo.")
  private static final class Options implements BenchArguments.Checked {
    @Option(names = "--records", paramLabel = "N", description = "records inserted")
    int records = 100_000;

    @Option(names = "--threads", paramLabel = "N", description = "concurrent writers")
    int threads = 4;

    @Option(names = "--queries", paramLabel = "N", description = "query vectors")
    int queries = 500;

    @Option(names = "--dims", paramLabel = "N", description = "vector dimensions")
    int dims = 256;

    @Option(names = "--clusters", paramLabel = "N", description = "gaussian centroids")
    int clusters = 100;

    @Option(names = "--spread", paramLabel = "X", description = "spread around a centroid")
    double spread = 1.0;

    @Option(names = "--ef", split = ",", paramLabel = "N", description = "ef_search values")
    int[] efs = {LuceneHnswProvider.DEFAULT_EF_SEARCH};

    @Option(names = "--m", paramLabel = "N", description = "HNSW M")
    int m = LuceneHnswProvider.DEFAULT_M;

    @Option(names = "--beam-width", paramLabel = "N", description = "HNSW beam width")
    int beamWidth = LuceneHnswProvider.DEFAULT_BEAM_WIDTH;

    @Option(names = "--seed", paramLabel = "N", description = "RNG seed")
    long seed = 42;

    @Option(
        names = "--locomo",
        paramLabel = "PATH",
        converter = LocomoFile.class,
        description = "LoCoMo file of the fusion table, or none")
    Path locomo = Path.of("..", "shared", "bench", "locomo-dev.json");

    @Option(names = "--dir", paramLabel = "DIR", description = "keep the data here, not in a temp")
    Path dir;

    @Option(names = "--reuse", description = "search an index already in --dir again")
    boolean reuse;

    @Override
    public void check(CommandSpec spec) {
      if (records < 0 || threads < 1 || queries < 1 || dims < 8 || clusters < 1) {
        throw new ParameterException(spec.commandLine(), "counts must be positive");
      }
      if (reuse && dir == null) {
        throw new ParameterException(spec.commandLine(), "--reuse needs --dir");
      }
      if (locomo != null && !Files.isRegularFile(locomo)) {
        throw new ParameterException(
            spec.commandLine(), "no LoCoMo file at " + locomo + " (--locomo none)");
      }
    }
  }

  /** {@code none} leaves the fusion table out. */
  private static final class LocomoFile implements ITypeConverter<Path> {
    @Override
    public Path convert(String value) {
      return value.equals("none") ? null : Path.of(value);
    }
  }
}
