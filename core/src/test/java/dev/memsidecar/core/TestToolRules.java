package dev.memsidecar.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.ToolCall;
import dev.memsidecar.conformance.InMemoryProvider;
import dev.memsidecar.core.config.Flags;
import dev.memsidecar.core.config.RunConfig;
import dev.memsidecar.core.config.ScopeKind;
import dev.memsidecar.core.events.RuntimeEvent;
import dev.memsidecar.core.events.Watch;
import dev.memsidecar.core.run.BeginRunInput;
import dev.memsidecar.core.run.EndRunInput;
import dev.memsidecar.core.run.EndRunResult;
import dev.memsidecar.core.run.RunService;
import dev.memsidecar.core.run.RunSnapshot;
import dev.memsidecar.core.toolrules.ToolRule;
import dev.memsidecar.core.toolrules.ToolRuleService;
import dev.memsidecar.core.toolrules.ToolStats;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Tool-scoped rules through the engine: capture in EndRun, pinning in BeginRun, enforcement. */
class TestToolRules {
  private static final Scope ALICE = Scope.user("acme", "alice");

  @TempDir Path data;

  private final List<MemoryEngine> open = new ArrayList<>();

  @AfterEach
  void closeAll() {
    open.forEach(MemoryEngine::close);
  }

  private MemoryEngine engine(boolean capture) {
    MemoryEngine e =
        Engines.open(
            data,
            Flags.ALL_ON,
            List.of(
                Engines.profile("workspace", ScopeKind.WORKSPACE),
                Engines.profile("user", ScopeKind.USER)),
            Engines.clock(Instant::now),
            Engines.providers(new InMemoryProvider()),
            null,
            ScriptedExtractor.provider(),
            new RunConfig("rules", Map.of(), Duration.ofHours(24), Duration.ofDays(7), capture));
    open.add(e);
    return e;
  }

  private static EndRunResult endRun(
      MemoryEngine e, String runId, String input, List<ToolCall> calls, Map<String, String> md) {
    return e.endRun(
        new EndRunInput(ALICE, runId, input, "", calls, md), RequestOptions.fromMetadata(md));
  }

  private static ToolCall ok(String tool) {
    return new ToolCall(tool, true, "", "");
  }

  private static ToolRuleService.Verdict check(MemoryEngine e, String tool, String args) {
    return e.toolRules().check(ALICE, tool, args, "run-x", RequestOptions.DEFAULT);
  }

  @Test
  void theSarahCaseCapturedPinnedAndEnforced() {
    MemoryEngine e = engine(true);
    e.beginRun(
        new BeginRunInput(ALICE, "s1", "mail the report", List.of("send_email"), 0, Map.of()),
        RequestOptions.DEFAULT);
    EndRunResult r =
        endRun(
            e,
            "s1",
            "Never email Sarah at sarah@example.com. She left the project.",
            List.of(ok("send_email")),
            Map.of());
    assertEquals(1, r.capturedRules().size(), r::toString);
    ToolRule rule = r.capturedRules().get(0);
    assertEquals("send_email", rule.toolName());
    assertEquals(ToolRule.Priority.CRITICAL, rule.priority());
    assertEquals(ToolRule.Source.USER_EXPLICIT, rule.source());

    RunSnapshot next =
        e.beginRun(
            new BeginRunInput(
                Scope.user("acme", "alice"), "s2", "anything new?", List.of(), 0, Map.of()),
            RequestOptions.DEFAULT);
    String pinned =
        next.sections().stream()
            .filter(s -> s.id().equals(RunService.TOOL_RULES))
            .findFirst()
            .orElseThrow()
            .body();
    assertTrue(pinned.startsWith("### `send_email`\n- **[critical]** Never email Sarah"), pinned);

    try (Watch w = e.events().watch(ALICE, List.of("toolrule.denied"), () -> {})) {
      ToolRuleService.Verdict deny =
          check(e, "send_email", "{\"to\":\"sarah@example.com\",\"subject\":\"hi\"}");
      assertFalse(deny.allowed());
      assertTrue(deny.reason().contains("sarah@example.com"), deny.reason());
      RuntimeEvent ev = w.poll();
      assertEquals("toolrule.denied", ev.type());
      assertEquals(rule.id(), ev.attributes().get("rule_id"));
      assertEquals("run-x", ev.runId());
    }
    assertTrue(check(e, "send_email", "{\"to\":\"bob@example.com\"}").allowed());
    ToolStats stats = e.toolRules().stats(ALICE, "send_email", RequestOptions.DEFAULT);
    assertEquals(1, stats.calls());
    assertEquals(0, stats.failures());
    assertEquals(1, stats.denials(), "denials are counted apart from failures");
    // Another workspace never sees the rule.
    assertTrue(
        e.toolRules()
            .check(
                Scope.workspace("globex"),
                "send_email",
                "{\"to\":\"sarah@example.com\"}",
                "",
                RequestOptions.DEFAULT)
            .allowed());
  }

