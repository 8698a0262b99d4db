package dev.memsidecar.jdbc;

import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;
import org.flywaydb.core.api.MigrationInfo;
import org.flywaydb.core.api.MigrationInfoService;
import org.flywaydb.core.api.MigrationVersion;
import org.flywaydb.core.api.migration.Context;
import org.flywaydb.core.api.migration.JavaMigration;
import org.flywaydb.core.api.output.MigrateResult;

/**
 * Brings a database's tables to their {@link VersionedSchema#version} with Flyway, taking over a
 * database of the hand-written versioning of earlier releases.
 *
 * <ol>
 *   <li>A database with Flyway's history is migrated from where the history says.
 *   <li>A database with the legacy version table and no history (written by a release before
 *       Flyway, or cut short before its first baseline) gets a baseline at the legacy version (0
 *       when the table has no row: a first start that crashed before writing it), then the scripts
 *       above it run. They are idempotent, so tables a crashed start-up left behind in any earlier
 *       shape are brought forward too.
 *   <li>A database with neither is new: every script runs.
 * </ol>
 *
 * A database whose history, or legacy version, is above {@link VersionedSchema#version} was written
 * by a later release: {@link NewerSchemaException}, nothing touched. Flyway itself would ignore
 * such "future" migrations and carry on. A migration that failed (Flyway records it, as H2 cannot
 * roll DDL back) is removed from the history ({@code repair}) and runs again, so an interrupted
 * migration carries on when the store opens again, as a crashed one does. Afterwards the legacy
 * table holds the version again ({@link VersionedSchema}).
 *
 * <p>A database whose legacy table and history both say the schema's version, with no failed
 * migration, is opened without starting Flyway: a few queries, nothing written. Flyway's classes
 * and its listing of the scripts cost CPU at every start and there is nothing for it to do (a
 * sidecar on a 5,000-record data folder used 3.1 s of CPU to {@code listening} before Flyway, 4.0 s
 * with Flyway at every open of its three databases, 3.2 s with this shortcut). Flyway checks the
 * scripts against the history (their checksums) whenever it runs.
 *
 * <p>Otherwise the migration runs under the dialect's {@link Dialect#lockMigrations lock}, and
 * looks at the tables again once it holds it: on PostgreSQL several processes may open one database
 * at once, and the first to get the lock migrates while the others wait and then find the schema
 * current. Not thread-safe within one process: one store opens its database once.
 */
final class SchemaMigrator {
  private static final System.Logger LOG = System.getLogger(SchemaMigrator.class.getName());

  private SchemaMigrator() {}

  /**
   * Migrates the tables behind {@code source} and returns the version found before: 0 for a new
   * database.
   *
   * @param database what log lines and messages call the database (no secret)
   * @throws NewerSchemaException if a later release wrote the tables
   * @throws SQLException if a migration fails; the message says what the database said (Flyway logs
   *     which migration failed)
   */
  static int migrate(DataSource source, Dialect dialect, VersionedSchema schema, String database)
      throws SQLException {
    try (Connection c = source.getConnection()) {
      if (isCurrent(c, schema)) {
        return schema.version();
      }
    }
    // Another process may be migrating the same database (PostgreSQL): wait for it, then look
    // again; it may have done all there was to do.
    try (MigrationLock lock = dialect.lockMigrations(source, schema.historyTable(), database)) {
      return migrateHoldingLock(source, dialect, schema, database);
    }
  }

  /** Whether the legacy table and the history both say the schema's version, none failed. */
  private static boolean isCurrent(Connection c, VersionedSchema schema) throws SQLException {
    Set<String> tables = tablesPresent(c, schema);
    return tables.contains(upper(schema.legacyVersionTable()))
        && tables.contains(upper(schema.historyTable()))
        && legacyVersion(c, schema) == schema.version()
        && historyIsAt(c, schema);
  }

  private static int migrateHoldingLock(
      DataSource source, Dialect dialect, VersionedSchema schema, String database)
      throws SQLException {
    Integer legacy;
    boolean history;
    try (Connection c = source.getConnection()) {
      Set<String> tables = tablesPresent(c, schema);
      legacy =
          tables.contains(upper(schema.legacyVersionTable())) ? legacyVersion(c, schema) : null;
      history = tables.contains(upper(schema.historyTable()));
      if (legacy != null && legacy == schema.version() && history && historyIsAt(c, schema)) {
        return schema.version();
      }
    }
    MigrationVersion latest = MigrationVersion.fromVersion(Integer.toString(schema.version()));
    Flyway flyway = flyway(source, dialect, schema, legacy == null ? 0 : legacy);
    int found;
    try {
      if (legacy == null && !history) {
        // A new database: nothing to take over or refuse, so one pass of Flyway (info() would
        // list and resolve the scripts a second time).
        MigrateResult result = flyway.migrate();
        requireLatest(
            MigrationVersion.fromVersion(result.targetSchemaVersion), latest, schema, dialect);
        found = 0;
        LOG.log(
            Level.INFO,
            () ->
                String.format(
                    Locale.ROOT,
                    "%s: tables created at schema version %d (%d migrations)",
                    database,
                    schema.version(),
                    result.migrationsExecuted));
      } else {
        found = migrateExisting(flyway, latest, schema, dialect, legacy, source, database);
      }
    } catch (FlywayException e) {
      // Flyway logs which migration failed (at ERROR); the message says what the database said.
      SQLException cause = sqlCause(e);
      throw new SQLException(
          database
              + ": schema migration failed: "
              + firstLine(cause != null ? cause.getMessage() : e.getMessage()),
          cause != null ? cause.getSQLState() : null,
          e);
    }
    if (legacy == null || legacy != schema.version()) {
      writeLegacyVersion(source, schema);
    }
    return found;
  }

