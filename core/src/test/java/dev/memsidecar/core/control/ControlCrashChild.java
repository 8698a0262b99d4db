package dev.memsidecar.core.control;

import dev.memsidecar.core.Scope;
import dev.memsidecar.core.toolrules.ToolDenial;
import dev.memsidecar.core.toolrules.ToolRule;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The child process of {@link TestH2ControlStore#acknowledgedWritesSurviveKillOfTheProcess}: opens
 * a control store in the directory it is given and, one run after another, puts a tool rule,
 * records a denial, saves a snapshot and an EndRun result with {@value #DECISIONS} decisions. After
 * {@value #ACKNOWLEDGED} runs it prints {@value #WRITTEN} and goes on, so that the parent's SIGKILL
 * lands in the middle of a write. When done it waits to be killed; if its parent goes away first
 * (stdin closes) it halts without closing anything, as a crash would.
 */
public final class ControlCrashChild {
  static final String WRITTEN = "written";
  static final int ACKNOWLEDGED = 20;
  static final int RUNS = 2000;
  static final int DECISIONS = 3;
  static final Scope SCOPE = new Scope("acme", "alice", "coder", "s1");

  private ControlCrashChild() {}

  public static void main(String[] args) throws IOException {
    SqlControlStore store = SqlControlStore.open(Path.of(args[0]));
    for (int i = 0; i < RUNS; i++) {
      // The tool writes come first, so every run that ended has them too.
      store.putToolRule(SCOPE.workspaceId(), rule(i));
      store.recordDenial(SCOPE.workspaceId(), denial(i));
      store.saveSnapshot(SCOPE, snapshot(i), ControlFixtures.T0);
      store.saveEndRun(SCOPE, ControlFixtures.result(runId(i), DECISIONS));
      if (i == ACKNOWLEDGED - 1) {
        System.out.println(WRITTEN);
        System.out.flush();
      }
    }
    while (System.in.read() >= 0) {
      // wait for SIGKILL
    }
    Runtime.getRuntime().halt(3);
  }

  static String runId(int i) {
    return "run-" + i;
  }

  static dev.memsidecar.core.run.RunSnapshot snapshot(int i) {
    return ControlFixtures.snapshot(
        runId(i), "snap-" + i, ControlFixtures.T0, Duration.ofHours(24));
  }

  /** The tool rule written before run {@code i} ends. */
  static ToolRule rule(int i) {
    return new ToolRule(
        "rule-" + i,
        "send_email",
        "never email contact " + i,
        ToolRule.Priority.CRITICAL,
        ToolRule.Source.USER_EXPLICIT,
        List.of(),
        ControlFixtures.T0,
        ControlFixtures.T0,
        List.of("contact-" + i + "@example.com"));
  }

  /** The denial recorded before run {@code i} ends. */
  static ToolDenial denial(int i) {
    return new ToolDenial(
        "rule-" + i, "send_email", "contact-" + i + "@example.com", runId(i), ControlFixtures.T0);
  }

  /** Starts the child and returns once it has acknowledged {@value #ACKNOWLEDGED} runs. */
  static Process start(Path dataDir) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(ProcessHandle.current().info().command().orElseThrow());
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(ControlCrashChild.class.getName());
    command.add(dataDir.toString());
    Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
    StringBuilder output = new StringBuilder();
    BufferedReader in =
        new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
    for (String line; (line = in.readLine()) != null; ) {
      if (line.equals(WRITTEN)) {
        return child;
      }
      output.append(line).append('\n');
    }
    throw new AssertionError("crash child exited with " + child.waitFor() + ":\n" + output);
  }
}
