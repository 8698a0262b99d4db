package dev.memsidecar.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a person sees who runs {@code sidecar/bin/memsidecar}: a normal start prints one line on
 * stderr (what runs, where, with which flags) and the {@code listening on} line on stdout, and no
 * JVM noise (class-data sharing, incubator modules, Unsafe) on the first start, the next, or a
 * {@code --help}.
 */
class TestLauncher {
  private static final Path LAUNCHER =
      SidecarProcess.jar().getParent().getParent().resolve("bin").resolve("memsidecar");

  @Test
  void aNormalStartPrintsOneLineOnEachStream(@TempDir Path ws) throws Exception {
    for (int start = 1;
        start <= 2;
        start++) { // the second maps the class-data archive the first made
      Path err = ws.resolve("stderr-" + start + ".txt");
      Process p =
          new ProcessBuilder(
                  "bash", LAUNCHER.toString(), "serve", "--workspace", ws.toString(), "--port", "0")
              .redirectError(err.toFile())
              .start();
      BufferedReader out =
          new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
      String listening = out.readLine();
      p.destroy(); // SIGTERM
      assertTrue(p.waitFor(30, TimeUnit.SECONDS), "exits on SIGTERM");
      assertTrue(listening != null && listening.startsWith("listening on 127.0.0.1:"), listening);
      List<String> lines = Files.readAllLines(err);
      assertEquals(
          1, lines.size(), () -> "a start printed on stderr:\n" + String.join("\n", lines));
      String line = lines.get(0);
      assertTrue(line.startsWith("memsidecar "), line);
      for (String says :
          new String[] {
            "workspace on langmem-sqlite",
            "embedder bge-small-en-q;",
            "data " + ws.resolve(".memsidecar"),
            "LangMem.write=true",
            listening
          }) {
        assertTrue(line.contains(says), () -> "'" + says + "' missing from: " + line);
      }
    }
  }

  @Test
  void helpIsQuietAndNamesTheTokenAndTheSocket(@TempDir Path dir) throws Exception {
    Path err = dir.resolve("stderr.txt");
    Process p =
        new ProcessBuilder("bash", LAUNCHER.toString(), "serve", "--help")
            .redirectError(err.toFile())
            .start();
    String help = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(30, TimeUnit.SECONDS));
    assertEquals(0, p.exitValue());
    assertEquals("", Files.readString(err), "nothing on stderr");
    for (String flag : new String[] {"--token-file", "--unix-socket", "--port", "--workspace"}) {
      assertTrue(help.contains(flag), flag);
    }
  }
}
