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
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

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

  private static void assertRelation(Relation relation, String candidate, String existing) {
    Optional<Match> m = match(candidate, existing);
    assertTrue(m.isPresent(), candidate + " vs " + existing + ": no match");
    assertEquals(relation, m.get().relation(), candidate + " vs " + existing + ": " + m.get());
  }

  private static void assertNone(String candidate, String existing) {
    Optional<Match> m = match(candidate, existing);
    assertTrue(m.isEmpty(), candidate + " vs " + existing + ": " + m);
  }

  @Test
  void differentIdentifiersAreDifferentSubjectsButANewValueOfOneSupersedes() {
    assertNone(
        "The flag FEATURE_MOBILE_BACKEND_V3=on is set in staging right now",
        "The flag FEATURE_AUTH_GATEWAY_V2=on is set in staging right now");
    assertNone(
        "FEATURE_MOBILE_BACKEND_V3 is now enabled in staging",
        "FEATURE_AUTH_GATEWAY_V2 is enabled in staging");
    assertRelation(
        Relation.SUPERSEDES,
        "The log level is now LOG_LEVEL=info in staging",
        "The log level is LOG_LEVEL=debug in staging");
  }

  // ---------------------------------------------------------------- canonical tokens

  @Test
  void canonicalTokensFindCommands() {
    assertEquals(
        Set.of("npm run check:rules"),
        Dedupe.canonicalTokens("Run `npm  run check:rules` before committing."));
    assertEquals(
        Set.of("npm run check:rules"),
        Dedupe.canonicalTokens("Before every commit, run npm run check:rules."));
    assertEquals(
        Set.of("./gradlew build --scan"),
        Dedupe.canonicalTokens("Build with:\n./gradlew build --scan\n"));
    assertEquals(Set.of("make deploy"), Dedupe.canonicalTokens("make deploy"));
    assertEquals(
        Set.of("kubectl get pods -n prod"),
        Dedupe.canonicalTokens("To list them use kubectl get pods -n prod and wait"));
    assertEquals(Set.of("npm run check:rules"), Dedupe.canonicalTokens("提交前运行npm run check:rules"));
    assertEquals(
        Set.of("docker compose up -d", "pytest -q"),
        Dedupe.canonicalTokens("```bash\n$ docker compose up -d\npytest -q\n```"));
  }

  @Test
  void prosePhrasesWithCliNamesAreNotCommands() {
    assertEquals(
        Set.of(), Dedupe.canonicalTokens("Make sure you go to the store; git is our VCS."));
    assertEquals(Set.of(), Dedupe.canonicalTokens("The team uses `pytest` and `main`."));
    assertEquals(Set.of(), Dedupe.canonicalTokens("We use Java 21 and Go for tooling."));
  }

  @Test
  void canonicalTokensFindCapsUrlsAndEmails() {
    assertEquals(
        List.of(
            "EASYNET_USER_MEMORY_9137", "https://staging.example.com/health", "ops@example.com"),
        List.copyOf(
            Dedupe.canonicalTokens(
                "Set EASYNET_USER_MEMORY_9137 and check https://Staging.example.com/health, then"
                    + " mail Ops@Example.com.")));
    assertEquals(
        Set.of("EASYNET_USER_MEMORY_9137"), Dedupe.canonicalTokens("`EASYNET_USER_MEMORY_9137`"));
    assertEquals(Set.of(), Dedupe.canonicalTokens("NASA and HTTP are acronyms, not tokens"));
  }

  // ---------------------------------------------------------------- duplicates

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
  void sameCapsTokenUrlOrEmailIsADuplicate() {
    assertRelation(
        Relation.DUPLICATE,
        "The memory env var is EASYNET_USER_MEMORY_9137",
        "Set EASYNET_USER_MEMORY_9137 to enable user memory");
    assertRelation(
        Relation.DUPLICATE,
        "Staging lives at https://staging.example.com",
        "Health checks go to https://staging.example.com");
    assertRelation(
        Relation.DUPLICATE,
        "Page ops@example.com for outages",
        "The on-call address is ops@example.com");
  }

  @Test
  void assignmentsWithDifferentValuesAreNotDuplicates() {
    assertEquals(
        List.of("LOG_LEVEL", "LOG_LEVEL=debug"),
        List.copyOf(Dedupe.canonicalTokens("Set LOG_LEVEL=debug when debugging")));
    assertNone("Set LOG_LEVEL=debug when debugging", "Set LOG_LEVEL=info in production");
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
      LowValueFilter.reason(text);
    }
  }

  @Test
  void differentCommandsAreNotDuplicates() {
    assertNone(
        "Run `npm run check:types` before committing.",
        "Run `npm run check:rules` before committing.");
    assertNone("Deploy with `make deploy-staging`", "Deploy with `make deploy-prod`");
  }

  @Test
  void nearIdenticalWordingIsADuplicate() {
    Match m =
        match("Alice prefers green tea in the morning", "Alice prefers green tea in the mornings")
            .orElseThrow();
    assertEquals(Relation.DUPLICATE, m.relation());
    assertEquals("1.00 word overlap", m.reason());
    assertRelation(
        Relation.DUPLICATE, "The user prefers dark mode", "User prefers dark mode in the editor");
    assertRelation(Relation.DUPLICATE, "用户喜欢喝绿茶", "用户喜欢喝茶");
    assertRelation(Relation.DUPLICATE, "部署前必须运行规则检查", "部署前必须先运行规则检查");
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
  void differentFactsAreNotDuplicates() {
    assertNone("Alice prefers tea", "Bob prefers coffee");
    assertNone("Alice likes tea", "Alice does not like tea over coffee in the afternoon");
    assertNone(
        "The staging database is read-only on Fridays", "The billing service is written in Go");
    assertNone("Team standup is at 9:30", "Team retro is at 9:30");
    assertNone("用户喜欢喝茶", "用户住在上海");
  }

  // ---------------------------------------------------------------- supersedes

  @Test
  void newDaySupersedes() {
    Match m = match("The deploy day is now Thursday", "The deploy day is Tuesday").orElseThrow();
    assertEquals(Relation.SUPERSEDES, m.relation());
    assertEquals("new value Thursday for: deploy day", m.reason());
    assertRelation(
        Relation.SUPERSEDES, "Deploys now happen on Thursdays", "Deploys happen every Tuesday");
  }

  @Test
  void newNumberTimeDateOrVersionSupersedes() {
    assertRelation(
        Relation.SUPERSEDES,
        "The API rate limit is now 500 requests per minute",
        "The API rate limit is 100 requests per minute");
    assertRelation(Relation.SUPERSEDES, "The project now uses Java 21", "The project uses Java 17");
    assertRelation(
        Relation.SUPERSEDES, "The release is v2.4.0 from now on", "The release is v2.3.1");
    assertRelation(Relation.SUPERSEDES, "Standup moved to 10:00", "Standup is at 9:30");
    assertRelation(
        Relation.SUPERSEDES,
        "Actually the launch date is 2025-06-01",
        "The launch date is 2025-05-15");
    assertRelation(
        Relation.SUPERSEDES,
        "The rules check is now `npm run lint:rules`",
        "The rules check is `npm run check:rules`");
  }

  @Test
  void chineseChangeSupersedes() {
    Match m = match("部署日改为周四", "部署日是周二").orElseThrow();
    assertEquals(Relation.SUPERSEDES, m.relation());
    assertTrue(m.reason().startsWith("new value 周四 for: "), m.reason());
    assertRelation(Relation.SUPERSEDES, "其实每周例会在下午3点", "每周例会在上午10点");
    assertRelation(Relation.SUPERSEDES, "接口限流改成每分钟500次", "接口限流是每分钟100次");
  }

  @Test
  void movePlaceSupersedesOnlyWithTheSameSubject() {
    assertRelation(Relation.SUPERSEDES, "Alice moved to Berlin", "Alice lives in Paris");
    assertNone("Alice moved to Berlin", "Alice works at Google");
    assertNone("Bob lives in Berlin", "Alice lives in Paris");
    assertNone("Alice likes Berlin", "Alice likes Paris");
  }

  @Test
  void contradictionSupersedes() {
    assertRelation(
        Relation.SUPERSEDES,
        "Don't run `npm test` before pushing",
        "Run `npm test` before pushing");
    assertRelation(Relation.SUPERSEDES, "Alice no longer lives in Paris", "Alice lives in Paris");
  }

  @Test
  void differentSubjectsSharingWordsDoNotSupersede() {
    assertNone("Deploys to production are on Thursday", "Deploys to staging are on Tuesday");
    assertNone("Bob's birthday is June 5", "Alice's birthday is May 3");
    assertNone("The API port is 9090", "The database port is 8080");
    assertNone("Alice likes Fridays", "Alice likes Tuesdays");
  }

  @Test
  void anUnrelatedFactDoesNotSupersede() {
    assertNone(
        "The deploy day is Thursday and Alice prefers tea", "The billing service runs on Go 1.22");
    assertNone("Use pnpm for installs", "The deploy day is Tuesday");
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

  // ---------------------------------------------------------------- merge and supersede

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
