package dev.memsidecar.core.maintenance;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

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

  /**
   * A lease that one of the sidecars sharing the store holds while it runs a maintenance pass.
   *
   * @param owner who took it last
   * @param expireTime when it lapses unless renewed (in the past once released)
   * @param passStart when the last pass taken under it started
   */
  record Lease(String name, String owner, Instant expireTime, Instant passStart) {}

  /**
   * Takes lease {@code name} for {@code owner} until {@code until}, for a pass starting at {@code
   * start}: only if nobody else holds it at {@code start} (never taken, released, or expired) and
   * no pass under it started at or after {@code notStartedSince}. Of several takers at once, in any
   * process on the same database, at most one gets true.
   */
  boolean takeLease(
      String name, String owner, Instant start, Instant until, Instant notStartedSince);

  /** Extends {@code owner}'s hold of lease {@code name} to {@code until}; false if it lost it. */
  boolean renewLease(String name, String owner, Instant until);

  /** Ends {@code owner}'s hold of lease {@code name}; nothing if another holds it. */
  void releaseLease(String name, String owner);

  /** Lease {@code name} as stored, if it was ever taken. */
  Optional<Lease> lease(String name);
}
