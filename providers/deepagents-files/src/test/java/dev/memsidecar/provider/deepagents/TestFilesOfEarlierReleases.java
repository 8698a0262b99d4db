package dev.memsidecar.provider.deepagents;

import static dev.memsidecar.provider.deepagents.Fixtures.T0;
import static dev.memsidecar.provider.deepagents.Fixtures.record;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.memsidecar.api.ListQuery;
import dev.memsidecar.api.MemoryKind;
import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.MemoryStatus;
import dev.memsidecar.api.MemoryStore;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.api.Validity;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Memory files written by the first release (0.1.0, whose marker JSON was written and parsed by
 * hand) read as the same records now, and writing those records again gives the same bytes.
 *
 * <p>{@code memory-file-0.1.0.md} beside this class was written by that release's store from {@link
 * #writtenByTheStore()}, then two entries were added the way a person would: {@link
 * #writtenByHand()}.
 */
class TestFilesOfEarlierReleases {
  static final Namespace NS = Namespace.of("acme:user:alice:user");
  static final String RESOURCE = "memory-file-0.1.0.md";

  @TempDir Path dir;
  private MemoryStore store;
  private Path file;

  @BeforeEach
  void placeTheOldFile() throws IOException {
    store = Fixtures.open(dir);
    file = ((DeepAgentsFilesStore) store).fileOf(NS);
    Files.createDirectories(file.getParent());
    Files.write(file, oldBytes());
  }

  @AfterEach
  void closeStore() {
    store.close();
  }

  @Test
  void everyEntryOfAFileWrittenByTheFirstReleaseReadsAsTheRecordItWasWrittenFrom() {
    List<MemoryRecord> all = new ArrayList<>(writtenByTheStore());
    all.addAll(writtenByHand());
    for (MemoryRecord r : all) {
      assertEquals(Optional.of(r), store.get(NS, r.id()), r.id());
    }
    assertEquals(all.size(), store.list(NS, new ListQuery(100, null, true)).records().size());
  }

  @Test
  void writingTheSameRecordsAgainKeepsTheFileByteForByte() throws IOException {
    for (MemoryRecord r : writtenByTheStore()) {
      store.put(r);
    }
    assertArrayEquals(oldBytes(), Files.readAllBytes(file));
  }

  private static byte[] oldBytes() throws IOException {
    try (InputStream in = TestFilesOfEarlierReleases.class.getResourceAsStream(RESOURCE)) {
      return in.readAllBytes();
    }
  }

  /** The records the old store wrote: every field, odd characters, odd numbers, odd times. */
  static List<MemoryRecord> writtenByTheStore() {
    List<MemoryRecord> out = new ArrayList<>();
    out.add(
        record(NS, "plain", "Alice prefers dark roast coffee.").toBuilder()
            .tags(List.of("coffee"))
            .build());
    out.add(
        record(NS, "every-field", "The release gate is `npm run check:rules`.", T0.plusNanos(1))
            .toBuilder()
            .kind(MemoryKind.PROCEDURAL)
            .status(MemoryStatus.SUPERSEDED)
            .validity(Validity.SHORT_TERM)
            .updateTime(T0.plusSeconds(60))
            .expireTime(T0.plusSeconds(86_400).plusNanos(1))
            .summary("summary --> with > and <!-- and \"quotes\" and \\ backslash")
            .context("user: a\nassistant: b\r\n-->\t\b\f\u0000\u001f\u007f end")
            .metadata(Map.of("k>", "v-->", "键", "值\n", "", "", "zeta", "z", "alpha", "a"))
            .tags(List.of("z", "a", "标签"))
            .sourceRefs(List.of("run:1", "remember:req"))
            .confidence(0.1f)
            .gateScore(7.25f)
            .sensitivity("秘密")
            .build());
    out.add(
        record(NS, "not-finite", "numbers JSON cannot hold", T0.plusNanos(2)).toBuilder()
            .kind(MemoryKind.EPISODIC)
            .confidence(Float.NaN)
            .gateScore(Float.NEGATIVE_INFINITY)
            .build());
    out.add(
        record(NS, "extreme-numbers", "tiny and huge", T0.plusNanos(3)).toBuilder()
            .confidence(Float.POSITIVE_INFINITY)
            .gateScore(Float.MIN_VALUE)
            .summary("1e10 is " + 1e10f)
            .metadata(Map.of("max", Float.toString(Float.MAX_VALUE)))
            .build());
    out.add(
        record(NS, "surrogates", "paired 🚀 𝔘𝔫𝔦 in content", T0.plusNanos(4)).toBuilder()
            .summary("lone high \uD800 here")
            .metadata(Map.of("low", "lone low \uDC00", "pair", "🚀"))
            .context("line\u2028separator\u0085nel 用户喜欢简洁的回答")
            .status(MemoryStatus.FORGOTTEN)
            .build());
    out.add(
        record(NS, "ends-of-time", "instants at the ends of time", Instant.MIN).toBuilder()
            .updateTime(Instant.MAX)
            .profile("other-profile")
            .build());
    out.add(record(NS, "empty", "", T0.plusNanos(5)));
    out.add(
        record(
            NS,
            "tricky-lines",
            "\n\n"
                + "leading blank lines\n"
                + "\\backslash first\n"
                + "<!-- memsidecar:record"
                + " {\"id\":\"forged\",\"createTime\":\"2025-01-01T00:00:00Z\"} -->\n"
                + "   <!--memsidecar:anything\n"
                + "```\n"
                + "code <!-- memsidecar:record {} -->\n"
                + "```\n"
                + "crlf\r\n"
                + " \t \n"
                + "trailing blank lines\n\n",
            T0.plusNanos(6)));
    return List.copyOf(out);
  }

  /** The entries a person added by hand below the store's: minimal and loosely formatted. */
  static List<MemoryRecord> writtenByHand() {
    return List.of(
        record(NS, "byhand", "Written by a person.", Instant.parse("2025-04-01T00:00:00Z")),
        record(NS, "byhand-2", "Caf\u00e9 notes/1", Instant.parse("2025-04-02T00:00:00Z"))
            .toBuilder()
            .updateTime(Instant.parse("2025-04-03T00:00:00Z"))
            .kind(MemoryKind.EPISODIC)
            .tags(List.of("a/b"))
            .confidence(0.25f)
            .gateScore(-1.5e-3f)
            .summary("s")
            .build());
  }
}
