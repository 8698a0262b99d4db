package dev.memsidecar.core.sessions;

/**
 * A message that matched a search: its score (higher is better, comparable within one answer), the
 * part of its content around the matched words, and, for BeginRun's evidence, the messages around
 * it that make it mean something (a reply means little without its question, a question without its
 * answer).
 *
 * @param replyTo the visible message just before it in its session, by someone else; null when
 *     there is none, or the search did not ask for it
 * @param answeredBy when it asks a question (a {@code ?} near its end), the visible message just
 *     after it in its session, by someone else; null otherwise
 */
public record SessionHit(
    SessionMessage message,
    float score,
    String snippet,
    SessionMessage replyTo,
    SessionMessage answeredBy) {
  public SessionHit(SessionMessage message, float score, String snippet) {
    this(message, score, snippet, null, null);
  }
}
