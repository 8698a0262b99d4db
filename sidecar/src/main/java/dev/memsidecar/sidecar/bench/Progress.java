package dev.memsidecar.sidecar.bench;

import java.io.PrintStream;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A phase of a bench that counts done items and prints {@code phase: done/total (rate/s)} every few
 * seconds, then one closing line. Thread-safe: workers call {@link #add} from any thread.
 */
final class Progress implements AutoCloseable {
  private static final long EVERY_SECONDS = 5;

  private final PrintStream err;
  private final String phase;
  private final long total;
  private final long t0 = System.nanoTime();
  private final AtomicLong done = new AtomicLong();
  private final ScheduledExecutorService ticker;

  Progress(PrintStream err, String phase, long total) {
    this.err = err;
    this.phase = phase;
    this.total = total;
    this.ticker =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "bench-progress");
              t.setDaemon(true);
              return t;
            });
    ticker.scheduleAtFixedRate(this::print, EVERY_SECONDS, EVERY_SECONDS, TimeUnit.SECONDS);
  }

  void add(long n) {
    done.addAndGet(n);
  }

  private void print() {
    long n = done.get();
    double seconds = Figures.seconds(System.nanoTime() - t0);
    err.printf(
        Locale.ROOT,
        "  %s: %,d/%,d (%.0f%%, %,.0f/s)%n",
        phase,
        n,
        total,
        total == 0 ? 100.0 : 100.0 * n / total,
        seconds == 0 ? 0 : n / seconds);
  }

  /** Stops the ticker and prints how many were done in how long. */
  @Override
  public void close() {
    ticker.shutdownNow();
    long n = done.get();
    double seconds = Figures.seconds(System.nanoTime() - t0);
    err.printf(
        Locale.ROOT,
        "  %s: %,d done in %.1f s (%,.0f/s)%n",
        phase,
        n,
        seconds,
        seconds == 0 ? 0 : n / seconds);
  }
}
