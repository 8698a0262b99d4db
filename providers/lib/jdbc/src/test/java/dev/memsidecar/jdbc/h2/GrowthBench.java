package dev.memsidecar.jdbc.h2;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * How H2 options and {@link H2Housekeeping} bound an H2 file written the way the stores write it
 * (one transaction per record of ~1.2 KB, 4 writer threads, {@code WRITE_DELAY=0}) through a crash
 * loop: each cycle is a child JVM that opens the file (timed), writes {@code --rows} records, idles
 * {@code --idle-ms}, and halts without closing anything ({@code Runtime.halt}, as {@code kill -9}
 * leaves the file). Prints one markdown row per variant: the open time after a crash (median), and
 * the file's size after the last burst and after the idle time, against the rows' bytes. Not a
 * test: run it with the module's test class path, e.g.
 *
 * <pre>
 * cd providers/lib/jdbc
 * mvn -o -q test-compile dependency:build-classpath -Dmdep.outputFile=target/cp.txt
 * java -cp target/test-classes:target/classes:$(cat target/cp.txt) \
 *     dev.memsidecar.jdbc.h2.GrowthBench 8 1500 3000
 * </pre>
 *
 * Arguments: cycles (8), rows per cycle (1,500), idle milliseconds after each burst (3,000), and
 * optionally a part of a variant's name to run only those.
 */
public final class GrowthBench {
  private static final int ROW_BYTES = 1_024 + 180;

  /** An H2 setup: URL options, and whether housekeeping runs. */
  private record Variant(String name, String options, boolean housekeeping) {}

  private static final List<Variant> VARIANTS =
      List.of(
          new Variant("WRITE_DELAY=0, FILE_LOCK=FILE (before)", ";FILE_LOCK=FILE", false),
          new Variant("WRITE_DELAY=0, FILE_LOCK=FS", ";FILE_LOCK=FS", false),
          new Variant("+ RETENTION_TIME=5000", ";FILE_LOCK=FS;RETENTION_TIME=5000", false),
          new Variant("+ RETENTION_TIME=1000", ";FILE_LOCK=FS;RETENTION_TIME=1000", false),
          new Variant("FILE_LOCK=FS + H2Housekeeping (now)", ";FILE_LOCK=FS", true));

  private GrowthBench() {}

  public static void main(String[] args) throws Exception {
    if (args.length > 0 && args[0].equals("--child")) {
      child(
          Path.of(args[1]),
          args[2],
          Boolean.parseBoolean(args[3]),
          Integer.parseInt(args[4]),
          Integer.parseInt(args[5]));
      return;
    }
    int cycles = parse(args, 0, 8);
    int rows = parse(args, 1, 1_500);
    int idleMillis = parse(args, 2, 3_000);
    System.out.printf(
        Locale.ROOT,
        "GrowthBench: %d crash cycles of %,d one-row commits (%,d B rows) from 4 threads, %,d ms"
            + " idle before each halt; java %s, %d cores%n%n",
        cycles,
        rows,
        ROW_BYTES,
        idleMillis,
        Runtime.version(),
        Runtime.getRuntime().availableProcessors());
    System.out.println(
        "| variant | open after a crash (median) | file after the last burst | after idling |");
    System.out.println("|---|---:|---:|---:|");
    String only = args.length > 3 ? args[3] : "";
    for (Variant v : VARIANTS) {
      if (!v.name().contains(only)) {
        continue;
      }
      Path dir = Files.createTempDirectory("growth-bench");
      long[] opens = new long[cycles];
      double burst = 0;
      double idle = 0;
      for (int c = 0; c < cycles; c++) {
        String[] out = runChild(dir, v, rows, idleMillis);
        opens[c] = Long.parseLong(out[0]);
        burst = Double.parseDouble(out[1]);
        idle = Double.parseDouble(out[2]);
      }
      double logical = (double) cycles * rows * ROW_BYTES;
      Arrays.sort(opens);
      System.out.printf(
          Locale.ROOT,
          "| %s | %d ms | %.1f MiB (%.1fx) | %.1f MiB (%.1fx) |%n",
          v.name(),
          opens[cycles / 2],
          burst / (1 << 20),
          burst / logical,
          idle / (1 << 20),
          idle / logical);
      deleteTree(dir);
    }
  }

  private static int parse(String[] args, int i, int fallback) {
    return args.length > i ? Integer.parseInt(args[i]) : fallback;
  }

  /** Runs one cycle in a child JVM; returns its open millis, burst bytes and idle bytes. */
  private static String[] runChild(Path dir, Variant v, int rows, int idleMillis)
      throws IOException, InterruptedException {
    Process p =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                GrowthBench.class.getName(),
                "--child",
                dir.resolve("db").toString(),
                v.options(),
                Boolean.toString(v.housekeeping()),
                Integer.toString(rows),
                Integer.toString(idleMillis))
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    String line;
    try (BufferedReader in =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      line = in.readLine();
    }
    p.waitFor();
    if (line == null) {
      throw new IllegalStateException("a cycle printed nothing (exit " + p.exitValue() + ")");
    }
    return line.split(" ");
  }

  /** One cycle: open, write, idle, print "openMillis burstBytes idleBytes", halt. */
  private static void child(Path db, String options, boolean housekeeping, int rows, int idleMillis)
      throws Exception {
    String url = "jdbc:h2:file:" + db + ";WRITE_DELAY=0;DB_CLOSE_ON_EXIT=FALSE" + options;
    long t0 = System.nanoTime();
    Connection main = DriverManager.getConnection(url);
    long openMillis = (System.nanoTime() - t0) / 1_000_000;
    try (Statement st = main.createStatement()) {
      st.execute(
          "CREATE TABLE IF NOT EXISTS m(id VARCHAR PRIMARY KEY, ns VARCHAR, content VARCHAR,"
              + " created BIGINT, vec BINARY VARYING)");
      st.execute("CREATE INDEX IF NOT EXISTS m_ns ON m(ns, created)");
    }
    if (housekeeping) {
      H2Housekeeping.start(main, "bench");
    }
    AtomicInteger next = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(4);
    List<Future<?>> writers = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      writers.add(pool.submit(() -> write(url, rows, next)));
    }
    for (Future<?> w : writers) {
      w.get();
    }
    Path file = Path.of(db + ".mv.db");
    long burst = Files.size(file);
    Thread.sleep(idleMillis);
    long idle = Files.size(file);
    System.out.println(openMillis + " " + burst + " " + idle);
    System.out.flush();
    Runtime.getRuntime().halt(0);
  }

  private static Void write(String url, int rows, AtomicInteger next) throws SQLException {
    byte[] vector = new byte[1_024];
    try (Connection c = DriverManager.getConnection(url);
        PreparedStatement insert = c.prepareStatement("INSERT INTO m VALUES (?, ?, ?, ?, ?)")) {
      c.setAutoCommit(false);
      while (next.incrementAndGet() <= rows) {
        insert.setString(1, UUID.randomUUID().toString());
        insert.setString(2, "ws/bench");
        insert.setString(3, "x".repeat(120) + System.nanoTime());
        insert.setLong(4, System.currentTimeMillis());
        insert.setBytes(5, vector);
        insert.executeUpdate();
        c.commit();
      }
    }
    return null;
  }

  private static void deleteTree(Path dir) throws IOException {
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