  @Test
  void teachingTheSameProhibitionAgainKeepsOneRule() {
    MemoryEngine e = engine(true);
    for (int i = 0; i < 3; i++) {
      endRun(
          e,
          "r" + i,
          "Never email Sarah at sarah@example.com.",
          List.of(ok("send_email")),
          Map.of());
    }
    assertEquals(1, e.toolRules().list(ALICE, "send_email", RequestOptions.DEFAULT).size());
  }

  @Test
  void repeatedFailuresLeaveANormalObservationNamingTheCategory() {
    MemoryEngine e = engine(true);
    EndRunResult r =
        endRun(
            e,
            "f",
            "please fetch the weather",
            List.of(
                new ToolCall("fetch_url", false, "timeout", "read timed out"),
                new ToolCall("fetch_url", false, "timeout", "read timed out"),
                ok("fetch_url")),
            Map.of());
    ToolRule obs = r.capturedRules().get(0);
    assertEquals(ToolRule.Priority.NORMAL, obs.priority());
    assertEquals(ToolRule.Source.POST_TURN, obs.source());
    assertTrue(obs.rule().contains("timeout"), obs.rule());
    ToolStats stats = e.toolRules().stats(ALICE, "fetch_url", RequestOptions.DEFAULT);
    assertEquals(3, stats.calls());
    assertEquals(2, stats.failures());
    assertEquals(Map.of("timeout", 2L), stats.failuresByCategory());
    assertEquals("read timed out", stats.lastErrorMessage());
  }

  @Test
  void captureIsOffWhenConfiguredOffOrTheRunIsReadOnly() {
    MemoryEngine off = engine(false);
    assertEquals(
        List.of(),
        endRun(
                off,
                "a",
                "Never email Sarah at sarah@example.com.",
                List.of(ok("send_email")),
                Map.of())
            .capturedRules());
    off.close();
    open.remove(off);
    MemoryEngine on = engine(true);
    EndRunResult ro =
        endRun(
            on,
            "b",
            "Never email Sarah at sarah@example.com.",
            List.of(ok("send_email")),
            Map.of("memoryWrite", "false"));
    assertEquals(List.of(), ro.capturedRules());
    assertEquals(List.of(), on.toolRules().list(ALICE, "", RequestOptions.DEFAULT));
    // Stats count whenever writes are allowed (capture off included), never for a read-only run.
    assertEquals(1, on.toolRules().stats(ALICE, "send_email", RequestOptions.DEFAULT).calls());
  }

  @Test
  void noCapOrOrderLosesACriticalRuleAndTheRunsToolsComeFirst() {
    MemoryEngine e = engine(true);
    for (int i = 0; i < 60; i++) {
      e.toolRules()
          .put(
              ALICE,
              rule(
                  "tool_" + i,
                  "High rule " + i + " " + "detail ".repeat(30),
                  ToolRule.Priority.HIGH),
              RequestOptions.DEFAULT);
    }
    e.toolRules()
        .put(
            ALICE,
            rule("zz_last", "Never delete /etc/hosts.", ToolRule.Priority.CRITICAL),
            RequestOptions.DEFAULT);
    e.toolRules()
        .put(
            ALICE,
            rule("bash", "Always use set -euo pipefail.", ToolRule.Priority.HIGH),
            RequestOptions.DEFAULT);
    String md = e.toolRules().render(ALICE, List.of("bash"), RequestOptions.DEFAULT).markdown();
    assertTrue(md.startsWith("## Tool-scoped rules\n\n### `bash`"), md.substring(0, 60));
    assertTrue(md.contains("- **[critical]** Never delete /etc/hosts."), "critical never cut");
    assertTrue(md.contains("more high-priority rules left out"), md);
  }

