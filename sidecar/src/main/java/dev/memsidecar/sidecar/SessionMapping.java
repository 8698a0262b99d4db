package dev.memsidecar.sidecar;

import com.google.protobuf.Timestamp;
import dev.memsidecar.api.MemoryException;
import dev.memsidecar.core.sessions.MessageRole;
import dev.memsidecar.core.sessions.SessionHit;
import dev.memsidecar.core.sessions.SessionInfo;
import dev.memsidecar.core.sessions.SessionMessage;
import dev.memsidecar.proto.v1.Message;
import dev.memsidecar.proto.v1.MessageToolCall;
import dev.memsidecar.proto.v1.MessageToolResult;
import dev.memsidecar.proto.v1.TokenUsage;
import java.time.DateTimeException;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/** Session messages, hits and listings between the wire and {@code core.sessions}. */
final class SessionMapping {
  private SessionMapping() {}

  /** A message as a client sent it; {@code field} names it in errors ("messages[2]"). */
  static SessionMessage message(Message m, String field) {
    return new SessionMessage(
        m.getId(),
        "",
        0,
        role(m.getRole(), field + ".role"),
        m.getName(),
        m.getContent(),
        m.hasToolCall()
            ? new SessionMessage.ToolInvocation(
                m.getToolCall().getName(),
                m.getToolCall().getArguments(),
                m.getToolCall().getCallId())
            : null,
        m.hasToolResult()
            ? new SessionMessage.ToolOutcome(
                m.getToolResult().getName(),
                m.getToolResult().getCallId(),
                m.getToolResult().getOk(),
                m.getToolResult().getErrorCategory())
            : null,
        m.hasTime() ? instant(m.getTime(), field + ".time") : null,
        !m.hasContextVisible() || m.getContextVisible(),
        m.getUsage().getInputTokens(),
        m.getUsage().getOutputTokens(),
        m.getSystemPromptSnapshotId(),
        m.getRunId(),
        m.getMetadataMap());
  }

  /** A stored message on the wire; {@code context_visible} is set only on hidden ones. */
  static Message message(SessionMessage m) {
    Message.Builder b =
        Message.newBuilder()
            .setId(m.id())
            .setSessionId(m.sessionId())
            .setSequence(m.sequence())
            .setRole(role(m.role()))
            .setName(m.name())
            .setContent(m.content())
            .setTime(ProtoMapping.timestamp(m.time()))
            .setSystemPromptSnapshotId(m.snapshotId())
            .setRunId(m.runId())
            .putAllMetadata(m.metadata());
    if (m.toolCall() != null) {
      b.setToolCall(
          MessageToolCall.newBuilder()
              .setName(m.toolCall().name())
              .setArguments(m.toolCall().arguments())
              .setCallId(m.toolCall().callId()));
    }
    if (m.toolResult() != null) {
      b.setToolResult(
          MessageToolResult.newBuilder()
              .setName(m.toolResult().name())
              .setCallId(m.toolResult().callId())
              .setOk(m.toolResult().ok())
              .setErrorCategory(m.toolResult().errorCategory()));
    }
    if (!m.visible()) {
      b.setContextVisible(false);
    }
    if (m.inputTokens() != 0 || m.outputTokens() != 0) {
      b.setUsage(
          TokenUsage.newBuilder()
              .setInputTokens(m.inputTokens())
              .setOutputTokens(m.outputTokens()));
    }
    return b.build();
  }

  static dev.memsidecar.proto.v1.SessionHit hit(SessionHit h) {
    dev.memsidecar.proto.v1.SessionHit.Builder b =
        dev.memsidecar.proto.v1.SessionHit.newBuilder()
            .setMessage(message(h.message()))
            .setScore(h.score())
            .setSnippet(h.snippet())
            .setSessionId(h.message().sessionId())
            .setTime(ProtoMapping.timestamp(h.message().time()));
    if (h.replyTo() != null) {
      b.setReplyTo(message(h.replyTo()));
    }
    if (h.answeredBy() != null) {
      b.setAnsweredBy(message(h.answeredBy()));
    }
    return b.build();
  }

  static dev.memsidecar.proto.v1.SessionInfo info(SessionInfo s) {
    dev.memsidecar.proto.v1.SessionInfo.Builder b =
        dev.memsidecar.proto.v1.SessionInfo.newBuilder()
            .setSessionId(s.sessionId())
            .setMessageCount(s.messageCount())
            .setCreateTime(ProtoMapping.timestamp(s.createTime()))
            .setUpdateTime(ProtoMapping.timestamp(s.updateTime()))
            .setAgentId(s.agentId());
    if (s.lastMessageTime() != null) {
      b.setLastMessageTime(ProtoMapping.timestamp(s.lastMessageTime()));
    }
    return b.build();
  }

  /** A role a client sent; UNSPECIFIED is INVALID_ARGUMENT naming {@code field}. */
  static MessageRole role(dev.memsidecar.proto.v1.MessageRole r, String field) {
    return switch (r) {
      case MESSAGE_ROLE_USER -> MessageRole.USER;
      case MESSAGE_ROLE_ASSISTANT -> MessageRole.ASSISTANT;
      case MESSAGE_ROLE_TOOL -> MessageRole.TOOL;
      case MESSAGE_ROLE_SYSTEM -> MessageRole.SYSTEM;
      case MESSAGE_ROLE_EVENT -> MessageRole.EVENT;
      case MESSAGE_ROLE_UNSPECIFIED, UNRECOGNIZED ->
          throw MemoryException.invalidArgument(
              field, field + " is required: user, assistant, tool, system or event");
    };
  }

  static Set<MessageRole> roles(List<dev.memsidecar.proto.v1.MessageRole> roles) {
    Set<MessageRole> out = EnumSet.noneOf(MessageRole.class);
    for (dev.memsidecar.proto.v1.MessageRole r : roles) {
      out.add(role(r, "roles"));
    }
    return out;
  }

  static dev.memsidecar.proto.v1.MessageRole role(MessageRole r) {
    return switch (r) {
      case USER -> dev.memsidecar.proto.v1.MessageRole.MESSAGE_ROLE_USER;
      case ASSISTANT -> dev.memsidecar.proto.v1.MessageRole.MESSAGE_ROLE_ASSISTANT;
      case TOOL -> dev.memsidecar.proto.v1.MessageRole.MESSAGE_ROLE_TOOL;
      case SYSTEM -> dev.memsidecar.proto.v1.MessageRole.MESSAGE_ROLE_SYSTEM;
      case EVENT -> dev.memsidecar.proto.v1.MessageRole.MESSAGE_ROLE_EVENT;
    };
  }

  /** A timestamp a client sent; out of range is INVALID_ARGUMENT naming {@code field}. */
  static Instant instant(Timestamp t, String field) {
    try {
      return Instant.ofEpochSecond(t.getSeconds(), t.getNanos());
    } catch (DateTimeException | ArithmeticException e) {
      throw MemoryException.invalidArgument(field, field + " is out of range: " + t.getSeconds());
    }
  }
}
