package dev.memsidecar.provider.lucene;

import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.MemoryStore;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.api.ProviderContext;
import dev.memsidecar.api.SearchQuery;
import dev.memsidecar.toolkit.HashEmbedder;
import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Durable-ingest benchmark of the {@code lucene-hnsw} store, opened directly (no gRPC) with the
 * hash embedder: for each writer count, a fresh store in a temporary directory, optionally
 * preloaded with {@code --preload} records, then {@code --writers} threads each make {@code
 * --warmup} and then {@code --puts} puts of a conversation-turn-sized record (a sentence of content
 * and two of context, as the LoCoMo bench sends them). Every put returns only once durable. With
 * {@code --read get} each writer reads its record back after each put (and fails if it does not see
 * it), with {@code --read search} it searches for it: reads see every acknowledged write, so this
 * measures what making writes visible costs. Reports puts/s over the measured run, put latency
 * p50/p99 (the read excluded), puts per log fsync, and how many background commits and read
 * refreshes ran, as a markdown table on stdout; progress on stderr. Figures depend on the disk's
 * fsync latency and on whatever else runs on the machine.
 *
 * <p>Run from the module directory after {@code mvn -o -q test-compile}:
 *
 * <pre>
 * mvn -o -q dependency:build-classpath -Dmdep.outputFile=target/test.cp -Dmdep.includeScope=test
 * java --add-modules jdk.incubator.vector -cp target/test-classes:target/classes:$(cat target/test.cp) \
 *     dev.memsidecar.provider.lucene.IngestBench [--writers 1,4,8] [--puts 500] [--warmup 50] \
 *     [--preload 0] [--read none|get|search] [--set key=value]... [--seed 42]
 * </pre>
 *
 * <p>{@code --add-modules jdk.incubator.vector} lets Lucene score vectors with SIMD, as the
 * sidecar's launcher does; without it, building the HNSW graph costs about twice as much.
 */
