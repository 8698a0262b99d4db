package dev.memsidecar.core.sessions;

/**
 * A message that matched a search: its BM25 score (higher is better, comparable within one answer)
 * and the part of its content around the matched words.
 */
public record SessionHit(SessionMessage message, float score, String snippet) {}
