package dev.memsidecar.it;

import static dev.memsidecar.it.Fixtures.listAll;
import static dev.memsidecar.it.Fixtures.remember;
import static dev.memsidecar.it.Fixtures.search;
import static dev.memsidecar.it.Fixtures.uniqueId;
import static dev.memsidecar.it.Fixtures.user;
import static dev.memsidecar.it.Fixtures.workspace;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.jdbc.postgresql.PostgresCluster;
import dev.memsidecar.proto.v1.AppendMessagesRequest;
import dev.memsidecar.proto.v1.CheckToolCallRequest;
import dev.memsidecar.proto.v1.EndRunRequest;
import dev.memsidecar.proto.v1.EndRunResponse;
import dev.memsidecar.proto.v1.GetMemoryRequest;
import dev.memsidecar.proto.v1.GetStatusRequest;
import dev.memsidecar.proto.v1.Memory;
import dev.memsidecar.proto.v1.Message;
import dev.memsidecar.proto.v1.MessageRole;
import dev.memsidecar.proto.v1.PutToolRuleRequest;
import dev.memsidecar.proto.v1.RememberRequest;
import dev.memsidecar.proto.v1.Scope;
import dev.memsidecar.proto.v1.SearchSessionsRequest;
import dev.memsidecar.proto.v1.SessionHit;
import dev.memsidecar.proto.v1.ToolCallVerdict;
import dev.memsidecar.proto.v1.ToolRule;
import dev.memsidecar.proto.v1.ToolRulePriority;
import dev.memsidecar.proto.v1.WriteDecision;
import dev.memsidecar.proto.v1.WriteOutcome;
import io.grpc.StatusRuntimeException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three sidecars, each with a data folder of its own as in three pods, on one PostgreSQL 15
 * database ({@code MEMSIDECAR_STORE_URL}): what one is told, the others know.
 */
class TestSharedStore {
  /**
   * How long a write on one sidecar may take to show on another, in this test (1 s p99 is the
   * bench's goal).
   */
  private static final long VISIBLE_WITHIN_MILLIS = 5_000;

  @TempDir static Path root;

  private static PostgresCluster cluster;
  private static String database;
  private static final List<SidecarProcess> sidecars = new ArrayList<>();

  @BeforeAll
  static void startThreeSidecarsOnOneDatabase() {
    cluster = PostgresCluster.shared();
    database = cluster.createDatabase();
    for (int i = 0; i < 3; i++) {
      sidecars.add(start("pod-" + i));
    }
  }

  @AfterAll
  static void stop() {
    sidecars.forEach(SidecarProcess::close);
  }

  private static SidecarProcess start(String pod) {
    Path workspace = root.resolve(pod);
    Fixtures.writeServerConfig(workspace, "memory:\n  embedder: hash\n");
    return SidecarProcess.start(
        workspace, SharedDatabase.storeEnvironment(cluster, database, Map.of()));
  }

  @Test
  void aMemoryRememberedOnOneIsFoundBySearchOnTheOthers() {
    Scope scope = workspace(uniqueId("ws"));
    for (int i = 0; i < 9; i++) {
      SidecarProcess writer = sidecars.get(i % 3);
      String word = "zephyrine" + i;
      Memory stored =
          remember(
              writer.memory(), scope, "workspace", "The " + word + " pipeline deploys on Fridays");
      for (SidecarProcess reader : sidecars) {
        awaitTrue(
            () ->
                search(reader.memory(), scope, word, "workspace").stream()
                    .anyMatch(m -> m.getId().equals(stored.getId())),
            "Search on " + reader + " finds " + word + " written on " + writer);
      }
    }
  }

  @Test
  void aForgottenMemoryIsGoneFromSearchOnTheOthers() {
    Scope scope = workspace(uniqueId("ws"));
    Memory stored =
        remember(
            sidecars.get(0).memory(), scope, "workspace", "The quillback service runs in Oslo");
    awaitTrue(
        () -> !search(sidecars.get(2).memory(), scope, "quillback", "workspace").isEmpty(),
        "the memory reaches the third sidecar");
    sidecars
        .get(1)
        .memory()
        .forgetMemory(
            dev.memsidecar.proto.v1.ForgetMemoryRequest.newBuilder()
                .setScope(scope)
                .setProfile("workspace")
                .setId(stored.getId())
                .build());
    awaitTrue(
        () -> search(sidecars.get(2).memory(), scope, "quillback", "workspace").isEmpty(),
        "a memory forgotten on the second sidecar leaves Search on the third");
  }

