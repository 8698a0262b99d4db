package dev.memsidecar.core.control;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.core.sessions.MessageRole;
import dev.memsidecar.core.sessions.SessionInfo;
import dev.memsidecar.core.sessions.SessionKey;
import dev.memsidecar.core.sessions.SessionMessage;
import dev.memsidecar.core.sessions.SessionStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Sessions ({@code sessions}), their messages ({@code session_messages}), the per-owner totals of
 * their terms ({@code session_stats}) and the rows of the messages whose postings are still to be
 * written ({@code session_unindexed}), {@link ControlSchema}; the postings and the search over them
 * are {@link SessionTermTables}', their vectors {@link SessionVectorTables}'.
 *
 * <p>An append is one transaction that locks its session's row, so the messages of one session get
 * consecutive sequence numbers in commit order; two appends to one new session race to create its
 * row, and the loser starts again ({@link ControlDatabase#inTransactionRetried}). Thread-safe.
 */
final class SessionTables {
  /** Messages a retention pass deletes per transaction. */
  static final int PURGE_BATCH = 500;

  static final String KEY = "workspace_id = ? AND user_id = ? AND session_id = ?";
  static final String MESSAGE_COLUMNS =
      "session_id, seq, id, role, name, content, message_at, visible, run_id, extra_json";

  /** The messages of one session ({@link #KEY}'s parameters), to be narrowed with " AND ...". */
  private static final String SELECT_MESSAGES =
      "SELECT " + MESSAGE_COLUMNS + " FROM " + ControlSchema.SESSION_MESSAGES + " WHERE " + KEY;

  /** Messages with their owners, from {@code session_messages m}: the start of a query. */
  static final String KEYED_MESSAGES =
      "SELECT m.workspace_id, m.user_id, "
          + MESSAGE_COLUMNS.replaceAll("(^|, )", "$1m.")
          + " FROM "
          + ControlSchema.SESSION_MESSAGES
          + " m";

  private final ControlDatabase db;

  SessionTables(ControlDatabase db) {
    this.db = db;
  }

  /** What a message carries apart from its columns, as JSON in {@code extra_json}. */
  record Extras(
      SessionMessage.ToolInvocation toolCall,
      SessionMessage.ToolOutcome toolResult,
      long inputTokens,
      long outputTokens,
      String snapshotId,
      Map<String, String> metadata) {}

  // ---------------------------------------------------------------- append

  List<SessionMessage> append(
      SessionKey key,
      String agentId,
      List<SessionMessage> messages,
      List<SessionStore.IndexTerms> terms,
      Instant now) {
    requireNonNull(key, "key is null");
    requireNonNull(agentId, "agentId is null");
    if (messages.size() != terms.size()) {
      throw new IllegalArgumentException("one term map per message");
    }
    long at = ControlSchema.exactNanos(now, "now");
    for (int i = 0; i < messages.size(); i++) {
      // The columns of plain text; extra_json (tool call and result, metadata) is ASCII JSON.
      String whose = "message " + i + " of session " + key.sessionId();
      db.checkText("messages[" + i + "].content", whose, messages.get(i).content());
      db.checkText("messages[" + i + "].name", whose, messages.get(i).name());
    }
    return db.run(
        "append " + messages.size() + " messages to session " + key.sessionId(),
        c ->
            db.inTransactionRetried(
                c,
                "appending to session " + key.sessionId(),
                () -> appendInTransaction(c, key, agentId, messages, terms, at)));
  }

  private List<SessionMessage> appendInTransaction(
      Connection c,
      SessionKey key,
      String agentId,
      List<SessionMessage> messages,
      List<SessionStore.IndexTerms> terms,
      long at)
      throws SQLException {
    long lastSeq;
    long count;
    long lastMessageAt;
    try (PreparedStatement st =
        c.prepareStatement(
            "SELECT last_seq, message_count, last_message_at FROM "
                + ControlSchema.SESSIONS
                + " WHERE "
                + KEY
                + " FOR UPDATE")) {
      bindKey(st, 1, key);
      try (ResultSet rs = st.executeQuery()) {
        if (rs.next()) {
          lastSeq = rs.getLong(1);
          count = rs.getLong(2);
          lastMessageAt = rs.getLong(3);
        } else {
          try (PreparedStatement ins =
              c.prepareStatement(
                  "INSERT INTO "
                      + ControlSchema.SESSIONS
                      + " (workspace_id, user_id, session_id, agent_id, created_at, updated_at,"
                      + " last_message_at, last_seq, message_count) VALUES (?, ?, ?, ?, ?, ?, ?, 0,"
                      + " 0)")) {
            bindKey(ins, 1, key);
            ins.setString(4, agentId);
            ins.setLong(5, at);
            ins.setLong(6, at);
            ins.setLong(7, Long.MIN_VALUE);
            ins.executeUpdate(); // a duplicate key restarts the transaction
          }
          lastSeq = 0;
          count = 0;
          lastMessageAt = Long.MIN_VALUE;
        }
      }
    }
    List<SessionMessage> out = new ArrayList<>(messages.size());
    long visibleAdded = 0;
    long termsAdded = 0;
    long contextAdded = 0;
    try (PreparedStatement byId = c.prepareStatement(SELECT_MESSAGES + " AND id = ?");
        PreparedStatement insert =
            c.prepareStatement(
                "INSERT INTO "
                    + ControlSchema.SESSION_MESSAGES
                    + " (workspace_id, user_id, session_id, seq, id, role, name, content,"
                    + " message_at, visible, run_id, term_count, context_count, extra_json)"
                    + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
        PreparedStatement unindexed =
            c.prepareStatement(
                "INSERT INTO "
                    + ControlSchema.SESSION_UNINDEXED
                    + " (workspace_id, user_id, session_id, seq, message_at, appended_at)"
                    + " VALUES (?, ?, ?, ?, ?, ?)")) {
      for (int i = 0; i < messages.size(); i++) {
        SessionMessage m = messages.get(i);
        bindKey(byId, 1, key);
        byId.setString(4, m.id());
        try (ResultSet rs = byId.executeQuery()) {
          if (rs.next()) {
            out.add(message(rs));
            continue;
          }
        }
        long seq = ++lastSeq;
        long messageAt = ControlSchema.exactNanos(m.time(), "time");
        SessionStore.IndexTerms indexed = terms.get(i);
        int termCount = indexed.ownLength();
        int contextCount = indexed.contextLength();
        bindKey(insert, 1, key);
        insert.setLong(4, seq);
        insert.setString(5, m.id());
        insert.setString(6, m.role().name());
        insert.setString(7, m.name());
        insert.setString(8, m.content());
        insert.setLong(9, messageAt);
        insert.setBoolean(10, m.visible());
        insert.setString(11, m.runId());
        insert.setInt(12, termCount);
        insert.setInt(13, contextCount);
        insert.setString(
            14,
            ControlJson.write(
                new Extras(
                    m.toolCall(),
                    m.toolResult(),
                    m.inputTokens(),
                    m.outputTokens(),
                    m.snapshotId(),
                    m.metadata())));
        insert.executeUpdate();
        if (m.visible()) {
          int k = bindKey(unindexed, 1, key);
          unindexed.setLong(k, seq);
          unindexed.setLong(k + 1, messageAt);
          unindexed.setLong(k + 2, at);
          unindexed.addBatch();
          visibleAdded++;
          termsAdded += termCount;
          contextAdded += contextCount;
        }
        count++;
        lastMessageAt = Math.max(lastMessageAt, messageAt);
        out.add(m.stored(m.id(), key.sessionId(), seq, m.time()));
      }
      unindexed.executeBatch();
    }
    try (PreparedStatement st =
        c.prepareStatement(
            "UPDATE "
                + ControlSchema.SESSIONS
                + " SET last_seq = ?, message_count = ?, last_message_at = ?, updated_at = ?,"
                + " agent_id = ? WHERE "
                + KEY)) {
      st.setLong(1, lastSeq);
      st.setLong(2, count);
      st.setLong(3, lastMessageAt);
      st.setLong(4, at);
      st.setString(5, agentId);
      bindKey(st, 6, key);
      st.executeUpdate();
    }
    addToStats(c, key.owner(), visibleAdded, termsAdded, contextAdded);
    return List.copyOf(out);
  }

  /** Adds to the owner's message, term and context term totals, creating the row. */
  private static void addToStats(
      Connection c, SessionKey.Owner owner, long messages, long terms, long contextTerms)
      throws SQLException {
    if (messages == 0 && terms == 0 && contextTerms == 0) {
      return;
    }
    try (PreparedStatement st =
        c.prepareStatement(
            "UPDATE "
                + ControlSchema.SESSION_STATS
                + " SET messages = messages + ?, terms = terms + ?, context_terms = context_terms +"
                + " ? WHERE workspace_id = ? AND user_id = ?")) {
      st.setLong(1, messages);
      st.setLong(2, terms);
      st.setLong(3, contextTerms);
      st.setString(4, owner.workspaceId());
      st.setString(5, owner.userId());
      if (st.executeUpdate() > 0) {
        return;
      }
    }
    try (PreparedStatement st =
        c.prepareStatement(
            "INSERT INTO "
                + ControlSchema.SESSION_STATS
                + " (workspace_id, user_id, messages, terms, context_terms, generation)"
                + " VALUES (?, ?, ?, ?, ?, 0)")) {
      st.setString(1, owner.workspaceId());
      st.setString(2, owner.userId());
      st.setLong(3, Math.max(0, messages));
      st.setLong(4, Math.max(0, terms));
      st.setLong(5, Math.max(0, contextTerms));
      st.executeUpdate(); // a duplicate key restarts the transaction
    }
  }

  /** The messages a query starting with {@link #KEYED_MESSAGES} reads, with their sessions. */
  static List<SessionStore.Keyed> keyed(PreparedStatement st) throws SQLException {
    List<SessionStore.Keyed> out = new ArrayList<>();
    try (ResultSet rs = st.executeQuery()) {
      while (rs.next()) {
        SessionMessage m = message(rs, 2);
        out.add(
            new SessionStore.Keyed(
                new SessionKey(rs.getString(1), rs.getString(2), m.sessionId()), m));
      }
    }
    return out;
  }

  // ---------------------------------------------------------------- reads

  List<SessionMessage> history(SessionKey key, long beforeSequence, Instant notBefore, int limit) {
    String sql =
        SELECT_MESSAGES
            + " AND seq < ? AND visible = TRUE"
            + (notBefore == null ? "" : " AND message_at >= ?")
            + " ORDER BY seq DESC LIMIT ?";
    return readMessages(
        "read the history of session " + key.sessionId(),
        sql,
        key,
        beforeSequence,
        notBefore,
        limit);
  }

  List<SessionMessage> messages(SessionKey key, long afterSequence, int limit) {
    return readMessages(
        "read the messages of session " + key.sessionId(),
        SELECT_MESSAGES + " AND seq > ? ORDER BY seq LIMIT ?",
        key,
        afterSequence,
        null,
        limit);
  }

  /** The messages of {@code sql}: the key's columns, a sequence, a time when given, a limit. */
  private List<SessionMessage> readMessages(
      String what, String sql, SessionKey key, long sequence, Instant time, int limit) {
    return db.run(
        what,
        c -> {
          try (PreparedStatement st = c.prepareStatement(sql)) {
            int i = bindKey(st, 1, key);
            st.setLong(i++, sequence);
            if (time != null) {
              st.setLong(i++, ControlSchema.nanos(time));
            }
            st.setInt(i, limit);
            List<SessionMessage> out = new ArrayList<>();
            try (ResultSet rs = st.executeQuery()) {
              while (rs.next()) {
                out.add(message(rs));
              }
            }
            return out;
          }
        });
  }

  List<SessionInfo> sessions(SessionKey.Owner owner, SessionStore.SessionCursor after, int limit) {
    String sql =
        "SELECT session_id, message_count, created_at, updated_at, last_message_at, agent_id FROM "
            + ControlSchema.SESSIONS
            + " WHERE workspace_id = ? AND user_id = ?"
            + (after == null ? "" : " AND (updated_at < ? OR (updated_at = ? AND session_id > ?))")
            + " ORDER BY updated_at DESC, session_id LIMIT ?";
    return db.run(
        "list sessions",
        c -> {
          try (PreparedStatement st = c.prepareStatement(sql)) {
            int i = 1;
            st.setString(i++, owner.workspaceId());
            st.setString(i++, owner.userId());
            if (after != null) {
              long t = ControlSchema.nanos(after.updateTime());
              st.setLong(i++, t);
              st.setLong(i++, t);
              st.setString(i++, after.sessionId());
            }
            st.setInt(i, limit);
            List<SessionInfo> out = new ArrayList<>();
            try (ResultSet rs = st.executeQuery()) {
              while (rs.next()) {
                long last = rs.getLong(5);
                out.add(
                    new SessionInfo(
                        rs.getString(1),
                        rs.getLong(2),
                        ControlSchema.instant(rs.getLong(3)),
                        ControlSchema.instant(rs.getLong(4)),
                        last == Long.MIN_VALUE ? null : ControlSchema.instant(last),
                        rs.getString(6)));
              }
            }
            return out;
          }
        });
  }

  SessionMessage message(SessionKey key, long seq) {
    return db.run("read a message of session " + key.sessionId(), c -> message(c, key, seq));
  }

  private static SessionMessage message(Connection c, SessionKey key, long seq)
      throws SQLException {
    try (PreparedStatement st = c.prepareStatement(SELECT_MESSAGES + " AND seq = ?")) {
      int i = bindKey(st, 1, key);
      st.setLong(i, seq);
      try (ResultSet rs = st.executeQuery()) {
        return rs.next() ? message(rs) : null;
      }
    }
  }

  // ---------------------------------------------------------------- deletes

  long delete(SessionKey key) {
    return deleteMessages(key, Long.MAX_VALUE); // message times are below it (exactNanos)
  }

  /** The visible messages of a session below a time, their terms and their context terms. */
  private static long[] visibleTotals(Connection c, SessionKey key, long before)
      throws SQLException {
    try (PreparedStatement st =
        c.prepareStatement(
            "SELECT COUNT(*), COALESCE(SUM(term_count), 0), COALESCE(SUM(context_count), 0) FROM "
                + ControlSchema.SESSION_MESSAGES
                + " WHERE "
                + KEY
                + " AND visible = TRUE AND message_at < ?")) {
      int i = bindKey(st, 1, key);
      st.setLong(i, before);
      try (ResultSet rs = st.executeQuery()) {
        rs.next();
        return new long[] {rs.getLong(1), rs.getLong(2), rs.getLong(3)};
      }
    }
  }

  long deleteMessagesBefore(Instant cutoff) {
    long before = ControlSchema.nanos(cutoff);
    long total = 0;
    while (true) {
      List<SessionKey> keys =
          db.run(
              "find messages past the retention",
              c -> {
                try (PreparedStatement st =
                    c.prepareStatement(
                        "SELECT DISTINCT workspace_id, user_id, session_id FROM "
                            + ControlSchema.SESSION_MESSAGES
                            + " WHERE message_at < ? LIMIT "
                            + PURGE_BATCH)) {
                  st.setLong(1, before);
                  List<SessionKey> out = new ArrayList<>();
                  try (ResultSet rs = st.executeQuery()) {
                    while (rs.next()) {
                      out.add(new SessionKey(rs.getString(1), rs.getString(2), rs.getString(3)));
                    }
                  }
                  return out;
                }
              });
      if (keys.isEmpty()) {
        return total;
      }
      for (SessionKey key : keys) {
        total += Math.max(0, deleteMessages(key, before));
      }
    }
  }

  /**
   * Deletes one session's messages older than {@code before} (their terms and vectors too), and the
   * session once it is empty; returns how many messages, or -1 when there is no such session.
   */
  private long deleteMessages(SessionKey key, long before) {
    return db.run(
        "delete messages of session " + key.sessionId(),
        c ->
            db.inTransactionRetried(
                c,
                "deleting messages of session " + key.sessionId(),
                () -> {
                  long count;
                  try (PreparedStatement st =
                      c.prepareStatement(
                          "SELECT message_count FROM "
                              + ControlSchema.SESSIONS
                              + " WHERE "
                              + KEY
                              + " FOR UPDATE")) {
                    bindKey(st, 1, key);
                    try (ResultSet rs = st.executeQuery()) {
                      if (!rs.next()) {
                        return -1L;
                      }
                      count = rs.getLong(1);
                    }
                  }
                  long[] visible = visibleTotals(c, key, before);
                  long deleted = 0;
                  for (String table :
                      List.of(
                          // First: a writer of postings holding a row of these messages is
                          // waited for, and its postings are then deleted with the rest.
                          ControlSchema.SESSION_UNINDEXED,
                          ControlSchema.SESSION_TERMS,
                          ControlSchema.SESSION_VECTORS,
                          ControlSchema.SESSION_MESSAGES)) {
                    try (PreparedStatement st =
                        c.prepareStatement(
                            "DELETE FROM " + table + " WHERE " + KEY + " AND message_at < ?")) {
                      int i = bindKey(st, 1, key);
                      st.setLong(i, before);
                      deleted = st.executeUpdate(); // the messages' count, last
                    }
                  }
                  long remaining = Math.max(0, count - deleted);
                  try (PreparedStatement st =
                      c.prepareStatement(
                          remaining == 0
                              ? "DELETE FROM " + ControlSchema.SESSIONS + " WHERE " + KEY
                              : "UPDATE "
                                  + ControlSchema.SESSIONS
                                  + " SET message_count = "
                                  + remaining
                                  + " WHERE "
                                  + KEY)) {
                    bindKey(st, 1, key);
                    st.executeUpdate();
                  }
                  addToStats(c, key.owner(), -visible[0], -visible[1], -visible[2]);
                  nextGeneration(c, key.owner());
                  return deleted;
                }));
  }

  /** Tells caches of the owner's vectors that some are gone. */
  private static void nextGeneration(Connection c, SessionKey.Owner owner) throws SQLException {
    try (PreparedStatement st =
        c.prepareStatement(
            "UPDATE "
                + ControlSchema.SESSION_STATS
                + " SET generation = generation + 1 WHERE workspace_id = ? AND user_id = ?")) {
      st.setString(1, owner.workspaceId());
      st.setString(2, owner.userId());
      st.executeUpdate();
    }
  }

  // ---------------------------------------------------------------- rows

  /** Binds {@link #KEY}'s three parameters from {@code first} on; returns the next index. */
  static int bindKey(PreparedStatement st, int first, SessionKey key) throws SQLException {
    st.setString(first, key.workspaceId());
    st.setString(first + 1, key.userId());
    st.setString(first + 2, key.sessionId());
    return first + 3;
  }

  /** The message in the current row of {@link #MESSAGE_COLUMNS}. */
  private static SessionMessage message(ResultSet rs) throws SQLException {
    return message(rs, 0);
  }

  /** The message in the current row of {@link #MESSAGE_COLUMNS}, after {@code skip} columns. */
  static SessionMessage message(ResultSet rs, int skip) throws SQLException {
    String sessionId = rs.getString(skip + 1);
    long seq = rs.getLong(skip + 2);
    Extras x =
        ControlJson.read(
            rs.getString(skip + 10), Extras.class, "session " + sessionId + " message " + seq);
    return new SessionMessage(
        rs.getString(skip + 3),
        sessionId,
        seq,
        MessageRole.valueOf(rs.getString(skip + 4)),
        rs.getString(skip + 5),
        rs.getString(skip + 6),
        x.toolCall(),
        x.toolResult(),
        ControlSchema.instant(rs.getLong(skip + 7)),
        rs.getBoolean(skip + 8),
        x.inputTokens(),
        x.outputTokens(),
        x.snapshotId() == null ? "" : x.snapshotId(),
        rs.getString(skip + 9),
        x.metadata() == null ? Map.of() : x.metadata());
  }
}
