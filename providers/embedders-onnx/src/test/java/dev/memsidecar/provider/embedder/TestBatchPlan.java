package dev.memsidecar.provider.embedder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** How rows of known lengths are cut into model runs, and what bounds one run's memory. */
class TestBatchPlan {
  @Test
  void shortRowsOfOneLengthFillRunsOfMaxRows() {
    int[] lengths = new int[64];
    Arrays.fill(lengths, 20);
    assertArrayEquals(new int[] {32, 64}, BatchPlan.cut(lengths, 32));
  }

  @Test
  void rowsOf128TokensRunEightAtATime() {
    int[] lengths = new int[32];
    Arrays.fill(lengths, 128);
    int[] ends = BatchPlan.cut(lengths, 32);
    int start = 0;
    for (int end : ends) {
      assertTrue(end - start <= 8, "a run of " + (end - start) + " rows of 128 tokens");
      start = end;
    }
    assertEquals(32, ends[ends.length - 1]);
  }

  @Test
  void aRowLongerThanTheTokenBudgetRunsAlone() {
    int[] ends = BatchPlan.cut(new int[] {10, 512, 512}, 32);
    assertEquals(3, ends[ends.length - 1]);
    assertEquals(ends[ends.length - 2], 2, "the last 512-token row is a run of its own");
  }

  @Test
  void everyRunStaysWithinTheBudgetsAndCoversEveryRowInOrder() {
    long seed = new Random().nextLong();
    Random random = new Random(seed);
    for (int round = 0; round < 200; round++) {
      int[] lengths = new int[1 + random.nextInt(100)];
      for (int i = 0; i < lengths.length; i++) {
        lengths[i] = 3 + random.nextInt(random.nextBoolean() ? 60 : 510);
      }
      Arrays.sort(lengths);
      int maxRows = 1 + random.nextInt(32);
      int[] ends = BatchPlan.cut(lengths, maxRows);
      int start = 0;
      for (int end : ends) {
        int rows = end - start;
        long padded = lengths[end - 1];
        String where =
            "seed " + seed + ", run " + start + ".." + end + " of " + Arrays.toString(lengths);
        assertTrue(rows >= 1 && rows <= maxRows, where);
        if (rows > 1) {
          assertTrue(rows * padded * padded <= BatchPlan.ATTENTION_BUDGET, where);
          assertTrue(rows * padded <= BatchPlan.TOKEN_BUDGET, where);
        }
        start = end;
      }
      assertEquals(lengths.length, start, "seed " + seed);
    }
  }

  @Test
  void lengthsOutOfOrderAreRejected() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> BatchPlan.cut(new int[] {5, 3}, 8));
    assertEquals("lengths are not ascending at 1", e.getMessage());
  }
}
