package dev.memsidecar.core.maintenance;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.core.config.Maintenance;

/**
 * The {@value #NAME} target: the sidecar's own tables. Deletes BeginRun snapshots past their time
 * to live ({@code memory.runs.snapshotTtl}), then prunes the write-decision audit: decisions older
 * than {@code auditMaxAge}, then the oldest until the rest hold at most {@code auditMaxBytes}.
 * Counts {@code snapshots_deleted}, {@code decisions_deleted_age}, {@code decisions_deleted_size}.
 */
public final class HousekeepingTarget implements MaintenanceTarget {
  public static final String NAME = "housekeeping";

  private final MaintenanceStore store;
  private final Maintenance.Housekeeping limits;

  public HousekeepingTarget(MaintenanceStore store, Maintenance.Housekeeping limits) {
    this.store = requireNonNull(store, "store is null");
    this.limits = requireNonNull(limits, "limits is null");
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public void run(MaintenancePass pass) {
    pass.add("snapshots_deleted", store.deleteExpiredSnapshots(pass.startTime()));
    pass.checkStopped();
    long byAge = 0;
    if (!limits.auditMaxAge().isZero()) {
      byAge = store.deleteDecisionsBefore(pass.startTime().minus(limits.auditMaxAge()));
    }
    pass.add("decisions_deleted_age", byAge);
    pass.checkStopped();
    long bySize = 0;
    if (limits.auditMaxBytes() > 0) {
      bySize = store.trimDecisionsTo(limits.auditMaxBytes());
    }
    pass.add("decisions_deleted_size", bySize);
  }
}
