package dev.memsidecar.it;

import static dev.memsidecar.it.Fixtures.PROVIDER;
import static dev.memsidecar.it.Fixtures.ids;
import static dev.memsidecar.it.Fixtures.listAll;
import static dev.memsidecar.it.Fixtures.remember;
import static dev.memsidecar.it.Fixtures.search;
import static dev.memsidecar.it.Fixtures.uniqueId;
import static dev.memsidecar.it.Fixtures.user;
import static dev.memsidecar.it.Fixtures.workspace;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.proto.v1.ForgetMemoryRequest;
import dev.memsidecar.proto.v1.GetMemoryRequest;
import dev.memsidecar.proto.v1.Memory;
import dev.memsidecar.proto.v1.MemoryKind;
import dev.memsidecar.proto.v1.MemoryStatus;
import dev.memsidecar.proto.v1.RememberRequest;
import dev.memsidecar.proto.v1.RememberResponse;
import dev.memsidecar.proto.v1.Scope;
import dev.memsidecar.proto.v1.SearchHit;
import dev.memsidecar.proto.v1.SearchRequest;
import dev.memsidecar.proto.v1.WriteOutcome;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Remember, Get, Search and Forget round trips on one sidecar; one workspace id per test. */
class TestRememberAndSearch extends DefaultSidecarTest {
  @Test
  void rememberStoresTheContentInTheWorkspaceProfileByDefault() {
    String ws = uniqueId("ws");
    String content = "Alice prefers dark roast coffee before the 9am standup";
    RememberResponse response =
        memory()
            .remember(
                RememberRequest.newBuilder().setScope(workspace(ws)).setContent(content).build());

    assertEquals(WriteOutcome.WRITE_OUTCOME_STORED, response.getDecision().getOutcome());
    Memory stored = response.getDecision().getMemory();
    assertFalse(stored.getId().isEmpty(), "id");
    assertEquals(ws + ":workspace:workspace", stored.getNamespace());
    assertEquals("workspace", stored.getProfile());
    assertEquals(PROVIDER, stored.getProvider());
    assertEquals(MemoryStatus.MEMORY_STATUS_ACTIVE, stored.getStatus());
    assertTrue(stored.getGateScore() >= 8.0f, () -> "explicit floor 8.0: " + stored);
    assertEquals(content, stored.getContent());
  }

  @Test
  void rememberWithRequestIdRecordsItAsSourceRef() {
    String ws = uniqueId("ws");
    Memory stored =
        remember(
            memory(),
            RememberRequest.newBuilder()
                .setScope(workspace(ws))
                .setContent("Bruno deploys the billing service every Friday afternoon")
                .setRequestId("req-42")
                .build());
    assertTrue(
        stored.getSourceRefsList().contains("remember:req-42"), () -> "source_refs: " + stored);
  }

  @Test
  void rememberIntoUserProfileUsesTheUserNamespace() {
    String ws = uniqueId("ws");
    Memory stored =
        remember(memory(), user(ws, "alice"), "user", "Alice avoids meetings on Monday mornings");
    assertEquals(ws + ":user:alice:user", stored.getNamespace());
    assertEquals("user", stored.getProfile());
  }

  @Test
  void getMemoryReturnsWhatWasRemembered() {
    String ws = uniqueId("ws");
    Memory stored =
        remember(
            memory(),
            RememberRequest.newBuilder()
                .setScope(workspace(ws))
                .setProfile("workspace")
                .setContent("Run mvn -pl sidecar test before pushing a release branch")
                .setKind(MemoryKind.MEMORY_KIND_PROCEDURAL)
                .addTags("release")
                .addTags("build")
                .build());

    Memory got = get(workspace(ws), "workspace", stored.getId());
    assertEquals(stored.getId(), got.getId());
    assertEquals(stored.getContent(), got.getContent());
    assertEquals(ws + ":workspace:workspace", got.getNamespace());
    assertEquals(MemoryKind.MEMORY_KIND_PROCEDURAL, got.getKind());
    assertTrue(got.getTagsList().containsAll(List.of("release", "build")), got::toString);
    assertEquals(MemoryStatus.MEMORY_STATUS_ACTIVE, got.getStatus());
  }

