package dev.memsidecar.provider.langmem;

import dev.memsidecar.api.MemoryStore;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.api.SearchQuery;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Stream;

/**
 * Measures durable ingest in process: {@code args[0]} records (default 20,000) of 12 words put with
 * the hash embedder into one namespace of a fresh H2 file by {@code args[1]} threads at once
 * (default 4), each put acknowledged only once it is committed to the file, first with the
 * namespace's index not in memory (as a bulk load after a restart), then as many again with it in
 * memory (as a sidecar that also serves searches). Prints the rate and CPU time of each phase, how
 * many puts each commit carried on average, how long opening the store again with another embedder
 * takes (every vector embedded again), and the size of the data folder. Not a test: run it with the
 * module's test class path, e.g.
 *
 * <pre>
 * cd providers/langmem-sqlite
 * mvn -o -q test-compile dependency:build-classpath -Dmdep.outputFile=target/cp.txt
 * java -cp target/test-classes:target/classes:$(cat target/cp.txt) \
 *     dev.memsidecar.provider.langmem.IngestBench 20000 4
 * </pre>
 */
public final class IngestBench {
  private static final Namespace NAMESPACE = Namespace.of("bench:ingest");
  private static final String[] WORDS = {
    "deploy",
    "pipeline",
    "kafka",
    "consumer",
    "postgres",
    "vacuum",
    "cluster",
    "staging",
    "release",
    "notes",
    "grafana",
    "token",
    "rotate",
    "alice",
    "prefers",
    "concise",
    "answers",
    "incident",
    "review",
    "cache",
    "stampede",
    "config",
    "lint",
    "frontend",
    "gradle",
    "wrapper",
    "coffee",
    "machine",
    "floor",
    "broken",
    "terraform",
    "state",
    "bucket",
    "nightly",
    "alerts",
    "engineer",
    "window",
    "freeze",
    "monday",
    "shards",
    "replica",
    "backup",
    "restore",
    "quota"
  };

  private IngestBench() {}

  public static void main(String[] args) throws Exception {
    Logger.getLogger("").setLevel(Level.WARNING);
    int records = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
    int clients = args.length > 1 ? Integer.parseInt(args[1]) : 4;
    Path dir = Files.createTempDirectory("ingest-bench");
    try (MemoryStore store = Fixtures.open(dir)) {
      // Warm the JIT on another namespace, then measure.
      phase(store, Namespace.of("bench:warmup"), "warm-up", 2_000, clients, 7);
      phase(store, NAMESPACE, "index not in memory", records, clients, 1);
      store.search(
          NAMESPACE,
          new SearchQuery("grafana token", null, 8, Set.of(), List.of(), 0f, Fixtures.T0));
      phase(store, NAMESPACE, "index in memory", records, clients, 2);
    }
    // A switch of embedder: every vector is embedded again (in batches) before the store opens.
    long reopened = System.nanoTime();
    Fixtures.open(dir, new Fixtures.ModelEmbedder("bench-model")).close();
    System.out.printf(
        Locale.ROOT,
        "reopened with another embedder: %,d vectors embedded again in %.1f s%n",
        2 * records + 2_000,
        (System.nanoTime() - reopened) / 1e9);
    System.out.printf(
        Locale.ROOT,
        "data folder after %d records: %.1f MiB%n",
        2 * records + 2_000,
        size(dir) / 1048576.0);
    deleteTree(dir);
  }

  private static void phase(
      MemoryStore store, Namespace ns, String what, int records, int clients, long seed)
      throws Exception {
    List<String> texts = new ArrayList<>(records);
    Random random = new Random(seed);
    for (int i = 0; i < records; i++) {
      texts.add(sentence(random, 12));
    }
    long commitsBefore = ((LangMemSqliteStore) store).commits();
    long cpuBefore = processCpuNanos();
    AtomicInteger next = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(clients);
    long started = System.nanoTime();
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < clients; t++) {
        done.add(
            pool.submit(
                () -> {
                  int i;
                  while ((i = next.getAndIncrement()) < records) {
                    store.put(
                        Fixtures.record(
                            ns, seed + "-" + i, texts.get(i), Fixtures.T0.plusMillis(i)));
                  }
                  return null;
                }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    double seconds = (System.nanoTime() - started) / 1e9;
    double cpuMicros = (processCpuNanos() - cpuBefore) / 1e3 / records;
    long commits = ((LangMemSqliteStore) store).commits() - commitsBefore;
    System.out.printf(
        Locale.ROOT,
        "%-22s %,d puts, %d threads: %.1f s, %,.0f puts/s, %.0f us CPU per put,"
            + " %,d commits (%.1f puts each)%n",
        what,
        records,
        clients,
        seconds,
        records / seconds,
        cpuMicros,
        commits,
        commits == 0 ? 0.0 : (double) records / commits);
  }

  /** CPU time of this whole process (every thread, the JIT and the collector included). */
  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean)
            java.lang.management.ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  private static String sentence(Random random, int words) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < words; i++) {
      if (i > 0) {
        out.append(' ');
      }
      out.append(WORDS[random.nextInt(WORDS.length)]);
    }
    return out.toString();
  }

  private static long size(Path root) throws IOException {
    try (Stream<Path> paths = Files.walk(root)) {
      long total = 0;
      for (Path p : paths.filter(Files::isRegularFile).toList()) {
        total += Files.size(p);
      }
      return total;
    }
  }

  private static void deleteTree(Path root) throws IOException {
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
