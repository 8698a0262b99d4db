package dev.memsidecar.sidecar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.sidecar.HeapTuning.Decisions;
import dev.memsidecar.sidecar.HeapTuning.Mode;
import dev.memsidecar.sidecar.HeapTuning.Reading;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What {@code serve} does about the heap: whether the user sized it (then nothing), and when the
 * governor asks G1 for a cycle. No timing: the governor's clock is the readings' time.
 */
class TestHeapTuning {
  private static final long MIB = 1L << 20;
  private static final long ARMED = HeapTuning.ARMED_INTERVAL_MILLIS;

  @Test
  void anyHeapSizeOrGrowthOptionCountsAsGiven() {
    for (String option :
        List.of(
            "-Xmx512m",
            "-Xms16m",
            "-XX:MaxHeapSize=1g",
            "-XX:InitialHeapSize=100m",
            "-XX:MinHeapSize=32m",
            "-XX:SoftMaxHeapSize=300m",
            "-XX:MaxRAMPercentage=50",
            "-XX:MaxRAM=2g",
            "-XX:MaxRAMFraction=4",
            "-XX:InitialRAMPercentage=10",
            "-XX:MinRAMPercentage=25",
            "-XX:MaxHeapFreeRatio=40",
            "-XX:MinHeapFreeRatio=20",
            "-XX:G1PeriodicGCInterval=30000",
            " -Xmx1g")) {
      assertTrue(
          HeapTuning.heapOptionsGiven(List.of("-Dfoo=bar", option, "-Xlog:disable")), option);
    }
  }

  @Test
  void otherJvmOptionsDoNotCount() {
    assertFalse(HeapTuning.heapOptionsGiven(List.of()));
    assertFalse(
        HeapTuning.heapOptionsGiven(
            List.of(
                "-Xlog:disable",
                "-Xss512k",
                "-XX:+UseG1GC",
                "-XX:MaxDirectMemorySize=256m",
                "-XX:ReservedCodeCacheSize=64m",
                "--add-modules=jdk.incubator.vector",
                "-Dmemsidecar.note=-Xmx1g")));
  }

  @Test
  void autoTunesOnlyWithoutHeapOptionsOnAlwaysOffNever() {
    List<String> bare = List.of("-Xlog:disable");
    List<String> sized = List.of("-Xmx512m");
    assertTrue(HeapTuning.shouldTune(Mode.AUTO, bare));
    assertFalse(HeapTuning.shouldTune(Mode.AUTO, sized));
    assertTrue(HeapTuning.shouldTune(Mode.ON, sized));
    assertFalse(HeapTuning.shouldTune(Mode.OFF, bare));
    // "on" leaves a periodic interval the user chose alone: the governor would override it.
    assertFalse(
        HeapTuning.shouldTune(Mode.ON, List.of("-Xmx1g", "-XX:G1PeriodicGCInterval=60000")));
  }

  @Test
  void modeNamesAreReadLeniently() {
    assertEquals(Mode.AUTO, Mode.of(null));
    assertEquals(Mode.AUTO, Mode.of("auto"));
    assertEquals(Mode.AUTO, Mode.of("sometimes"));
    assertEquals(Mode.ON, Mode.of(" ON "));
    assertEquals(Mode.ON, Mode.of("true"));
    assertEquals(Mode.OFF, Mode.of("off"));
    assertEquals(Mode.OFF, Mode.of("False"));
  }

  @Test
  void theRatioAllowsAboutOnePointFourTimesWhatIsInUse() {
    assertEquals(100 * MIB + HeapTuning.SLACK_BYTES, HeapTuning.allowed(70 * MIB, 30));
    assertEquals(70 * MIB + HeapTuning.SLACK_BYTES, HeapTuning.allowed(70 * MIB, 0));
  }

  @Test
  void aHeapGrownPastItsDataIsArmedForOneTickThenLeftToCoolDown() {
    Decisions d = new Decisions(30);
    // 120 MiB in use allows ~187 MiB; G1 grew to 600 MiB.
    assertEquals(ARMED, d.next(new Reading(10_000, 600 * MIB, 120 * MIB, 50)));
    assertEquals(ARMED, d.next(new Reading(10_500, 600 * MIB, 120 * MIB, 51)));
    assertEquals(0, d.next(new Reading(11_000, 600 * MIB, 120 * MIB, 52)));
    assertTrue(d.disarmedNow());
    // Still large (the cycle has not ended yet): not again before the cool-down.
    assertEquals(0, d.next(new Reading(12_000, 600 * MIB, 120 * MIB, 53)));
    assertFalse(d.disarmedNow());
    assertEquals(ARMED, d.next(new Reading(15_000, 600 * MIB, 120 * MIB, 54)));
  }

  @Test
  void aHeapNearItsDataOrBelowTheTargetIsLeftAlone() {
    Decisions d = new Decisions(30);
    assertEquals(0, d.next(new Reading(10_000, 180 * MIB, 120 * MIB, 50)));
    assertEquals(0, d.next(new Reading(11_000, 120 * MIB, 10 * MIB, 51)));
    assertEquals(0, d.next(new Reading(20_000, HeapTuning.TARGET_HEAP_BYTES, 0, 52)));
  }

