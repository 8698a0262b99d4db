package dev.memsidecar.provider.deepagents;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.memsidecar.api.ListQuery;
import dev.memsidecar.api.MemoryFile;
import dev.memsidecar.api.MemoryProvider;
import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.MemoryStore;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.conformance.MemoryStoreConformance;
import dev.memsidecar.toolkit.DurableFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The shared conformance suite, run against {@code deepagents-files}: its lock file holds the data
 * directory against other processes, and opening it removes the temporary files a crash left.
 */
class TestDeepAgentsFilesConformance extends MemoryStoreConformance {
  @Override
  protected MemoryProvider provider() {
    return new DeepAgentsFilesProvider();
  }

  @Override
  protected boolean locksDataDirectory() {
    return true;
  }

  @Override
  protected void assertCleanAfterCrash(Path dataDirectory) throws IOException {
    try (Stream<Path> files = Files.walk(dataDirectory)) {
      List<Path> temporaries =
          files.filter(p -> DurableFiles.isTemporary(p.getFileName().toString())).toList();
      assertEquals(List.of(), temporaries, "temporary files left after reopen");
    }
  }

  /** The file and the records of one namespace are one thing here: both survive reopen. */
  @Test
  public void recordsAndTheFileHoldingThemSurviveCloseAndReopen() {
    Namespace ns = Namespace.of("conf:user:u" + random().nextInt(1_000_000) + ":p");
    Namespace fileOnly = Namespace.of(ns.value() + ":notes");
    Instant t = Instant.parse("2025-05-05T05:05:05.123456789Z");
    List<MemoryRecord> records = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      records.add(
          MemoryRecord.builder()
              .namespace(ns)
              .id("r" + i)
              .profile("conformance")
              .content("record " + i + " 用户喜欢简洁的回答 🚀\n\n- item")
              .times(t.plusNanos(i))
              .build());
    }
    for (MemoryRecord r : records) {
      store().put(r);
    }
    store().delete(ns, "r7");
    records.remove(7);
    String withRecords = store().readFile(ns).content();
    String notes = "# Notes\n\n- 用户喜欢简洁的回答\n";
    store().writeFile(fileOnly, notes, null);

    MemoryStore reopened = reopen();
    for (MemoryRecord r : records) {
      assertEquals(Optional.of(r), reopened.get(ns, r.id()), "after reopen: " + r.id());
    }
    assertEquals(Optional.empty(), reopened.get(ns, "r7"), "deleted stays deleted");
    assertEquals(29, reopened.list(ns, new ListQuery(100, null, true)).records().size());
    assertEquals(MemoryFile.etagOf(withRecords), reopened.readFile(ns).etag());
    assertEquals(notes, reopened.readFile(fileOnly).content());
  }
}