  @Test
  void searchRanksTheMemoryHoldingTheQueryWordsFirst() {
    Scope scope = workspace(uniqueId("ws"));
    Memory coffee =
        remember(
            memory(), scope, "", "Alice prefers dark roast coffee before the " + "9am standup");
    Memory billing =
        remember(
            memory(), scope, "", "Bruno deploys the billing service every " + "Friday afternoon");
    remember(memory(), scope, "", "The staging cluster runs on three nodes in Frankfurt");
    remember(memory(), scope, "", "Lena documents the onboarding checklist for new hires");
    remember(memory(), scope, "", "Mateo monitors error budget reports during the on-call week");

    List<SearchHit> hits = searchHits(scope, "dark roast coffee", 0);
    assertFalse(hits.isEmpty(), "no hits for dark roast coffee");
    assertEquals(coffee.getId(), hits.get(0).getMemory().getId(), () -> "hits: " + hits);
    assertBestFirst(hits);

    List<SearchHit> deploys = searchHits(scope, "who deploys the billing service", 0);
    assertFalse(deploys.isEmpty(), "no hits for billing service");
    assertEquals(billing.getId(), deploys.get(0).getMemory().getId(), () -> "hits: " + deploys);
    assertBestFirst(deploys);
  }

  @Test
  void searchReturnsAtMostEightHitsByDefault() {
    Scope scope = workspace(uniqueId("ws"));
    Sentences sentences = new Sentences(7);
    for (int i = 0; i < 12; i++) {
      remember(memory(), scope, "", "Espresso machine note: " + sentences.next());
    }
    assertEquals(8, searchHits(scope, "espresso machine note", 0).size());
    assertEquals(3, searchHits(scope, "espresso machine note", 3).size());
    assertEquals(12, searchHits(scope, "espresso machine note", 100).size());
  }

  @Test
  void searchFiltersByKind() {
    Scope scope = workspace(uniqueId("ws"));
    remember(
        memory(),
        RememberRequest.newBuilder()
            .setScope(scope)
            .setContent("Hana prefers green tea right after lunch")
            .setKind(MemoryKind.MEMORY_KIND_SEMANTIC)
            .build());
    Memory howTo =
        remember(
            memory(),
            RememberRequest.newBuilder()
                .setScope(scope)
                .setContent("To brew green tea for the team, steep the leaves for three minutes")
                .setKind(MemoryKind.MEMORY_KIND_PROCEDURAL)
                .build());

    List<SearchHit> hits =
        memory()
            .search(
                SearchRequest.newBuilder()
                    .setScope(scope)
                    .setQuery("green tea")
                    .addKinds(MemoryKind.MEMORY_KIND_PROCEDURAL)
                    .build())
            .getHitsList();
    assertEquals(List.of(howTo.getId()), hits.stream().map(h -> h.getMemory().getId()).toList());
  }

  @Test
  void searchFiltersByTagsRequiringAllOfThem() {
    Scope scope = workspace(uniqueId("ws"));
    Memory urgent =
        remember(
            memory(),
            RememberRequest.newBuilder()
                .setScope(scope)
                .setContent("Chen reviews the payment webhook before every release")
                .addTags("billing")
                .addTags("urgent")
                .build());
    Memory routine =
        remember(
            memory(),
            RememberRequest.newBuilder()
                .setScope(scope)
                .setContent("The payment webhook retries failed charges three times")
                .addTags("billing")
                .build());
    remember(memory(), scope, "", "Payment webhook secrets live in the vault");

    assertEquals(
        Set.of(urgent.getId()),
        hitIds(
            SearchRequest.newBuilder()
                .setScope(scope)
                .setQuery("payment webhook")
                .addTags("billing")
                .addTags("urgent")
                .build()));
    assertEquals(
        Set.of(urgent.getId(), routine.getId()),
        hitIds(
            SearchRequest.newBuilder()
                .setScope(scope)
                .setQuery("payment webhook")
                .addTags("billing")
                .build()));
  }

