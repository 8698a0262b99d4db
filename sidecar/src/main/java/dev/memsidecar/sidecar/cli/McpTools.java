package dev.memsidecar.sidecar.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageOrBuilder;
import com.google.protobuf.util.JsonFormat;
import dev.memsidecar.proto.v1.BeginRunRequest;
import dev.memsidecar.proto.v1.CheckToolCallRequest;
import dev.memsidecar.proto.v1.EndRunRequest;
import dev.memsidecar.proto.v1.ForgetMemoryRequest;
import dev.memsidecar.proto.v1.ListToolRulesRequest;
import dev.memsidecar.proto.v1.MemoryKind;
import dev.memsidecar.proto.v1.MemoryServiceGrpc;
import dev.memsidecar.proto.v1.MemoryServiceGrpc.MemoryServiceBlockingStub;
import dev.memsidecar.proto.v1.PutToolRuleRequest;
import dev.memsidecar.proto.v1.RememberRequest;
import dev.memsidecar.proto.v1.Scope;
import dev.memsidecar.proto.v1.SearchRequest;
import dev.memsidecar.proto.v1.SearchSessionsRequest;
import dev.memsidecar.proto.v1.SessionServiceGrpc;
import dev.memsidecar.proto.v1.ToolRule;
import dev.memsidecar.proto.v1.ToolRulePriority;
import dev.memsidecar.proto.v1.ToolRuleServiceGrpc;
import dev.memsidecar.proto.v1.ToolRuleServiceGrpc.ToolRuleServiceBlockingStub;
import io.grpc.StatusRuntimeException;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The MCP tools of {@code memsidecar mcp}: each one gRPC call to the sidecar (in process or
 * remote), so a tool obeys the flags, limits and isolation a gRPC call obeys. Every tool takes
 * optional {@code workspace_id}, {@code user_id}, {@code agent_id}, {@code session_id}, defaulting
 * to the command line's. A result is the call's response as JSON (text and structured content); a
 * refused call is an error result naming the gRPC status and the field.
 */
final class McpTools {
  private static final JsonFormat.Printer PROTO_JSON =
      JsonFormat.printer().omittingInsignificantWhitespace();
  private static final ObjectMapper JSON = new ObjectMapper();

  private static final String SCOPE_PROPERTIES =
      """
      "workspace_id": {"type": "string", "description": "the workspace; default: the server's"},
      "user_id": {"type": "string", "description": "the user, for user profiles and sessions"},
      "agent_id": {"type": "string", "description": "the agent, for agent profiles"},
      "session_id": {"type": "string", "description": "the session"}\
      """;

  private final Connection sidecar;
  private final Scope defaults;
  private final McpJsonMapper mapper;

  McpTools(Connection sidecar, Scope defaults, McpJsonMapper mapper) {
    this.sidecar = sidecar;
    this.defaults = defaults;
    this.mapper = mapper;
  }

