package dev.memsidecar.core.maintenance;

import java.time.Instant;
import java.util.List;

/**
 * What maintenance keeps and prunes in the control store ({@code core.control} implements it; this
 * package does not see it): the last run of each target, and the pruning of the write-decision
 * audit. Every write is durable when its method returns. Thread-safe.
 */
public interface MaintenanceStore {

  /** Keeps {@code run} as its target's last run, replacing the one before. */
  void saveRun(TargetRun run);

  /** The last run of every target that ever ran, by target name. */
  List<TargetRun> lastRuns();

  /** Deletes BeginRun snapshots that expired before {@code now}; returns how many. */
  int deleteExpiredSnapshots(Instant now);

  /** Deletes the write decisions decided before {@code before}; returns how many. */
  long deleteDecisionsBefore(Instant before);

  /**
   * Deletes the oldest write decisions until the rest hold at most {@code maxBytes} bytes (the
   * length of each decision as stored); returns how many it deleted.
   */
  long trimDecisionsTo(long maxBytes);
}
