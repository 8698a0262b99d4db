package dev.memsidecar.provider.lucene;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.memsidecar.api.MemoryKind;
import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.MemoryStatus;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.api.Validity;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TestRecordCodec {
  private static final Namespace NS = Namespace.of("acme:user:alice:user");

  private static MemoryRecord full() {
    return MemoryRecord.builder()
        .id("r-1")
        .namespace(NS)
        .profile("workspace")
        .kind(MemoryKind.PROCEDURAL)
        .content("Run \"npm run build\";\nthen C:\\ship.exe — 发布前先构建 \uD83D\uDE80")
        .summary("build before release")
        .context("user: how do we ship?")
        .confidence(0.87f)
        .tags(List.of("release", "发布"))
        .sensitivity("internal")
        .metadata(Map.of("source", "run-42", "空", "", "k\u0000", "v\u0000"))
        .createTime(Instant.parse("2025-02-03T04:05:06.123456789Z"))
        .updateTime(Instant.parse("2025-02-04T04:05:06.000000001Z"))
        .gateScore(7.25f)
        .status(MemoryStatus.SUPERSEDED)
        .sourceRefs(List.of("run:42", "remember:req-1"))
        .validity(Validity.SHORT_TERM)
        .expireTime(Instant.parse("2026-01-01T00:00:00.5Z"))
        .build();
  }

  private static MemoryRecord roundTrip(MemoryRecord r) {
    byte[] bytes = RecordCodec.encode(r);
    return RecordCodec.decode(bytes, 0, bytes.length);
  }

  @Test
  public void everyComponentRoundTrips() {
    MemoryRecord r = full();
    assertEquals(r, roundTrip(r));
  }

  @Test
  public void extremeInstantsAndOddFloatsRoundTrip() {
    MemoryRecord r =
        full().toBuilder()
            .createTime(Instant.MIN)
            .updateTime(Instant.MAX)
            .expireTime(null)
            .confidence(Float.NaN)
            .gateScore(-0.0f)
            .build();
    assertEquals(r, roundTrip(r));
  }

  @Test
  public void unpairedSurrogatesRoundTrip() {
    MemoryRecord r =
        full().toBuilder()
            .content("lone high \uD800 and low \uDC00 and pair \uD83D\uDE80")
            .tags(List.of("\uDFFF"))
            .build();
    assertEquals(r, roundTrip(r));
  }

  @Test
  public void emptyStringsAndCollectionsRoundTrip() {
    MemoryRecord r =
        MemoryRecord.builder()
            .id("x")
            .namespace(NS)
            .profile("")
            .content("")
            .times(Instant.EPOCH)
            .build();
    assertEquals(r, roundTrip(r));
  }

  @Test
  public void truncatedOrTrailingBytesAreRejected() {
    byte[] bytes = RecordCodec.encode(full());
    assertThrows(
        IllegalArgumentException.class, () -> RecordCodec.decode(bytes, 0, bytes.length - 1));
    byte[] longer = Arrays.copyOf(bytes, bytes.length + 1);
    assertThrows(
        IllegalArgumentException.class, () -> RecordCodec.decode(longer, 0, longer.length));
    byte[] badVersion = bytes.clone();
    badVersion[0] = 9;
    assertThrows(
        IllegalArgumentException.class, () -> RecordCodec.decode(badVersion, 0, bytes.length));
  }
}
