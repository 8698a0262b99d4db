package dev.memsidecar.sidecar.cli;

import dev.memsidecar.proto.v1.CheckToolCallRequest;
import dev.memsidecar.proto.v1.CheckToolCallResponse;
import dev.memsidecar.proto.v1.DeleteToolRuleRequest;
import dev.memsidecar.proto.v1.ListToolRulesRequest;
import dev.memsidecar.proto.v1.PutToolRuleRequest;
import dev.memsidecar.proto.v1.ToolCallVerdict;
import dev.memsidecar.proto.v1.ToolCallWarning;
import dev.memsidecar.proto.v1.ToolRule;
import dev.memsidecar.proto.v1.ToolRulePriority;
import dev.memsidecar.proto.v1.ToolRuleServiceGrpc;
import dev.memsidecar.proto.v1.ToolRuleServiceGrpc.ToolRuleServiceBlockingStub;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code rules list | put | delete | check}: the workspace's tool rules. */
@Command(
    name = "rules",
    description = "Tool rules: list, put, delete, and check a tool call against them.",
    subcommands = {
      RuleCommands.ListRules.class,
      RuleCommands.Put.class,
      RuleCommands.Delete.class,
      RuleCommands.Check.class
    })
final class RuleCommands {
  private static final String PRIORITY_PREFIX = "TOOL_RULE_PRIORITY_";

  static ToolRuleServiceBlockingStub rules(Connection sidecar) {
    return sidecar.stub(ToolRuleServiceGrpc.newBlockingStub(sidecar.channel()));
  }

  static List<String> row(ToolRule r) {
    return List.of(
        r.getId(),
        r.getToolName(),
        Printer.name(r.getPriority(), PRIORITY_PREFIX),
        Printer.name(r.getSource(), "TOOL_RULE_SOURCE_"),
        Printer.cut(r.getRule()));
  }

  static final List<String> HEADER = List.of("ID", "TOOL", "PRIORITY", "SOURCE", "RULE");

  @Command(name = "list", description = "Lists the rules, critical first, newest first.")
  static final class ListRules extends ClientCommand {
    @Option(names = "--tool", paramLabel = "NAME", description = "only this tool's rules")
    String tool = "";

    @Override
    int run(Connection sidecar, Printer print) {
      List<ToolRule> found =
          rules(sidecar)
              .listToolRules(
                  ListToolRulesRequest.newBuilder()
                      .setScope(client.scope())
                      .setToolName(tool)
                      .build())
              .getRulesList();
      print.list(found, HEADER, RuleCommands::row);
      return 0;
    }
  }

  @Command(name = "put", description = "Adds a rule for a tool (the same rule again keeps its id).")
  static final class Put extends ClientCommand {
    @Option(names = "--tool", paramLabel = "NAME", required = true, description = "the tool")
    String tool;

    @Option(
        names = "--priority",
        paramLabel = "P",
        defaultValue = "critical",
        description = "critical, high or normal (default ${DEFAULT-VALUE})")
    String priority;

    @Parameters(paramLabel = "RULE", arity = "1..*", description = "the rule, in words")
    List<String> rule;

    @Override
    int run(Connection sidecar, Printer print) {
      ToolRule put =
          rules(sidecar)
              .putToolRule(
                  PutToolRuleRequest.newBuilder()
                      .setScope(client.scope())
                      .setRule(
                          ToolRule.newBuilder()
                              .setToolName(tool)
                              .setRule(String.join(" ", rule))
                              .setPriority(
                                  Enums.parse(
                                      ToolRulePriority.class,
                                      PRIORITY_PREFIX,
                                      priority,
                                      "--priority")))
                      .build())
              .getRule();
      if (print.json()) {
        print.json(put);
      } else {
        print.line("put " + put.getId() + " for " + put.getToolName());
      }
      return 0;
    }
  }

  @Command(name = "delete", description = "Deletes a rule.")
  static final class Delete extends ClientCommand {
    @Option(names = "--tool", paramLabel = "NAME", required = true, description = "the tool")
    String tool;

    @Parameters(paramLabel = "ID")
    String id;

    @Override
    int run(Connection sidecar, Printer print) {
      boolean deleted =
          rules(sidecar)
              .deleteToolRule(
                  DeleteToolRuleRequest.newBuilder()
                      .setScope(client.scope())
                      .setToolName(tool)
                      .setId(id)
                      .build())
              .getDeleted();
      if (!deleted) {
        throw new CliException(CliException.NOT_FOUND, "no rule " + id + " for tool " + tool);
      }
      print.line("deleted " + id);
      return 0;
    }
  }

  @Command(
      name = "check",
      description = "May this tool call run? Exit 0 when allowed, 6 when a rule denies it.")
  static final class Check extends ClientCommand {
    @Option(names = "--tool", paramLabel = "NAME", required = true, description = "the tool")
    String tool;

    @Option(
        names = "--args",
        paramLabel = "JSON",
        defaultValue = "{}",
        description = "the call's arguments as the agent sends them (default {})")
    String arguments;

    @Override
    int run(Connection sidecar, Printer print) {
      CheckToolCallResponse got =
          rules(sidecar)
              .checkToolCall(
                  CheckToolCallRequest.newBuilder()
                      .setScope(client.scope())
                      .setToolName(tool)
                      .setArgumentsJson(arguments)
                      .build());
      boolean denied = got.getVerdict() == ToolCallVerdict.TOOL_CALL_VERDICT_DENY;
      if (print.json()) {
        print.json(got);
      } else {
        print.line(
            (denied ? "deny" : "allow")
                + (got.getReason().isEmpty() ? "" : ": " + got.getReason()));
        List<List<String>> rows = new ArrayList<>();
        for (ToolRule r : got.getMatchedRulesList()) {
          rows.add(List.of(denied ? "denied by" : "matched", r.getId(), Printer.cut(r.getRule())));
        }
        for (ToolCallWarning w : got.getWarningsList()) {
          rows.add(List.of("warning", w.getRule().getId(), Printer.cut(w.getReason())));
        }
        if (!rows.isEmpty()) {
          print.table(List.of("", "RULE", "WHY"), rows);
        }
      }
      return denied ? CliException.DENIED : 0;
    }
  }
}
