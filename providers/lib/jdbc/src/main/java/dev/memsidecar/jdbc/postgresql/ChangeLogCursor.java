package dev.memsidecar.jdbc.postgresql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;

/**
 * How far a reader of a change log (a table whose rows are numbered by an identity column {@code
 * seq}) has read, such that no row is ever skipped, though rows become visible out of order: a
 * transaction that drew seq 10 may commit after one that drew 11, or roll back and leave 10 unused
 * for good.
 *
 * <p>The reader keeps the highest seq it has seen ({@link #highWater}) and the seqs below it that
 * it has not seen, the <em>gaps</em>. Each read runs in one {@code REPEATABLE READ} snapshot
 * ({@link Snapshot#current}) and asks for the rows above the high-water mark and the rows of the
 * gaps; what it found goes to {@link #advance}. A gap is kept until its row is read, or until a
 * snapshot shows that every transaction that was running when the gap was found has ended ({@code
 * xmin} of the new snapshot at or above {@code xmax} of the one that found it): a row still missing
 * then was rolled back, and is dropped. No timeout is involved, so a late commit is never missed
 * however late it is. This holds when a writer has its transaction id before it draws a seq, which
 * a writer that first changes or locks the row the log entry is about always has.
 *
 * <p>A reader that started late (or lost track) starts a window below the newest row ({@link
 * #start}), so rows drawn before it started and committed after are read too. Not thread-safe: one
 * reader thread owns a cursor.
 */
public final class ChangeLogCursor {
  /** The most gaps kept; past it {@link #advance} says the reader lost track. */
  public static final int MAX_GAPS = 100_000;

  /**
   * The {@code xmin} and {@code xmax} of a PostgreSQL snapshot ({@code pg_current_snapshot()}):
   * every transaction id below {@code xmin} has ended; none at or above {@code xmax} had started.
   */
  public record Snapshot(long xmin, long xmax) {
    /**
     * The snapshot of the transaction on {@code c}; in a {@code REPEATABLE READ} transaction, the
     * one its every statement reads (so run this first).
     */
    public static Snapshot current(Connection c) throws SQLException {
      try (PreparedStatement st =
              c.prepareStatement(
                  "SELECT pg_snapshot_xmin(s)::text, pg_snapshot_xmax(s)::text"
                      + " FROM pg_current_snapshot() s");
          ResultSet rs = st.executeQuery()) {
        rs.next();
        return new Snapshot(Long.parseLong(rs.getString(1)), Long.parseLong(rs.getString(2)));
      }
    }
  }

  private long highWater;

  /**
   * Seqs below the high-water mark not seen yet, each with the xmax of the snapshot that found it.
   */
  private final TreeMap<Long, Long> gaps = new TreeMap<>();

  private ChangeLogCursor(long highWater) {
    this.highWater = highWater;
  }

  /**
   * A cursor that reads the rows after {@code newest - window} (the newest seq in the log, 0 for an
   * empty one): {@code window} bounds how many seqs may have been drawn, and not yet committed, by
   * writers still running when the reader starts.
   */
  public static ChangeLogCursor start(long newest, long window) {
    if (newest < 0 || window < 0) {
      throw new IllegalArgumentException("newest and window must be >= 0");
    }
    return new ChangeLogCursor(Math.max(0, newest - window));
  }

  /** The highest seq seen: the next read asks for the rows above it. */
  public long highWater() {
    return highWater;
  }

  /** The seqs below {@link #highWater} not seen yet, ascending: the next read asks for them too. */
  public long[] gaps() {
    return gaps.keySet().stream().mapToLong(Long::longValue).toArray();
  }

  /**
   * Takes in what one read found.
   *
   * @param snapshot the snapshot the read ran in
   * @param askedGaps the {@link #gaps()} the read asked for
   * @param found the seqs it found, of {@code askedGaps} and above {@link #highWater} (any order)
   * @return false if the reader lost track (more than {@value #MAX_GAPS} gaps): it must start over,
   *     taking nothing of what it has read so far for current
   */
  public boolean advance(Snapshot snapshot, long[] askedGaps, long[] found) {
    long[] sorted = found.clone();
    Arrays.sort(sorted);
    for (long seq : sorted) {
      if (seq <= highWater) {
        gaps.remove(seq);
        continue;
      }
      if (seq - highWater - 1 > MAX_GAPS - gaps.size()) {
        return false;
      }
      for (long g = highWater + 1; g < seq; g++) {
        gaps.put(g, snapshot.xmax());
      }
      highWater = seq;
    }
    for (long g : askedGaps) {
      Long foundIn = gaps.get(g);
      // Asked for in this snapshot and not found, though every writer running when it was found
      // missing has ended: rolled back.
      if (foundIn != null && foundIn <= snapshot.xmin()) {
        gaps.remove(g);
      }
    }
    return true;
  }

  /** The number of gaps; for tests and logs. */
  public int gapCount() {
    return gaps.size();
  }

  @Override
  public String toString() {
    Map.Entry<Long, Long> first = gaps.firstEntry();
    return "ChangeLogCursor[highWater="
        + highWater
        + ", gaps="
        + gaps.size()
        + (first == null ? "" : ", oldest=" + first.getKey())
        + "]";
  }
}
