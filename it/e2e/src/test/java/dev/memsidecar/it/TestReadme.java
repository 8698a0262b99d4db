package dev.memsidecar.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The README's "Try it from the terminal" commands, run line by line as a newcomer pastes them
 * (through bash, from the folder that holds {@code sidecar/bin/memsidecar} beside the jar under
 * test), against a running sidecar on its defaults: each exits 0 and the search prints what was
 * remembered. The sidecar is reached through {@code MEMSIDECAR_TARGET}, as the README's commands
 * name no target.
 */
class TestReadme extends DefaultSidecarTest {
  private static final Path README =
      Path.of(System.getProperty("basedir", "")).toAbsolutePath().resolve("../../README.md");

  /** The folder {@code sidecar/bin/memsidecar} is relative to: the launcher beside the jar. */
  private static final Path CHECKOUT = SidecarProcess.jar().getParent().getParent().getParent();

  private static final Pattern QUOTED = Pattern.compile("\"([^\"]+)\"");

  @Test
  void theTerminalCommandsRememberAndFind() throws Exception {
    List<String> commands = commandsOf(cliBlock(Files.readString(README, StandardCharsets.UTF_8)));
    String remember = only(commands, "sidecar/bin/memsidecar remember ");
    only(commands, "sidecar/bin/memsidecar search ");
    Matcher quoted = QUOTED.matcher(remember);
    assertTrue(quoted.find(), "the README remembers a quoted sentence: " + remember);
    String remembered = quoted.group(1);

    String searched = null;
    for (String command : commands) {
      Ran ran = bash(command);
      assertEquals(0, ran.exitCode(), () -> command + "\n" + ran);
      if (command.startsWith("sidecar/bin/memsidecar search ")) {
        searched = ran.stdout();
      }
    }
    List<String> rows = searched.lines().toList();
    assertTrue(rows.get(0).startsWith("SCORE"), searched);
    assertTrue(
        rows.get(1).contains(remembered), "the best hit is what was remembered:\n" + searched);
  }

  /** The ```sh block of the README whose commands remember and search. */
  private static String cliBlock(String readme) {
    List<String> blocks = new ArrayList<>();
    StringBuilder block = null;
    for (String line : readme.split("\n", -1)) {
      if (block == null && line.strip().equals("```sh")) {
        block = new StringBuilder();
      } else if (block != null && line.strip().equals("```")) {
        blocks.add(block.toString());
        block = null;
      } else if (block != null) {
        block.append(line).append('\n');
      }
    }
    List<String> cli =
        blocks.stream().filter(b -> b.contains("sidecar/bin/memsidecar remember ")).toList();
    assertEquals(1, cli.size(), "one README block remembers from the terminal: " + blocks);
    return cli.get(0);
  }

  /** The lines of a block that are commands: not blank, not comments. */
  private static List<String> commandsOf(String block) {
    return block
        .lines()
        .map(String::strip)
        .filter(l -> !l.isEmpty() && !l.startsWith("#"))
        .toList();
  }

  private static String only(List<String> commands, String prefix) {
    List<String> found = commands.stream().filter(c -> c.startsWith(prefix)).toList();
    assertEquals(1, found.size(), "one `" + prefix + "...` line: " + commands);
    return found.get(0);
  }

  record Ran(int exitCode, String stdout, String stderr) {
    @Override
    public String toString() {
      return "exit " + exitCode + "\n--- stdout ---\n" + stdout + "\n--- stderr ---\n" + stderr;
    }
  }

  private static Ran bash(String command) throws IOException, InterruptedException {
    Path out = Files.createTempFile("readme-command", ".out");
    Path err = Files.createTempFile("readme-command", ".err");
    try {
      ProcessBuilder builder =
          new ProcessBuilder("bash", "-c", command)
              .directory(CHECKOUT.toFile())
              .redirectOutput(out.toFile())
              .redirectError(err.toFile())
              .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
      builder.environment().keySet().removeIf(k -> k.startsWith("MEMSIDECAR_"));
      builder.environment().put("MEMSIDECAR_TARGET", sidecar.host() + ":" + sidecar.port());
      Process p = builder.start();
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new AssertionError(command + " did not finish within 60 s");
      }
      return new Ran(
          p.exitValue(),
          Files.readString(out, StandardCharsets.UTF_8),
          Files.readString(err, StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }
}
