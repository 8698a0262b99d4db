package dev.memsidecar.it;

import static dev.memsidecar.it.Fixtures.assertStatus;
import static dev.memsidecar.it.Fixtures.uniqueId;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.proto.v1.BeginRunRequest;
import dev.memsidecar.proto.v1.BeginRunResponse;
import dev.memsidecar.proto.v1.CheckToolCallRequest;
import dev.memsidecar.proto.v1.CheckToolCallResponse;
import dev.memsidecar.proto.v1.EndRunRequest;
import dev.memsidecar.proto.v1.EndRunResponse;
import dev.memsidecar.proto.v1.ExportToolRulesRequest;
import dev.memsidecar.proto.v1.GetToolStatsRequest;
import dev.memsidecar.proto.v1.ListToolRulesRequest;
import dev.memsidecar.proto.v1.PromptSection;
import dev.memsidecar.proto.v1.PutToolRuleRequest;
import dev.memsidecar.proto.v1.RenderToolRulesRequest;
import dev.memsidecar.proto.v1.RuntimeEvent;
import dev.memsidecar.proto.v1.Scope;
import dev.memsidecar.proto.v1.ToolCall;
import dev.memsidecar.proto.v1.ToolCallVerdict;
import dev.memsidecar.proto.v1.ToolRule;
import dev.memsidecar.proto.v1.ToolRulePriority;
import dev.memsidecar.proto.v1.ToolRuleSource;
import dev.memsidecar.proto.v1.ToolStats;
import dev.memsidecar.proto.v1.WatchEventsRequest;
import dev.memsidecar.proto.v1.WatchEventsResponse;
import io.grpc.Status;
import java.util.Iterator;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Tool-scoped rules over gRPC on the built jar: the Sarah case end to end, and the rule RPCs. */
class TestToolRules extends DefaultSidecarTest {

  private static CheckToolCallResponse check(Scope scope, String tool, String args) {
    return sidecar
        .toolRules()
        .checkToolCall(
            CheckToolCallRequest.newBuilder()
                .setScope(scope)
                .setToolName(tool)
                .setArgumentsJson(args)
                .setRunId("session-2")
                .build());
  }

  @Test
  void neverEmailSarahBindsEveryLaterSessionAndIsEnforced() {
    String ws = uniqueId("ws-sarah");
    Scope session1 = Scope.newBuilder().setWorkspaceId(ws).setUserId("uma").build();
    memory()
        .beginRun(
            BeginRunRequest.newBuilder()
                .setScope(session1)
                .setRunId("session-1")
                .setInput("Send the weekly report to the team.")
                .addTools("send_email")
                .addTools("read_calendar")
                .build());
    EndRunResponse first =
        memory()
            .endRun(
                EndRunRequest.newBuilder()
                    .setScope(session1)
                    .setRunId("session-1")
                    .setInput(
                        "Send the weekly report to the team. Never email Sarah at"
                            + " sarah@example.com, she left the company.")
                    .setOutput("Sent the weekly report to the team.")
                    .addToolCalls(ToolCall.newBuilder().setToolName("send_email").setOk(true))
                    .build());
    assertEquals(1, first.getCapturedRulesCount(), first::toString);
    ToolRule rule = first.getCapturedRules(0);
    assertEquals("send_email", rule.getToolName());
    assertEquals(ToolRulePriority.TOOL_RULE_PRIORITY_CRITICAL, rule.getPriority());
    assertEquals(ToolRuleSource.TOOL_RULE_SOURCE_USER_EXPLICIT, rule.getSource());

    // A new session of another user of the workspace, before any tool runs.
    Scope session2 = Scope.newBuilder().setWorkspaceId(ws).setUserId("vic").build();
    BeginRunResponse begin =
        memory()
            .beginRun(
                BeginRunRequest.newBuilder()
                    .setScope(session2)
                    .setRunId("session-2")
                    .setInput("Please email the invoice to the client.")
                    .addTools("send_email")
                    .build());
    String pinned =
        begin.getSectionsList().stream()
            .filter(s -> s.getId().equals("tool_rules"))
            .map(PromptSection::getBody)
            .findFirst()
            .orElseThrow();
    assertTrue(pinned.startsWith("### `send_email`\n- **[critical]** Never email Sarah"), pinned);

    Iterator<WatchEventsResponse> events =
        sidecar
            .admin()
            .withDeadlineAfter(30, TimeUnit.SECONDS)
            .watchEvents(
                WatchEventsRequest.newBuilder()
                    .setScope(Scope.newBuilder().setWorkspaceId(ws))
                    .addTypes("toolrule.")
                    .build());
    CheckToolCallResponse denied =
        check(session2, "send_email", "{\"to\":\"sarah@example.com\",\"subject\":\"Invoice\"}");
    assertEquals(ToolCallVerdict.TOOL_CALL_VERDICT_DENY, denied.getVerdict(), denied::toString);
    assertEquals(rule.getId(), denied.getMatchedRules(0).getId());
    assertTrue(denied.getReason().contains("sarah@example.com"), denied::getReason);
    RuntimeEvent event = events.next().getEvent();
    assertEquals("toolrule.denied", event.getType());
    assertEquals("session-2", event.getRunId());
    assertEquals("sarah@example.com", event.getAttributesOrThrow("matched"));

    CheckToolCallResponse allowed =
        check(session2, "send_email", "{\"to\":\"bob@example.com\",\"subject\":\"Invoice\"}");
    assertEquals(ToolCallVerdict.TOOL_CALL_VERDICT_ALLOW, allowed.getVerdict(), allowed::toString);

    ToolStats stats =
        sidecar
            .toolRules()
            .getToolStats(
                GetToolStatsRequest.newBuilder()
                    .setScope(session2)
                    .setToolName("send_email")
                    .build())
            .getStats();
    assertEquals(1, stats.getCalls());
    assertEquals(0, stats.getFailures());
    assertEquals(1, stats.getDenials());

    // Another workspace never sees the rule.
    Scope elsewhere = Scope.newBuilder().setWorkspaceId(uniqueId("ws-other")).build();
    assertEquals(
        ToolCallVerdict.TOOL_CALL_VERDICT_ALLOW,
        check(elsewhere, "send_email", "{\"to\":\"sarah@example.com\"}").getVerdict());
  }

