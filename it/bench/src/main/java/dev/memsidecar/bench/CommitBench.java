package dev.memsidecar.bench;

import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.MemoryStore;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.api.ProviderContext;
import dev.memsidecar.provider.lucene.LuceneHnswProvider;
import dev.memsidecar.sidecar.bench.Figures;
import dev.memsidecar.toolkit.HashEmbedder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.apache.lucene.index.SegmentInfos;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * Durable-write benchmark of the {@code lucene-hnsw} store, opened directly (no gRPC): {@code
 * --writers} threads each make {@code --puts} puts, every put returning only once committed and
 * fsynced, and the bench reports how well concurrent writers share commits. For each writer count
 * and each {@code commit.max_wait_ms} value it opens a fresh store in a temporary directory (the
 * default hash embedder), warms up with {@code --warmup} puts per writer, then measures: writes/s
 * over the whole run, Lucene commits made (the index's commit generation before and after, so only
 * commits that wrote something count), writes per commit, and put latency p50/p99.
 *
 * <p>Prints a markdown table on stdout, progress on stderr. The figures depend on the disk's fsync
 * latency more than on anything else.
 *
 * <pre>
 * java -cp it/bench/target/memsidecar-bench.jar dev.memsidecar.bench.CommitBench
 *     [--writers 1,8] [--puts 200] [--warmup 20] [--max-wait-ms 2[,0...]] [--seed 42]
 * </pre>
 */
public final class CommitBench {
  private static final Instant T0 = Instant.parse("2025-01-01T00:00:00Z");
  private static final String[] WORDS = {
    "deploy",
    "cluster",
    "lunch",
    "budget",
    "review",
    "release",
    "train",
    "garden",
    "fence",
    "invoice",
    "meeting",
    "password",
    "rotation",
    "weekly",
    "staging",
    "kubernetes",
    "coffee",
    "offsite",
    "quarter",
    "roadmap",
    "customer",
    "ticket",
    "upgrade",
    "migration",
    "database"
  };

  private final Options options;

  private CommitBench(Options options) {
    this.options = options;
  }

  public static void main(String[] args) throws Exception {
    Options options = BenchArguments.parseOrExit(new Options(), args);
    new CommitBench(options).run();
  }

  private void run() throws Exception {
    Path root = Files.createTempDirectory("memsidecar-commit-bench");
    try {
      System.out.println("# lucene-hnsw commit benchmark");
      System.out.println();
      System.out.printf(
          Locale.ROOT,
          "Java %s, %d CPUs, vectorization: %s, data in %s; %d puts per writer after %d warm-up"
              + " puts per writer%n%n",
          Runtime.version(),
          Runtime.getRuntime().availableProcessors(),
          LuceneHnswProvider.vectorizationInfo(),
          root,
          options.puts,
          options.warmup);
      System.out.println(
          "| writers | commit.max_wait_ms | writes | writes/s | commits | writes/commit"
              + " | put p50 ms | put p99 ms |");
      System.out.println("|---:|---:|---:|---:|---:|---:|---:|---:|");
      for (int writers : options.writers) {
        for (int maxWait : options.maxWaits) {
          System.err.printf(
              Locale.ROOT, "%d writers, commit.max_wait_ms %d...%n", writers, maxWait);
          Path dir = Files.createDirectories(root.resolve(writers + "w-" + maxWait + "ms"));
          Result r = measure(dir, writers, maxWait);
          int writes = writers * options.puts;
          System.out.printf(
              Locale.ROOT,
              "| %d | %d | %d | %.0f | %d | %.1f | %.2f | %.2f |%n",
              writers,
              maxWait,
              writes,
              writes / Figures.seconds(r.elapsedNanos),
              r.commits,
              r.commits == 0 ? 0.0 : (double) writes / r.commits,
              Figures.millis(Figures.percentile(r.putNanos, 50)),
              Figures.millis(Figures.percentile(r.putNanos, 99)));
        }
      }
    } finally {
      Figures.deleteTree(root);
    }
  }

  /** Commits, elapsed time and sorted put latencies of one measured run. */
  private record Result(long commits, long elapsedNanos, long[] putNanos) {}