public final class IngestBench {
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
    "database",
    "sister",
    "painting",
    "camping",
    "birthday",
    "adoption",
    "pottery",
    "concert",
    "marathon"
  };

  private IngestBench() {}

  public static void main(String[] args) throws Exception {
    int[] writers = {1, 4, 8};
    int puts = 500;
    int warmup = 50;
    int preload = 0;
    long seed = 42;
    String read = "none";
    Map<String, String> settings = new LinkedHashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      String v = args[i + 1];
      switch (args[i]) {
        case "--writers" ->
            writers = Arrays.stream(v.split(",")).mapToInt(Integer::parseInt).toArray();
        case "--puts" -> puts = Integer.parseInt(v);
        case "--warmup" -> warmup = Integer.parseInt(v);
        case "--preload" -> preload = Integer.parseInt(v);
        case "--seed" -> seed = Long.parseLong(v);
        case "--read" -> read = v;
        case "--set" -> {
          String[] kv = v.split("=", 2);
          settings.put(kv[0], kv[1]);
        }
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    Path root = Files.createTempDirectory("memsidecar-ingest-bench");
    try {
      System.out.printf(
          Locale.ROOT,
          "# lucene-hnsw ingest: Java %s, %d CPUs, data in %s, %d preloaded records, %d puts per"
              + " writer after %d warm-up puts, reads after each put: %s, settings %s%n%n",
          Runtime.version(),
          Runtime.getRuntime().availableProcessors(),
          root,
          preload,
          puts,
          warmup,
          read,
          settings);
      System.out.println(
          "| writers | puts | puts/s | put p50 ms | put p99 ms | puts per fsync | commits |"
              + " refreshes |");
      System.out.println("|---:|---:|---:|---:|---:|---:|---:|---:|");
      for (int w : writers) {
        System.err.printf(Locale.ROOT, "%d writers...%n", w);
        Path dir = Files.createDirectories(root.resolve(w + "w"));
        ProviderContext context = new ProviderContext("bench", dir, settings, new HashEmbedder());
        try (MemoryStore store = new LuceneHnswProvider().open(context)) {
          if (preload > 0) {
            preload((LuceneHnswStore) store, preload, seed);
          }
          LuceneHnswStore lucene = (LuceneHnswStore) store;
          ExecutorService pool = Executors.newFixedThreadPool(w);
          try {
            putConcurrently(pool, store, Namespace.of("bench:warmup"), w, warmup, seed, read);
            long syncs = lucene.syncs();
            long commits = lucene.commits();
            long refreshes = lucene.refreshes();
            long started = System.nanoTime();
            long[] nanos =
                putConcurrently(pool, store, Namespace.of("bench:ingest"), w, puts, seed + 1, read);
            long elapsed = System.nanoTime() - started;
            Arrays.sort(nanos);
            System.out.printf(
                Locale.ROOT,
                "| %d | %d | %.0f | %.2f | %.2f | %.1f | %d | %d |%n",
                w,
                nanos.length,
                nanos.length / (elapsed / 1e9),
                percentile(nanos, 50) / 1e6,
                percentile(nanos, 99) / 1e6,
                nanos.length / (double) Math.max(1, lucene.syncs() - syncs),
                lucene.commits() - commits,
                lucene.refreshes() - refreshes);
          } finally {
            pool.shutdown();
          }
        }
      }
    } finally {
      deleteTree(root);
    }
  }

  private static void preload(LuceneHnswStore store, int n, long seed) {
    Random random = new Random(seed - 1);
    Namespace ns = Namespace.of("bench:preload");
    for (int from = 0; from < n; from += 1000) {
      List<MemoryRecord> batch = new ArrayList<>();
      for (int i = from; i < Math.min(n, from + 1000); i++) {
        batch.add(record(ns, "p" + i, random, i));
      }
      store.putAll(ns, batch);
    }
  }

  private static long[] putConcurrently(
      ExecutorService pool,
      MemoryStore store,
      Namespace ns,
      int writers,
      int puts,
      long seed,
      String read)
      throws Exception {
    CountDownLatch start = new CountDownLatch(1);
    List<Future<long[]>> done = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      int writer = w;
      done.add(
          pool.submit(
              () -> {
                Random random = new Random(seed * 31 + writer);
                long[] nanos = new long[puts];
                start.await();
                for (int i = 0; i < puts; i++) {
                  MemoryRecord r = record(ns, "w" + writer + "-" + i, random, i);
                  long t = System.nanoTime();
                  store.put(r);
                  nanos[i] = System.nanoTime() - t;
                  switch (read) {
                    case "get" -> {
                      if (store.get(ns, r.id()).isEmpty()) {
                        throw new IllegalStateException("a put is not visible: " + r.id());
                      }
                    }
                    case "search" -> {
                      SearchQuery q =
                          new SearchQuery(r.content(), null, 5, Set.of(), List.of(), 0f, T0);
                      if (store.search(ns, q).isEmpty()) {
                        throw new IllegalStateException("a search found nothing: " + r.id());
                      }
                    }
                    default -> {}
                  }
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

  private static MemoryRecord record(Namespace ns, String id, Random random, int i) {
    return MemoryRecord.builder()
        .namespace(ns)
        .id(id)
        .profile("bench")
        .content("Caroline: " + sentence(random, 18))
        .context("Melanie: " + sentence(random, 18) + "\nCaroline: " + sentence(random, 18))
        .times(T0.plusMillis(i))
        .build();
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

  private static long percentile(long[] sorted, int p) {
    int i = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
  }

  private static void deleteTree(Path root) throws IOException {
    Files.walkFileTree(
        root,
        new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult visitFile(Path file, BasicFileAttributes attrs)
              throws IOException {
            Files.delete(file);
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
            Files.delete(dir);
            return FileVisitResult.CONTINUE;
          }
        });
  }
}
