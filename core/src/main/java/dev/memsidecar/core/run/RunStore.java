package dev.memsidecar.core.run;

import dev.memsidecar.core.Scope;
import dev.memsidecar.core.WriteDecision;
import dev.memsidecar.core.learning.RunReceipt;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * What runs must remember apart from the memories in the providers: BeginRun snapshots, EndRun
 * results (idempotency) with the runs' receipts, and the audit of write decisions. The control
 * store implements it ({@code core.control}, which this package does not see). Every write is
 * durable when its method returns ({@code kill -9} loses nothing acknowledged). Runs are keyed by
 * the caller's whole scope and the run id, so two users' runs with one id never meet. Thread-safe.
 */
public interface RunStore extends AutoCloseable {

  /**
   * Runs {@code work} holding the lock named {@code name} in every process that shares this store's
   * database (the sidecars on one PostgreSQL), so that their writes to one namespace are decided
   * one at a time. The caller keeps its own in-process lock too; on a database that one process
   * opens (H2) this just runs {@code work}.
   *
   * @throws dev.memsidecar.api.MemoryException UNAVAILABLE if the lock cannot be taken
   */
  default <T> T underSharedLock(String name, java.util.function.Supplier<T> work) {
    return work.get();
  }

  /**
   * The snapshot of ({@code scope}, {@code runId}) if one exists that expires after {@code now}.
   */
  Optional<RunSnapshot> snapshot(Scope scope, String runId, Instant now);

  /**
   * Keeps {@code snapshot} for ({@code scope}, its run id), replacing an expired one. When a live
   * snapshot already exists (a concurrent BeginRun of the same run won), keeps that one and returns
   * it; otherwise returns {@code snapshot}.
   */
  RunSnapshot saveSnapshot(Scope scope, RunSnapshot snapshot, Instant now);

  /** Deletes snapshots that expired before {@code now}; returns how many. */
  int deleteExpiredSnapshots(Instant now);

  /** The result EndRun gave for ({@code scope}, {@code runId}), if it has run. */
  Optional<EndRunResult> endRun(Scope scope, String runId);

  /**
   * Keeps {@code result} and its decisions in the audit, in one transaction. When a result for the
   * run exists already (a concurrent retry won), keeps that one and returns it.
   */
  default EndRunResult saveEndRun(Scope scope, EndRunResult result) {
    return saveEndRun(scope, result, null);
  }

  /**
   * Keeps {@code result}, its decisions in the audit and the run's receipt (joining the run to its
   * task), in one transaction. When a result for the run exists already (a concurrent retry won),
   * keeps that one and returns it, and keeps no second receipt.
   *
   * @param receipt the run's receipt, for the same scope and run; null keeps none
   */
  EndRunResult saveEndRun(Scope scope, EndRunResult result, RunReceipt receipt);

  /** Adds decisions made outside a run (Remember) to the audit. */
  void recordDecisions(Scope scope, String runId, List<WriteDecision> decisions, Instant time);

  /** One page of the audit, oldest first. */
  List<DecisionEntry> decisions(DecisionQuery query);

  /**
   * The scopes (workspace, user and agent ids; no session id) that left a trace in the control
   * plane: a write decision, a run, a session or a tool rule (workspace only); sorted, at most
   * {@code limit}. What an inspector browses from.
   */
  List<Scope> scopesSeen(int limit);

  /**
   * Closes the store behind it (the whole control store, whose tables the tool rules share).
   * Idempotent.
   */
  @Override
  void close();
}
