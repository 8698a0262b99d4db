package dev.memsidecar.provider.deepagents;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.memsidecar.api.ListQuery;
import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.MemoryStore;
import dev.memsidecar.api.Namespace;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What survives {@code kill -9}: a child JVM ({@link PutThenWaitMain}) puts records and writes a
 * memory file, and is killed with SIGKILL the moment it reports them written, without closing the
 * store.
 */
class TestCrashDurability {
  static final String NAMESPACE = "acme:user:alice:user";
  static final String FILE_NAMESPACE = "acme:workspace:notes";
  static final String FILE_CONTENT = "# Notes\n\n- 用户喜欢简洁的回答\n";
  static final String WRITTEN = "written";
  private static final int COUNT = 200;

  @TempDir Path dir;

  @Test
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void everyAcknowledgedWriteSurvivesKillOfTheProcess() throws Exception {
    Process child = startChild();
    try {
      awaitWritten(child);

      // While the child holds the directory, this process must not open it.
      MemoryException locked = assertThrows(MemoryException.class, () -> Fixtures.open(dir));
      assertEquals(MemoryException.Code.UNAVAILABLE, locked.code());

      child.destroyForcibly(); // SIGKILL: no shutdown hooks, no close
      assertTrue(child.waitFor(60, TimeUnit.SECONDS), "child did not die");
    } finally {
      child.destroyForcibly();
    }

    Namespace ns = Namespace.of(NAMESPACE);
    try (MemoryStore store = Fixtures.open(dir)) {
      for (int i = 0; i < COUNT; i++) {
        assertTrue(store.get(ns, "r" + i).isPresent(), "lost record r" + i + " of " + COUNT);
      }
      assertEquals(COUNT, store.list(ns, new ListQuery(1000, null, true)).records().size());
      assertEquals(
          "r" + (COUNT - 1), store.list(ns, new ListQuery(1, null, false)).records().get(0).id());
      assertEquals(FILE_CONTENT, store.readFile(Namespace.of(FILE_NAMESPACE)).content());
      try (Stream<Path> files = Files.walk(dir)) {
        List<Path> temporaries =
            files.filter(p -> DurableFiles.isTemporary(p.getFileName().toString())).toList();
        assertEquals(List.of(), temporaries, "temporary files left after open");
      }
    }
  }

  private Process startChild() throws Exception {
    String java = ProcessHandle.current().info().command().orElseThrow();
    List<String> command = new ArrayList<>();
    command.add(java);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(PutThenWaitMain.class.getName());
    command.add(dir.toString());
    command.add(Integer.toString(COUNT));
    return new ProcessBuilder(command).redirectErrorStream(true).start();
  }

  private static void awaitWritten(Process child) throws Exception {
    StringBuilder output = new StringBuilder();
    BufferedReader in =
        new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null) {
      if (line.equals(WRITTEN)) {
        return;
      }
      output.append(line).append('\n');
    }
    fail("child exited with " + child.waitFor() + " before writing:\n" + output);
  }
}
