package dev.memsidecar.core.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.api.MemoryKind;
import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.MemoryStatus;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.api.Validity;
import dev.memsidecar.core.run.Dedupe.Match;
import dev.memsidecar.core.run.Dedupe.Relation;
import dev.memsidecar.language.TextRules;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The record side of dedupe: walking neighbours, merging and superseding records. How two texts
 * relate is tested in the language module ({@code TestMemoryComparison}).
 */
class TestDedupe {
  private static final Namespace NS = Namespace.of("acme:workspace:w1:workspace");
  private static final Instant T0 = Instant.parse("2025-01-01T00:00:00Z");
  private static final Instant T1 = Instant.parse("2025-01-02T00:00:00Z");

  private static int seq;

  private static MemoryRecord record(String content) {
    return record(content, MemoryKind.SEMANTIC);
  }

  private static MemoryRecord record(String content, MemoryKind kind) {
    return MemoryRecord.builder()
        .id("r" + (++seq))
        .namespace(NS)
        .profile("workspace")
        .kind(kind)
        .content(content)
        .confidence(0.6f)
        .gateScore(7.5f)
        .times(T0)
        .sourceRefs(List.of("run-0"))
        .build();
  }

  private static Optional<Match> match(String candidate, String... existing) {
    return match(candidate, MemoryKind.SEMANTIC, existing);
  }

  private static Optional<Match> match(String candidate, MemoryKind kind, String... existing) {
    List<MemoryRecord> neighbours = new ArrayList<>();
    for (String e : existing) {
      neighbours.add(record(e));
    }
    return Dedupe.match(candidate, kind, neighbours);
  }

  @Test
  void sameCommandIsADuplicateAcrossKinds() {
    MemoryRecord procedural =
        record("Run `npm run check:rules` before committing.", MemoryKind.PROCEDURAL);
    Optional<Match> m =
        Dedupe.match(
            "The project's rules check is npm run check:rules",
            MemoryKind.SEMANTIC,
            List.of(procedural));
    assertEquals(Relation.DUPLICATE, m.orElseThrow().relation());
    assertSame(procedural, m.get().existing());
    assertEquals("same canonical token npm run check:rules", m.get().reason());
  }

  @Test
  void paraphrasesOfOneCommandFormOneChain() {
    MemoryRecord first = record("Run `npm run check:rules` before committing.");
    List<String> paraphrases =
        List.of(
            "Before every commit, run npm run check:rules.",
            "The command to validate the rules is npm run check:rules",
            "提交代码前先运行 npm run check:rules");
    MemoryRecord current = first;
    int run = 1;
    for (String p : paraphrases) {
      Match m = Dedupe.match(p, MemoryKind.PROCEDURAL, List.of(current)).orElseThrow();
      assertEquals(Relation.DUPLICATE, m.relation(), p);
      MemoryRecord candidate = record(p, MemoryKind.PROCEDURAL);
      current = Dedupe.merge(current, candidate, "run-" + run++, T1);
    }
    assertEquals(first.id(), current.id());
    assertEquals(first.content(), current.content());
    assertTrue(current.sourceRefs().containsAll(List.of("run-0", "run-1", "run-2", "run-3")));
  }

  @Test
  void recordsThatAreNotActiveAreSkipped() {
    MemoryRecord old =
        record("Run `npm run check:rules` before committing.").toBuilder()
            .status(MemoryStatus.SUPERSEDED)
            .build();
    assertTrue(
        Dedupe.match("Run npm run check:rules first", MemoryKind.PROCEDURAL, List.of(old))
            .isEmpty());
  }

  @Test
  void hugeOrOddInputsAreHandled() {
    List<String> odd =
        List.of(
            "1.".repeat(16_000),
            "`".repeat(32_000),
            "```\n".repeat(8_000),
            "x@".repeat(16_000),
            "AbcDef".repeat(5_000),
            "npm ".repeat(8_000),
            "a".repeat(32_000) + "@");
    for (String text : odd) {
      MemoryRecord same = record(text);
      assertEquals(
          Relation.DUPLICATE,
          Dedupe.match(text, MemoryKind.SEMANTIC, List.of(same)).orElseThrow().relation());
      TextRules.standard().lowValueReason(text);
    }
  }

