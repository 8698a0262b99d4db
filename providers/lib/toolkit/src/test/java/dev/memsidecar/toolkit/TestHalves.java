package dev.memsidecar.toolkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;

class TestHalves {
  @Test
  void everySlotIsVisitedOnceWhetherThePassSplitsOrNot() {
    for (int size : new int[] {0, 1, Halves.SPLIT_FROM - 1, Halves.SPLIT_FROM, 100_001}) {
      for (int round = 0; round < 20; round++) {
        AtomicIntegerArray visits = new AtomicIntegerArray(size);
        Halves.run(
            size,
            (part, from, to) -> {
              for (int slot = from; slot < to; slot++) {
                visits.incrementAndGet(slot);
              }
            });
        for (int slot = 0; slot < size; slot++) {
          assertEquals(1, visits.get(slot), "slot " + slot + " of " + size);
        }
      }
    }
  }

  @Test
  void aFailureOfTheSecondHalfReachesTheCaller() {
    IllegalStateException boom = new IllegalStateException("second half");
    for (int round = 0; round < 20; round++) {
      IllegalStateException thrown =
          failureOf(
              (part, from, to) -> {
                // The second half's slots: part 1, or part 0 of a pass run whole (the pool busy).
                if (to > Halves.SPLIT_FROM) {
                  throw boom;
                }
              });
      assertSame(boom, thrown);
    }
  }

  @Test
  void whenTheFirstHalfFailsTheSecondIsOverBeforeTheCallerGetsTheFailure() throws Exception {
    for (int round = 0; round < 10; round++) {
      CountDownLatch secondStarted = new CountDownLatch(1);
      AtomicBoolean started = new AtomicBoolean();
      AtomicBoolean ended = new AtomicBoolean();
      IllegalStateException boom = new IllegalStateException("first half");
      failureOf(
          (part, from, to) -> {
            if (part == 0) {
              // Fail while a pool thread runs the second half (if one took it).
              try {
                secondStarted.await(2, TimeUnit.SECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              throw boom;
            }
            started.set(true);
            secondStarted.countDown();
            try {
              Thread.sleep(300);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            ended.set(true);
          });
      // The search's arrays go back to its thread: nothing may still be using them.
      assertFalse(started.get() && !ended.get(), "the second half still ran after the failure");
    }
  }

  /** What a pass over twice the slots a split takes throws, {@code work} doing each part. */
  private static IllegalStateException failureOf(Halves.Part work) {
    return assertThrows(IllegalStateException.class, () -> Halves.run(Halves.SPLIT_FROM * 2, work));
  }
}
