package dev.memsidecar.core.maintenance;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CancellationException;
import java.util.function.BooleanSupplier;

/**
 * What one run of a {@link MaintenanceTarget} is given and what it counts. Thread-safe: a target
 * may count from several threads.
 */
public final class MaintenancePass {
  private final String prompt;
  private final Instant startTime;
  private final BooleanSupplier stopping;
  private final TreeMap<String, Long> counts = new TreeMap<>();

  /**
   * @param prompt {@code memory.maintenance.prompt}, shared by every target
   * @param startTime when the pass started
   * @param stopping true once the sidecar is stopping: the pass should end soon
   */
  public MaintenancePass(String prompt, Instant startTime, BooleanSupplier stopping) {
    this.prompt = requireNonNull(prompt, "prompt is null");
    this.startTime = requireNonNull(startTime, "startTime is null");
    this.stopping = requireNonNull(stopping, "stopping is null");
  }

  /** What consolidation keeps and drops, in the operator's words. */
  public String prompt() {
    return prompt;
  }

  /** When the pass started: the "now" of its decisions about age and expiry. */
  public Instant startTime() {
    return startTime;
  }

  /** Adds {@code n} to the count {@code name} (e.g. {@code merged}); a count of 0 is shown too. */
  public void add(String name, long n) {
    requireNonNull(name, "name is null");
    synchronized (counts) {
      counts.merge(name, n, Long::sum);
    }
  }

  /** The counts so far, by name. */
  public Map<String, Long> counts() {
    synchronized (counts) {
      return Map.copyOf(counts);
    }
  }

  /** Whether the sidecar is stopping. */
  public boolean stopping() {
    return stopping.getAsBoolean() || Thread.currentThread().isInterrupted();
  }

  /**
   * Throws when the sidecar is stopping, so the pass ends between two pieces of work (each of which
   * leaves the stores consistent).
   */
  public void checkStopped() {
    if (stopping()) {
      throw new CancellationException("the sidecar is stopping");
    }
  }
}