  List<SyncToolSpecification> all() {
    List<SyncToolSpecification> tools = new ArrayList<>();
    tools.add(
        tool(
            "remember",
            "Store a memory: a durable fact, preference or procedure worth keeping across"
                + " sessions. The write gate may merge it into one it repeats.",
            """
            "content": {"type": "string", "description": "what to remember, one fact"},
            "profile": {"type": "string", "description": "workspace (default) or user"},
            "kind": {"type": "string", "enum": ["semantic", "episodic", "procedural"]},
            "tags": {"type": "array", "items": {"type": "string"}}\
            """,
            List.of("content"),
            a -> {
              RememberRequest.Builder r =
                  RememberRequest.newBuilder()
                      .setScope(scope(a))
                      .setProfile(string(a, "profile", "workspace"))
                      .setContent(string(a, "content", ""))
                      .addAllTags(strings(a, "tags"));
              if (a.get("kind") != null) {
                r.setKind(
                    Enums.parse(MemoryKind.class, "MEMORY_KIND_", string(a, "kind", ""), "kind"));
              }
              return memory().remember(r.build());
            }));
    tools.add(
        tool(
            "recall",
            "Search long-term memory: the memories that best match a query, best first.",
            """
            "query": {"type": "string", "description": "what to look for"},
            "profiles": {"type": "array", "items": {"type": "string"}},
            "top_k": {"type": "integer", "minimum": 1, "maximum": 100}\
            """,
            List.of("query"),
            a ->
                memory()
                    .search(
                        SearchRequest.newBuilder()
                            .setScope(scope(a))
                            .setQuery(string(a, "query", ""))
                            .addAllProfiles(strings(a, "profiles"))
                            .setTopK(integer(a, "top_k", 8))
                            .build())));
    tools.add(
        tool(
            "forget",
            "Forget a memory by its id (kept in its history as forgotten).",
            """
            "id": {"type": "string"},
            "profile": {"type": "string", "description": "workspace (default) or user"}\
            """,
            List.of("id"),
            a ->
                memory()
                    .forgetMemory(
                        ForgetMemoryRequest.newBuilder()
                            .setScope(scope(a))
                            .setProfile(string(a, "profile", "workspace"))
                            .setId(string(a, "id", ""))
                            .build())));
    tools.add(
        tool(
            "session_search",
            "Full-text search over the user's past conversations: matching messages with who"
                + " said them and when.",
            """
            "query": {"type": "string"},
            "top_k": {"type": "integer", "minimum": 1, "maximum": 100}\
            """,
            List.of("query"),
            a ->
                sidecar
                    .stub(SessionServiceGrpc.newBlockingStub(sidecar.channel()))
                    .searchSessions(
                        SearchSessionsRequest.newBuilder()
                            .setScope(scope(a))
                            .setQuery(string(a, "query", ""))
                            .setTopK(integer(a, "top_k", 8))
                            .build())));
    tools.add(
        tool(
            "list_tool_rules",
            "The workspace's rules for tools (critical ones must never be broken).",
            """
            "tool_name": {"type": "string", "description": "only this tool's; default: all"}\
            """,
            List.of(),
            a ->
                rules()
                    .listToolRules(
                        ListToolRulesRequest.newBuilder()
                            .setScope(scope(a))
                            .setToolName(string(a, "tool_name", ""))
                            .build())));
    tools.add(
        tool(
            "put_tool_rule",
            "Add a rule for a tool, such as \"Never email Sarah.\" for the email tool.",
            """
            "tool_name": {"type": "string"},
            "rule": {"type": "string"},
            "priority": {"type": "string", "enum": ["critical", "high", "normal"]}\
            """,
            List.of("tool_name", "rule"),
            a ->
                rules()
                    .putToolRule(
                        PutToolRuleRequest.newBuilder()
                            .setScope(scope(a))
                            .setRule(
                                ToolRule.newBuilder()
                                    .setToolName(string(a, "tool_name", ""))
                                    .setRule(string(a, "rule", ""))
                                    .setPriority(
                                        Enums.parse(
                                            ToolRulePriority.class,
                                            "TOOL_RULE_PRIORITY_",
                                            string(a, "priority", "critical"),
                                            "priority")))
                            .build())));
    tools.add(
        tool(
            "check_tool_call",
            "May this tool call run? ALLOW or DENY with the rules behind it; call it before a"
                + " tool.",
            """
            "tool_name": {"type": "string"},
            "arguments_json": {"type": "string", "description": "the call's arguments as JSON"}\
            """,
            List.of("tool_name"),
            a ->
                rules()
                    .checkToolCall(
                        CheckToolCallRequest.newBuilder()
                            .setScope(scope(a))
                            .setToolName(string(a, "tool_name", ""))
                            .setArgumentsJson(string(a, "arguments_json", "{}"))
                            .build())));
    tools.add(
        tool(
            "begin_run",
            "Before answering: what memory holds for this input, as prompt sections (rules,"
                + " recalled memories, past conversation), frozen for the run.",
            """
            "input": {"type": "string", "description": "the user's message"},
            "run_id": {"type": "string", "description": "the run; generated when empty"},
            "tools": {"type": "array", "items": {"type": "string"}},
            "top_k": {"type": "integer", "minimum": 1, "maximum": 100}\
            """,
            List.of("input"),
            a ->
                memory()
                    .beginRun(
                        BeginRunRequest.newBuilder()
                            .setScope(scope(a))
                            .setInput(string(a, "input", ""))
                            .setRunId(string(a, "run_id", ""))
                            .addAllTools(strings(a, "tools"))
                            .setTopK(integer(a, "top_k", 8))
                            .build())));
    tools.add(
        tool(
            "end_run",
            "After answering: keep the turn and let the sidecar learn what it taught.",
            """
            "run_id": {"type": "string"},
            "input": {"type": "string", "description": "the user's message"},
            "output": {"type": "string", "description": "the answer"},
            "metadata": {"type": "object", "additionalProperties": {"type": "string"}}\
            """,
            List.of("run_id", "input", "output"),
            a -> {
              EndRunRequest.Builder r =
                  EndRunRequest.newBuilder()
                      .setScope(scope(a))
                      .setRunId(string(a, "run_id", ""))
                      .setInput(string(a, "input", ""))
                      .setOutput(string(a, "output", ""));
              if (a.get("metadata") instanceof Map<?, ?> m) {
                m.forEach((k, v) -> r.putMetadata(String.valueOf(k), String.valueOf(v)));
              }
              return memory().endRun(r.build());
            }));
    return tools;
  }

