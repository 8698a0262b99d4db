package dev.memsidecar.core;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.api.MemoryException;
import dev.memsidecar.core.config.Flags;
import dev.memsidecar.core.config.ProfileSpec;
import dev.memsidecar.core.config.ScopeKind;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TestAccessPolicy {
  private final ProfileSpec on = ProfileSpec.of("workspace", ScopeKind.WORKSPACE);
  private final ProfileSpec off =
      new ProfileSpec("old", ScopeKind.WORKSPACE, "langmem-sqlite", false, "", Map.of(), Map.of());

  @Test
  void allOnAllowsEverythingOnEnabledProfiles() {
    AccessPolicy policy = new AccessPolicy(Flags.ALL_ON);
    assertTrue(policy.mayRecall(on));
    assertDoesNotThrow(() -> policy.checkRead(on));
    assertDoesNotThrow(() -> policy.checkWrite(on, Map.of()));
  }

  @Test
  void langMemWriteFalseDeniesWrites() {
    AccessPolicy policy = new AccessPolicy(new Flags(true, true, true, false));
    assertDenied(() -> policy.checkWrite(on, Map.of()), "LangMem.write");
    assertTrue(policy.mayRecall(on));
  }

  @Test
  void langMemReadFalseStopsRecallAndReads() {
    AccessPolicy policy = new AccessPolicy(new Flags(true, true, false, true));
    assertFalse(policy.mayRecall(on));
    assertDenied(() -> policy.checkRead(on), "LangMem.read");
    assertDoesNotThrow(() -> policy.checkWrite(on, Map.of()));
  }

  @Test
  void memoryWriteFalseMakesTheRequestReadOnly() {
    AccessPolicy policy = new AccessPolicy(Flags.ALL_ON);
    assertDenied(() -> policy.checkWrite(on, Map.of("memoryWrite", "false")), "memoryWrite");
    assertDenied(() -> policy.checkWrite(on, Map.of("memoryWrite", " FALSE ")), "memoryWrite");
    assertDoesNotThrow(() -> policy.checkWrite(on, Map.of("memoryWrite", "true")));
  }

  @Test
  void disabledProfileIsNeitherReadNorWritten() {
    AccessPolicy policy = new AccessPolicy(Flags.ALL_ON);
    assertFalse(policy.mayRecall(off));
    assertDenied(() -> policy.checkRead(off), "disabled");
    assertDenied(() -> policy.checkWrite(off, Map.of()), "disabled");
  }

  private static void assertDenied(Runnable call, String mention) {
    MemoryException e = assertThrows(MemoryException.class, call::run);
    assertEquals(MemoryException.Code.PERMISSION_DENIED, e.code());
    assertTrue(e.getMessage().contains(mention), e.getMessage());
  }
}
