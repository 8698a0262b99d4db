package dev.memsidecar.sidecar.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.sidecar.bench.VectorLagBench.Sample;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** How {@code bench lag} bounds each record's lag from GetStatus samples. */
class TestVectorLagBench {
  @Test
  void aRecordIsDoneAtTheFirstSampleWhoseOldestWaitingRecordCameAfterIt() {
    long[] acked = {100, 200, 300};
    List<Sample> samples =
        List.of(
            new Sample(150, 160, 1, 60), // the oldest came at 90: record 0 may still wait
            new Sample(250, 260, 2, 100), // the oldest came at 150: record 0 is done
            new Sample(350, 360, 1, 40), // the oldest came at 310: records 1 and 2 are done
            new Sample(450, 460, 0, 0));
    assertArrayEquals(new long[] {160, 160, 60}, VectorLagBench.lags(acked, samples));
  }

  @Test
  void aSampleSentBeforeTheAcknowledgementNeverCoversIt() {
    long[] acked = {300, 100};
    List<Sample> samples = List.of(new Sample(200, 210, 0, 0), new Sample(400, 420, 0, 0));
    assertArrayEquals(new long[] {120, 110}, VectorLagBench.lags(acked, samples));
  }

  @Test
  void aRecordNoSampleCoversHasNoBound() {
    long[] acked = {100};
    List<Sample> samples = List.of(new Sample(200, 210, 3, 500));
    assertArrayEquals(new long[] {Long.MAX_VALUE}, VectorLagBench.lags(acked, samples));
  }

  @Test
  void theWindowsHoldTheMostWaitingAndTheLongestWaitOfTheirSamples() {
    long start = 1_000;
    long window = TimeUnit.SECONDS.toNanos(VectorLagBench.WINDOW_SECONDS);
    List<Sample> samples =
        List.of(
            new Sample(start - 10, start, 7, 70), // before the run: counted in the first window
            new Sample(start + 5, start + 6, 3, 900),
            new Sample(start + window - 1, start + window, 9, 50),
            new Sample(start + window, start + window + 1, 2, 20),
            new Sample(start + 3 * window, start + 3 * window + 1, 0, 0));
    TreeMap<Long, long[]> windows = VectorLagBench.windows(samples, start);
    assertEquals(List.of(0L, 1L, 3L), List.copyOf(windows.keySet()));
    assertArrayEquals(new long[] {9, 900}, windows.get(0L));
    assertArrayEquals(new long[] {2, 20}, windows.get(1L));
    assertArrayEquals(new long[] {0, 0}, windows.get(3L));
  }

  @Test
  void onlyAnEmptyReadingSentAfterTheLastAcknowledgementEndsTheSampling() {
    assertFalse(new Sample(100, 110, 0, 0).showsEmptyAfter(200), "sent before the last");
    assertFalse(new Sample(300, 310, 2, 40).showsEmptyAfter(200), "records still waited");
    assertTrue(new Sample(300, 310, 0, 0).showsEmptyAfter(200));
  }
}