  @Test
  void putValidatesAndAReadOnlyRequestMayNotWrite() {
    MemoryEngine e = engine(true);
    MemoryException badTool =
        assertThrows(
            MemoryException.class,
            () ->
                e.toolRules()
                    .put(
                        ALICE,
                        rule("send email", "x", ToolRule.Priority.HIGH),
                        RequestOptions.DEFAULT));
    assertEquals("rule.tool_name", badTool.field());
    MemoryException ro =
        assertThrows(
            MemoryException.class,
            () ->
                e.toolRules()
                    .put(
                        ALICE,
                        rule("bash", "Never run rm -rf /.", ToolRule.Priority.CRITICAL),
                        RequestOptions.fromMetadata(Map.of("memoryWrite", "false"))));
    assertEquals(MemoryException.Code.PERMISSION_DENIED, ro.code());
    // Read once, so the rules are cached: a later put must reach the cached copy.
    assertTrue(check(e, "bash", "{\"command\":\"rm -rf /\"}").allowed());
    ToolRule first =
        e.toolRules()
            .put(
                ALICE,
                rule("bash", "Never run rm -rf /.", ToolRule.Priority.CRITICAL),
                RequestOptions.DEFAULT);
    ToolRule again =
        e.toolRules()
            .put(
                ALICE,
                rule("bash", "never run  rm -rf /", ToolRule.Priority.CRITICAL),
                RequestOptions.DEFAULT);
    assertEquals(first.id(), again.id(), "the same rule for the same tool keeps its id");
    assertFalse(check(e, "bash", "{\"command\":\"rm -rf /\"}").allowed());
    assertTrue(check(e, "bash", "{\"command\":\"ls -la\"}").allowed());
    assertTrue(e.toolRules().delete(ALICE, "bash", first.id(), RequestOptions.DEFAULT));
    assertTrue(
        check(e, "bash", "{\"command\":\"rm -rf /\"}").allowed(), "deleted: no longer enforced");
  }

  private static String toolRulesSection(RunSnapshot snapshot) {
    return snapshot.sections().stream()
        .filter(s -> s.id().equals(RunService.TOOL_RULES))
        .findFirst()
        .orElseThrow()
        .body();
  }

  @Test
  void aProhibitionWithAnActDeniesOnlyTheCallsThatDoIt() {
    MemoryEngine e = engine(true);
    e.beginRun(
        new BeginRunInput(ALICE, "d1", "clean up", List.of("bash"), 0, Map.of()),
        RequestOptions.DEFAULT);
    EndRunResult r =
        endRun(e, "d1", "Don't use the shell to delete files.", List.of(ok("bash")), Map.of());
    assertEquals(1, r.capturedRules().size(), r::toString);
    ToolRule rule = r.capturedRules().get(0);
    assertEquals("bash", rule.toolName());
    assertEquals(ToolRule.Priority.CRITICAL, rule.priority());
    assertEquals(List.of("action:delete-files"), rule.objects());
    for (String allowed : List.of("ls -la", "git status", "cat notes.txt | grep rm", "echo rm")) {
      ToolRuleService.Verdict v = check(e, "bash", "{\"command\":\"" + allowed + "\"}");
      assertTrue(v.allowed(), allowed + ": " + v.reason());
      assertEquals(List.of(), v.warnings(), allowed);
    }
    for (String denied :
        List.of("rm -rf build", "cd x && rm a", "sudo rm x", "find . -delete", "xargs rm")) {
      ToolRuleService.Verdict v = check(e, "bash", "{\"command\":\"" + denied + "\"}");
      assertFalse(v.allowed(), denied);
      assertEquals(rule.id(), v.rules().get(0).id());
      assertTrue(v.reason().contains(rule.id()), v.reason());
    }
    // Chinese says the same.
    EndRunResult zh = endRun(e, "d2", "不要用 shell 安装软件包。", List.of(ok("bash")), Map.of());
    assertEquals(List.of("action:install-packages"), zh.capturedRules().get(0).objects());
    assertFalse(check(e, "bash", "{\"command\":\"pip install x\"}").allowed());
    assertTrue(check(e, "bash", "{\"command\":\"pip list\"}").allowed());
  }

