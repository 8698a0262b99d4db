package dev.memsidecar.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code bench load} run as a user runs it, on a small load: the table it prints names each phase
 * with its latencies, throughput and the sidecar's CPU time per call (read from {@code /proc} of
 * the sidecar it started), the figure that says how many cores a rate needs.
 */
class TestBenchLoad {
  private static final Duration LIMIT = Duration.ofMinutes(3);

  @Test
  void theTableGivesEachPhaseTheSidecarsCpuTimePerCall() {
    SidecarProcess.Completed done =
        SidecarProcess.run(
            Map.of(),
            LIMIT,
            "bench",
            "load",
            "--embedder=hash",
            "--records=200",
            "--clients=1",
            "--searches=50",
            "--remembers=50",
            "--starts=1",
            "--restarts=0");
    assertEquals(0, done.exitCode(), done::toString);
    assertTrue(
        done.stdout()
            .contains("| measurement | n | p50 | p99 | max | throughput | sidecar CPU per"),
        done::toString);
    for (String phase :
        List.of(
            "Remember, ingest of 200 records, 1 client",
            "Search top 8, 1 client",
            "Remember, 1 client")) {
      String row =
          done.stdout()
              .lines()
              .filter(l -> l.startsWith("| " + phase + " |"))
              .findFirst()
              .orElseThrow(() -> new AssertionError("no row " + phase + ":\n" + done));
      String[] cells = row.split("\\|");
      String cpu = cells[cells.length - 1].strip();
      assertTrue(cpu.endsWith(" ms"), row);
      double millis = Double.parseDouble(cpu.substring(0, cpu.length() - 3));
      // A call costs the sidecar some CPU, and far less than a second on any machine.
      assertTrue(millis > 0 && millis < 1000, row);
    }
  }
}