  @Test
  void whenCallsStopTheHeapShrinksOnceAndAnIdleJvmIsLeftAlone() {
    Decisions d = new Decisions(30);
    // Busy: collections go on, the heap is within what the ratio allows.
    assertEquals(0, d.next(new Reading(1_000, 180 * MIB, 120 * MIB, 10)));
    assertEquals(0, d.next(new Reading(2_000, 180 * MIB, 120 * MIB, 11)));
    // Calls stop: no collection since 2 s; after the quiet time one cycle.
    assertEquals(0, d.next(new Reading(5_000, 180 * MIB, 120 * MIB, 11)));
    assertEquals(ARMED, d.next(new Reading(6_000, 180 * MIB, 120 * MIB, 11)));
    assertEquals(0, d.next(new Reading(7_000, 170 * MIB, 110 * MIB, 12)));
    // Idle from now on: never again, however long.
    for (long t = 8_000; t < 120_000; t += 1_000) {
      assertEquals(0, d.next(new Reading(t, 170 * MIB, 110 * MIB, 12)), "at " + t);
    }
    // A few calls later (one collection), quiet again: one more cycle.
    assertEquals(0, d.next(new Reading(120_000, 170 * MIB, 110 * MIB, 13)));
    assertEquals(ARMED, d.next(new Reading(124_000, 170 * MIB, 110 * MIB, 13)));
  }

  @Test
  void theCHeapIsTrimmedWhenQuietAtMostEveryThirtySeconds() {
    Decisions d = new Decisions(30);
    // Start-up: the last collection at 1 s; quiet 4 s later.
    assertEquals(0, d.next(new Reading(1_000, 40 * MIB, 20 * MIB, 5)));
    assertFalse(d.trimNow());
    d.next(new Reading(4_000, 40 * MIB, 20 * MIB, 5));
    assertFalse(d.trimNow());
    d.next(new Reading(5_000, 40 * MIB, 20 * MIB, 5));
    assertTrue(d.trimNow());
    // Quiet from then on (a small heap is never armed): trimmed every 30 s, not more often.
    for (long t = 6_000; t < 35_000; t += 1_000) {
      d.next(new Reading(t, 40 * MIB, 20 * MIB, 5));
      assertFalse(d.trimNow(), "at " + t);
    }
    d.next(new Reading(35_000, 40 * MIB, 20 * MIB, 5));
    assertTrue(d.trimNow());
    // A collection (a call), 31 s after the last trim: trimmed as busy; quiet 4 s later, trimmed
    // once at once (the calls stopped), then the quiet trims keep their 30 s.
    d.next(new Reading(66_000, 40 * MIB, 20 * MIB, 6));
    assertTrue(d.trimNow());
    for (long t = 67_000; t < 70_000; t += 1_000) {
      d.next(new Reading(t, 40 * MIB, 20 * MIB, 6));
      assertFalse(d.trimNow(), "at " + t);
    }
    d.next(new Reading(70_000, 40 * MIB, 20 * MIB, 6));
    assertTrue(d.trimNow(), "the calls stopped after a busy trim");
    for (long t = 71_000; t < 100_000; t += 1_000) {
      d.next(new Reading(t, 40 * MIB, 20 * MIB, 6));
      assertFalse(d.trimNow(), "at " + t);
    }
    d.next(new Reading(100_000, 40 * MIB, 20 * MIB, 6));
    assertTrue(d.trimNow());
  }

  @Test
  void theCHeapIsTrimmedEveryFiveSecondsWhileCallsGoOn() {
    Decisions d = new Decisions(30);
    // Busy from the start (a collection every second): not before 5 s after the first reading.
    int trims = 0;
    long last = 0;
    for (long t = 1_000; t <= 61_000; t += 1_000) {
      d.next(new Reading(t, 40 * MIB, 20 * MIB, t / 1_000));
      if (d.trimNow()) {
        assertTrue(t >= 6_000, "trimmed at " + t);
        assertTrue(last == 0 || t - last >= 5_000, "trimmed at " + last + " and " + t);
        last = t;
        trims++;
      }
    }
    assertEquals(12, trims);
  }

  @Test
  void startUpCollectionsSeenAtTheFirstReadingAreNotBusy() {
    Decisions d = new Decisions(30);
    // Collections during start-up, none after: only the quiet trim, 4 s after the first reading.
    for (long t = 1_000; t < 5_000; t += 1_000) {
      d.next(new Reading(t, 40 * MIB, 20 * MIB, 7));
      assertFalse(d.trimNow(), "at " + t);
    }
    d.next(new Reading(5_000, 40 * MIB, 20 * MIB, 7));
    assertTrue(d.trimNow());
  }

  @Test
  void theEndOfACycleTrims() {
    Decisions d = new Decisions(30);
    // Busy, and G1 grew the heap: one cycle; its end trims.
    assertEquals(ARMED, d.next(new Reading(40_000, 600 * MIB, 120 * MIB, 50)));
    assertFalse(d.trimNow());
    assertEquals(0, d.next(new Reading(41_000, 600 * MIB, 120 * MIB, 51)));
    assertTrue(d.disarmedNow());
    assertTrue(d.trimNow());
  }
}