  private Result measure(Path dir, int writers, int maxWait) throws Exception {
    Map<String, String> settings =
        Map.of(LuceneHnswProvider.COMMIT_MAX_WAIT_MS, Integer.toString(maxWait));
    ProviderContext context = new ProviderContext("bench", dir, settings, new HashEmbedder());
    try (MemoryStore store = new LuceneHnswProvider().open(context)) {
      Path index = dir.resolve("index");
      ExecutorService pool = Executors.newFixedThreadPool(writers);
      try {
        putConcurrently(pool, store, Namespace.of("bench:warmup"), writers, options.warmup);
        long generation = commitGeneration(index);
        long started = System.nanoTime();
        long[] putNanos =
            putConcurrently(pool, store, Namespace.of("bench:commit"), writers, options.puts);
        long elapsed = System.nanoTime() - started;
        long commits = commitGeneration(index) - generation;
        Arrays.sort(putNanos);
        return new Result(commits, elapsed, putNanos);
      } finally {
        pool.shutdown();
      }
    }
  }

  /** {@code writers} threads each put {@code puts} records; returns every put's latency. */
  private long[] putConcurrently(
      ExecutorService pool, MemoryStore store, Namespace ns, int writers, int puts)
      throws Exception {
    CountDownLatch start = new CountDownLatch(1);
    List<Future<long[]>> done = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      int writer = w;
      done.add(
          pool.submit(
              () -> {
                Random random = new Random(options.seed * 31 + writer);
                long[] nanos = new long[puts];
                start.await();
                for (int i = 0; i < puts; i++) {
                  MemoryRecord r =
                      MemoryRecord.builder()
                          .namespace(ns)
                          .id("w" + writer + "-" + i)
                          .profile("bench")
                          .content(sentence(random, 12))
                          .times(T0.plusMillis(i))
                          .build();
                  long t = System.nanoTime();
                  store.put(r);
                  nanos[i] = System.nanoTime() - t;
                }
                return nanos;
              }));
    }
    start.countDown();
    long[] all = new long[writers * puts];
    for (int w = 0; w < writers; w++) {
      System.arraycopy(done.get(w).get(), 0, all, w * puts, puts);
    }
    return all;
  }

  private static String sentence(Random random, int words) {
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < words; i++) {
      if (i > 0) {
        s.append(' ');
      }
      s.append(WORDS[random.nextInt(WORDS.length)]);
    }
    return s.toString();
  }

  /** The generation of the index's last commit: it grows by one with every commit that wrote. */
  private static long commitGeneration(Path index) throws IOException {
    try (Stream<Path> files = Files.list(index)) {
      return SegmentInfos.getLastCommitGeneration(
          files.map(p -> p.getFileName().toString()).toArray(String[]::new));
    }
  }

  // ---------------------------------------------------------------- options

  @Command(description = "Durable puts per second of lucene-hnsw, and how writers share commits.")
  private static final class Options implements BenchArguments.Checked {
    @Option(names = "--writers", split = ",", paramLabel = "N", description = "writer counts")
    int[] writers = {1, 8};

    @Option(names = "--puts", paramLabel = "N", description = "measured puts per writer")
    int puts = 200;

    @Option(names = "--warmup", paramLabel = "N", description = "warm-up puts per writer")
    int warmup = 20;

    @Option(
        names = "--max-wait-ms",
        split = ",",
        paramLabel = "MS",
        description = "commit.max_wait_ms values")
    int[] maxWaits = {LuceneHnswProvider.DEFAULT_COMMIT_MAX_WAIT_MS};

    @Option(names = "--seed", paramLabel = "N", description = "RNG seed")
    long seed = 42;

    @Override
    public void check(CommandSpec spec) {
      if (puts < 1 || warmup < 0 || Arrays.stream(writers).anyMatch(w -> w < 1)) {
        throw new ParameterException(spec.commandLine(), "writers and puts must be positive");
      }
      if (Arrays.stream(maxWaits).anyMatch(m -> m < 0 || m > 1000)) {
        throw new ParameterException(spec.commandLine(), "--max-wait-ms must be 0..1000");
      }
    }
  }
}
