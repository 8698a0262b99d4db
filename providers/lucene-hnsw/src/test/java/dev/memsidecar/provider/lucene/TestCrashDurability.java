package dev.memsidecar.provider.lucene;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.memsidecar.api.ListQuery;
import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.MemoryStore;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.api.SearchQuery;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What survives {@code kill -9}: a child JVM ({@link PutThenWaitMain}) puts records from four
 * threads and deletes one, and is killed with SIGKILL the moment it reports them written, without
 * closing the index.
 */
class TestCrashDurability {
  static final String NAMESPACE = "acme:user:alice:user";
  static final String WRITTEN = "written";
  private static final int COUNT = 200;

  @TempDir Path dir;

  @Test
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void everyAcknowledgedWriteSurvivesKillOfTheProcess() throws Exception {
    Process child = startChild();
    try {
      awaitWritten(child);

      // While the child holds the index, this process must not open it.
      MemoryException locked = assertThrows(MemoryException.class, () -> Fixtures.open(dir));
      assertEquals(MemoryException.Code.UNAVAILABLE, locked.code());
      assertTrue(locked.getMessage().contains(dir.toString()), locked.getMessage());

      child.destroyForcibly(); // SIGKILL: no shutdown hooks, no close
      assertTrue(child.waitFor(60, TimeUnit.SECONDS), "child did not die");
    } finally {
      child.destroyForcibly();
    }

    Namespace ns = Namespace.of(NAMESPACE);
    try (MemoryStore store = Fixtures.open(dir)) {
      assertFalse(store.get(ns, "r0").isPresent(), "the acknowledged delete of r0 was lost");
      for (int i = 1; i < COUNT; i++) {
        assertTrue(store.get(ns, "r" + i).isPresent(), "lost record r" + i + " of " + COUNT);
      }
      assertEquals(COUNT - 1, store.list(ns, new ListQuery(1000, null, true)).records().size());
      assertEquals(
          "r" + (COUNT - 1), store.list(ns, new ListQuery(1, null, false)).records().get(0).id());
      SearchQuery q =
          new SearchQuery(
              "crash record 7", null, 5, Set.of(), List.of(), 0f, Fixtures.T0.plusSeconds(60));
      assertEquals("r7", store.search(ns, q).get(0).record().id());
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
    command.add("4");
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