  /**
   * Migrates a database that has Flyway's history, the legacy version table or both; returns the
   * version found.
   */
  private static int migrateExisting(
      Flyway flyway,
      MigrationVersion latest,
      VersionedSchema schema,
      Dialect dialect,
      Integer legacy,
      DataSource source,
      String database)
      throws SQLException {
    MigrationInfoService info = flyway.info();
    requireLatest(highestResolved(info), latest, schema, dialect);
    MigrationVersion written = highestApplied(info, true);
    if (written != null && written.isNewerThan(latest.getVersion())) {
      throw new NewerSchemaException(written.getVersion(), schema.version());
    }
    MigrationVersion applied = highestApplied(info, false);
    if (legacy != null && legacy > schema.version()) {
      throw new NewerSchemaException(Integer.toString(legacy), schema.version());
    }
    int found = applied != null ? applied.getMajor().intValueExact() : legacy == null ? 0 : legacy;
    boolean baseline = written == null && legacy != null;
    if (baseline) {
      // A take-over cut short may have left the history table with nothing applied in it,
      // which Flyway will not baseline.
      dropHistory(source, schema);
      flyway.baseline();
    }
    boolean failed = Arrays.stream(info.all()).anyMatch(m -> m.getState().isFailed());
    if (failed) {
      LOG.log(
          Level.WARNING,
          () -> database + ": a schema migration had failed; running it again from its start");
      flyway.repair();
    }
    if (baseline || failed || info.pending().length > 0) {
      int ran = flyway.migrate().migrationsExecuted;
      LOG.log(
          Level.INFO,
          () ->
              String.format(
                  Locale.ROOT,
                  "%s: tables migrated from schema version %d to %d (%d migrations)",
                  database,
                  found,
                  schema.version(),
                  ran));
    }
    return found;
  }

  private static Flyway flyway(
      DataSource source, Dialect dialect, VersionedSchema schema, int baselineVersion) {
    JavaMigration[] code =
        schema.codeMigrations().stream()
            .map(m -> (JavaMigration) new CodeStep(m, dialect))
            .toArray(JavaMigration[]::new);
    return Flyway.configure(schema.loader())
        .loggers(FlywayLog.class.getName())
        .dataSource(source)
        .locations("classpath:" + schema.location(dialect))
        .failOnMissingLocations(true)
        .javaMigrations(code)
        .table(schema.historyTable())
        .baselineVersion(Integer.toString(baselineVersion))
        .baselineDescription("taken over from " + schema.legacyVersionTable())
        .placeholderReplacement(false)
        .skipDefaultCallbacks(true)
        .validateMigrationNaming(true)
        .load();
  }

  /** The highest version of a script or code migration. */
  private static MigrationVersion highestResolved(MigrationInfoService info) {
    return Arrays.stream(info.all())
        .filter(m -> m.getState().isResolved() && m.getVersion() != null)
        .map(MigrationInfo::getVersion)
        .max(MigrationVersion::compareTo)
        .orElse(MigrationVersion.EMPTY);
  }

  /** Fails if the highest script or code migration is not the schema's version: a build error. */
  private static void requireLatest(
      MigrationVersion highest, MigrationVersion latest, VersionedSchema schema, Dialect dialect) {
    if (!latest.equals(highest)) {
      throw new IllegalStateException(
          "the "
              + dialect.name()
              + " migrations of "
              + schema.name()
              + " end at version "
              + highest
              + ", not "
              + latest
              + " (classpath:"
              + schema.location(dialect)
              + ")");
    }
  }

  /**
   * The highest version in the history (a baseline counts; a failed migration if {@code failed}),
   * or null when there is none.
   */
  private static MigrationVersion highestApplied(MigrationInfoService info, boolean failed) {
    return Arrays.stream(info.applied())
        .filter(m -> failed || !m.getState().isFailed())
        .map(MigrationInfo::getVersion)
        .filter(v -> v != null)
        .max(MigrationVersion::compareTo)
        .orElse(null);
  }