  private static String toolRulesSection(BeginRunResponse begin) {
    return begin.getSectionsList().stream()
        .filter(s -> s.getId().equals("tool_rules"))
        .map(PromptSection::getBody)
        .findFirst()
        .orElseThrow();
  }

  private static BeginRunResponse begin(Scope scope, String runId, String input) {
    return memory()
        .beginRun(
            BeginRunRequest.newBuilder()
                .setScope(scope)
                .setRunId(runId)
                .setInput(input)
                .addTools("bash")
                .build());
  }

  private static String command(String line) {
    return "{\"command\":\"" + line.replace("\\", "\\\\").replace("\"", "\\\"") + "\"}";
  }

  @Test
  void dontUseTheShellToDeleteFilesDeniesDeletionsOnly() {
    Scope scope = Scope.newBuilder().setWorkspaceId(uniqueId("ws-rm")).setUserId("uma").build();
    begin(scope, "rm-1", "Tidy the build folder.");
    EndRunResponse end =
        memory()
            .endRun(
                EndRunRequest.newBuilder()
                    .setScope(scope)
                    .setRunId("rm-1")
                    .setInput("Tidy the build folder. Don't use the shell to delete files.")
                    .setOutput("Listed the build folder; nothing deleted.")
                    .addToolCalls(ToolCall.newBuilder().setToolName("bash").setOk(true))
                    .build());
    assertEquals(1, end.getCapturedRulesCount(), end::toString);
    ToolRule rule = end.getCapturedRules(0);
    assertEquals("bash", rule.getToolName());
    assertEquals(ToolRulePriority.TOOL_RULE_PRIORITY_CRITICAL, rule.getPriority());
    assertTrue(
        toolRulesSection(begin(scope, "rm-2", "Build it again."))
            .contains("- **[critical]** Don't use the shell to delete files."));

    for (String line :
        new String[] {"ls -la", "git status", "grep -rn rm src", "echo rm", "cat a | wc -l"}) {
      CheckToolCallResponse ok = check(scope, "bash", command(line));
      assertEquals(ToolCallVerdict.TOOL_CALL_VERDICT_ALLOW, ok.getVerdict(), line);
      assertEquals(0, ok.getWarningsCount(), line);
    }
    for (String line :
        new String[] {
          "rm -rf /tmp/x",
          "cd build && rm -f out.o",
          "sudo rm /var/tmp/y",
          "find . -name '*.tmp' -delete",
          "ls *.log | xargs rm",
          "bash -c 'rm x'",
          "git clean -fdx"
        }) {
      CheckToolCallResponse denied = check(scope, "bash", command(line));
      assertEquals(ToolCallVerdict.TOOL_CALL_VERDICT_DENY, denied.getVerdict(), line);
      assertEquals(rule.getId(), denied.getMatchedRules(0).getId(), line);
      assertTrue(denied.getReason().contains(rule.getId()), denied::getReason);
      assertTrue(denied.getReason().contains("Don't use the shell to delete files."), line);
    }
  }