  private SyncToolSpecification tool(
      String name,
      String description,
      String properties,
      List<String> required,
      Function<Map<String, Object>, MessageOrBuilder> call) {
    String schema =
        "{\"type\": \"object\", \"properties\": {"
            + properties
            + ",\n"
            + SCOPE_PROPERTIES
            + "}, \"required\": "
            + toJson(required)
            + ", \"additionalProperties\": false}";
    return SyncToolSpecification.builder()
        .tool(
            Tool.builder().name(name).description(description).inputSchema(mapper, schema).build())
        .callHandler(
            (exchange, request) -> {
              Map<String, Object> args =
                  request.arguments() == null ? Map.of() : request.arguments();
              try {
                String json = PROTO_JSON.print(call.apply(args));
                return CallToolResult.builder()
                    .addTextContent(json)
                    .structuredContent(mapper, json)
                    .build();
              } catch (StatusRuntimeException e) {
                return error(e.getStatus().getCode() + ": " + e.getStatus().getDescription());
              } catch (CliException e) {
                return error("INVALID_ARGUMENT: " + e.getMessage());
              } catch (InvalidProtocolBufferException e) {
                return error("INTERNAL: " + e.getMessage());
              }
            })
        .build();
  }

  private static CallToolResult error(String message) {
    return CallToolResult.builder().addTextContent(message).isError(true).build();
  }

  private MemoryServiceBlockingStub memory() {
    return sidecar.stub(MemoryServiceGrpc.newBlockingStub(sidecar.channel()));
  }

  private ToolRuleServiceBlockingStub rules() {
    return sidecar.stub(ToolRuleServiceGrpc.newBlockingStub(sidecar.channel()));
  }

  private Scope scope(Map<String, Object> a) {
    return Scope.newBuilder()
        .setWorkspaceId(string(a, "workspace_id", defaults.getWorkspaceId()))
        .setUserId(string(a, "user_id", defaults.getUserId()))
        .setAgentId(string(a, "agent_id", defaults.getAgentId()))
        .setSessionId(string(a, "session_id", defaults.getSessionId()))
        .build();
  }

  private static String string(Map<String, Object> a, String key, String fallback) {
    Object v = a.get(key);
    return v == null ? fallback : String.valueOf(v);
  }

  private static int integer(Map<String, Object> a, String key, int fallback) {
    Object v = a.get(key);
    if (v == null) {
      return fallback;
    }
    if (v instanceof Number n) {
      return n.intValue();
    }
    throw CliException.usage(key + " must be an integer, not " + v);
  }

  private static List<String> strings(Map<String, Object> a, String key) {
    Object v = a.get(key);
    if (v == null) {
      return List.of();
    }
    if (v instanceof List<?> list) {
      return list.stream().map(String::valueOf).toList();
    }
    throw CliException.usage(key + " must be an array of strings");
  }

  private static String toJson(Object value) {
    try {
      return JSON.writeValueAsString(value);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
