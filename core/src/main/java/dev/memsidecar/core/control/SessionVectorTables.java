package dev.memsidecar.core.control;

import dev.memsidecar.core.sessions.MessageRole;
import dev.memsidecar.core.sessions.SessionKey;
import dev.memsidecar.core.sessions.SessionStore;
import dev.memsidecar.jdbc.Database;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The vectors of session messages ({@code session_vectors}, {@link ControlSchema}): one per visible
 * message and embedder, numbered as they are added so a cache reads only what it has not read;
 * {@code session_stats.generation} tells it when messages were deleted ({@link SessionTables}
 * raises it). Thread-safe.
 */
final class SessionVectorTables {
  private final ControlDatabase db;

  SessionVectorTables(ControlDatabase db) {
    this.db = db;
  }

  void putVectors(String embedder, List<SessionStore.MessageVector> vectors) {
    if (vectors.isEmpty()) {
      return;
    }
    db.run(
        "keep " + vectors.size() + " message vectors",
        c ->
            Database.inTransaction(
                c,
                () -> {
                  // Numbers (vseq) are committed in order across processes too, so a cache that
                  // reads past its last number misses none.
                  db.lockUntilCommit(c, ControlSchema.SESSION_VECTORS);
                  return insertVectors(c, embedder, vectors);
                }));
  }

  private Void insertVectors(
      Connection c, String embedder, List<SessionStore.MessageVector> vectors) throws SQLException {
    try (PreparedStatement st =
        c.prepareStatement(
            "INSERT INTO "
                + ControlSchema.SESSION_VECTORS
                + " (workspace_id, user_id, session_id, seq, embedder, message_at, role,"
                + " name, vector) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
      for (SessionStore.MessageVector v : vectors) {
        int i = SessionTables.bindKey(st, 1, v.key());
        st.setLong(i++, v.sequence());
        st.setString(i++, embedder);
        st.setLong(i++, ControlSchema.nanos(v.time()));
        st.setString(i++, v.role().name());
        st.setString(i++, v.name());
        st.setBytes(i, bytes(v.vector()));
        db.insertUnlessTaken(st); // a message of a deleted session fails nothing either
      }
    }
    return null;
  }

  List<SessionStore.MessageVector> vectors(
      SessionKey.Owner owner, String embedder, long after, int limit) {
    return db.run(
        "read message vectors",
        c -> {
          try (PreparedStatement st =
              c.prepareStatement(
                  "SELECT vseq, session_id, seq, message_at, role, name, vector FROM "
                      + ControlSchema.SESSION_VECTORS
                      + " WHERE workspace_id = ? AND user_id = ? AND embedder = ? AND vseq > ?"
                      + " ORDER BY vseq LIMIT ?")) {
            st.setString(1, owner.workspaceId());
            st.setString(2, owner.userId());
            st.setString(3, embedder);
            st.setLong(4, after);
            st.setInt(5, limit);
            List<SessionStore.MessageVector> out = new ArrayList<>();
            try (ResultSet rs = st.executeQuery()) {
              while (rs.next()) {
                out.add(
                    new SessionStore.MessageVector(
                        rs.getLong(1),
                        owner.session(rs.getString(2)),
                        rs.getLong(3),
                        ControlSchema.instant(rs.getLong(4)),
                        MessageRole.valueOf(rs.getString(5)),
                        rs.getString(6),
                        floats(rs.getBytes(7))));
              }
            }
            return out;
          }
        });
  }

  long generation(SessionKey.Owner owner) {
    return db.run(
        "read the generation of sessions",
        c -> {
          try (PreparedStatement st =
              c.prepareStatement(
                  "SELECT generation FROM "
                      + ControlSchema.SESSION_STATS
                      + " WHERE workspace_id = ? AND user_id = ?")) {
            st.setString(1, owner.workspaceId());
            st.setString(2, owner.userId());
            try (ResultSet rs = st.executeQuery()) {
              return rs.next() ? rs.getLong(1) : 0L;
            }
          }
        });
  }

  List<SessionStore.Keyed> unembedded(String embedder, int limit) {
    return db.run(
        "find messages without vectors",
        c -> {
          try (PreparedStatement st =
              c.prepareStatement(
                  SessionTables.KEYED_MESSAGES
                      + " LEFT JOIN "
                      + ControlSchema.SESSION_VECTORS
                      + " v ON v.workspace_id = m.workspace_id AND v.user_id = m.user_id"
                      + " AND v.session_id = m.session_id AND v.seq = m.seq AND v.embedder = ?"
                      + " WHERE m.visible = TRUE AND v.vseq IS NULL LIMIT ?")) {
            st.setString(1, embedder);
            st.setInt(2, limit);
            return SessionTables.keyed(st);
          }
        });
  }

  private static byte[] bytes(float[] v) {
    ByteBuffer b = ByteBuffer.allocate(v.length * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN);
    b.asFloatBuffer().put(v);
    return b.array();
  }

  private static float[] floats(byte[] bytes) {
    float[] v = new float[bytes.length / Float.BYTES];
    ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(v);
    return v;
  }
}
