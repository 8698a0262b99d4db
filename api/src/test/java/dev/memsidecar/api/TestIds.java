package dev.memsidecar.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class TestIds {
  @Test
  void rejectsBadIdNamingTheField() {
    MemoryException e =
        assertThrows(MemoryException.class, () -> Ids.require("scope.user_id", "al ice"));
    assertEquals(MemoryException.Code.INVALID_ARGUMENT, e.code());
    assertEquals("scope.user_id", e.field());
    assertThrows(MemoryException.class, () -> Ids.require("id", "x".repeat(65)));
    assertThrows(MemoryException.class, () -> Ids.require("id", ""));
    assertEquals("a.B_9-z", Ids.require("id", "a.B_9-z"));
  }
}
