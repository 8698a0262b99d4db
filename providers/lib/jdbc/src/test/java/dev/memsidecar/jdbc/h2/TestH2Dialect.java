package dev.memsidecar.jdbc.h2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.jdbc.Dialect;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class TestH2Dialect {
  private static final H2Dialect H2 = new H2Dialect();

  @Test
  void theDialectIsChosenFromTheUrl() {
    assertEquals("h2", Dialect.forUrl("jdbc:h2:file:/x").name());
    assertEquals("h2", Dialect.forUrl("JDBC:H2:mem:x").name());
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Dialect.forUrl("jdbc:MySQL://h/db"));
    assertEquals(
        "no SQL dialect for jdbc:mysql: URLs; supported: jdbc:h2:, jdbc:postgresql:",
        e.getMessage());
  }

  @Test
  void theStoreOptionsAreAddedUnlessTheUrlSetsThem() {
    assertEquals(
        "jdbc:h2:file:/x;WRITE_DELAY=0;FILE_LOCK=FS;DB_CLOSE_ON_EXIT=FALSE;MAX_COMPACT_TIME=0"
            + ";CACHE_SIZE=4096",
        H2.connectionUrl("jdbc:h2:file:/x", null));
    assertTrue(
        H2.connectionUrl("jdbc:h2:file:/x", Duration.ofSeconds(10))
            .endsWith(";LOCK_TIMEOUT=10000"));
    assertEquals(
        "jdbc:h2:file:/x;lock_timeout=5;cache_size=64;WRITE_DELAY=0;FILE_LOCK=FS"
            + ";DB_CLOSE_ON_EXIT=FALSE;MAX_COMPACT_TIME=0",
        H2.connectionUrl("jdbc:h2:file:/x;lock_timeout=5;cache_size=64", Duration.ofSeconds(10)));
  }

  @Test
  void urlsThatBreakTheStoresAreRefused() {
    for (String bad :
        List.of(
            "jdbc:h2:file:/x;WRITE_DELAY=500", "jdbc:h2:file:/x;file_lock=no", "jdbc:h2:mem:")) {
      assertThrows(IllegalArgumentException.class, () -> H2.connectionUrl(bad, null), bad);
    }
  }

  @Test
  void anUpsertIsAMerge() {
    assertEquals(
        "MERGE INTO t (a, b, c) KEY (a) VALUES (?, ?, ?)",
        H2.upsert("t", List.of("a", "b", "c"), List.of("a")));
  }
}
