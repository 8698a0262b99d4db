package dev.memsidecar.provider.lucene;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.memsidecar.api.MemoryException;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class TestGroupCommit {
  @Test
  public void aFailedCommitFailsItsWriterAsUnavailableAndALaterWriteCommits() {
    AtomicInteger runs = new AtomicInteger();
    AtomicLong last = new AtomicLong(-1);
    try (GroupCommit commit =
        new GroupCommit(
            "test commit",
            () -> {
              if (runs.incrementAndGet() == 1) {
                throw new IOException("disk full");
              }
              return last.get();
            },
            0)) {
      commit.join();
      last.set(0);
      MemoryException e = assertThrows(MemoryException.class, () -> commit.await(0));
      assertEquals(MemoryException.Code.UNAVAILABLE, e.code());
      assertEquals(0, commit.runs());

      commit.join();
      last.set(1);
      commit.await(1);
      assertEquals(1, commit.runs());
    }
  }

  @Test
  public void awaitAfterCloseFailsWithFailedPrecondition() {
    GroupCommit commit = new GroupCommit("test commit", () -> 0L, 0);
    commit.close();
    commit.close();
    commit.join();
    MemoryException e = assertThrows(MemoryException.class, () -> commit.await(5));
    assertEquals(MemoryException.Code.FAILED_PRECONDITION, e.code());
  }
}
