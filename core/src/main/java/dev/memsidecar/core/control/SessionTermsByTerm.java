package dev.memsidecar.core.control;

import dev.memsidecar.jdbc.CodeMigration;
import dev.memsidecar.jdbc.Dialect;
import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;

/**
 * Control store version 9: a session search reads a term's postings from one index. Until now the
 * primary key of {@code session_terms} was an index of the key columns alone, so each posting a
 * search read cost a lookup of its row for the frequencies and lengths: half of BeginRun's session
 * search. The index by term ({@code session_terms_by_term}) holds every column a search reads or
 * filters on, and the primary key goes (its uniqueness was never relied on: an append inserts a
 * message's postings once, in the transaction that inserts the message under its own key).
 *
 * <p>Resumable: the index is made before the key is dropped, each only if still there to make or
 * drop, so running it again after a crash between the two finishes it. Stateless.
 */
final class SessionTermsByTerm implements CodeMigration {
  static final String INDEX = "session_terms_by_term";

  private static final System.Logger LOG = System.getLogger(SessionTermsByTerm.class.getName());

  @Override
  public int version() {
    return 9;
  }

  @Override
  public String description() {
    return "session terms searched from the index by term";
  }

  @Override
  public void migrate(Connection c, Dialect dialect) throws SQLException {
    long start = System.nanoTime();
    try (Statement st = c.createStatement()) {
      st.execute(
          "CREATE INDEX IF NOT EXISTS "
              + INDEX
              + " ON "
              + ControlSchema.SESSION_TERMS
              + " (workspace_id, user_id, term, session_id, seq, tf, context_tf, term_count,"
              + " context_count, message_at, role)");
      String key = primaryKey(c);
      if (key != null) {
        st.execute(
            "ALTER TABLE "
                + ControlSchema.SESSION_TERMS
                + " DROP CONSTRAINT \""
                + key.replace("\"", "\"\"")
                + "\"");
        // Once per database, when it moves to version 9 (a store with sessions builds the index).
        long ms = (System.nanoTime() - start) / 1_000_000;
        LOG.log(
            Level.INFO,
            () -> "control store: session terms indexed by term in " + ms + " ms (version 9)");
      }
    }
  }

  /** The name of the primary key of {@code session_terms}, or null when it has none. */
  private static String primaryKey(Connection c) throws SQLException {
    DatabaseMetaData meta = c.getMetaData();
    String table =
        meta.storesUpperCaseIdentifiers()
            ? ControlSchema.SESSION_TERMS.toUpperCase(Locale.ROOT)
            : ControlSchema.SESSION_TERMS;
    try (ResultSet rs = meta.getPrimaryKeys(null, c.getSchema(), table)) {
      return rs.next() ? rs.getString("PK_NAME") : null;
    }
  }
}
