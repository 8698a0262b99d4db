package dev.memsidecar.provider.langmem;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.api.MemoryException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class TestConnectionPool {
  private final List<Connection> opened = new ArrayList<>();

  private Connection open() throws SQLException {
    Connection c = DriverManager.getConnection("jdbc:h2:mem:");
    opened.add(c);
    return c;
  }

  @Test
  void aConnectionThatBrokeIsReplacedOnItsNextUse() throws SQLException {
    try (ConnectionPool pool = new ConnectionPool(this::open, 1, "test pool")) {
      SQLException e =
          assertThrows(
              SQLException.class,
              () ->
                  pool.call(
                      c -> {
                        c.close();
                        throw new SQLException("lost the server");
                      }));
      assertEquals("lost the server", e.getMessage());

      Connection next = pool.call(c -> c);
      assertEquals(2, opened.size());
      assertSame(opened.get(1), next);
      assertTrue(next.isValid(1));
      // A failure that leaves the connection usable keeps it.
      assertThrows(
          SQLException.class,
          () ->
              pool.call(
                  c -> {
                    try (Statement st = c.createStatement()) {
                      return st.execute("not sql");
                    }
                  }));
      assertSame(next, pool.call(c -> c));
    }
  }

  @Test
  void aFailedStartClosesTheConnectionsAlreadyOpen() {
    ConnectionPool.Opener secondFails =
        () -> {
          if (opened.size() == 1) {
            throw new SQLException("no more connections");
          }
          return open();
        };
    assertThrows(SQLException.class, () -> new ConnectionPool(secondFails, 2, "test pool"));
    assertEquals(1, opened.size());
    assertTrue(isClosed(opened.get(0)));
  }

  @Test
  void afterCloseBorrowingFailsAndABusyConnectionClosesWhenHandedBack() throws SQLException {
    ConnectionPool pool = new ConnectionPool(this::open, 2, "test pool");
    Connection busy =
        pool.call(
            c -> {
              pool.close();
              assertFalse(c.isClosed());
              return c;
            });
    assertTrue(busy.isClosed());
    assertTrue(opened.stream().allMatch(TestConnectionPool::isClosed));

    MemoryException e = assertThrows(MemoryException.class, () -> pool.call(c -> c));
    assertEquals(MemoryException.Code.FAILED_PRECONDITION, e.code());
    assertEquals("test pool is closed", e.getMessage());
    pool.close();
  }

  private static boolean isClosed(Connection c) {
    try {
      return c.isClosed();
    } catch (SQLException e) {
      throw new AssertionError(e);
    }
  }
}