  @Test
  void aToolRulePutOnOneIsEnforcedByAll() {
    Scope scope = workspace(uniqueId("ws"));
    sidecars
        .get(0)
        .toolRules()
        .putToolRule(
            PutToolRuleRequest.newBuilder()
                .setScope(scope)
                .setRule(
                    ToolRule.newBuilder()
                        .setToolName("send_email")
                        .setRule("Never email sarah@example.com.")
                        .setPriority(ToolRulePriority.TOOL_RULE_PRIORITY_CRITICAL))
                .build());
    for (SidecarProcess s : sidecars) {
      var verdict =
          s.toolRules()
              .checkToolCall(
                  CheckToolCallRequest.newBuilder()
                      .setScope(scope)
                      .setToolName("send_email")
                      .setArgumentsJson("{\"to\":\"sarah@example.com\"}")
                      .build());
      assertEquals(
          ToolCallVerdict.TOOL_CALL_VERDICT_DENY, verdict.getVerdict(), s + ": " + verdict);
    }
  }

  @Test
  void sessionMessagesAppendedOnOneAreSearchableOnAll() {
    Scope scope = user(uniqueId("ws"), "alice").toBuilder().setSessionId("s1").build();
    sidecars
        .get(1)
        .sessions()
        .appendMessages(
            AppendMessagesRequest.newBuilder()
                .setScope(scope)
                .addMessages(
                    Message.newBuilder()
                        .setRole(MessageRole.MESSAGE_ROLE_USER)
                        .setName("Alice")
                        .setContent("My sister's cello recital is at the Barbican in March."))
                .build());
    for (SidecarProcess s : sidecars) {
      awaitTrue(
          () -> {
            List<SessionHit> hits =
                s.sessions()
                    .searchSessions(
                        SearchSessionsRequest.newBuilder()
                            .setScope(scope)
                            .setQuery("cello recital")
                            .build())
                    .getHitsList();
            return hits.stream().anyMatch(h -> h.getMessage().getContent().contains("Barbican"));
          },
          "SearchSessions on " + s + " finds the message appended on the second sidecar");
    }
  }

  @Test
  void oneEndRunSentToEverySidecarAtOnceIsOneRun() throws Exception {
    Scope scope = user(uniqueId("ws"), "bob").toBuilder().setSessionId("s").build();
    EndRunRequest request =
        EndRunRequest.newBuilder()
            .setScope(scope)
            .setRunId("run-" + uniqueId("r"))
            .setInput("Remember: the staging database password rotates every Monday at 9am.")
            .setOutput("Noted, it rotates on Mondays at 9am.")
            .build();
    List<EndRunResponse> responses = onEverySidecarAtOnce(s -> s.memory().endRun(request));
    Set<String> runIds = new java.util.HashSet<>();
    responses.forEach(r -> runIds.add(r.getRunId()));
    assertEquals(Set.of(request.getRunId()), runIds);
    List<Memory> facts =
        new ArrayList<>(listAll(sidecars.get(0).memory(), scope, "workspace", 0, false));
    facts.addAll(listAll(sidecars.get(0).memory(), scope, "user", 0, false));
    assertEquals(
        1, facts.stream().filter(m -> m.getContent().contains("Monday")).count(), facts::toString);
  }

  @Test
  void theSameFactFromConcurrentRunsOnEverySidecarIsKeptOnce() throws Exception {
    for (int round = 0; round < 3; round++) {
      Scope scope =
          workspace(uniqueId("ws")).toBuilder().setUserId("carol").setSessionId("s").build();
      String fact = "Remember: our deploy day is Tuesday for the atlas" + round + " service.";
      onEverySidecarAtOnce(
          s ->
              s.memory()
                  .endRun(
                      EndRunRequest.newBuilder()
                          .setScope(scope)
                          .setRunId(uniqueId("run"))
                          .setInput(fact)
                          .setOutput("Got it.")
                          .build()));
      List<Memory> kept =
          new ArrayList<>(listAll(sidecars.get(2).memory(), scope, "workspace", 0, false));
      kept.addAll(listAll(sidecars.get(2).memory(), scope, "user", 0, false));
      String service = "atlas" + round;
      long copies = kept.stream().filter(m -> m.getContent().contains(service)).count();
      assertEquals(1, copies, "round " + round + ": " + kept);
    }
  }

