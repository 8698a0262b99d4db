package dev.memsidecar.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.api.GateScores;
import dev.memsidecar.api.MemoryException;
import org.junit.jupiter.api.Test;

class TestWriteGate {
  private final WriteGate gate = new WriteGate(7.0);

  @Test
  void weightsTheSixDimensionsAsPromptX() {
    // PromptX's own examples print 8.6 and 4.3, but their weights give 8.5 and 4.4 exactly.
    assertEquals(8.5f, new GateScores(9, 7, 9, 8, 8, 9).weighted(), 1e-6);
    assertEquals(4.4f, new GateScores(3, 5, 4, 7, 6, 2).weighted(), 1e-6);
  }

  @Test
  void storesAtThresholdAndRejectsBelowWithReason() {
    WriteGate.Verdict pass = gate.evaluate(new GateScores(7, 7, 7, 7, 7, 7), false);
    assertTrue(pass.admitted());
    assertEquals(7.0f, pass.score(), 1e-6);
    WriteGate.Verdict fail = gate.evaluate(new GateScores(3, 5, 4, 7, 6, 2), false);
    assertFalse(fail.admitted());
    assertTrue(fail.reason().contains("below threshold 7.0"), fail.reason());
  }

  @Test
  void explicitInstructionIsFlooredAtEight() {
    assertEquals(8.0f, gate.evaluate(GateScores.NONE, true).score(), 1e-6);
    assertTrue(gate.evaluate(new GateScores(1, 1, 1, 1, 1, 1), true).admitted());
    assertEquals(9.2f, gate.evaluate(new GateScores(10, 9, 9, 9, 8, 9), true).score(), 1e-6);
  }

  @Test
  void higherThresholdCanRejectEvenExplicit() {
    assertFalse(new WriteGate(9.0).evaluate(GateScores.NONE, true).admitted());
  }

  @Test
  void outOfRangeDimensionNamesTheField() {
    MemoryException e =
        assertThrows(
            MemoryException.class, () -> gate.evaluate(new GateScores(11, 0, 0, 0, 0, 0), true));
    assertEquals("scores.importance", e.field());
    e =
        assertThrows(
            MemoryException.class,
            () -> gate.evaluate(new GateScores(0, 0, 0, 0, 0, Float.NaN), true));
    assertEquals("scores.timeliness", e.field());
  }
}
