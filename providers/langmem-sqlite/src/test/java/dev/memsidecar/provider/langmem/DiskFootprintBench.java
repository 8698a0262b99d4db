package dev.memsidecar.provider.langmem;

import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.MemoryStore;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.api.ProviderContext;
import dev.memsidecar.toolkit.HashEmbedder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

/**
 * Where a langmem-sqlite H2 file's bytes go, per record: {@code --records} sentences (about 100
 * characters, like {@code bench crash}'s) put from 4 threads into one namespace with a hash
 * embedder of each given dimension count, all vectors landed, the store closed; then the file as
 * the store left it and H2's {@code DISK_SPACE_USED} of the two tables (their live pages,
 * uncompressed). No crash loop: the garbage a crash loop leaves is {@code bench crash}'s to
 * measure; this separates the data from it. Run it with the module's test class path (the main
 * classes of another build first on it measure that build's format):
 *
 * <pre>
 * java -cp ... dev.memsidecar.provider.langmem.DiskFootprintBench [records] [dimensions,...]
 * </pre>
 *
 * Defaults: 20000 records, 256 and 384 dimensions.
 */
public final class DiskFootprintBench {
  private static final Namespace NS = Namespace.of("bench:workspace:bench");
  private static final String[] WORDS = {
    "Alice",
    "prefers",
    "dark",
    "roast",
    "coffee",
    "before",
    "the",
    "standup",
    "Kafka",
    "consumer",
    "release",
    "notes",
    "staging",
    "cluster",
    "rotates",
    "TLS",
    "certificates",
    "every",
    "Friday",
    "reviews",
    "the",
    "billing",
    "service",
    "after",
    "lunch",
    "Postgres",
    "replica",
    "nightly",
    "backups",
    "incident",
    "runbook",
    "dashboards",
    "weekly",
    "metrics",
    "Terraform",
    "modules"
  };

  private DiskFootprintBench() {}

  public static void main(String[] args) throws Exception {
    int records = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
    int[] dimensions =
        Arrays.stream((args.length > 1 ? args[1] : "256,384").split(","))
            .mapToInt(Integer::parseInt)
            .toArray();
    for (int d : dimensions) {
      run(records, d);
    }
  }

  private static void run(int records, int dimensions) throws Exception {
    Path dir = Files.createTempDirectory("langmem-footprint");
    try {
      long logical = 0;
      try (MemoryStore store =
          new LangMemSqliteProvider()
              .open(
                  new ProviderContext("workspace", dir, Map.of(), new HashEmbedder(dimensions)))) {
        Random random = new Random(42);
        List<MemoryRecord> all = new ArrayList<>(records);
        for (int i = 0; i < records; i++) {
          MemoryRecord r = Fixtures.record(NS, "r" + i, sentence(random, i));
          all.add(r);
          logical += r.content().length();
        }
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
          List<Future<?>> done = new ArrayList<>();
          for (int t = 0; t < 4; t++) {
            int first = t;
            done.add(
                pool.submit(
                    () -> {
                      for (int i = first; i < records; i += 4) {
                        store.put(all.get(i));
                      }
                    }));
          }
          for (Future<?> f : done) {
            f.get();
          }
        } finally {
          pool.shutdown();
        }
        while (store.pendingVectors().records() > 0) {
          LockSupport.parkNanos(10_000_000);
        }
      }
      long asLeft = size(dir);
      long recordsTable;
      long vectorsTable;
      try (Connection c = Fixtures.connect(dir);
          Statement st = c.createStatement()) {
        recordsTable = diskSpaceUsed(st, "MEMORY_RECORDS");
        vectorsTable = diskSpaceUsed(st, "MEMORY_VECTORS");
      }
      System.out.printf(
          Locale.ROOT,
          "%,d records x %d dims: file as the store left it %.2f KB/record | H2 DISK_SPACE_USED"
              + " memory_records %.2f KB/record, memory_vectors %.2f KB/record (content %.2f"
              + " KB/record)%n",
          records,
          dimensions,
          asLeft / 1024.0 / records,
          recordsTable / 1024.0 / records,
          vectorsTable / 1024.0 / records,
          logical / 1024.0 / records);
    } finally {
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(DiskFootprintBench::delete);
      }
    }
  }

  private static long diskSpaceUsed(Statement st, String table) throws SQLException {
    try (ResultSet rs = st.executeQuery("SELECT DISK_SPACE_USED('" + table + "')")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static String sentence(Random random, int i) {
    StringBuilder out = new StringBuilder();
    int words = 12 + random.nextInt(8);
    for (int w = 0; w < words; w++) {
      out.append(w == 0 ? "" : " ").append(WORDS[random.nextInt(WORDS.length)]);
    }
    return out.append(" (ticket ").append(1000 + i).append(").").toString();
  }

  private static long size(Path dir) throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      return files.filter(Files::isRegularFile).mapToLong(DiskFootprintBench::sizeOf).sum();
    }
  }

  private static long sizeOf(Path p) {
    try {
      return Files.size(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void delete(Path p) {
    try {
      Files.deleteIfExists(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