  /**
   * Whether Flyway's history says every migration up to the schema's version ran and none failed,
   * read with plain SQL (Flyway's history table has the same columns in every release since 4).
   * False when in doubt (a version that is not a whole number): Flyway then decides.
   */
  private static boolean historyIsAt(Connection c, VersionedSchema schema) throws SQLException {
    int highest = 0;
    try (Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT \"version\", \"success\" FROM \""
                    + schema.historyTable()
                    + "\" WHERE \"version\" IS NOT NULL")) {
      while (rs.next()) {
        if (!rs.getBoolean(2)) {
          return false;
        }
        try {
          highest = Math.max(highest, Integer.parseInt(rs.getString(1)));
        } catch (NumberFormatException e) {
          return false;
        }
      }
    }
    return highest == schema.version();
  }

  /**
   * Which of the schema's two version tables exist in the connection's schema, upper case. Asked of
   * the SQL standard's {@code INFORMATION_SCHEMA} (H2 and PostgreSQL have it): a probe statement
   * that fails on a missing table would leave an error in H2's trace file at every first start, and
   * JDBC's metadata calls are slow in H2.
   */
  private static Set<String> tablesPresent(Connection c, VersionedSchema schema)
      throws SQLException {
    Set<String> found = new HashSet<>();
    try (PreparedStatement st =
        c.prepareStatement(
            "SELECT UPPER(TABLE_NAME) FROM INFORMATION_SCHEMA.TABLES"
                + " WHERE TABLE_SCHEMA = CURRENT_SCHEMA AND UPPER(TABLE_NAME) IN (?, ?)")) {
      st.setString(1, upper(schema.legacyVersionTable()));
      st.setString(2, upper(schema.historyTable()));
      try (ResultSet rs = st.executeQuery()) {
        while (rs.next()) {
          found.add(rs.getString(1));
        }
      }
    }
    return found;
  }

  private static String upper(String table) {
    return table.toUpperCase(Locale.ROOT);
  }

  /** The version in the legacy table, which exists: 0 if it has no row. */
  private static int legacyVersion(Connection c, VersionedSchema schema) throws SQLException {
    try (Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT version FROM " + schema.legacyVersionTable() + " WHERE id = 1")) {
      return rs.next() ? rs.getInt(1) : 0;
    }
  }

  /** Drops Flyway's history table if it exists (Flyway creates it with a quoted name). */
  private static void dropHistory(DataSource source, VersionedSchema schema) throws SQLException {
    try (Connection c = source.getConnection();
        Statement st = c.createStatement()) {
      st.execute("DROP TABLE IF EXISTS \"" + schema.historyTable() + "\"");
    }
  }

  /** Creates the legacy table if needed and records the schema's version in it. */
  private static void writeLegacyVersion(DataSource source, VersionedSchema schema)
      throws SQLException {
    String table = schema.legacyVersionTable();
    try (Connection c = source.getConnection()) {
      Database.inTransaction(
          c,
          () -> {
            try (Statement st = c.createStatement()) {
              st.execute(
                  "CREATE TABLE IF NOT EXISTS "
                      + table
                      + " (id INTEGER NOT NULL PRIMARY KEY, version INTEGER NOT NULL)");
            }
            try (PreparedStatement update =
                c.prepareStatement("UPDATE " + table + " SET version = ? WHERE id = 1")) {
              update.setInt(1, schema.version());
              if (update.executeUpdate() == 1) {
                return null;
              }
            }
            try (PreparedStatement insert =
                c.prepareStatement("INSERT INTO " + table + " (id, version) VALUES (1, ?)")) {
              insert.setInt(1, schema.version());
              insert.executeUpdate();
            }
            return null;
          });
    }
  }

  /** The outermost SQLException under {@code e}, or null. */
  private static SQLException sqlCause(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException sql) {
        return sql;
      }
    }
    return null;
  }

  static String firstLine(String message) {
    if (message == null) {
      return "";
    }
    String trimmed = message.strip();
    int nl = trimmed.indexOf('\n');
    return nl < 0 ? trimmed : trimmed.substring(0, nl);
  }

  /** A {@link CodeMigration} as Flyway runs it. */
  private record CodeStep(CodeMigration migration, Dialect dialect) implements JavaMigration {
    @Override
    public MigrationVersion getVersion() {
      return MigrationVersion.fromVersion(Integer.toString(migration.version()));
    }

    @Override
    public String getDescription() {
      return migration.description();
    }

    @Override
    public Integer getChecksum() {
      return null;
    }

    @Override
    public boolean canExecuteInTransaction() {
      // It commits in batches of its own.
      return false;
    }

    @Override
    public void migrate(Context context) throws SQLException {
      migration.migrate(context.getConnection(), dialect);
    }
  }
}
