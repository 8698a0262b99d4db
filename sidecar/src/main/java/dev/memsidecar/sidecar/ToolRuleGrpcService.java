package dev.memsidecar.sidecar;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.core.toolrules.ToolRule;
import dev.memsidecar.core.toolrules.ToolRuleService;
import dev.memsidecar.core.toolrules.ToolStats;
import dev.memsidecar.proto.v1.CheckToolCallRequest;
import dev.memsidecar.proto.v1.CheckToolCallResponse;
import dev.memsidecar.proto.v1.DeleteToolRuleRequest;
import dev.memsidecar.proto.v1.DeleteToolRuleResponse;
import dev.memsidecar.proto.v1.ExportToolRulesRequest;
import dev.memsidecar.proto.v1.ExportToolRulesResponse;
import dev.memsidecar.proto.v1.GetToolRuleRequest;
import dev.memsidecar.proto.v1.GetToolRuleResponse;
import dev.memsidecar.proto.v1.GetToolStatsRequest;
import dev.memsidecar.proto.v1.GetToolStatsResponse;
import dev.memsidecar.proto.v1.ListToolRulesRequest;
import dev.memsidecar.proto.v1.ListToolRulesResponse;
import dev.memsidecar.proto.v1.PutToolRuleRequest;
import dev.memsidecar.proto.v1.PutToolRuleResponse;
import dev.memsidecar.proto.v1.RenderToolRulesRequest;
import dev.memsidecar.proto.v1.RenderToolRulesResponse;
import dev.memsidecar.proto.v1.ToolCallVerdict;
import dev.memsidecar.proto.v1.ToolCallWarning;
import dev.memsidecar.proto.v1.ToolRuleServiceGrpc;
import io.grpc.stub.StreamObserver;
import java.time.Instant;
import java.util.List;

/** memsidecar.v1.ToolRuleService: proto in, {@link ToolRuleService} call, proto out. */
final class ToolRuleGrpcService extends ToolRuleServiceGrpc.ToolRuleServiceImplBase {
  private final ToolRuleService rules;

  ToolRuleGrpcService(ToolRuleService rules) {
    this.rules = requireNonNull(rules, "rules is null");
  }

  @Override
  public void putToolRule(PutToolRuleRequest req, StreamObserver<PutToolRuleResponse> out) {
    dev.memsidecar.proto.v1.ToolRule r = req.getRule();
    Instant now = Instant.EPOCH; // the store stamps the times
    ToolRule stored =
        rules.put(
            ProtoMapping.scope(req.getScope()),
            new ToolRule(
                r.getId(),
                r.getToolName(),
                r.getRule(),
                ProtoMapping.priority(r.getPriority()),
                ProtoMapping.source(r.getSource()),
                r.getTagsList(),
                now,
                now,
                List.of()),
            ProtoMapping.options());
    out.onNext(PutToolRuleResponse.newBuilder().setRule(ProtoMapping.toolRule(stored)).build());
    out.onCompleted();
  }

  @Override
  public void getToolRule(GetToolRuleRequest req, StreamObserver<GetToolRuleResponse> out) {
    ToolRule r =
        rules.get(
            ProtoMapping.scope(req.getScope()),
            req.getToolName(),
            req.getId(),
            ProtoMapping.options());
    out.onNext(GetToolRuleResponse.newBuilder().setRule(ProtoMapping.toolRule(r)).build());
    out.onCompleted();
  }

  @Override
  public void listToolRules(ListToolRulesRequest req, StreamObserver<ListToolRulesResponse> out) {
    ListToolRulesResponse.Builder res = ListToolRulesResponse.newBuilder();
    rules
        .list(ProtoMapping.scope(req.getScope()), req.getToolName(), ProtoMapping.options())
        .forEach(r -> res.addRules(ProtoMapping.toolRule(r)));
    out.onNext(res.build());
    out.onCompleted();
  }

  @Override
  public void deleteToolRule(
      DeleteToolRuleRequest req, StreamObserver<DeleteToolRuleResponse> out) {
    boolean deleted =
        rules.delete(
            ProtoMapping.scope(req.getScope()),
            req.getToolName(),
            req.getId(),
            ProtoMapping.options());
    out.onNext(DeleteToolRuleResponse.newBuilder().setDeleted(deleted).build());
    out.onCompleted();
  }

  @Override
  public void renderToolRules(
      RenderToolRulesRequest req, StreamObserver<RenderToolRulesResponse> out) {
    ToolRuleService.Rendered r =
        rules.render(ProtoMapping.scope(req.getScope()), List.of(), ProtoMapping.options());
    RenderToolRulesResponse.Builder res =
        RenderToolRulesResponse.newBuilder().setMarkdown(r.markdown());
    r.rules().forEach(x -> res.addRules(ProtoMapping.toolRule(x)));
    out.onNext(res.build());
    out.onCompleted();
  }

  @Override
  public void exportToolRules(
      ExportToolRulesRequest req, StreamObserver<ExportToolRulesResponse> out) {
    String json = rules.export(ProtoMapping.scope(req.getScope()), ProtoMapping.options());
    out.onNext(ExportToolRulesResponse.newBuilder().setJson(json).build());
    out.onCompleted();
  }

  @Override
  public void checkToolCall(CheckToolCallRequest req, StreamObserver<CheckToolCallResponse> out) {
    ToolRuleService.Verdict v =
        rules.check(
            ProtoMapping.scope(req.getScope()),
            req.getToolName(),
            req.getArgumentsJson(),
            req.getRunId(),
            ProtoMapping.options());
    CheckToolCallResponse.Builder res =
        CheckToolCallResponse.newBuilder()
            .setVerdict(
                v.allowed()
                    ? ToolCallVerdict.TOOL_CALL_VERDICT_ALLOW
                    : ToolCallVerdict.TOOL_CALL_VERDICT_DENY)
            .setReason(v.reason());
    v.rules().forEach(r -> res.addMatchedRules(ProtoMapping.toolRule(r)));
    for (ToolRuleService.Warning w : v.warnings()) {
      res.addWarnings(
          ToolCallWarning.newBuilder()
              .setRule(ProtoMapping.toolRule(w.rule()))
              .setReason(w.reason()));
    }
    out.onNext(res.build());
    out.onCompleted();
  }

  @Override
  public void getToolStats(GetToolStatsRequest req, StreamObserver<GetToolStatsResponse> out) {
    ToolStats s =
        rules.stats(ProtoMapping.scope(req.getScope()), req.getToolName(), ProtoMapping.options());
    dev.memsidecar.proto.v1.ToolStats.Builder b =
        dev.memsidecar.proto.v1.ToolStats.newBuilder()
            .setToolName(s.toolName())
            .setCalls(s.calls())
            .setFailures(s.failures())
            .putAllFailuresByCategory(s.failuresByCategory())
            .setLastErrorMessage(s.lastErrorMessage())
            .setDenials(s.denials());
    if (s.lastFailureTime() != null) {
      b.setLastFailureTime(ProtoMapping.timestamp(s.lastFailureTime()));
    }
    out.onNext(GetToolStatsResponse.newBuilder().setStats(b).build());
    out.onCompleted();
  }
}
