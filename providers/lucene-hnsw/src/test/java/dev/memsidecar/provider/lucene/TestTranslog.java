package dev.memsidecar.provider.lucene;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The write-ahead log on its own: what it replays, which damage it drops as a torn tail and which
 * it reports as corruption.
 */
class TestTranslog {
  @TempDir Path dir;

  /** Replays into a list of "op:payload" strings. */
  private static final class Collect implements Translog.Replayer {
    final List<String> entries = new ArrayList<>();

    @Override
    public void apply(byte op, byte[] bytes, int offset, int length) {
      String payload = new String(bytes, offset, length, UTF_8);
      if (payload.startsWith("undecodable")) {
        throw new IllegalArgumentException("cannot decode " + payload);
      }
      entries.add(op + ":" + payload);
    }
  }

  private Translog open(long committed, Collect into) throws IOException {
    return Translog.open(dir, committed, into);
  }

  /** Appends each payload as a put and writes it on its own, as separate acknowledged writes. */
  private static void writeEach(Translog log, String... payloads) throws IOException {
    for (String p : payloads) {
      log.append(Translog.PUT, p.getBytes(UTF_8));
      log.write(log.take());
    }
  }

  private Path generation(long g) {
    return dir.resolve(Translog.fileName(g));
  }

  private List<Path> files() throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.sorted().toList();
    }
  }

  private static void flip(Path file, long offset) throws IOException {
    byte[] bytes = Files.readAllBytes(file);
    bytes[(int) offset] ^= 0x20;
    Files.write(file, bytes);
  }

  private static void truncate(Path file, long size) throws IOException {
    byte[] bytes = Files.readAllBytes(file);
    Files.write(file, Arrays.copyOf(bytes, (int) size));
  }

  /** The size of the entry with payload {@code p}. */
  private static int entrySize(String p) {
    return Translog.ENTRY_HEADER + Translog.BODY_PREFIX + p.getBytes(UTF_8).length;
  }

  @Test
  public void replaysEveryGenerationFromTheCommittedOneInOrder() throws IOException {
    try (Translog log = open(-1, new Collect())) {
      assertEquals(1, log.generation());
      writeEach(log, "a", "b");
      assertEquals(2, log.roll());
      log.append(Translog.DELETE, "a".getBytes(UTF_8));
      log.append(Translog.PUT, "c".getBytes(UTF_8));
      log.write(log.take());
    }
    Collect all = new Collect();
    try (Translog log = open(1, all)) {
      assertEquals(3, log.generation(), "a new generation after every one there is");
      assertEquals(new Translog.Recovery(2, 4, 0, null), log.recovery());
    }
    assertEquals(List.of("1:a", "1:b", "2:a", "1:c"), all.entries);

    Collect fromTwo = new Collect();
    open(2, fromTwo).close();
    assertEquals(List.of("2:a", "1:c"), fromTwo.entries, "generation 1 is committed");
  }

  @Test
  public void trimmingDeletesOnlyTheGenerationsBelow() throws IOException {
    try (Translog log = open(-1, new Collect())) {
      writeEach(log, "a");
      log.roll();
      writeEach(log, "b");
      long third = log.roll();
      log.trimBelow(third);
      assertEquals(List.of(generation(3)), files());
    }
  }

  @Test
  public void aCommittedGenerationThatIsMissingFailsNamingIt() throws IOException {
    try (Translog log = open(-1, new Collect())) {
      writeEach(log, "a");
      log.roll();
      writeEach(log, "b");
      log.roll();
    }
    Files.delete(generation(2));
    Translog.CorruptedException e =
        assertThrows(Translog.CorruptedException.class, () -> open(1, new Collect()));
    assertEquals(generation(2), e.file());
    assertTrue(e.getMessage().contains("generation 2 is missing"), e.getMessage());

    assertThrows(Translog.CorruptedException.class, () -> open(7, new Collect()));
  }

  @Test
  public void aLastEntryCutShortAtAnyByteIsDroppedAndTheFileTruncatedBeforeIt() throws IOException {
    // Every length a crash can leave of it: inside magic, length, checksum, operation, synced and
    // payload.
    for (int cut = 1; cut < entrySize("third"); cut++) {
      Path sub = dir.resolve("cut" + cut);
      try (Translog log = Translog.open(sub, -1, new Collect())) {
        writeEach(log, "first", "second", "third");
      }
      Path file = sub.resolve(Translog.fileName(1));
      long third = Files.size(file) - entrySize("third");
      truncate(file, third + cut);

      Collect replay = new Collect();
      try (Translog log = Translog.open(sub, 1, replay)) {
        assertEquals(List.of("1:first", "1:second"), replay.entries, "cut at " + cut);
        assertEquals(cut, log.recovery().droppedBytes());
        assertEquals(third, Files.size(file), "truncated before the torn entry");
        writeEach(log, "fourth");
      }
      Collect again = new Collect();
      Translog.open(sub, 1, again).close();
      assertEquals(List.of("1:first", "1:second", "1:fourth"), again.entries);
    }
  }

  @Test
  public void aDamagedLastEntryIsDropped() throws IOException {
    try (Translog log = open(-1, new Collect())) {
      writeEach(log, "first", "second");
    }
    Path file = generation(1);
    long last = Files.size(file) - entrySize("second");
    // Every byte of it: magic, length, checksum, operation, synced, payload.
    for (long at = last; at < Files.size(file); at++) {
      byte[] before = Files.readAllBytes(file);
      flip(file, at);
      Collect replay = new Collect();
      try {
        Translog.open(dir, 1, replay).close();
      } finally {
        Files.write(file, before);
        for (Path p : files()) {
          if (!p.equals(file)) {
            Files.delete(p);
          }
        }
      }
      assertEquals(List.of("1:first"), replay.entries, "flipped byte " + (at - last));
    }
  }

  @Test
  public void zerosAfterTheLastEntryAreATornTail() throws IOException {
    try (Translog log = open(-1, new Collect())) {
      writeEach(log, "first");
    }
    Path file = generation(1);
    byte[] bytes = Files.readAllBytes(file);
    Files.write(file, Arrays.copyOf(bytes, bytes.length + 4096));
    Collect replay = new Collect();
    try (Translog log = open(1, replay)) {
      assertEquals(4096, log.recovery().droppedBytes());
    }
    assertEquals(List.of("1:first"), replay.entries);
  }

  @Test
  public void aDamagedEntryFollowedByOneWrittenAfterItWasDurableFailsNamingFileAndOffset()
      throws IOException {
    try (Translog log = open(-1, new Collect())) {
      writeEach(log, "first", "second", "third");
    }
    Path file = generation(1);
    long second = Translog.FILE_HEADER + entrySize("first");
    // A byte of the payload, then of the length: either way "third" vouches for "second".
    for (long at : new long[] {second + entrySize("second") - 1, second + 5}) {
      byte[] before = Files.readAllBytes(file);
      flip(file, at);
      Translog.CorruptedException e =
          assertThrows(Translog.CorruptedException.class, () -> open(1, new Collect()));
      Files.write(file, before);
      assertEquals(file, e.file());
      assertEquals(second, e.offset());
      assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
      assertTrue(e.getMessage().contains("offset " + second), e.getMessage());
    }
  }

  @Test
  public void aDamagedEntryFollowedOnlyByEntriesOfTheSameWriteIsATornTail() throws IOException {
    try (Translog log = open(-1, new Collect())) {
      writeEach(log, "first");
      // One write carrying three entries: a crash may tear any of them.
      log.append(Translog.PUT, "second".getBytes(UTF_8));
      log.append(Translog.PUT, "third".getBytes(UTF_8));
      log.append(Translog.PUT, "fourth".getBytes(UTF_8));
      log.write(log.take());
    }
    flip(generation(1), Translog.FILE_HEADER + entrySize("first") + Translog.ENTRY_HEADER + 10);
    Collect replay = new Collect();
    try (Translog log = open(1, replay)) {
      assertEquals(
          entrySize("second") + entrySize("third") + entrySize("fourth"),
          log.recovery().droppedBytes());
    }
    assertEquals(List.of("1:first"), replay.entries);
  }

  @Test
  public void damageInAGenerationBeforeTheLastFailsOpen() throws IOException {
    try (Translog log = open(-1, new Collect())) {
      writeEach(log, "first", "second");
      log.roll();
      writeEach(log, "third");
    }
    Path file = generation(1);
    long second = Translog.FILE_HEADER + entrySize("first");
    truncate(file, second + 3);
    Translog.CorruptedException e =
        assertThrows(Translog.CorruptedException.class, () -> open(1, new Collect()));
    assertEquals(file, e.file());
    assertEquals(second, e.offset());
  }

  @Test
  public void aBadFileHeaderFailsOpen() throws IOException {
    try (Translog log = open(-1, new Collect())) {
      writeEach(log, "first");
    }
    flip(generation(1), 9);
    Translog.CorruptedException e =
        assertThrows(Translog.CorruptedException.class, () -> open(1, new Collect()));
    assertEquals(0, e.offset());
    assertTrue(e.getMessage().contains("header"), e.getMessage());
  }

  @Test
  public void anEntryTheStoreCannotDecodeIsCorruption() throws IOException {
    try (Translog log = open(-1, new Collect())) {
      writeEach(log, "first", "undecodable", "third");
    }
    Translog.CorruptedException e =
        assertThrows(Translog.CorruptedException.class, () -> open(1, new Collect()));
    assertEquals(Translog.FILE_HEADER + entrySize("first"), e.offset());
    assertTrue(e.getMessage().contains("does not decode"), e.getMessage());
  }

  @Test
  public void aGenerationInterruptedBeforeItsRenameIsRemoved() throws IOException {
    open(-1, new Collect()).close();
    Files.write(dir.resolve(Translog.fileName(2) + ".tmp"), new byte[7]);
    try (Translog log = open(1, new Collect())) {
      assertEquals(2, log.generation());
    }
    assertEquals(List.of(generation(1), generation(2)), files());
  }

  @Test
  public void afterCloseEveryCallFails() throws IOException {
    Translog log = open(-1, new Collect());
    writeEach(log, "first");
    log.close();
    IOException e = assertThrows(IOException.class, () -> log.append(Translog.PUT, new byte[1]));
    assertTrue(e.getMessage().contains("closed"), e.getMessage());
    assertThrows(IOException.class, log::roll);
  }
}
