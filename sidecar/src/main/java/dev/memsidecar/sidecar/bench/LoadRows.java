package dev.memsidecar.sidecar.bench;

import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.concurrent.TimeoutException;

/**
 * What {@code bench load} ({@link LoadBench}) measured and the lines of its two tables: a phase's
 * calls, throughput and the sidecar's CPU time per call ({@link Phase}, {@link Row}), and the
 * sidecar's memory and data folder at a moment ({@link Snapshot}).
 */
final class LoadRows {
  private LoadRows() {}

  /** Bytes as MiB, or "n/a" when not known. */
  static String mib(OptionalLong bytes) {
    return bytes.isPresent()
        ? String.format(Locale.ROOT, "%,.0f MiB", bytes.getAsLong() / (1024.0 * 1024.0))
        : "n/a";
  }

  /**
   * A phase's call latencies and wall time; the sidecar's CPU time (user and system) when it began,
   * and once {@link #ended} or {@link #withVectors}, what it used since.
   */
  record Phase(long[] nanos, long wallNanos, OptionalLong cpuAtStart, OptionalLong cpuNanos) {
    Double throughput() {
      return wallNanos == 0 ? null : nanos.length / Figures.seconds(wallNanos);
    }

    /** The sidecar's CPU time per call, once measured. */
    OptionalLong cpuPerCall() {
      return cpuNanos.isPresent() && nanos.length > 0
          ? OptionalLong.of(cpuNanos.getAsLong() / nanos.length)
          : OptionalLong.empty();
    }

    /** This phase with the sidecar's CPU time from its start to now. */
    Phase ended(SidecarProcess process) {
      OptionalLong now = process.cpuNanos();
      return new Phase(
          nanos,
          wallNanos,
          cpuAtStart,
          now.isPresent() && cpuAtStart.isPresent()
              ? OptionalLong.of(now.getAsLong() - cpuAtStart.getAsLong())
              : OptionalLong.empty());
    }

    /**
     * {@link #ended} once every vector the phase's writes left to make behind them is made: their
     * CPU time counts in the phase's.
     */
    Phase withVectors(SidecarProcess process) throws InterruptedException, TimeoutException {
      process.awaitVectors(Duration.ofHours(2));
      return ended(process);
    }
  }

  /**
   * One line of the first table: latencies, throughput, and the sidecar's CPU time per call (empty
   * when not measured).
   */
  record Row(String name, long[] sorted, Double throughput, OptionalLong cpuPerCall) {
    static Row latency(String name, long[] nanos, Double throughput) {
      return new Row(name, sorted(nanos), throughput, OptionalLong.empty());
    }

    /** A phase's calls at {@code throughput} (items a second, or calls), with their CPU time. */
    static Row of(String name, Phase phase, Double throughput) {
      return new Row(name, sorted(phase.nanos()), throughput, phase.cpuPerCall());
    }

    private static long[] sorted(long[] nanos) {
      long[] sorted = nanos.clone();
      Arrays.sort(sorted);
      return sorted;
    }

    String markdown() {
      return String.format(
          Locale.ROOT,
          "| %s | %d | %.2f ms | %.2f ms | %.2f ms | %s | %s |",
          name,
          sorted.length,
          Figures.millis(Figures.percentile(sorted, 50)),
          Figures.millis(Figures.percentile(sorted, 99)),
          Figures.millis(sorted.length == 0 ? 0 : sorted[sorted.length - 1]),
          throughput == null ? "" : String.format(Locale.ROOT, "%,.0f/s", throughput),
          cpuPerCall.isPresent()
              ? String.format(Locale.ROOT, "%.2f ms", Figures.millis(cpuPerCall.getAsLong()))
              : "");
    }
  }

  /**
   * The sidecar's RSS now and its peak so far (empty when it is not running or there is no {@code
   * /proc}), and the data folder's size with the records the store holds then (the warm-up's
   * included; fewer if Remember merged some): a line of the second table.
   */
  record Snapshot(
      String moment,
      OptionalLong rss,
      OptionalLong fileRss,
      OptionalLong peak,
      long dataBytes,
      long stored) {
    String markdown() {
      return String.format(
          Locale.ROOT,
          "| %s | %s | %s | %s | %,.1f MiB | %,.2f KB (%,d records) |",
          moment,
          rss.isPresent() ? mib(rss) : "",
          fileRss.isPresent() ? mib(fileRss) : "",
          peak.isPresent() ? mib(peak) : "",
          dataBytes / (1024.0 * 1024.0),
          stored == 0 ? 0 : dataBytes / 1000.0 / stored,
          stored);
    }
  }
}
