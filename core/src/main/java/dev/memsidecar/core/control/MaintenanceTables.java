package dev.memsidecar.core.control;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.core.maintenance.MaintenanceStore;
import dev.memsidecar.core.maintenance.TargetRun;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What maintenance keeps ({@code maintenance_runs}: one row per target, its last run) and the
 * pruning of the write-decision audit ({@code write_decisions}), in batches of {@value #BATCH} rows
 * so that no transaction holds the audit long. Thread-safe.
 */
final class MaintenanceTables {
  /** Rows deleted per transaction. */
  static final int BATCH = 5_000;

  private final ControlDatabase db;

  MaintenanceTables(ControlDatabase db) {
    this.db = db;
  }

  void saveRun(TargetRun run) {
    requireNonNull(run, "run is null");
    String json = ControlJson.write(run);
    db.run(
        "keep the maintenance run of " + run.target(),
        c -> {
          try (PreparedStatement st =
              c.prepareStatement(
                  db.upsert(
                      ControlSchema.MAINTENANCE_RUNS,
                      List.of("target", "ok", "started_at", "ended_at", "run_json"),
                      List.of("target")))) {
            st.setString(1, run.target());
            st.setBoolean(2, run.ok());
            st.setLong(3, ControlSchema.nanos(run.startTime()));
            st.setLong(4, ControlSchema.nanos(run.endTime()));
            st.setString(5, json);
            return st.executeUpdate();
          }
        });
  }

  /**
   * Takes lease {@code name} for {@code owner} until {@code until}, for a pass that starts at
   * {@code start}: when nobody holds it (never taken, or expired at {@code start}) or {@code owner}
   * does, and no pass under it started at or after {@code notStartedSince}. One conditional update,
   * or an insert when the lease has no row yet; of several takers at once, in any process, one
   * wins.
   */
  boolean takeLease(
      String name, String owner, Instant start, Instant until, Instant notStartedSince) {
    long startNanos = ControlSchema.nanos(start);
    long untilNanos = ControlSchema.nanos(until);
    long sinceNanos = ControlSchema.nanos(notStartedSince);
    return db.run(
        "take the maintenance lease " + name,
        c -> {
          try (PreparedStatement st =
              c.prepareStatement(
                  "UPDATE "
                      + ControlSchema.MAINTENANCE_LEASES
                      + " SET owner = ?, expire_at = ?, pass_start = ? WHERE name = ?"
                      + " AND (expire_at <= ? OR owner = ?) AND pass_start < ?")) {
            st.setString(1, owner);
            st.setLong(2, untilNanos);
            st.setLong(3, startNanos);
            st.setString(4, name);
            st.setLong(5, startNanos);
            st.setString(6, owner);
            st.setLong(7, sinceNanos);
            if (st.executeUpdate() == 1) {
              return true;
            }
          }
          try (PreparedStatement st =
              c.prepareStatement(
                  "INSERT INTO "
                      + ControlSchema.MAINTENANCE_LEASES
                      + " (name, owner, expire_at, pass_start) VALUES (?, ?, ?, ?)")) {
            st.setString(1, name);
            st.setString(2, owner);
            st.setLong(3, untilNanos);
            st.setLong(4, startNanos);
            return db.insertUnlessTaken(st); // taken: held, or this pass ran already
          }
        });
  }

  /** Extends {@code owner}'s hold of lease {@code name} to {@code until}; false if it lost it. */
  boolean renewLease(String name, String owner, Instant until) {
    return db.run(
        "renew the maintenance lease " + name,
        c -> {
          try (PreparedStatement st =
              c.prepareStatement(
                  "UPDATE "
                      + ControlSchema.MAINTENANCE_LEASES
                      + " SET expire_at = ? WHERE name = ? AND owner = ?")) {
            st.setLong(1, ControlSchema.nanos(until));
            st.setString(2, name);
            st.setString(3, owner);
            return st.executeUpdate() == 1;
          }
        });
  }

  /** Ends {@code owner}'s hold of lease {@code name} (it expires at once); nothing if not held. */
  void releaseLease(String name, String owner) {
    db.run(
        "release the maintenance lease " + name,
        c -> {
          try (PreparedStatement st =
              c.prepareStatement(
                  "UPDATE "
                      + ControlSchema.MAINTENANCE_LEASES
                      + " SET expire_at = ? WHERE name = ? AND owner = ?")) {
            st.setLong(1, Long.MIN_VALUE);
            st.setString(2, name);
            st.setString(3, owner);
            return st.executeUpdate();
          }
        });
  }

  /** Lease {@code name}: its holder, expiry and last pass start, if it was ever taken. */
  Optional<MaintenanceStore.Lease> lease(String name) {
    return db.run(
        "read the maintenance lease " + name,
        c -> {
          try (PreparedStatement st =
              c.prepareStatement(
                  "SELECT owner, expire_at, pass_start FROM "
                      + ControlSchema.MAINTENANCE_LEASES
                      + " WHERE name = ?")) {
            st.setString(1, name);
            try (ResultSet rs = st.executeQuery()) {
              return rs.next()
                  ? Optional.of(
                      new MaintenanceStore.Lease(
                          name,
                          rs.getString(1),
                          ControlSchema.instant(rs.getLong(2)),
                          ControlSchema.instant(rs.getLong(3))))
                  : Optional.empty();
            }
          }
        });
  }

  List<TargetRun> lastRuns() {
    return db.run(
        "read the maintenance runs",
        c -> {
          List<TargetRun> out = new ArrayList<>();
          try (PreparedStatement st =
                  c.prepareStatement(
                      "SELECT target, run_json FROM "
                          + ControlSchema.MAINTENANCE_RUNS
                          + " ORDER BY target");
              ResultSet rs = st.executeQuery()) {
            while (rs.next()) {
              out.add(
                  ControlJson.read(
                      rs.getString(2), TargetRun.class, "maintenance run of " + rs.getString(1)));
            }
          }
          return List.copyOf(out);
        });
  }

  long deleteDecisionsBefore(Instant before) {
    requireNonNull(before, "before is null");
    long cutoff = ControlSchema.nanos(before);
    Long last =
        db.run(
            "find the write decisions to prune by age",
            c -> {
              try (PreparedStatement st =
                  c.prepareStatement(
                      "SELECT MAX(seq) FROM "
                          + ControlSchema.DECISIONS
                          + " WHERE decided_at < ?")) {
                st.setLong(1, cutoff);
                try (ResultSet rs = st.executeQuery()) {
                  rs.next();
                  long v = rs.getLong(1);
                  return rs.wasNull() ? null : v;
                }
              }
            });
    return last == null ? 0 : deleteThrough(last, cutoff);
  }

  long trimDecisionsTo(long maxBytes) {
    long[] total =
        db.run(
            "measure the write-decision audit",
            c -> {
              try (PreparedStatement st =
                      c.prepareStatement(
                          "SELECT COALESCE(SUM(LENGTH(decision_json)), 0) FROM "
                              + ControlSchema.DECISIONS);
                  ResultSet rs = st.executeQuery()) {
                rs.next();
                return new long[] {rs.getLong(1)};
              }
            });
    long excess = total[0] - maxBytes;
    if (excess <= 0) {
      return 0;
    }
    Long last =
        db.run(
            "find the write decisions to prune by size",
            c -> {
              try (PreparedStatement st =
                  c.prepareStatement(
                      "SELECT seq, LENGTH(decision_json) FROM "
                          + ControlSchema.DECISIONS
                          + " ORDER BY seq")) {
                st.setFetchSize(1000);
                long freed = 0;
                try (ResultSet rs = st.executeQuery()) {
                  while (rs.next()) {
                    freed += rs.getLong(2);
                    if (freed >= excess) {
                      return rs.getLong(1);
                    }
                  }
                }
                return null;
              }
            });
    return last == null ? 0 : deleteThrough(last, Long.MAX_VALUE);
  }

  /** Deletes the decisions with {@code seq <= last} decided before {@code cutoff}, in batches. */
  private long deleteThrough(long last, long cutoff) {
    long deleted = 0;
    while (true) {
      int n =
          db.run(
              "prune the write-decision audit",
              c -> {
                try (PreparedStatement st =
                    c.prepareStatement(
                        "DELETE FROM "
                            + ControlSchema.DECISIONS
                            + " WHERE seq IN (SELECT seq FROM "
                            + ControlSchema.DECISIONS
                            + " WHERE seq <= ? AND decided_at < ? ORDER BY seq FETCH FIRST "
                            + BATCH
                            + " ROWS ONLY)")) {
                  st.setLong(1, last);
                  st.setLong(2, cutoff);
                  return st.executeUpdate();
                }
              });
      deleted += n;
      if (n < BATCH) {
        return deleted;
      }
    }
  }
}
