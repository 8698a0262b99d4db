package dev.memsidecar.sidecar.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.sidecar.bench.FootprintBench.Kind;
import dev.memsidecar.sidecar.bench.FootprintBench.Step;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The mix of {@code bench footprint}: exact in size, seeded, every kind of call in it. */
class TestFootprintBench {
  private static int operations(List<Step> steps) {
    return steps.stream().mapToInt(s -> s.kind().operations()).sum();
  }

  @Test
  void theMixMakesExactlyTheOperationsAsked() {
    for (int n : new int[] {0, 1, 2, 3, 15_000}) {
      assertEquals(n, operations(FootprintBench.plan(n, 7)), "operations " + n);
    }
  }

  @Test
  void theSameSeedGivesTheSameMix() {
    assertEquals(FootprintBench.plan(2_000, 42), FootprintBench.plan(2_000, 42));
    assertNotEquals(FootprintBench.plan(2_000, 42), FootprintBench.plan(2_000, 43));
  }

  @Test
  void everyKindOfCallIsInTheMixInRoughlyItsShare() {
    List<Step> steps = FootprintBench.plan(15_000, 42);
    Map<Kind, Integer> counts = new EnumMap<>(Kind.class);
    steps.forEach(s -> counts.merge(s.kind(), 1, Integer::sum));
    int weights = 0;
    for (Kind k : Kind.values()) {
      weights += k.weight;
    }
    for (Kind k : Kind.values()) {
      double share = counts.getOrDefault(k, 0) / (double) steps.size();
      double expected = k.weight / (double) weights;
      assertTrue(Math.abs(share - expected) < 0.02, k + ": " + share + " vs " + expected);
    }
  }
}
