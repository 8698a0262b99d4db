package dev.memsidecar.provider.lucene;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.memsidecar.api.MemoryProvider;
import dev.memsidecar.conformance.MemoryStoreConformance;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * The shared conformance suite, run against a real index under a temporary directory, which the
 * index's write lock holds against other processes.
 */
class TestLuceneHnswConformance extends MemoryStoreConformance {
  @Override
  protected MemoryProvider provider() {
    return new LuceneHnswProvider();
  }

  @Override
  protected boolean locksDataDirectory() {
    return true;
  }

  /**
   * The store reopened after the kill replayed the write-ahead log, committed what it replayed and
   * trimmed the log to one empty generation, leaving no temporary file.
   */
  @Override
  protected void assertCleanAfterCrash(Path dataDirectory) throws IOException {
    List<Path> log;
    try (Stream<Path> files = Files.list(dataDirectory.resolve("translog"))) {
      log = files.toList();
    }
    assertEquals(1, log.size(), "log files after the reopen: " + log);
    assertEquals(Translog.FILE_HEADER, Files.size(log.get(0)), log.get(0) + " is not empty");
  }
}