  @Test
  void aSidecarKilledMidWriteLosesNothingItAcknowledged() throws Exception {
    Scope scope = workspace(uniqueId("ws"));
    SidecarProcess victim = start("victim");
    Set<String> acknowledged = ConcurrentHashMap.newKeySet();
    AtomicBoolean killed = new AtomicBoolean();
    // Errors before the kill: each ends its writer, and is a failure of its own.
    List<String> errors = Collections.synchronizedList(new ArrayList<>());
    Map<String, Integer> outcomes = new ConcurrentHashMap<>();
    ExecutorService clients = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> writers = new ArrayList<>();
      for (int c = 0; c < 4; c++) {
        int client = c;
        writers.add(
            clients.submit(
                () -> {
                  for (int i = 0; !killed.get(); i++) {
                    try {
                      WriteDecision d =
                          victim
                              .memory()
                              .remember(
                                  RememberRequest.newBuilder()
                                      .setScope(scope)
                                      .setProfile("workspace")
                                      .setContent(
                                          // Each entry holds one number of its own: no two
                                          // are duplicates, each write stores a record.
                                          "A client wrote ledger entry " + (client * 100_000 + i))
                                      .build())
                              .getDecision();
                      // Every entry is new: anything but STORED explains a stall.
                      String outcome =
                          d.getOutcome() == WriteOutcome.WRITE_OUTCOME_STORED
                              ? "STORED"
                              : d.getOutcome() + ": " + d.getReason();
                      outcomes.merge(outcome, 1, Integer::sum);
                      acknowledged.add(d.getMemory().getId());
                    } catch (StatusRuntimeException e) {
                      if (!killed.get()) {
                        errors.add("client " + client + ", entry " + i + ": " + e.getStatus());
                      }
                      return null;
                    }
                  }
                  return null;
                }));
      }
      awaitTrue(
          () -> acknowledged.size() >= 200 || !errors.isEmpty(),
          () ->
              "200 writes acknowledged; "
                  + acknowledged.size()
                  + " were, with "
                  + outcomes
                  + "\n"
                  + victim.stderrTail()
                  + "\n"
                  + victim.threadDump(),
          60_000);
      assertTrue(
          errors.isEmpty(),
          () ->
              "writes refused before the kill ("
                  + acknowledged.size()
                  + " acknowledged): "
                  + errors
                  + "\n"
                  + victim.stderrTail());
      victim.kill9();
      killed.set(true);
      for (Future<?> w : writers) {
        w.get(60, TimeUnit.SECONDS);
      }
    } finally {
      clients.shutdownNow();
      victim.close();
    }
    SidecarProcess survivor = sidecars.get(0);
    List<String> missing = new ArrayList<>();
    for (String id : acknowledged) {
      try {
        survivor
            .memory()
            .getMemory(
                GetMemoryRequest.newBuilder()
                    .setScope(scope)
                    .setProfile("workspace")
                    .setId(id)
                    .build());
      } catch (StatusRuntimeException e) {
        missing.add(id + " (" + e.getStatus() + ")");
      }
    }
    assertTrue(
        missing.isEmpty(), missing.size() + " of " + acknowledged.size() + " lost: " + missing);
  }

  @Test
  void statusNeverShowsThePassword() {
    for (SidecarProcess s : sidecars) {
      String status = s.admin().getStatus(GetStatusRequest.getDefaultInstance()).toString();
      assertFalse(status.contains(PostgresCluster.PASSWORD), status);
      assertFalse(s.stderr().contains(PostgresCluster.PASSWORD), "the log shows the password");
    }
  }

  private interface SidecarCall<T> {
    T call(SidecarProcess sidecar) throws Exception;
  }

  /** Runs {@code call} on the three sidecars at the same moment; their results in order. */
  private static <T> List<T> onEverySidecarAtOnce(SidecarCall<T> call) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(3);
    java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
    try {
      List<Future<T>> futures = new ArrayList<>();
      for (SidecarProcess s : sidecars) {
        Callable<T> task =
            () -> {
              go.await();
              return call.call(s);
            };
        futures.add(pool.submit(task));
      }
      go.countDown();
      List<T> results = new ArrayList<>();
      for (Future<T> f : futures) {
        results.add(f.get(60, TimeUnit.SECONDS));
      }
      return Collections.unmodifiableList(results);
    } finally {
      pool.shutdownNow();
    }
  }

  private static void awaitTrue(Supplier<Boolean> condition, String what) {
    awaitTrue(condition, what, VISIBLE_WITHIN_MILLIS);
  }

  private static void awaitTrue(Supplier<Boolean> condition, String what, long millis) {
    awaitTrue(condition, () -> what, millis);
  }

  private static void awaitTrue(Supplier<Boolean> condition, Supplier<String> what, long millis) {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    while (!condition.get()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within " + millis + " ms: " + what.get());
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted", e);
      }
    }
  }
}
