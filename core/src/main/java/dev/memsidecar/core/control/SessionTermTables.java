package dev.memsidecar.core.control;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.core.sessions.MessageRole;
import dev.memsidecar.core.sessions.SessionKey;
import dev.memsidecar.core.sessions.SessionStore;
import dev.memsidecar.toolkit.HybridScore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The inverted index of the visible session messages' terms ({@code session_terms}, with per-owner
 * totals in {@code session_stats}) and the full-text search over it, {@link ControlSchema}.
 * Portable SQL: the index is an ordinary table, so the same search runs on H2 and PostgreSQL; BM25
 * is computed here from the postings of the query's terms. The postings of a message are written
 * behind its append ({@link SessionTables} leaves a {@code session_unindexed} row, {@link #index}
 * claims it). Thread-safe.
 */
final class SessionTermTables {
  /** BM25's term-frequency saturation. */
  static final double K1 = 1.2;

  /** BM25's length normalisation. */
  static final double B = 0.75;

  /** How much a term of a message's context counts against one of its own. */
  static final double CONTEXT_WEIGHT = HybridScore.CONTEXT_WEIGHT;

  /** Query terms a search looks up at most; a longer query uses its first ones. */
  static final int MAX_QUERY_TERMS = 64;

  private final ControlDatabase db;

  SessionTermTables(ControlDatabase db) {
    this.db = requireNonNull(db, "db is null");
  }

  // ---------------------------------------------------------------- writes

  /**
   * Writes the postings of appended messages, each claimed by deleting its {@code
   * session_unindexed} row: a message whose row is gone (written by another, or deleted) is
   * skipped. In key order, so two writers of overlapping messages take their rows in one order.
   */
  void index(List<SessionStore.Unindexed> messages) {
    if (messages.isEmpty()) {
      return;
    }
    List<SessionStore.Unindexed> ordered =
        messages.stream()
            .sorted(
                Comparator.comparing((SessionStore.Unindexed u) -> u.key().workspaceId())
                    .thenComparing(u -> u.key().userId())
                    .thenComparing(u -> u.key().sessionId())
                    .thenComparingLong(SessionStore.Unindexed::sequence))
            .toList();
    db.run(
        "write the postings of " + messages.size() + " messages",
        c ->
            db.inTransactionRetried(
                c,
                "writing the postings of " + messages.size() + " messages",
                () -> {
                  indexInTransaction(c, ordered);
                  return null;
                }));
  }

  private static void indexInTransaction(Connection c, List<SessionStore.Unindexed> messages)
      throws SQLException {
    try (PreparedStatement claim =
            c.prepareStatement(
                "DELETE FROM "
                    + ControlSchema.SESSION_UNINDEXED
                    + " WHERE "
                    + SessionTables.KEY
                    + " AND seq = ?");
        PreparedStatement index =
            c.prepareStatement(
                "INSERT INTO "
                    + ControlSchema.SESSION_TERMS
                    + " (workspace_id, user_id, term, session_id, seq, tf, context_tf, term_count,"
                    + " context_count, message_at, role) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
                    + " ?)")) {
      for (SessionStore.Unindexed u : messages) {
        int k = SessionTables.bindKey(claim, 1, u.key());
        claim.setLong(k, u.sequence());
        if (claim.executeUpdate() == 0) {
          continue;
        }
        SessionStore.IndexTerms terms = u.terms();
        Set<String> all = new TreeSet<>(terms.own().keySet());
        all.addAll(terms.context().keySet());
        int termCount = terms.ownLength();
        int contextCount = terms.contextLength();
        long messageAt = ControlSchema.exactNanos(u.time(), "time");
        for (String t : all) {
          index.setString(1, u.key().workspaceId());
          index.setString(2, u.key().userId());
          index.setString(3, t);
          index.setString(4, u.key().sessionId());
          index.setLong(5, u.sequence());
          index.setInt(6, terms.own().getOrDefault(t, 0));
          index.setInt(7, terms.context().getOrDefault(t, 0));
          index.setInt(8, termCount);
          index.setInt(9, contextCount);
          index.setLong(10, messageAt);
          index.setString(11, u.role().name());
          index.addBatch();
        }
      }
      index.executeBatch();
    }
  }

  /** Visible messages appended before {@code appendedBefore} whose postings are not written. */
  List<SessionStore.Keyed> unindexed(Instant appendedBefore, int limit) {
    return db.run(
        "find messages whose postings are not written",
        c -> {
          try (PreparedStatement st =
              c.prepareStatement(
                  SessionTables.KEYED_MESSAGES
                      + " JOIN "
                      + ControlSchema.SESSION_UNINDEXED
                      + " u ON u.workspace_id = m.workspace_id AND u.user_id = m.user_id"
                      + " AND u.session_id = m.session_id AND u.seq = m.seq"
                      + " WHERE u.appended_at < ? LIMIT ?")) {
            st.setLong(1, ControlSchema.nanos(appendedBefore));
            st.setInt(2, limit);
            return SessionTables.keyed(st);
          }
        });
  }

  // ---------------------------------------------------------------- search

  /**
   * One posting: a message, how often the term occurs in it and in its context, how many terms it
   * and its context have.
   */
  private record Posting(
      String sessionId, long seq, int tf, int contextTf, int length, int contextLength) {}

  List<SessionStore.Match> bm25(
      SessionKey.Owner owner,
      Set<String> terms,
      SessionStore.Filter filter,
      int limit,
      Collection<SessionStore.Unindexed> unwritten) {
    List<String> query = terms.stream().limit(MAX_QUERY_TERMS).toList();
    if (query.isEmpty() || limit <= 0) {
      return List.of();
    }
    // Taken before the postings are read: a message written meanwhile is then read, or here.
    List<SessionStore.Unindexed> pending =
        unwritten.stream().filter(u -> u.key().owner().equals(owner) && passes(u, filter)).toList();
    StringBuilder sql =
        new StringBuilder(
                "SELECT term, session_id, seq, tf, context_tf, term_count, context_count FROM ")
            .append(ControlSchema.SESSION_TERMS)
            .append(" WHERE workspace_id = ? AND user_id = ? AND term = ?");
    if (!filter.sessionId().isEmpty()) {
      sql.append(" AND session_id = ?");
    }
    if (filter.from() != null) {
      sql.append(" AND message_at >= ?");
    }
    if (filter.to() != null) {
      sql.append(" AND message_at < ?");
    }
    List<MessageRole> roles = filter.roles().stream().sorted().toList();
    if (!roles.isEmpty()) {
      sql.append(" AND role IN (")
          .append(String.join(", ", Collections.nCopies(roles.size(), "?")))
          .append(')');
    }
    return db.run(
        "search sessions",
        c -> {
          long[] totals = totals(c, owner);
          if (totals[0] == 0) {
            return List.of();
          }
          Map<String, List<Posting>> postings = new HashMap<>();
          // One lookup per term: H2 walks an index for an IN list only on its first column, so
          // "term IN (...)" read every posting of the owner (~9 ms for a few thousand messages).
          try (PreparedStatement st = c.prepareStatement(sql.toString())) {
            int i = 1;
            st.setString(i++, owner.workspaceId());
            st.setString(i++, owner.userId());
            int termParameter = i++;
            if (!filter.sessionId().isEmpty()) {
              st.setString(i++, filter.sessionId());
            }
            if (filter.from() != null) {
              st.setLong(i++, ControlSchema.nanos(filter.from()));
            }
            if (filter.to() != null) {
              st.setLong(i++, ControlSchema.nanos(filter.to()));
            }
            for (MessageRole r : roles) {
              st.setString(i++, r.name());
            }
            for (String term : query) {
              st.setString(termParameter, term);
              try (ResultSet rs = st.executeQuery()) {
                while (rs.next()) {
                  postings
                      .computeIfAbsent(rs.getString(1), t -> new ArrayList<>())
                      .add(
                          new Posting(
                              rs.getString(2),
                              rs.getLong(3),
                              rs.getInt(4),
                              rs.getInt(5),
                              rs.getInt(6),
                              rs.getInt(7)));
                }
              }
            }
          }
          for (SessionStore.Unindexed u : pending) {
            addUnwritten(postings, query, u);
          }
          List<SessionStore.Match> ranked =
              bm25(postings, totals[0], totals[1] + CONTEXT_WEIGHT * totals[2]);
          return List.copyOf(ranked.subList(0, Math.min(limit, ranked.size())));
        });
  }

  /** The postings of a message not written yet, for the terms of the query it is not read with. */
  private static void addUnwritten(
      Map<String, List<Posting>> postings, List<String> query, SessionStore.Unindexed u) {
    SessionStore.IndexTerms terms = u.terms();
    String sessionId = u.key().sessionId();
    for (String t : query) {
      int tf = terms.own().getOrDefault(t, 0);
      int contextTf = terms.context().getOrDefault(t, 0);
      if (tf == 0 && contextTf == 0) {
        continue;
      }
      List<Posting> list = postings.computeIfAbsent(t, x -> new ArrayList<>());
      if (list.stream()
          .noneMatch(p -> p.seq() == u.sequence() && p.sessionId().equals(sessionId))) {
        list.add(
            new Posting(
                sessionId, u.sequence(), tf, contextTf, terms.ownLength(), terms.contextLength()));
      }
    }
  }

  /** Whether a message not written yet passes a filter (the query applies it to the postings). */
  private static boolean passes(SessionStore.Unindexed u, SessionStore.Filter f) {
    return (f.sessionId().isEmpty() || f.sessionId().equals(u.key().sessionId()))
        && (f.from() == null || !u.time().isBefore(f.from()))
        && (f.to() == null || u.time().isBefore(f.to()))
        && (f.roles().isEmpty() || f.roles().contains(u.role()));
  }

  /**
   * BM25F (Robertson and Zaragoza's IDF, {@code ln(1 + (N - df + 0.5) / (df + 0.5))}; a term of the
   * context counts {@link #CONTEXT_WEIGHT} of one of the message, in term frequencies and lengths
   * alike, as in the record stores' ranking) of every message in the postings, best first; ties go
   * to the newer message.
   */
  private static List<SessionStore.Match> bm25(
      Map<String, List<Posting>> postings, long n, double totalTerms) {
    double avgLength = Math.max(1.0, totalTerms / Math.max(1, n));
    Map<String, double[]> scores = new HashMap<>();
    Map<String, Posting> first = new HashMap<>();
    for (List<Posting> list : postings.values()) {
      double df = list.size();
      double idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      for (Posting p : list) {
        double length = p.length() + CONTEXT_WEIGHT * p.contextLength();
        double tf = p.tf() + CONTEXT_WEIGHT * p.contextTf();
        double norm = K1 * (1 - B + B * length / avgLength);
        double s = idf * tf * (K1 + 1) / (tf + norm);
        String id = p.sessionId() + "\n" + p.seq();
        scores.computeIfAbsent(id, k -> new double[1])[0] += s;
        first.putIfAbsent(id, p);
      }
    }
    List<SessionStore.Match> out = new ArrayList<>(scores.size());
    scores.forEach(
        (id, s) -> {
          Posting p = first.get(id);
          out.add(new SessionStore.Match(p.sessionId(), p.seq(), s[0]));
        });
    out.sort(
        Comparator.comparingDouble(SessionStore.Match::score)
            .reversed()
            .thenComparing(Comparator.comparingLong(SessionStore.Match::sequence).reversed())
            .thenComparing(SessionStore.Match::sessionId));
    return out;
  }

  /** The owner's visible messages, their terms and their context terms, zeros when none. */
  private static long[] totals(Connection c, SessionKey.Owner owner) throws SQLException {
    try (PreparedStatement st =
        c.prepareStatement(
            "SELECT messages, terms, context_terms FROM "
                + ControlSchema.SESSION_STATS
                + " WHERE workspace_id = ? AND user_id = ?")) {
      st.setString(1, owner.workspaceId());
      st.setString(2, owner.userId());
      try (ResultSet rs = st.executeQuery()) {
        return rs.next()
            ? new long[] {rs.getLong(1), rs.getLong(2), rs.getLong(3)}
            : new long[] {0, 0, 0};
      }
    }
  }
}