  @Test
  void duplicateFarDownTheListWinsOverAnEarlierSupersede() {
    Match m =
        match(
                "The deploy day is now Thursday",
                "The deploy day is Tuesday",
                "The deploy day is now Thursday")
            .orElseThrow();
    assertEquals(Relation.DUPLICATE, m.relation());
    assertEquals("The deploy day is now Thursday", m.existing().content());
  }

  @Test
  void eventsOnOtherDaysAreOtherEvents() {
    MemoryRecord event = record("The incident was on Monday", MemoryKind.EPISODIC);
    assertTrue(
        Dedupe.match("The incident was on Tuesday", MemoryKind.EPISODIC, List.of(event)).isEmpty());
    assertEquals(
        Relation.SUPERSEDES,
        Dedupe.match("Correction: the incident was on Tuesday", MemoryKind.EPISODIC, List.of(event))
            .orElseThrow()
            .relation());
  }

  @Test
  void mergeKeepsIdentityAndAddsProvenance() {
    MemoryRecord existing =
        record("Run `npm run check:rules` before committing.").toBuilder()
            .tags(List.of("command", "rules"))
            .context("first run")
            .build();
    MemoryRecord candidate =
        record("Before every commit, run npm run check:rules.", MemoryKind.PROCEDURAL).toBuilder()
            .tags(List.of("rules", "procedure"))
            .gateScore(8.4f)
            .confidence(0.5f)
            .context("second run")
            .sourceRefs(List.of())
            .build();
    MemoryRecord merged = Dedupe.merge(existing, candidate, "run-7", T1);
    assertEquals(existing.id(), merged.id());
    assertEquals(existing.content(), merged.content());
    assertEquals(MemoryKind.SEMANTIC, merged.kind());
    assertEquals(List.of("command", "rules", "procedure"), merged.tags());
    assertEquals(List.of("run-0", "run-7"), merged.sourceRefs());
    assertEquals(0.7f, merged.confidence(), 1e-6);
    assertEquals(8.4f, merged.gateScore(), 1e-6);
    assertEquals("first run\nsecond run", merged.context());
    assertEquals(T0, merged.createTime());
    assertEquals(T1, merged.updateTime());
  }

  @Test
  void mergingTheSameRunTwiceChangesNothing() {
    MemoryRecord existing = record("Alice prefers tea");
    MemoryRecord candidate = record("Alice prefers tea.").toBuilder().context("ctx").build();
    MemoryRecord once = Dedupe.merge(existing, candidate, "run-1", T1);
    MemoryRecord twice =
        Dedupe.merge(once, candidate, "run-1", Instant.parse("2025-01-03T00:00:00Z"));
    assertSame(once, twice);
    assertEquals(List.of("run-0", "run-1"), twice.sourceRefs());
  }

  @Test
  void mergeTakesALongerContentThatContainsTheOld() {
    MemoryRecord existing = record("Deploy with `make deploy`.");
    MemoryRecord candidate =
        record("Deploy with `make deploy` from the repo root; it needs VPN access.");
    assertEquals(candidate.content(), Dedupe.merge(existing, candidate, "run-2", T1).content());
    MemoryRecord reworded = record("Always deploy using make deploy");
    assertEquals(existing.content(), Dedupe.merge(existing, reworded, "run-3", T1).content());
  }

