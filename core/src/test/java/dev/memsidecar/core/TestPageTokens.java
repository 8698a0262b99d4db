package dev.memsidecar.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.memsidecar.api.MemoryException;
import org.junit.jupiter.api.Test;

class TestPageTokens {
  @Test
  void roundTripsTheStoreCursor() {
    String token = PageTokens.encode("k", "cursor-1");
    assertEquals("cursor-1", PageTokens.decode("k", token));
    assertEquals("", PageTokens.encode("k", null));
    assertNull(PageTokens.decode("k", ""));
  }

  @Test
  void refusesTokensOfAnotherRequestOrGarbage() {
    String token = PageTokens.encode("alice", "c");
    for (String bad : new String[] {"%%%", "bm90IGEgdG9rZW4", token + "x"}) {
      MemoryException e =
          assertThrows(MemoryException.class, () -> PageTokens.decode("alice", bad));
      assertEquals("page_token", e.field());
    }
    assertThrows(MemoryException.class, () -> PageTokens.decode("bob", token));
  }
}
