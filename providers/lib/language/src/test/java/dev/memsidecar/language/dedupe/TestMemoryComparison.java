package dev.memsidecar.language.dedupe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.language.TextRules;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The text side of dedupe: how a candidate's text relates to one stored text, and why. */
class TestMemoryComparison {
  private static final MemoryComparison COMPARISON =
      new MemoryComparison(TextRules.standard().languages());

  private static Optional<TextRelation> match(String candidate, String existing) {
    return COMPARISON.candidate(candidate).relationTo(existing, false);
  }

  private static void assertRelation(Relation relation, String candidate, String existing) {
    Optional<TextRelation> m = match(candidate, existing);
    assertTrue(m.isPresent(), candidate + " vs " + existing + ": no match");
    assertEquals(relation, m.get().relation(), candidate + " vs " + existing + ": " + m.get());
  }

  private static void assertNone(String candidate, String existing) {
    Optional<TextRelation> m = match(candidate, existing);
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

  @Test
  void canonicalTokensFindCommands() {
    assertEquals(
        Set.of("npm run check:rules"),
        CanonicalTokens.of("Run `npm  run check:rules` before committing."));
    assertEquals(
        Set.of("npm run check:rules"),
        CanonicalTokens.of("Before every commit, run npm run check:rules."));
    assertEquals(
        Set.of("./gradlew build --scan"),
        CanonicalTokens.of("Build with:\n./gradlew build --scan\n"));
    assertEquals(Set.of("make deploy"), CanonicalTokens.of("make deploy"));
    assertEquals(
        Set.of("kubectl get pods -n prod"),
        CanonicalTokens.of("To list them use kubectl get pods -n prod and wait"));
    assertEquals(Set.of("npm run check:rules"), CanonicalTokens.of("提交前运行npm run check:rules"));
    assertEquals(
        Set.of("docker compose up -d", "pytest -q"),
        CanonicalTokens.of("```bash\n$ docker compose up -d\npytest -q\n```"));
  }

  @Test
  void prosePhrasesWithCliNamesAreNotCommands() {
    assertEquals(Set.of(), CanonicalTokens.of("Make sure you go to the store; git is our VCS."));
    assertEquals(Set.of(), CanonicalTokens.of("The team uses `pytest` and `main`."));
    assertEquals(Set.of(), CanonicalTokens.of("We use Java 21 and Go for tooling."));
  }

  @Test
  void canonicalTokensFindCapsUrlsAndEmails() {
    assertEquals(
        List.of(
            "EASYNET_USER_MEMORY_9137", "https://staging.example.com/health", "ops@example.com"),
        List.copyOf(
            CanonicalTokens.of(
                "Set EASYNET_USER_MEMORY_9137 and check https://Staging.example.com/health, then"
                    + " mail Ops@Example.com.")));
    assertEquals(
        Set.of("EASYNET_USER_MEMORY_9137"), CanonicalTokens.of("`EASYNET_USER_MEMORY_9137`"));
    assertEquals(Set.of(), CanonicalTokens.of("NASA and HTTP are acronyms, not tokens"));
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
        List.copyOf(CanonicalTokens.of("Set LOG_LEVEL=debug when debugging")));
    assertNone("Set LOG_LEVEL=debug when debugging", "Set LOG_LEVEL=info in production");
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
    TextRelation m =
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
  void numbersInAnotherOrderOrCountAreAnotherFact() {
    // The same words and the same set of numbers: merging would lose one of the two facts.
    assertNone("Room 4 is booked for team 2", "Room 2 is booked for team 4");
    assertNone(
        "Client 1 wrote entry number 0 of the ledger",
        "Client 0 wrote entry number 1 of the ledger");
    assertNone(
        "Client 0 wrote entry number 57 of the ledger",
        "Client 0 wrote entry number 0 of the ledger");
    // A text that states more values, in the order the other does, still repeats it.
    assertRelation(
        Relation.DUPLICATE,
        "The API listens on port 8080 and port 9090",
        "The API listens on port 8080");
    assertRelation(
        Relation.DUPLICATE, "Room 4 is booked for team 2", "Room 4 is booked for team 2 today");
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

  @Test
  void newDaySupersedes() {
    TextRelation m =
        match("The deploy day is now Thursday", "The deploy day is Tuesday").orElseThrow();
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
    TextRelation m = match("部署日改为周四", "部署日是周二").orElseThrow();
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
  void aCorrectionSupersedesWhatItSaysNoLongerHoldsHoweverEachIsWorded() {
    String correction = "Correction: the deploy day is now Thursday, not Tuesday.";
    for (String stored :
        List.of(
            "Remember: our deploy day is Tuesday.",
            "The team's deploy day is Tuesday.",
            "Our deploy day is Tuesday")) {
      Optional<TextRelation> m = match(correction, stored);
      assertTrue(m.isPresent(), stored);
      assertEquals(Relation.SUPERSEDES, m.get().relation(), stored);
      assertEquals("corrects Tuesday to Thursday for: deploy day", m.get().reason(), stored);
    }
    assertRelation(
        Relation.SUPERSEDES, "The deploy day is Thursday, not Tuesday.", "Deploy day: Tuesday");
    assertRelation(
        Relation.SUPERSEDES,
        "The release day changed from Tuesday to Thursday.",
        "The release day is Tuesday.");
    assertRelation(
        Relation.SUPERSEDES,
        "Actually, the standup is at 10am, not 9am.",
        "The standup is at 9am.");
    assertRelation(
        Relation.SUPERSEDES,
        "The team no longer deploys on Tuesday; it deploys on Thursday.",
        "The team deploys on Tuesday.");
    assertRelation(
        Relation.SUPERSEDES, "Use pnpm instead of npm for installs.", "Use npm for installs.");
    assertRelation(
        Relation.SUPERSEDES,
        "Caroline doesn't live in Paris anymore; she lives in Berlin now.",
        "Caroline lives in Paris.");
    assertRelation(
        Relation.SUPERSEDES,
        "The user no longer drinks coffee.",
        "The user drinks coffee every morning.");
    // An event is corrected too: the correction says so.
    assertEquals(
        Relation.SUPERSEDES,
        COMPARISON
            .candidate("Caroline went to the support group on Friday, not Thursday.")
            .relationTo("Caroline went to the support group on Thursday.", true)
            .map(TextRelation::relation)
            .orElse(null));
  }

  @Test
  void chineseCorrectionsSupersede() {
    assertRelation(Relation.SUPERSEDES, "部署日不是周二，而是周四。", "部署日是周二。");
    assertRelation(Relation.SUPERSEDES, "部署日从周二改成周四。", "记住：部署日是周二。");
    assertRelation(Relation.SUPERSEDES, "把站会时间从上午9点改到上午10点。", "站会时间是上午9点。");
    assertRelation(Relation.SUPERSEDES, "用户不再喝咖啡了。", "用户每天早上喝咖啡。");
  }

  @Test
  void aCorrectionLeavesOtherSubjectsAndWhatItAlreadySaysAlone() {
    String correction = "Correction: the deploy day is now Thursday, not Tuesday.";
    assertNone(correction, "The review day is Tuesday.");
    assertNone(correction, "The deploy day is Thursday and the review day is Tuesday.");
    assertNone("Melanie isn't going to the party anymore.", "Caroline is going to the party.");
    assertNone("I like cats, not dogs.", "Melanie walks her dogs every morning.");
    assertNone(
        "It's not about winning, it's about having fun.", "John's team won the championship.");
    assertNone("部署日不是周二，而是周四。", "评审日是周二。");
    // Said again, it repeats itself.
    assertRelation(Relation.DUPLICATE, correction, "The deploy day is now Thursday, not Tuesday.");
  }
}
