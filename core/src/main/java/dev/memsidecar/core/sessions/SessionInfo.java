package dev.memsidecar.core.sessions;

import java.time.Instant;

/**
 * What a listing says of one session.
 *
 * @param messageCount visible and hidden messages
 * @param createTime the first append
 * @param updateTime the last append
 * @param lastMessageTime the newest message time
 * @param agentId the agent of the last append
 */
public record SessionInfo(
    String sessionId,
    long messageCount,
    Instant createTime,
    Instant updateTime,
    Instant lastMessageTime,
    String agentId) {}
