package dev.memsidecar.sidecar.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import dev.memsidecar.sidecar.bench.VectorLagBench.Sample;
import java.util.List;
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
}