  @Test
  void aRuleWhoseObjectIsNotRecognisedIsPinnedAndWarnsNeverDenies() {
    Scope scope = Scope.newBuilder().setWorkspaceId(uniqueId("ws-warn")).build();
    ToolRule put =
        sidecar
            .toolRules()
            .putToolRule(
                PutToolRuleRequest.newBuilder()
                    .setScope(scope)
                    .setRule(
                        ToolRule.newBuilder()
                            .setToolName("bash")
                            .setRule("Don't use the shell to mine bitcoin.")
                            .setPriority(ToolRulePriority.TOOL_RULE_PRIORITY_CRITICAL))
                    .build())
            .getRule();
    assertTrue(
        toolRulesSection(begin(scope, "w-1", "Compile the project."))
            .contains("- **[critical]** Don't use the shell to mine bitcoin."));
    CheckToolCallResponse response = check(scope, "bash", command("ls -la"));
    assertEquals(ToolCallVerdict.TOOL_CALL_VERDICT_ALLOW, response.getVerdict());
    assertEquals(1, response.getWarningsCount(), response::toString);
    assertEquals(put.getId(), response.getWarnings(0).getRule().getId());
    assertTrue(response.getWarnings(0).getReason().contains(put.getId()), response::toString);
    assertTrue(response.getReason().contains("1 warning(s)"), response::getReason);
  }

  @Test
  void normalRulesReachBeginRunWhenTheInputIsAboutTheirTool() {
    Scope scope = Scope.newBuilder().setWorkspaceId(uniqueId("ws-normal")).build();
    sidecar
        .toolRules()
        .putToolRule(
            PutToolRuleRequest.newBuilder()
                .setScope(scope)
                .setRule(
                    ToolRule.newBuilder()
                        .setToolName("fetch_url")
                        .setRule("The status page needs a 10 s timeout.")
                        .setPriority(ToolRulePriority.TOOL_RULE_PRIORITY_NORMAL))
                .build());
    String about = toolRulesSection(begin(scope, "n-1", "Check the status page with fetch_url."));
    assertEquals("### `fetch_url`\n- **[normal]** The status page needs a 10 s timeout.", about);
    assertEquals("", toolRulesSection(begin(scope, "n-2", "How was your weekend?")));
  }

  @Test
  void rulesArePutListedRenderedAndExported() {
    Scope scope = Scope.newBuilder().setWorkspaceId(uniqueId("ws-rules")).build();
    ToolRule put =
        sidecar
            .toolRules()
            .putToolRule(
                PutToolRuleRequest.newBuilder()
                    .setScope(scope)
                    .setRule(
                        ToolRule.newBuilder()
                            .setToolName("bash")
                            .setRule("Never run `git push --force` on main.")
                            .setPriority(ToolRulePriority.TOOL_RULE_PRIORITY_CRITICAL)
                            .addTags("safety"))
                    .build())
            .getRule();
    ToolRule again =
        sidecar
            .toolRules()
            .putToolRule(
                PutToolRuleRequest.newBuilder()
                    .setScope(scope)
                    .setRule(
                        ToolRule.newBuilder()
                            .setToolName("bash")
                            .setRule("never run `git push --force` on main")
                            .setPriority(ToolRulePriority.TOOL_RULE_PRIORITY_CRITICAL))
                    .build())
            .getRule();
    assertEquals(put.getId(), again.getId(), "the same rule keeps its id");
    assertEquals(
        1,
        sidecar
            .toolRules()
            .listToolRules(ListToolRulesRequest.newBuilder().setScope(scope).build())
            .getRulesCount());
    String markdown =
        sidecar
            .toolRules()
            .renderToolRules(RenderToolRulesRequest.newBuilder().setScope(scope).build())
            .getMarkdown();
    assertTrue(
        markdown.startsWith("## Tool-scoped rules\n\n### `bash`\n- **[critical]** never run"),
        markdown);
    String json =
        sidecar
            .toolRules()
            .exportToolRules(ExportToolRulesRequest.newBuilder().setScope(scope).build())
            .getJson();
    assertTrue(json.contains("\"tool_name\":\"bash\""), json);
    assertTrue(json.contains("\"priority\":\"critical\""), json);
    assertFalse(
        check(scope, "bash", "{\"command\":\"git push --force origin main\"}").getVerdict()
            == ToolCallVerdict.TOOL_CALL_VERDICT_ALLOW);
    assertStatus(
        Status.Code.INVALID_ARGUMENT, "tool_name", () -> check(scope, "not a tool name", "{}"));
  }
}
