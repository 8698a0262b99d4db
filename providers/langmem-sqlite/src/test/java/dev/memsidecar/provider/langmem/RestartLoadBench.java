package dev.memsidecar.provider.langmem;

import dev.memsidecar.api.MemoryStore;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.api.ScoredRecord;
import dev.memsidecar.api.SearchQuery;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Stream;

/**
 * Measures the first search of a namespace after a restart, when the store builds the namespace's
 * index from the database. Writes {@code args[0]} records (default 10,000) of 24 words with the
 * hash embedder into one namespace of a fresh H2 file and closes the store; then, {@code args[1]}
 * times (default 5), starts a new JVM that opens the store and times its first search (a real
 * restart: cold JIT), and as many times reopens it in this JVM (warm JIT). Prints the median and
 * every run of both, in wall-clock time and in CPU time of the searching thread (which does the
 * loading; a figure that other processes on a busy machine disturb less). Not a test: run it with
 * the module's test class path, e.g.
 *
 * <pre>
 * cd providers/langmem-sqlite
 * mvn -o -q test-compile dependency:build-classpath -Dmdep.outputFile=target/cp.txt
 * java -cp target/test-classes:target/classes:$(cat target/cp.txt) \
 *     dev.memsidecar.provider.langmem.RestartLoadBench 10000 5
 * </pre>
 */
public final class RestartLoadBench {
  private static final Namespace NAMESPACE = Namespace.of("bench:restart");
  private static final String FIRST_SEARCH = "--first-search";
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

  private RestartLoadBench() {}

  public static void main(String[] args) throws Exception {
    Logger.getLogger("").setLevel(Level.WARNING);
    if (args.length == 2 && args[0].equals(FIRST_SEARCH)) {
      long[] timing = firstSearchNanos(Path.of(args[1]));
      System.out.println(timing[0] + " " + timing[1]);
      return;
    }
    int records = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
    int runs = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    Path dir = Files.createTempDirectory("restart-load-bench");
    try {
      long started = System.nanoTime();
      Random random = new Random(42);
      try (MemoryStore store = Fixtures.open(dir)) {
        for (int i = 0; i < records; i++) {
          store.put(
              Fixtures.record(NAMESPACE, "r" + i, sentence(random, 24), Fixtures.T0.plusMillis(i)));
        }
      }
      System.out.printf(
          Locale.ROOT,
          "wrote %d records in %.1f s%n",
          records,
          (System.nanoTime() - started) / 1e9);

      long[][] cold = new long[runs][];
      for (int run = 0; run < runs; run++) {
        cold[run] = firstSearchInNewJvm(dir);
      }
      print("new JVM (restart)", records, cold);
      long[][] warm = new long[runs][];
      for (int run = 0; run < runs; run++) {
        warm[run] = firstSearchNanos(dir);
      }
      print("same JVM (reopen) ", records, warm);
    } finally {
      deleteTree(dir);
    }
  }

  /**
   * Opens the store in {@code dir} and times its first search of the namespace: wall-clock and
   * thread CPU nanoseconds.
   */
  private static long[] firstSearchNanos(Path dir) {
    SearchQuery query =
        new SearchQuery(
            "when do we rotate the grafana token", null, 10, Set.of(), List.of(), 0f, Fixtures.T0);
    try (MemoryStore store = Fixtures.open(dir)) {
      ThreadMXBean threads = ManagementFactory.getThreadMXBean();
      long cpuStart = threads.getCurrentThreadCpuTime();
      long start = System.nanoTime();
      List<ScoredRecord> hits = store.search(NAMESPACE, query);
      long wall = System.nanoTime() - start;
      long cpu = threads.getCurrentThreadCpuTime() - cpuStart;
      if (hits.isEmpty()) {
        throw new IllegalStateException("the first search found nothing");
      }
      return new long[] {wall, cpu};
    }
  }

  private static long[] firstSearchInNewJvm(Path dir) throws IOException, InterruptedException {
    Process child =
        new ProcessBuilder(
                ProcessHandle.current().info().command().orElseThrow(),
                "-cp",
                System.getProperty("java.class.path"),
                RestartLoadBench.class.getName(),
                FIRST_SEARCH,
                dir.toString())
            .redirectErrorStream(true)
            .start();
    String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (child.waitFor() != 0) {
      throw new IllegalStateException("first-search child failed:\n" + output);
    }
    List<String> lines = output.strip().lines().toList();
    String[] timing = lines.get(lines.size() - 1).split(" ");
    return new long[] {Long.parseLong(timing[0]), Long.parseLong(timing[1])};
  }

  /** Prints the median and every run of {@code timings} (wall, CPU nanoseconds per run). */
  private static void print(String what, int records, long[][] timings) {
    long[] wall = Arrays.stream(timings).mapToLong(t -> t[0]).toArray();
    long[] cpu = Arrays.stream(timings).mapToLong(t -> t[1]).toArray();
    System.out.printf(
        Locale.ROOT,
        "first search of %d records, %s: median %.0f ms wall, %.0f ms CPU;"
            + " runs (ms wall): %s, (ms CPU): %s%n",
        records,
        what,
        median(wall) / 1e6,
        median(cpu) / 1e6,
        Arrays.toString(Arrays.stream(wall).map(n -> n / 1_000_000).toArray()),
        Arrays.toString(Arrays.stream(cpu).map(n -> n / 1_000_000).toArray()));
  }

  /** The middle value (the upper one of the two middle values for an even count). */
  private static long median(long[] values) {
    long[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
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

  private static void deleteTree(Path root) throws IOException {
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
