package dev.memsidecar.core.sessions;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.Embedder;
import dev.memsidecar.api.Ids;
import dev.memsidecar.api.MemoryException;
import dev.memsidecar.core.CallActivity;
import dev.memsidecar.core.Limits;
import dev.memsidecar.core.NamespaceResolver;
import dev.memsidecar.core.PageTokens;
import dev.memsidecar.core.RequestOptions;
import dev.memsidecar.core.Scope;
import dev.memsidecar.core.config.SessionConfig;
import dev.memsidecar.language.Languages;
import dev.memsidecar.language.Terms;
import dev.memsidecar.language.extraction.NamedPeriod;
import dev.memsidecar.toolkit.HybridIndex;
import dev.memsidecar.toolkit.HybridScore;
import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Sessions: every message verbatim, durable when the call returns, searchable, never gated. Search
 * is hybrid, like recall of facts: BM25 over the words of the visible messages (English and Chinese
 * alike: {@link Terms}, stemmed) blended with the cosine of their vectors ({@link SessionVectors},
 * made behind the append) by {@link HybridScore}. The agent's history for a context builder ({@link
 * #history}), its {@code session_search} ({@link #search}), and the evidence BeginRun blends with
 * recalled facts. A session belongs to one user of one workspace ({@link SessionKey}); nothing here
 * reads across owners. Appends and deletes answer to the request alone (a read-only request is
 * PERMISSION_DENIED), not to the memory flags: sessions are the sidecar's own record of what was
 * said. With a retention ({@link SessionConfig#retentionDays}) messages older than it are never
 * returned and are deleted within the hour. Thread-safe.
 */
public final class SessionService implements AutoCloseable {
  /** The session EndRun appends to when the scope names none. */
  public static final String DEFAULT_SESSION = "default";

  /** Messages one append may carry. */
  public static final int MAX_MESSAGES = 256;

  /** Sessions, and messages of one, an export reads at a time. */
  private static final int EXPORT_PAGE = 500;

  /** A message's content, UTF-8 bytes (EndRun's input and output bound). */
  public static final int MAX_CONTENT_BYTES = 256 * 1024;

  /** A tool call's arguments, UTF-8 bytes. */
  public static final int MAX_ARGUMENTS_BYTES = 64 * 1024;

  /** A speaker's display name, characters. */
  public static final int MAX_NAME_CHARS = 128;

  /** A tool name or call id in a message, characters. */
  public static final int MAX_TOOL_FIELD_CHARS = 256;

  /** Distinct index terms kept per message; a longer message is indexed by its first ones. */
  static final int MAX_TERMS_PER_MESSAGE = 4096;

  /** Index terms longer than this are not indexed (hashes, base64, URLs). */
  static final int MAX_TERM_CHARS = 64;

  /** A snippet's length, characters, around the first matched word. */
  static final int SNIPPET_CHARS = 240;

  /**
   * How long SearchSessions waits at most for the vectors of the owner's messages still to be made
   * (behind their append) before it ranks them by their words alone.
   */
  static final Duration VECTORS_WAIT = Duration.ofSeconds(1);

  private static final System.Logger LOG = System.getLogger(SessionService.class.getName());
  private static final Duration PURGE_EVERY = Duration.ofHours(1);
  private static final DateTimeFormatter MONTH_YEAR =
      DateTimeFormatter.ofPattern("MMMM yyyy", Locale.ENGLISH);

  private final SessionStore store;
  private final SessionVectors vectors;
  private final SessionPostings postings;
  private final Clock clock;
  private final SessionConfig config;
  private final ScheduledExecutorService purger;

  /** Candidates each side of the hybrid search (words, meaning) brings before the blend. */
  static final int CANDIDATES = 200;

  /**
   * What a query naming the day or month a message was said in ({@link NamedPeriod}: "on October
   * 13, 2023", "in July 2023") adds to the message's hybrid score (clamped to 1).
   */
  static final double PERIOD_WEIGHT = 0.1;

  /** A service used in-process, without a server: its work behind yields to no call. */
  public SessionService(SessionStore store, Embedder embedder, Clock clock, SessionConfig config) {
    this(store, embedder, clock, config, new CallActivity());
  }

  /**
   * @param calls the server's calls: the postings of appended messages are written in the pauses
   *     between them
   */
  public SessionService(
      SessionStore store,
      Embedder embedder,
      Clock clock,
      SessionConfig config,
      CallActivity calls) {
    this.store = requireNonNull(store, "store is null");
    this.vectors = new SessionVectors(store, embedder);
    this.clock = requireNonNull(clock, "clock is null");
    this.postings = new SessionPostings(store, SessionService::indexTerms, clock, calls);
    this.config = requireNonNull(config, "config is null");
    if (config.retentionDays() > 0) {
      purger =
          Executors.newSingleThreadScheduledExecutor(
              r -> {
                Thread t = new Thread(r, "session-retention");
                t.setDaemon(true);
                return t;
              });
      purger.scheduleWithFixedDelay(
          this::purgeQuietly, 1, PURGE_EVERY.toMinutes(), TimeUnit.MINUTES);
    } else {
      purger = null;
    }
  }

  public SessionConfig config() {
    return config;
  }

  // ---------------------------------------------------------------- writes

  /**
   * Appends messages to {@code scope.session_id}: checked, then stored in one transaction, durable
   * when this returns. PERMISSION_DENIED for a read-only request.
   */
  public List<SessionMessage> append(
      Scope scope, List<SessionMessage> messages, RequestOptions options) {
    return store(checkAppend(scope, messages, options), scope.agentId(), messages);
  }

  /** What {@link #append} checks before it writes; returns the session appended to. */
  public SessionKey checkAppend(
      Scope scope, List<SessionMessage> messages, RequestOptions options) {
    SessionKey key = session(scope);
    if (options.readOnly()) {
      throw MemoryException.permissionDenied(
          "the request is read-only (metadata."
              + RequestOptions.MEMORY_WRITE
              + " = \"false\"); AppendMessages writes");
    }
    if (messages.isEmpty()) {
      throw MemoryException.invalidArgument(
          "messages", "messages is required (1.." + MAX_MESSAGES + ")");
    }
    Limits.checkCount("messages", messages.size(), MAX_MESSAGES);
    for (int i = 0; i < messages.size(); i++) {
      check("messages[" + i + "]", messages.get(i));
    }
    return key;
  }

  /**
   * Appends a run's messages (EndRun: the input, the tool calls, the output) to the scope's
   * session, or {@link #DEFAULT_SESSION}; the caller has checked them and decided that the run
   * writes.
   */
  public List<SessionMessage> appendRun(Scope scope, List<SessionMessage> messages) {
    NamespaceResolver.requireIds(scope);
    SessionKey key =
        new SessionKey(
            scope.workspaceId(),
            scope.userId(),
            scope.sessionId().isEmpty() ? DEFAULT_SESSION : scope.sessionId());
    return messages.isEmpty() ? List.of() : store(key, scope.agentId(), messages);
  }

  /**
   * Stores messages with their index terms: each visible one's own and, as its context, those of
   * the visible message before it in the session (the question a reply answers: "What are they
   * for?" gives "These are for running" the words a later search for it uses). Two appends racing
   * on one session may each take the other's last message for context, or neither: a ranking
   * nuance, never a wrong result.
   */
  private List<SessionMessage> store(
      SessionKey key, String agentId, List<SessionMessage> messages) {
    Instant now = clock.instant();
    List<SessionMessage> ready = new ArrayList<>(messages.size());
    List<SessionStore.IndexTerms> terms = new ArrayList<>(messages.size());
    SessionMessage before = lastVisible(key);
    Map<String, Integer> context = before == null ? Map.of() : termCounts(before);
    for (SessionMessage m : messages) {
      SessionMessage stored =
          m.stored(
              m.id().isEmpty() ? UUID.randomUUID().toString() : m.id(),
              key.sessionId(),
              0,
              m.time() == null ? now : m.time());
      ready.add(stored);
      if (stored.visible()) {
        Map<String, Integer> own = termCounts(stored);
        terms.add(new SessionStore.IndexTerms(own, withTimeTerms(context, stored.time())));
        context = own;
      } else {
        terms.add(SessionStore.IndexTerms.NONE);
      }
    }
    List<SessionMessage> stored = store.append(key, agentId, ready, terms, now);
    List<SessionStore.Unindexed> unindexed = new ArrayList<>(stored.size());
    for (int i = 0; i < stored.size(); i++) {
      SessionMessage m = stored.get(i);
      if (m.visible()) {
        unindexed.add(
            new SessionStore.Unindexed(key, m.sequence(), m.time(), m.role(), terms.get(i)));
      }
    }
    postings.indexLater(unindexed);
    vectors.embedLater(key, before, stored);
    return stored;
  }

  /**
   * A visible message's index terms: its own, and as its context those of {@code previous} (the
   * visible message before it in its session, or null) and its time's.
   */
  private static SessionStore.IndexTerms indexTerms(SessionMessage previous, SessionMessage m) {
    return new SessionStore.IndexTerms(
        termCounts(m), withTimeTerms(previous == null ? Map.of() : termCounts(previous), m.time()));
  }

  /** The session's newest visible message still kept, or null. */
  private SessionMessage lastVisible(SessionKey key) {
    List<SessionMessage> last = store.history(key, Long.MAX_VALUE, cutoff(), 1);
    return last.isEmpty() ? null : last.get(0);
  }

  /**
   * Messages appended whose postings are not written yet (searches here find them all the same).
   */
  public long postingsPending() {
    return postings.pending();
  }

  /** Messages appended whose vectors are not made yet. */
  public long vectorsPending() {
    return vectors.pending();
  }

  /**
   * Deletes {@code scope.session_id} and all its messages; returns how many. NOT_FOUND when it does
   * not exist; PERMISSION_DENIED for a read-only request.
   */
  public long delete(Scope scope, RequestOptions options) {
    SessionKey key = session(scope);
    if (options.readOnly()) {
      throw MemoryException.permissionDenied(
          "the request is read-only (metadata."
              + RequestOptions.MEMORY_WRITE
              + " = \"false\"); DeleteSession writes");
    }
    long deleted = store.delete(key);
    if (deleted < 0) {
      throw MemoryException.notFound("no session " + Ids.quote(key.sessionId()) + " in this scope");
    }
    return deleted;
  }

  /** Deletes the messages past the retention now; returns how many (0 without a retention). */
  public long purgeExpired() {
    Instant cutoff = cutoff();
    return cutoff == null ? 0 : store.deleteMessagesBefore(cutoff);
  }

  private void purgeQuietly() {
    try {
      long n = purgeExpired();
      if (n > 0) {
        LOG.log(Level.INFO, () -> "sessions: deleted " + n + " messages past the retention");
      }
    } catch (RuntimeException e) {
      LOG.log(
          Level.WARNING, "sessions: the retention pass failed; it runs again within the hour", e);
    }
  }

  // ---------------------------------------------------------------- reads

  /** One page of history: the newest visible messages before the page token's, oldest first. */
  public Page<SessionMessage> history(Scope scope, int pageSize, String pageToken) {
    SessionKey key = session(scope);
    int size = Limits.pageSize(pageSize);
    String requestKey = "history\n" + key;
    String cursor = PageTokens.decode(requestKey, pageToken);
    long before = cursor == null ? Long.MAX_VALUE : parseLong(cursor);
    List<SessionMessage> newestFirst = store.history(key, before, cutoff(), size + 1);
    boolean more = newestFirst.size() > size;
    List<SessionMessage> page =
        new ArrayList<>(newestFirst.subList(0, Math.min(size, newestFirst.size())));
    Collections.reverse(page);
    String next = more && !page.isEmpty() ? String.valueOf(page.get(0).sequence()) : null;
    return new Page<>(page, PageTokens.encode(requestKey, next));
  }

  /**
   * Every message of the user's sessions, hidden ones too (an export): session by session, most
   * recently updated first, oldest message first within one; what retention expired is left out.
   */
  public void export(Scope scope, Consumer<SessionMessage> out) {
    SessionKey.Owner owner = owner(scope);
    Instant cutoff = cutoff();
    SessionStore.SessionCursor after = null;
    List<SessionInfo> page;
    do {
      page = store.sessions(owner, after, EXPORT_PAGE);
      for (SessionInfo info : page) {
        SessionKey key = owner.session(info.sessionId());
        List<SessionMessage> batch;
        long sequence = 0;
        do {
          batch = store.messages(key, sequence, EXPORT_PAGE);
          for (SessionMessage m : batch) {
            if (cutoff == null || !m.time().isBefore(cutoff)) {
              out.accept(m);
            }
            sequence = m.sequence();
          }
        } while (batch.size() == EXPORT_PAGE);
      }
      if (!page.isEmpty()) {
        SessionInfo last = page.get(page.size() - 1);
        after = new SessionStore.SessionCursor(last.updateTime(), last.sessionId());
      }
    } while (page.size() == EXPORT_PAGE);
  }

  /** One page of the user's sessions, most recently updated first. */
  public Page<SessionInfo> list(Scope scope, int pageSize, String pageToken) {
    SessionKey.Owner owner = owner(scope);
    int size = Limits.pageSize(pageSize);
    String requestKey = "sessions\n" + owner;
    String cursor = PageTokens.decode(requestKey, pageToken);
    SessionStore.SessionCursor after = null;
    if (cursor != null) {
      int nl = cursor.indexOf('\n');
      after =
          new SessionStore.SessionCursor(
              Instant.ofEpochSecond(0, parseLong(cursor.substring(0, nl))),
              cursor.substring(nl + 1));
    }
    List<SessionInfo> found = store.sessions(owner, after, size + 1);
    boolean more = found.size() > size;
    List<SessionInfo> page = found.subList(0, Math.min(size, found.size()));
    String next = null;
    if (more) {
      SessionInfo last = page.get(page.size() - 1);
      Instant t = last.updateTime();
      next = (t.getEpochSecond() * 1_000_000_000L + t.getNano()) + "\n" + last.sessionId();
    }
    return new Page<>(List.copyOf(page), PageTokens.encode(requestKey, next));
  }

  /** A page of results and the token of the next (empty on the last). */
  public record Page<T>(List<T> items, String nextPageToken) {}

  /** What a search asks: the query and the {@link SessionStore.Filter}. */
  public record Query(String query, SessionStore.Filter filter, int topK) {}

  /**
   * The agent's {@code session_search}: the visible messages of the user's sessions (or of the
   * filter's one session) that best match the query, best first, each with a snippet.
   */
  public List<SessionHit> search(Scope scope, Query q) {
    SessionKey.Owner owner = owner(scope);
    if (q.query().isBlank()) {
      throw MemoryException.invalidArgument("query", "query is required");
    }
    Limits.checkBytes("query", q.query(), Limits.MAX_QUERY_BYTES);
    int topK = Limits.topK(q.topK());
    SessionStore.Filter f = q.filter();
    if (!f.sessionId().isEmpty()) {
      Ids.require("session_id", f.sessionId());
    }
    if (f.from() != null && f.to() != null && !f.from().isBefore(f.to())) {
      throw MemoryException.invalidArgument(
          "end_time", "end_time must be after start_time: " + f.from() + " .. " + f.to());
    }
    return search(owner, q.query(), f, topK, false, true);
  }

  /**
   * Evidence for BeginRun: the user's visible messages that best match {@code input}, at most
   * {@code limit}, with snippets; none when the scope has no workspace or the input no words.
   */
  public List<SessionHit> evidence(Scope scope, String input, int limit) {
    return search(
        new SessionKey.Owner(scope.workspaceId(), scope.userId()),
        input,
        SessionStore.Filter.NONE,
        limit,
        true,
        false);
  }

  /**
   * The hybrid search: the BM25 matches of the query's words and the messages nearest its vector,
   * each scored by {@link HybridScore} (the formula and weights recalled facts are scored with, so
   * BeginRun ranks facts and messages on one scale), best first; ties go to the newer message. A
   * query that names a day or a month ({@link NamedPeriod}) brings the messages said then (with a
   * vector; the nearest {@value #CANDIDATES}) as candidates too, and adds {@value #PERIOD_WEIGHT}
   * to their score: "what did we decide on March 3, 2024?" leans to what was said that day.
   *
   * @param replies whether each hit carries the messages around it ({@link SessionHit#replyTo},
   *     {@link SessionHit#answeredBy}), read with it in one query
   * @param awaitVectors whether to wait, at most {@link #VECTORS_WAIT}, for the vectors of the
   *     owner's messages still to be made: a message whose vector is not made yet is ranked by its
   *     words alone, on a scale other than the rest's, so a message just appended would otherwise
   *     rank by its words above one whose meaning matches better
   */
  private List<SessionHit> search(
      SessionKey.Owner owner,
      String query,
      SessionStore.Filter filter,
      int limit,
      boolean replies,
      boolean awaitVectors) {
    Set<String> terms = new LinkedHashSet<>(indexTerms(query));
    boolean hasWords = !terms.isEmpty();
    if (limit <= 0) {
      return List.of();
    }
    Instant cutoff = cutoff();
    if (cutoff != null && (filter.from() == null || filter.from().isBefore(cutoff))) {
      filter = new SessionStore.Filter(filter.sessionId(), cutoff, filter.to(), filter.roles());
    }
    // Words first: meanwhile the query's vector may be in the making (BeginRun starts it early).
    List<SessionStore.Match> matches =
        hasWords
            ? store.bm25(owner, terms, filter, CANDIDATES, postings.unwritten(owner))
            : List.of();
    float[] qv = vectors.embedder().embed(cut(query));
    boolean hasVector = !HybridIndex.isZero(qv);
    if (hasVector && awaitVectors) {
      vectors.awaitOwner(owner, VECTORS_WAIT);
    }
    if (!hasVector && !hasWords) {
      return List.of();
    }
    // key -> {cosine, bm25, 1 if it has a vector}: one whose vector is not made yet is scored by
    // its words alone (a cosine of 0 would rank what was just said below everything said before).
    Map<String, double[]> scored = new HashMap<>();
    Map<String, SessionKey> keys = new HashMap<>();
    double best = 0;
    for (SessionStore.Match m : matches) {
      String k = m.sessionId() + "\n" + m.sequence();
      scored.computeIfAbsent(k, x -> new double[3])[1] = m.score();
      keys.put(k, owner.session(m.sessionId()));
      best = Math.max(best, m.score());
    }
    List<String> words = Terms.keywords(query);
    Set<String> queryWords = new HashSet<>(words);
    Map<String, String> names = new HashMap<>();
    // The day or month the query names, in the sidecar's zone (as the months of messages are).
    NamedPeriod period = NamedPeriod.in(query).orElse(null);
    ZoneId zone = ZoneId.systemDefault();
    Instant thenFrom = period == null ? null : period.from().atStartOfDay(zone).toInstant();
    Instant thenUntil = period == null ? null : period.until().atStartOfDay(zone).toInstant();
    Set<String> saidThen = new HashSet<>();
    if (hasVector) {
      List<Map.Entry<String, Double>> nearest = new ArrayList<>();
      List<Map.Entry<String, Double>> dated = new ArrayList<>();
      for (SessionStore.MessageVector v : vectors.of(owner)) {
        if (!passes(v, filter) || v.vector().length != qv.length) {
          continue;
        }
        String k = v.key().sessionId() + "\n" + v.sequence();
        double cos = Math.max(0, Embedder.cosine(qv, v.vector()));
        names.put(k, v.name());
        if (period != null && !v.time().isBefore(thenFrom) && v.time().isBefore(thenUntil)) {
          saidThen.add(k);
        }
        double[] s = scored.get(k);
        if (s != null) {
          s[0] = cos;
          s[2] = 1;
        } else {
          (saidThen.contains(k) ? dated : nearest).add(Map.entry(k, cos));
          keys.put(k, v.key());
        }
      }
      // The nearest by meaning, and as many of those said in the period the query names.
      for (List<Map.Entry<String, Double>> side : List.of(nearest, dated)) {
        side.sort(Map.Entry.<String, Double>comparingByValue().reversed());
        for (Map.Entry<String, Double> e : side.subList(0, Math.min(CANDIDATES, side.size()))) {
          double[] s = scored.computeIfAbsent(e.getKey(), x -> new double[3]);
          s[0] = e.getValue();
          s[2] = 1;
        }
      }
    }
    double weight = HybridScore.meaningWeightFor(vectors.embedder().name());
    List<Map.Entry<String, Float>> ranked = new ArrayList<>(scored.size());
    for (Map.Entry<String, double[]> e : scored.entrySet()) {
      double[] s = e.getValue();
      String name = names.getOrDefault(e.getKey(), "").toLowerCase(Locale.ROOT);
      boolean speaker = !name.isEmpty() && queryWords.contains(name);
      boolean measured = hasVector && s[2] == 1;
      float score =
          HybridScore.of(
              weight, measured, hasWords, measured ? s[0] : 0, best > 0 ? s[1] / best : 0, speaker);
      if (saidThen.contains(e.getKey())) {
        score = (float) Math.min(1.0, score + PERIOD_WEIGHT);
      }
      ranked.add(Map.entry(e.getKey(), score));
    }
    ranked.sort(
        Map.Entry.<String, Float>comparingByValue()
            .reversed()
            .thenComparing(e -> -sequenceOf(e.getKey())));
    List<SessionHit> out = new ArrayList<>();
    for (Map.Entry<String, Float> e : ranked) {
      if (out.size() >= limit) {
        break;
      }
      SessionKey key = keys.get(e.getKey());
      long sequence = sequenceOf(e.getKey());
      SessionMessage m = null;
      SessionMessage before = null;
      SessionMessage after = null;
      if (replies) {
        // The message and the ones on either side of it, in one read.
        for (SessionMessage read : store.messages(key, sequence - 2, 3)) {
          if (read.sequence() == sequence) {
            m = read;
          } else if (read.sequence() == sequence - 1) {
            before = read;
          } else if (read.sequence() == sequence + 1) {
            after = read;
          }
        }
      } else {
        m = store.message(key, sequence);
      }
      if (m != null && m.visible()) {
        SessionMessage replyTo =
            before != null
                    && before.visible()
                    && bySomeoneElse(before, m)
                    && (cutoff == null || !before.time().isBefore(cutoff))
                ? before
                : null;
        SessionMessage answeredBy =
            after != null && after.visible() && bySomeoneElse(after, m) && asks(m) ? after : null;
        out.add(new SessionHit(m, e.getValue(), snippet(m.content(), words), replyTo, answeredBy));
      }
    }
    return out;
  }

  /** Whether a message asks something: a question mark among its last 20 characters. */
  private static boolean asks(SessionMessage m) {
    String c = m.content().strip();
    return c.indexOf('?', Math.max(0, c.length() - 20)) >= 0;
  }

  /** Whether two messages were said by different speakers: their names, or roles when unnamed. */
  private static boolean bySomeoneElse(SessionMessage a, SessionMessage b) {
    return a.name().isEmpty() && b.name().isEmpty()
        ? a.role() != b.role()
        : !a.name().equals(b.name());
  }

  private static long sequenceOf(String key) {
    return Long.parseLong(key.substring(key.lastIndexOf('\n') + 1));
  }

  /** Whether a message's vector row passes a filter (the store applies it to BM25 itself). */
  private static boolean passes(SessionStore.MessageVector v, SessionStore.Filter f) {
    return (f.sessionId().isEmpty() || f.sessionId().equals(v.key().sessionId()))
        && (f.from() == null || !v.time().isBefore(f.from()))
        && (f.to() == null || v.time().isBefore(f.to()))
        && (f.roles().isEmpty() || f.roles().contains(v.role()));
  }

  /** A query as the model reads it: at most {@link SessionVectors#MAX_TEXT_CHARS}. */
  private static String cut(String query) {
    return query.length() <= SessionVectors.MAX_TEXT_CHARS
        ? query
        : query.substring(0, SessionVectors.MAX_TEXT_CHARS);
  }

  // ---------------------------------------------------------------- text

  /** The index terms of a text: its keywords ({@link Terms#keywords}), stemmed. */
  static List<String> indexTerms(String text) {
    List<String> out = Terms.keywords(text);
    out.replaceAll(Languages::stem);
    out.removeIf(t -> t.length() > MAX_TERM_CHARS);
    return out;
  }

  /**
   * A message's context terms and the month and year it was said in ("September 2022", the
   * sidecar's time zone): a search that names a time finds what was said then, as the date a fact
   * carries in its text does.
   */
  static Map<String, Integer> withTimeTerms(Map<String, Integer> context, Instant time) {
    Map<String, Integer> out = new HashMap<>(context);
    for (String t : indexTerms(MONTH_YEAR.format(time.atZone(ZoneId.systemDefault())))) {
      out.merge(t, 1, Integer::sum);
    }
    return out;
  }

  /** How often each index term occurs in a message's name, content and tool call (or result). */
  static Map<String, Integer> termCounts(SessionMessage m) {
    Map<String, Integer> counts = new HashMap<>();
    List<String> texts = new ArrayList<>(List.of(m.name(), m.content()));
    if (m.toolCall() != null) {
      texts.add(m.toolCall().name());
      texts.add(m.toolCall().arguments());
    }
    if (m.toolResult() != null) {
      texts.add(m.toolResult().name());
    }
    for (String text : texts) {
      for (String t : indexTerms(text)) {
        if (counts.size() < MAX_TERMS_PER_MESSAGE || counts.containsKey(t)) {
          counts.merge(t, 1, Integer::sum);
        }
      }
    }
    return counts;
  }

  /**
   * The part of {@code content} around the first of the query's words it holds (matching the word
   * or its stem as a prefix, case-insensitive), about {@value #SNIPPET_CHARS} characters, cut at
   * spaces, with "…" where it was cut; the start of the content when no word is found.
   */
  static String snippet(String content, List<String> words) {
    String flat = content.strip().replaceAll("\\s+", " ");
    if (flat.length() <= SNIPPET_CHARS) {
      return flat;
    }
    String lower = flat.toLowerCase(Locale.ROOT);
    int at = -1;
    for (String w : words) {
      for (String form : List.of(w, Languages.stem(w))) {
        int i = lower.indexOf(form);
        if (i >= 0 && (at < 0 || i < at)) {
          at = i;
        }
      }
    }
    int from = Math.max(0, at < 0 ? 0 : at - SNIPPET_CHARS / 4);
    int to = Math.min(flat.length(), from + SNIPPET_CHARS);
    from = Math.max(0, Math.min(from, to - SNIPPET_CHARS));
    if (from > 0) {
      int space = flat.indexOf(' ', from);
      from = space < 0 || space - from > 20 ? from : space + 1;
    }
    if (to < flat.length()) {
      int space = flat.lastIndexOf(' ', to);
      to = space <= from || to - space > 20 ? to : space;
    }
    if (from > 0 && Character.isLowSurrogate(flat.charAt(from))) {
      from++;
    }
    if (to < flat.length() && Character.isLowSurrogate(flat.charAt(to))) {
      to--;
    }
    return (from > 0 ? "…" : "") + flat.substring(from, to) + (to < flat.length() ? "…" : "");
  }

  // ---------------------------------------------------------------- checks

  private static SessionKey session(Scope scope) {
    NamespaceResolver.requireIds(scope);
    if (scope.sessionId().isEmpty()) {
      throw MemoryException.invalidArgument("scope.session_id", "scope.session_id is required");
    }
    return new SessionKey(scope.workspaceId(), scope.userId(), scope.sessionId());
  }

  private static SessionKey.Owner owner(Scope scope) {
    NamespaceResolver.requireIds(scope);
    return new SessionKey.Owner(scope.workspaceId(), scope.userId());
  }

  /** INVALID_ARGUMENT or RESOURCE_EXHAUSTED naming the field of a message that is out of bounds. */
  private static void check(String field, SessionMessage m) {
    if (!m.id().isEmpty()) {
      Ids.require(field + ".id", m.id());
    }
    Limits.checkBytes(field + ".content", m.content(), MAX_CONTENT_BYTES);
    if (m.content().isBlank() && m.toolCall() == null && m.toolResult() == null) {
      throw MemoryException.invalidArgument(
          field + ".content", field + ".content is required (or a tool_call or a tool_result)");
    }
    chars(field + ".name", m.name(), MAX_NAME_CHARS);
    if (m.toolCall() != null) {
      chars(field + ".tool_call.name", m.toolCall().name(), MAX_TOOL_FIELD_CHARS);
      chars(field + ".tool_call.call_id", m.toolCall().callId(), MAX_TOOL_FIELD_CHARS);
      Limits.checkBytes(
          field + ".tool_call.arguments", m.toolCall().arguments(), MAX_ARGUMENTS_BYTES);
    }
    if (m.toolResult() != null) {
      chars(field + ".tool_result.name", m.toolResult().name(), MAX_TOOL_FIELD_CHARS);
      chars(field + ".tool_result.call_id", m.toolResult().callId(), MAX_TOOL_FIELD_CHARS);
      chars(
          field + ".tool_result.error_category",
          m.toolResult().errorCategory(),
          MAX_TOOL_FIELD_CHARS);
    }
    if (m.inputTokens() < 0 || m.outputTokens() < 0) {
      throw MemoryException.invalidArgument(
          field + ".usage", field + ".usage token counts must not be negative");
    }
    if (!m.snapshotId().isEmpty()) {
      chars(field + ".system_prompt_snapshot_id", m.snapshotId(), MAX_TOOL_FIELD_CHARS);
    }
    if (!m.runId().isEmpty()) {
      Ids.require(field + ".run_id", m.runId());
    }
    if (m.time() != null
        && (m.time().isBefore(Instant.parse("1677-09-22T00:00:00Z"))
            || m.time().isAfter(Instant.parse("2262-04-10T00:00:00Z")))) {
      throw MemoryException.invalidArgument(
          field + ".time", field + ".time must be between 1677-09-22 and 2262-04-10: " + m.time());
    }
    Limits.checkMetadata(m.metadata());
  }

  private static void chars(String field, String value, int max) {
    if (value.length() > max) {
      throw MemoryException.invalidArgument(
          field, field + " is over " + max + " characters: " + Ids.quote(value));
    }
  }

  private static long parseLong(String s) {
    try {
      return Long.parseLong(s);
    } catch (NumberFormatException e) {
      throw MemoryException.invalidArgument("page_token", "page_token is malformed");
    }
  }

  /** The oldest message time still kept, or null without a retention. */
  private Instant cutoff() {
    return config.retentionDays() > 0
        ? clock.instant().minus(Duration.ofDays(config.retentionDays()))
        : null;
  }

  @Override
  public void close() {
    if (purger != null) {
      purger.shutdownNow();
    }
    postings.close();
    vectors.close();
  }
}