  @Test
  void searchWithoutProfilesCoversEveryReadableProfile() {
    String ws = uniqueId("ws");
    Scope alice = user(ws, "alice");
    Memory shared =
        remember(
            memory(),
            alice,
            "workspace",
            "The team standup moves to the " + "Lisbon office on Thursdays");
    Memory own =
        remember(memory(), alice, "user", "Alice walks to the Lisbon office on " + "Thursdays");

    Set<String> all =
        ids(search(memory(), alice, "Lisbon office Thursdays")).stream()
            .collect(Collectors.toSet());
    assertEquals(Set.of(shared.getId(), own.getId()), all);
    assertEquals(
        List.of(own.getId()), ids(search(memory(), alice, "Lisbon office Thursdays", "user")));
    assertEquals(
        List.of(shared.getId()),
        ids(search(memory(), alice, "Lisbon office Thursdays", "workspace")));
  }

  @Test
  void contextIsNeverReturnedAsContent() {
    Scope scope = workspace(uniqueId("ws"));
    String content = "Farah schedules the accessibility audit every quarter";
    String context = "user: by the way, the marketing offsite is in Porto this year";
    Memory stored =
        remember(
            memory(),
            RememberRequest.newBuilder()
                .setScope(scope)
                .setContent(content)
                .setContext(context)
                .build());
    assertEquals(content, stored.getContent());
    assertEquals(content, get(scope, "workspace", stored.getId()).getContent());
    List<Memory> found = search(memory(), scope, "accessibility audit");
    assertFalse(found.isEmpty(), "no hits for accessibility audit");
    for (Memory m : found) {
      assertEquals(content, m.getContent());
      assertFalse(m.getContent().contains("Porto"), m::toString);
      assertFalse(m.getSummary().contains("Porto"), () -> "context leaked into summary: " + m);
    }
    for (Memory m : listAll(memory(), scope, "workspace", 0, true)) {
      assertEquals(content, m.getContent());
    }
  }

  @Test
  void forgetHidesTheMemoryFromSearchAndList() {
    Scope scope = workspace(uniqueId("ws"));
    Memory doomed =
        remember(memory(), scope, "", "Goran rotates the Kafka consumer credentials " + "monthly");
    Memory kept = remember(memory(), scope, "", "Ines benchmarks the GraphQL gateway on Mondays");
    assertTrue(ids(search(memory(), scope, "Kafka consumer credentials")).contains(doomed.getId()));

    assertTrue(
        memory()
            .forgetMemory(
                ForgetMemoryRequest.newBuilder()
                    .setScope(scope)
                    .setProfile("workspace")
                    .setId(doomed.getId())
                    .build())
            .getForgotten());

    assertEquals(
        MemoryStatus.MEMORY_STATUS_FORGOTTEN, get(scope, "workspace", doomed.getId()).getStatus());
    assertFalse(
        ids(search(memory(), scope, "Kafka consumer credentials")).contains(doomed.getId()));
    assertEquals(List.of(kept.getId()), ids(listAll(memory(), scope, "workspace", 0, false)));
    List<Memory> withInactive = listAll(memory(), scope, "workspace", 0, true);
    assertEquals(Set.of(doomed.getId(), kept.getId()), Set.copyOf(ids(withInactive)));
    Memory listedDoomed =
        withInactive.stream()
            .filter(m -> m.getId().equals(doomed.getId()))
            .findFirst()
            .orElseThrow();
    assertEquals(MemoryStatus.MEMORY_STATUS_FORGOTTEN, listedDoomed.getStatus());
  }

  private static Memory get(Scope scope, String profile, String id) {
    return memory()
        .getMemory(
            GetMemoryRequest.newBuilder().setScope(scope).setProfile(profile).setId(id).build())
        .getMemory();
  }

  private static List<SearchHit> searchHits(Scope scope, String query, int topK) {
    return memory()
        .search(SearchRequest.newBuilder().setScope(scope).setQuery(query).setTopK(topK).build())
        .getHitsList();
  }

  private static Set<String> hitIds(SearchRequest request) {
    return memory().search(request).getHitsList().stream()
        .map(h -> h.getMemory().getId())
        .collect(Collectors.toSet());
  }

  private static void assertBestFirst(List<SearchHit> hits) {
    for (int i = 1; i < hits.size(); i++) {
      int at = i;
      assertTrue(
          hits.get(i - 1).getScore() >= hits.get(i).getScore(),
          () -> "hits not best first at " + at + ": " + hits);
    }
  }
}
