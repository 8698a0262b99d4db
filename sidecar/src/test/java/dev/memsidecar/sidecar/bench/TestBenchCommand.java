package dev.memsidecar.sidecar.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.sidecar.Main;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The bench command's arguments: help, and usage errors before any sidecar starts. */
class TestBenchCommand {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int bench(String... args) {
    return BenchCommand.commandLine(
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            Main.class)
        .execute(args);
  }

  private String out() {
    return out.toString(StandardCharsets.UTF_8);
  }

  private String err() {
    return err.toString(StandardCharsets.UTF_8);
  }

  /** A usage error: exit 2, and stderr's first line names the command and the option. */
  private void assertUsageError(String option, String... args) {
    out.reset();
    err.reset();
    assertEquals(2, bench(args), err());
    String first = err().lines().findFirst().orElse("");
    assertTrue(first.startsWith("memsidecar bench"), first);
    assertTrue(first.contains(option), first);
    assertTrue(err().contains("--help' for usage"), err());
    assertTrue(out().isEmpty(), out());
  }

  @Test
  void helpListsEveryBenchmark() {
    assertEquals(0, bench("--help"));
    assertTrue(out().contains("locomo"), out());
    assertTrue(out().contains("load"), out());
    assertTrue(out().contains("crash"), out());
  }

  @Test
  void eachBenchmarkHasItsOwnHelp() {
    assertEquals(0, bench("locomo", "--help"));
    for (String option : new String[] {"--data", "--provider", "--embedder", "--k", "--help"}) {
      assertTrue(out().contains(option), option);
    }
    out.reset();
    assertEquals(0, bench("load", "-h"));
    for (String option :
        new String[] {"--records", "--clients", "--provider", "--embedder", "--help"}) {
      assertTrue(out().contains(option), option);
    }
  }

  @Test
  void benchAloneAsksForABenchmark() {
    assertUsageError("locomo, load, crash, footprint or lag");
  }

  @Test
  void unknownOptionIsNamed() {
    assertUsageError("--frobnicate", "load", "--frobnicate");
    assertUsageError("lokomo", "lokomo");
  }

  @Test
  void locomoNeedsAReadableLocomoFile(@TempDir Path dir) throws Exception {
    assertUsageError("--data", "locomo");
    assertUsageError("missing.json", "locomo", "--data", dir.resolve("missing.json").toString());
    Path notJson = Files.writeString(dir.resolve("bad.json"), "{ not json");
    assertUsageError("--data", "locomo", "--data", notJson.toString());
    Path object = Files.writeString(dir.resolve("object.json"), "{}");
    assertUsageError("array of conversations", "locomo", "--data", object.toString());
  }

  @Test
  void cutOffsAreNumbersFromOneToAHundred(@TempDir Path dir) throws Exception {
    Path data = Files.writeString(dir.resolve("locomo.json"), "[]");
    assertUsageError("--k", "locomo", "--data", data.toString(), "--k", "ten");
    assertUsageError("--k", "locomo", "--data", data.toString(), "--k", "5,0");
    assertUsageError("--k", "locomo", "--data", data.toString(), "--k", "101");
  }

  @Test
  void loadCountsMustMakeSense() {
    assertUsageError("--records", "load", "--records", "many");
    assertUsageError("--records", "load", "--records", "0");
    assertUsageError("--clients", "load", "--clients", "1,0");
    assertUsageError("--starts", "load", "--starts", "0");
    assertUsageError("--searches", "load", "--searches", "-1");
    assertUsageError("--restarts", "load", "--restarts", "-1");
    assertUsageError("--quiet-cpu", "load", "--quiet-cpu", "101");
    assertUsageError("--ingest", "load", "--ingest", "bulk");
  }

  @Test
  void crashCountsMustMakeSense() {
    assertUsageError("--cycles", "crash", "--cycles", "0");
    assertUsageError("--records", "crash", "--cycles", "5", "--records", "4");
    assertUsageError("--clients", "crash", "--clients", "0");
    assertUsageError("--provider", "crash", "--provider", "lucene hnsw");
  }

  @Test
  void footprintHasItsOwnHelpAndChecksItsCounts() {
    assertEquals(0, bench("footprint", "--help"));
    for (String option :
        new String[] {"--records", "--operations", "--clients", "--launcher", "--settle"}) {
      assertTrue(out().contains(option), option);
    }
    assertUsageError("--records", "footprint", "--records", "0");
    assertUsageError("--operations", "footprint", "--records", "100", "--operations", "99");
    assertUsageError("--clients", "footprint", "--clients", "0");
    assertUsageError("--settle", "footprint", "--settle", "-1");
  }

  @Test
  void lagHasItsOwnHelpAndChecksItsRate() {
    assertEquals(0, bench("lag", "--help"));
    for (String option : new String[] {"--rate", "--seconds", "--clients", "--embedder"}) {
      assertTrue(out().contains(option), option);
    }
    assertUsageError("--rate", "lag", "--rate", "0");
    assertUsageError("--seconds", "lag", "--seconds", "0");
    assertUsageError("--clients", "lag", "--clients", "0");
    assertUsageError("--records", "lag", "--records", "-1");
  }

  @Test
  void workspaceExcludesProviderAndEmbedder(@TempDir Path dir) {
    assertUsageError(
        "--workspace", "load", "--workspace", dir.toString(), "--provider", "lucene-hnsw");
    assertUsageError("--workspace", "load", "--workspace", dir.resolve("nope").toString());
  }

  @Test
  void providerAndEmbedderMustBeNames() {
    assertUsageError("--provider", "load", "--provider", "lucene hnsw");
    assertUsageError("--embedder", "load", "--embedder", "../model");
  }
}
