package dev.memsidecar.jdbc;

import dev.memsidecar.jdbc.h2.H2Dialect;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A small versioned schema for the tests: {@code notes} (version 1, a script), its {@code length}
 * column filled in by code (version 2), an index (version 3, a script).
 */
final class Samples {
  static final Dialect H2 = new H2Dialect();

  /** How many more times {@link #LENGTHS} fails before it works. */
  static final AtomicInteger LENGTHS_FAILURES = new AtomicInteger();

  /** Version 2: adds {@code notes.length} and fills it, idempotent. */
  static final CodeMigration LENGTHS =
      new CodeMigration() {
        @Override
        public int version() {
          return 2;
        }

        @Override
        public String description() {
          return "note lengths";
        }

        @Override
        public void migrate(Connection c, Dialect dialect) throws SQLException {
          try (Statement st = c.createStatement()) {
            st.execute("ALTER TABLE notes ADD COLUMN IF NOT EXISTS length INTEGER");
            if (LENGTHS_FAILURES.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
              throw new SQLException("the disk is full (as a test says)");
            }
            Database.inTransaction(
                c, () -> st.executeUpdate("UPDATE notes SET length = LENGTH(body)"));
          }
        }
      };

  static final VersionedSchema SCHEMA =
      new VersionedSchema(
          "sample",
          3,
          "sample_schema_history",
          "sample_schema",
          List.of(LENGTHS),
          Samples.class.getClassLoader());

  private Samples() {}

  static String url(Path dir) {
    return H2.connectionUrl("jdbc:h2:file:" + dir.resolve("sample").toAbsolutePath(), null);
  }

  static Database open(Path dir) throws SQLException {
    return Database.open(new Database.Settings("sample db", H2, url(dir), null, null, 2), SCHEMA);
  }

  /** A plain connection to the database in {@code dir}, outside any pool. */
  static Connection connect(Path dir) throws SQLException {
    return H2.dataSource(url(dir), null, null).getConnection();
  }

  static void execute(Connection c, String... sql) throws SQLException {
    try (Statement st = c.createStatement()) {
      for (String s : sql) {
        st.execute(s);
      }
    }
  }

  /** The rows of a one-column query, as text. */
  static List<String> column(Connection c, String sql) throws SQLException {
    List<String> out = new ArrayList<>();
    try (PreparedStatement st = c.prepareStatement(sql);
        ResultSet rs = st.executeQuery()) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }
}
