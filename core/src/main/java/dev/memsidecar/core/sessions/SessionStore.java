package dev.memsidecar.core.sessions;

import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Where sessions are kept: every message verbatim, with the terms of the visible ones indexed for
 * ranked full-text search. The control store implements it ({@code core.control}, which this
 * package does not see). Every write is durable when its method returns ({@code kill -9} loses
 * nothing acknowledged). The postings of a message (its terms in the index) are written behind its
 * append ({@link #index}); until then the appender's own search counts them ({@link #bm25}'s {@code
 * unwritten}), and after a crash they are written from the message ({@link #unindexed}). Sessions
 * are keyed by workspace, user and session id ({@link SessionKey}): no method reads across owners.
 * Thread-safe.
 */
public interface SessionStore {

  /**
   * Appends {@code messages} to the session (creating it), in order, with sequence numbers after
   * its last; a message whose id the session already holds is not appended again and the stored one
   * is returned in its place. One transaction. The visible messages appended are left unindexed:
   * their postings are written by {@link #index}.
   *
   * @param messages with ids and times set
   * @param terms per message, the index terms of its visible text and of its context ({@link
   *     IndexTerms#NONE} for a hidden message): the message's and the owner's lengths count them
   * @return the messages as stored, in the given order
   */
  List<SessionMessage> append(
      SessionKey key,
      String agentId,
      List<SessionMessage> messages,
      List<IndexTerms> terms,
      Instant now);

  /**
   * What a visible message is indexed by: its own terms and those of its context (the visible
   * message before it in its session: the question a reply answers), each with how often it occurs.
   * BM25F counts a context term {@link dev.memsidecar.toolkit.HybridScore#CONTEXT_WEIGHT} of an own
   * one, in term frequencies and lengths alike.
   */
  record IndexTerms(Map<String, Integer> own, Map<String, Integer> context) {
    public static final IndexTerms NONE = new IndexTerms(Map.of(), Map.of());

    public IndexTerms {
      own = Map.copyOf(own);
      context = Map.copyOf(context);
    }

    /** How many terms the message has (the sum of its counts). */
    public int ownLength() {
      return own.values().stream().mapToInt(Integer::intValue).sum();
    }

    /** How many terms its context has. */
    public int contextLength() {
      return context.values().stream().mapToInt(Integer::intValue).sum();
    }
  }

  /**
   * A visible message appended whose postings are not written yet: what {@link #index} writes for
   * it, and what a search counts for it meanwhile.
   */
  record Unindexed(
      SessionKey key, long sequence, Instant time, MessageRole role, IndexTerms terms) {}

  /**
   * Writes the postings of appended messages, each once: a message whose postings are written
   * already (by this process or another), or that is deleted, is skipped. One transaction.
   */
  void index(List<Unindexed> messages);

  /**
   * Visible messages appended before {@code appendedBefore} whose postings are not written (a crash
   * or another process left them), at most {@code limit}.
   */
  List<Keyed> unindexed(Instant appendedBefore, int limit);

  /**
   * The newest {@code limit} visible messages of the session with a sequence below {@code
   * beforeSequence} and a time at or after {@code notBefore}, newest first.
   */
  List<SessionMessage> history(SessionKey key, long beforeSequence, Instant notBefore, int limit);

  /**
   * Up to {@code limit} messages of the session with a sequence above {@code afterSequence}, hidden
   * ones too, oldest first (an export reads a whole session this way).
   */
  List<SessionMessage> messages(SessionKey key, long afterSequence, int limit);

  /**
   * The {@code limit} visible messages of the owner's sessions that best match {@code terms} by
   * BM25 over the index terms, best first.
   *
   * @param unwritten messages whose postings may not be written yet, counted as if they were (a
   *     message written meanwhile counts once; those of other owners are left out)
   */
  List<Match> bm25(
      SessionKey.Owner owner,
      Set<String> terms,
      Filter filter,
      int limit,
      Collection<Unindexed> unwritten);

  /** A message of a session by its sequence number, or null when there is none. */
  SessionMessage message(SessionKey key, long sequence);

  /** A message that matched and its score. */
  record Match(String sessionId, long sequence, double score) {}

  /**
   * What a search may be limited to: one session (empty: all the owner's), a time range of the
   * message time ({@code from} inclusive, {@code to} exclusive; null: open), roles (empty: all).
   */
  record Filter(String sessionId, Instant from, Instant to, Set<MessageRole> roles) {
    public static final Filter NONE = new Filter("", null, null, Set.of());

    public Filter {
      roles = Set.copyOf(roles);
    }
  }

  /**
   * One page of the owner's sessions, most recently updated first, after the cursor of the previous
   * page (null: the first page); {@code limit + 1} are read to say whether more follow.
   */
  List<SessionInfo> sessions(SessionKey.Owner owner, SessionCursor after, int limit);

  /** Where a listing of sessions stopped: the last session's update time and id. */
  record SessionCursor(Instant updateTime, String sessionId) {}

  /**
   * Keeps the vectors of messages (made by {@code embedder}); a message that has one of that
   * embedder keeps it.
   */
  void putVectors(String embedder, List<MessageVector> vectors);

  /**
   * The owner's vectors of {@code embedder} added after {@code afterVectorSequence}, in the order
   * they were added, at most {@code limit}.
   */
  List<MessageVector> vectors(
      SessionKey.Owner owner, String embedder, long afterVectorSequence, int limit);

  /**
   * A number that changes whenever messages of the owner are deleted (a cache of its vectors must
   * then be read again; added vectors are read with {@link #vectors}).
   */
  long generation(SessionKey.Owner owner);

  /** Visible messages that have no vector of {@code embedder}, at most {@code limit}. */
  List<Keyed> unembedded(String embedder, int limit);

  /**
   * The vector of one message, with what a search filters and ranks on.
   *
   * @param vectorSequence assigned when it is kept, increasing (0 in {@link #putVectors})
   */
  record MessageVector(
      long vectorSequence,
      SessionKey key,
      long sequence,
      Instant time,
      MessageRole role,
      String name,
      float[] vector) {}

  /** A message and its session. */
  record Keyed(SessionKey key, SessionMessage message) {}

  /** Deletes the session and its messages; returns how many messages, or -1 if it did not exist. */
  long delete(SessionKey key);

  /**
   * Deletes the messages of every session whose time is before {@code cutoff}; returns how many.
   */
  long deleteMessagesBefore(Instant cutoff);
}