  @Test
  void mergeStaysWithinTheRecordBounds() {
    List<String> tags = new ArrayList<>();
    Map<String, String> metadata = new HashMap<>();
    for (int i = 0; i < MemoryRecord.MAX_TAGS; i++) {
      tags.add("t" + i);
      metadata.put("k" + i, "v");
    }
    String big = "x".repeat(MemoryRecord.MAX_CONTEXT_BYTES - 10);
    MemoryRecord existing =
        record("Alice prefers tea").toBuilder()
            .tags(tags)
            .metadata(metadata)
            .context(big)
            .confidence(0.95f)
            .build();
    MemoryRecord candidate =
        record("Alice prefers tea").toBuilder()
            .tags(List.of("extra"))
            .metadata(Map.of("other", "v"))
            .context("y".repeat(1000))
            .build();
    MemoryRecord merged = existing;
    for (int run = 1; run <= 100; run++) {
      merged = Dedupe.merge(merged, candidate, "run-" + run, T1);
    }
    assertEquals(MemoryRecord.MAX_TAGS, merged.tags().size());
    assertEquals(MemoryRecord.MAX_METADATA_ENTRIES, merged.metadata().size());
    assertEquals(big, merged.context());
    assertEquals(1.0f, merged.confidence(), 1e-6);
    assertEquals(Dedupe.MAX_SOURCE_REFS, merged.sourceRefs().size());
    assertEquals("run-0", merged.sourceRefs().get(0));
    assertEquals("run-100", merged.sourceRefs().get(Dedupe.MAX_SOURCE_REFS - 1));
  }

  @Test
  void mergeRefusesAnotherNamespace() {
    MemoryRecord other =
        record("Alice prefers tea").toBuilder()
            .namespace(Namespace.of("acme:user:alice:user"))
            .build();
    assertThrows(
        IllegalArgumentException.class,
        () -> Dedupe.merge(record("Alice prefers tea"), other, "run-1", T1));
  }

  @Test
  void mergeKeepsAShortTermMemoryAliveLongerOrMakesItLongTerm() {
    MemoryRecord shortTerm =
        record("Alice is on call this week").toBuilder()
            .validity(Validity.SHORT_TERM)
            .expireTime(T1)
            .build();
    Instant later = Instant.parse("2025-02-01T00:00:00Z");
    MemoryRecord again = shortTerm.toBuilder().expireTime(later).build();
    assertEquals(later, Dedupe.merge(shortTerm, again, "run-1", T1).expireTime());
    MemoryRecord durable =
        shortTerm.toBuilder().validity(Validity.LONG_TERM).expireTime(null).build();
    MemoryRecord merged = Dedupe.merge(shortTerm, durable, "run-2", T1);
    assertEquals(Validity.LONG_TERM, merged.validity());
    assertEquals(null, merged.expireTime());
  }

  @Test
  void supersedeKeepsTheOldRecordLinkedToItsSuccessor() {
    MemoryRecord old = record("The deploy day is Tuesday");
    MemoryRecord next = record("The deploy day is now Thursday");
    MemoryRecord superseded = Dedupe.supersede(old, next.id(), T1);
    assertEquals(MemoryStatus.SUPERSEDED, superseded.status());
    assertEquals(next.id(), superseded.metadata().get(Dedupe.SUPERSEDED_BY));
    assertEquals(old.content(), superseded.content());
    assertEquals(T1, superseded.updateTime());
    MemoryRecord successor = Dedupe.markSuccessor(next, old.id());
    assertEquals(old.id(), successor.metadata().get(Dedupe.SUPERSEDES));
    assertSame(successor, Dedupe.markSuccessor(successor, old.id()));
    assertSame(superseded, Dedupe.supersede(superseded, next.id(), T1.plusSeconds(60)));
    assertEquals(
        old.id() + ",r999",
        Dedupe.markSuccessor(successor, "r999").metadata().get(Dedupe.SUPERSEDES));
  }

  @Test
  void supersedeMakesRoomInFullMetadata() {
    Map<String, String> metadata = new HashMap<>();
    for (int i = 0; i < MemoryRecord.MAX_METADATA_ENTRIES; i++) {
      metadata.put("k" + (char) ('a' + i), "v");
    }
    MemoryRecord old = record("The deploy day is Tuesday").toBuilder().metadata(metadata).build();
    MemoryRecord superseded = Dedupe.supersede(old, "next", T1);
    assertEquals(MemoryRecord.MAX_METADATA_ENTRIES, superseded.metadata().size());
    assertEquals("next", superseded.metadata().get(Dedupe.SUPERSEDED_BY));
  }
}
