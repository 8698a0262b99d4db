package dev.memsidecar.core.control;

import static dev.memsidecar.core.control.ControlFixtures.result;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.core.StartupException;
import dev.memsidecar.core.run.EndRunResult;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.Optional;
import java.util.Properties;

/**
 * Every test of {@link TestH2ControlStore} on a real PostgreSQL 15 ({@link PostgresControl}: a new
 * database per test), except the ones about H2 URLs and files, which this class replaces with their
 * PostgreSQL counterparts. (A {@code kill -9} of a writer is the server's durability, tested with
 * the records provider; the control store adds nothing to it.)
 */
class TestControlStoreOnPostgres extends TestH2ControlStore {
  private final PostgresControl pg = new PostgresControl();

  @Override
  SqlControlStore openStore() {
    return pg.open();
  }

  @Override
  void openRefusesUrlsThatBreakDurability() {}

  @Override
  void openRefusesAnUnnamedInMemoryDatabase() {}

  @Override
  void opensAnyH2Url() {}

  @Override
  void acknowledgedWritesSurviveKillOfTheProcess(Path crashDir) {}

  @Override
  void openRefusesTablesOfALaterRelease() throws Exception {
    store().close();
    try (Connection c = pg.connect();
        Statement st = c.createStatement()) {
      st.executeUpdate("UPDATE control_schema SET version = 99");
    }
    StartupException e = assertThrows(StartupException.class, pg::open);
    assertTrue(e.getMessage().contains("schema version 99"), e.getMessage());
    assertTrue(e.getMessage().contains(pg.url()), e.getMessage());
    reopen(new PostgresControl().open());
  }

  @org.junit.jupiter.api.Test
  void wrongPasswordIsAStartupErrorWithoutThePassword() {
    Properties wrong = PostgresControl.credentials();
    wrong.setProperty("password", "guess-" + wrong.getProperty("password"));
    StartupException e =
        assertThrows(StartupException.class, () -> SqlControlStore.open(pg.url(), wrong));
    assertTrue(e.getMessage().contains(pg.url()), e.getMessage());
    assertTrue(e.getMessage().contains("password authentication failed"), e.getMessage());
    assertTrue(!e.getMessage().contains(wrong.getProperty("password")), e.getMessage());
  }

  @org.junit.jupiter.api.Test
  void endRunRoundTripsOnAnotherStoreOfTheDatabase() {
    EndRunResult r = result("run-9", 2);
    store().saveEndRun(ALICE, r);
    try (SqlControlStore other = pg.open()) {
      assertEquals(Optional.of(r), other.endRun(ALICE, "run-9"));
      assertEquals(2, other.decisions(query(ALICE, 10)).size());
    }
  }
}