  @Test
  void aRuleWhoseObjectIsNotRecognisedIsPinnedAndWarnsButNeverDenies() {
    MemoryEngine e = engine(true);
    EndRunResult r =
        endRun(e, "m1", "Don't use the shell to mine bitcoin.", List.of(ok("bash")), Map.of());
    ToolRule captured = r.capturedRules().get(0);
    assertEquals(ToolRule.Priority.HIGH, captured.priority());
    ToolRule put =
        e.toolRules()
            .put(
                ALICE,
                rule(
                    "bash", "Never use the terminal to stream videos.", ToolRule.Priority.CRITICAL),
                RequestOptions.DEFAULT);
    String pinned =
        toolRulesSection(
            e.beginRun(
                new BeginRunInput(ALICE, "m2", "anything", List.of(), 0, Map.of()),
                RequestOptions.DEFAULT));
    assertTrue(pinned.contains("Don't use the shell to mine bitcoin."), pinned);
    assertTrue(pinned.contains("Never use the terminal to stream videos."), pinned);
    ToolRuleService.Verdict v = check(e, "bash", "{\"command\":\"ls\"}");
    assertTrue(v.allowed(), v.reason());
    assertEquals(
        List.of(put.id(), captured.id()).stream().sorted().toList(),
        v.warnings().stream().map(w -> w.rule().id()).sorted().toList());
    assertTrue(v.reason().contains("2 warning(s)"), v.reason());
    // A critical text that is no prohibition is not a blanket deny either.
    ToolRule advice =
        e.toolRules()
            .put(
                ALICE,
                rule("deploy", "Production deploys need a ticket.", ToolRule.Priority.CRITICAL),
                RequestOptions.DEFAULT);
    ToolRuleService.Verdict deploy = check(e, "deploy", "{\"env\":\"prod\"}");
    assertTrue(deploy.allowed());
    assertEquals(advice.id(), deploy.warnings().get(0).rule().id());
    // A whole-tool prohibition still denies every call of its tool.
    e.toolRules()
        .put(
            ALICE,
            rule("browse", "Never use the browser.", ToolRule.Priority.CRITICAL),
            RequestOptions.DEFAULT);
    assertFalse(check(e, "browse", "{\"url\":\"https://example.org\"}").allowed());
  }

  @Test
  void normalRulesAreInBeginRunWhenTheInputIsAboutTheirTool() {
    MemoryEngine e = engine(true);
    e.toolRules()
        .put(
            ALICE,
            rule(
                "fetch_url",
                "Set a 10 s timeout: the status page is slow.",
                ToolRule.Priority.NORMAL),
            RequestOptions.DEFAULT);
    e.toolRules()
        .put(
            ALICE,
            rule("send_email", "Sign mails with the team name.", ToolRule.Priority.NORMAL),
            RequestOptions.DEFAULT);
    String about =
        toolRulesSection(
            e.beginRun(
                new BeginRunInput(
                    ALICE, "n1", "Check the status page with fetch_url.", List.of(), 0, Map.of()),
                RequestOptions.DEFAULT));
    assertEquals(
        "### `fetch_url`\n- **[normal]** Set a 10 s timeout: the status page is slow.", about);
    String mail =
        toolRulesSection(
            e.beginRun(
                new BeginRunInput(ALICE, "n2", "给 Bob 发邮件", List.of(), 0, Map.of()),
                RequestOptions.DEFAULT));
    assertTrue(mail.contains("Sign mails with the team name."), mail);
    assertFalse(mail.contains("fetch_url"), mail);
    String other =
        toolRulesSection(
            e.beginRun(
                new BeginRunInput(ALICE, "n3", "How was the weekend?", List.of(), 0, Map.of()),
                RequestOptions.DEFAULT));
    assertEquals("", other);
    // The RenderToolRules block stays the pinned rules alone.
    assertEquals("", e.toolRules().render(ALICE, List.of(), RequestOptions.DEFAULT).markdown());
  }

  private static ToolRule rule(String tool, String text, ToolRule.Priority priority) {
    Instant t = Instant.EPOCH;
    return new ToolRule(
        "", tool, text, priority, ToolRule.Source.PROGRAMMATIC, List.of(), t, t, List.of());
  }
}
