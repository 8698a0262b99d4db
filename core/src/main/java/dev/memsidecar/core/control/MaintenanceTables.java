package dev.memsidecar.core.control;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.core.maintenance.TargetRun;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

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
                  "MERGE INTO "
                      + ControlSchema.MAINTENANCE_RUNS
                      + " (target, ok, started_at, ended_at, run_json) KEY (target)"
                      + " VALUES (?, ?, ?, ?, ?)")) {
            st.setString(1, run.target());
            st.setBoolean(2, run.ok());
            st.setLong(3, ControlSchema.nanos(run.startTime()));
            st.setLong(4, ControlSchema.nanos(run.endTime()));
            st.setString(5, json);
            return st.executeUpdate();
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
