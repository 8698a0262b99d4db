package dev.memsidecar.core.sessions;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.core.CallActivity;
import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;

/**
 * The postings of appended messages, written behind the append: an append commits its messages
 * (durable, and marked unindexed in the store), hands their index terms here and returns; one
 * worker writes them to the store's index in batches, taking from the request what is most of a
 * session append's cost (a page of the term index per distinct term). Until a message's postings
 * are written, this process's searches count them from memory ({@link #unwritten}), so a message is
 * found the moment its append returns. Other processes on one database find it once it is written
 * (in the next pause between this process's calls, at most {@link CallActivity#MAX_WAIT_MILLIS} ms
 * later). Messages a crash left unindexed are written from the store when the service starts,
 * before it answers, and every {@link #RECOVER_EVERY} those another process left for {@link
 * #RECOVER_AFTER} (it died): each message's postings are written once whoever writes them ({@link
 * SessionStore#index}). Thread-safe.
 */
final class SessionPostings implements AutoCloseable {
  /** Messages written per transaction, at most. */
  static final int BATCH = 256;

  /** How often messages left unindexed by another process are looked for. */
  static final Duration RECOVER_EVERY = Duration.ofSeconds(60);

  /** How long a message is left unindexed before another process than its appender writes it. */
  static final Duration RECOVER_AFTER = Duration.ofSeconds(30);

  /** After a failed write, how long before the worker tries again. */
  private static final Duration RETRY_AFTER = Duration.ofSeconds(1);

  private static final System.Logger LOG = System.getLogger(SessionPostings.class.getName());

  private final SessionStore store;
  private final BiFunction<SessionMessage, SessionMessage, SessionStore.IndexTerms> terms;
  private final Clock clock;
  private final CallActivity calls;
  private final ScheduledExecutorService worker;
  private final ConcurrentLinkedQueue<SessionStore.Unindexed> queue = new ConcurrentLinkedQueue<>();
  private final Map<SessionKey.Owner, Map<Ref, SessionStore.Unindexed>> unwritten =
      new ConcurrentHashMap<>();

  /** One message of one session. */
  private record Ref(SessionKey key, long sequence) {
    static Ref of(SessionStore.Unindexed u) {
      return new Ref(u.key(), u.sequence());
    }
  }

  /**
   * @param terms the index terms of a message (the second argument) given the visible message
   *     before it in its session (the first, null when none), for messages written from the store
   * @param calls the server's calls, which the worker writes in the pauses between
   */
  SessionPostings(
      SessionStore store,
      BiFunction<SessionMessage, SessionMessage, SessionStore.IndexTerms> terms,
      Clock clock,
      CallActivity calls) {
    this.store = requireNonNull(store, "store is null");
    this.terms = requireNonNull(terms, "terms is null");
    this.clock = requireNonNull(clock, "clock is null");
    this.calls = requireNonNull(calls, "calls is null");
    ScheduledThreadPoolExecutor w =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, "session-indexer");
              t.setDaemon(true);
              return t;
            });
    w.setContinueExistingPeriodicTasksAfterShutdownPolicy(false);
    w.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    worker = w;
    // Before the first search: what was acknowledged before a crash is found by its words at once.
    recover(Instant.MAX);
    worker.scheduleWithFixedDelay(
        () -> recover(clock.instant().minus(RECOVER_AFTER)),
        RECOVER_EVERY.toMillis(),
        RECOVER_EVERY.toMillis(),
        TimeUnit.MILLISECONDS);
  }

  /** Writes the postings of messages just appended behind the caller; searches count them now. */
  void indexLater(List<SessionStore.Unindexed> messages) {
    if (messages.isEmpty()) {
      return;
    }
    for (SessionStore.Unindexed u : messages) {
      // Atomic with the removal of an owner's last one (written), which drops the owner's map.
      unwritten.compute(
          u.key().owner(),
          (o, m) -> {
            Map<Ref, SessionStore.Unindexed> mine = m == null ? new ConcurrentHashMap<>() : m;
            mine.put(Ref.of(u), u);
            return mine;
          });
      queue.add(u);
    }
    worker.execute(this::flush);
  }

  /** The owner's messages whose postings are not written yet (by this process). */
  Collection<SessionStore.Unindexed> unwritten(SessionKey.Owner owner) {
    Map<Ref, SessionStore.Unindexed> m = unwritten.get(owner);
    return m == null || m.isEmpty() ? List.of() : List.copyOf(m.values());
  }

  /** Messages whose postings this process has not written yet. */
  long pending() {
    return unwritten.values().stream().mapToLong(Map::size).sum();
  }

  /**
   * Writes what is queued, in batches, each in a pause between calls (waiting at most {@link
   * CallActivity#MAX_WAIT_MILLIS} ms for one: what was appended meanwhile goes in the same
   * transaction); on a failure keeps it queued and tries again later.
   */
  private void flush() {
    List<SessionStore.Unindexed> batch = new ArrayList<>();
    while (!queue.isEmpty()) {
      calls.awaitPause();
      batch.clear();
      for (SessionStore.Unindexed u; batch.size() < BATCH && (u = queue.peek()) != null; ) {
        batch.add(u);
        queue.poll();
      }
      if (batch.isEmpty()) {
        return;
      }
      try {
        store.index(batch);
      } catch (RuntimeException e) {
        LOG.log(
            Level.WARNING,
            "sessions: cannot write the postings of "
                + batch.size()
                + " messages; this process finds them meanwhile, and tries again in "
                + RETRY_AFTER.toMillis()
                + " ms",
            e);
        queue.addAll(batch); // in any order: each message is claimed on its own
        worker.schedule(this::flush, RETRY_AFTER.toMillis(), TimeUnit.MILLISECONDS);
        return;
      }
      written(batch);
    }
  }

  /** Forgets messages whose postings are written: searches read them from the store. */
  private void written(List<SessionStore.Unindexed> batch) {
    for (SessionStore.Unindexed u : batch) {
      unwritten.computeIfPresent(
          u.key().owner(),
          (o, m) -> {
            m.remove(Ref.of(u));
            return m.isEmpty() ? null : m;
          });
    }
  }

  /**
   * Writes the postings of the messages appended before {@code appendedBefore} and left unindexed
   * (by a crash, or by another process), reading them from the store.
   */
  private void recover(Instant appendedBefore) {
    long written = 0;
    try {
      for (List<SessionStore.Keyed> page;
          !(page = store.unindexed(appendedBefore, BATCH)).isEmpty(); ) {
        List<SessionStore.Unindexed> batch = new ArrayList<>(page.size());
        for (SessionStore.Keyed k : page) {
          SessionMessage m = k.message();
          List<SessionMessage> before = store.history(k.key(), m.sequence(), null, 1);
          batch.add(
              new SessionStore.Unindexed(
                  k.key(),
                  m.sequence(),
                  m.time(),
                  m.role(),
                  terms.apply(before.isEmpty() ? null : before.get(0), m)));
        }
        store.index(batch);
        written(batch);
        written += batch.size();
      }
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "sessions: cannot write the postings of unindexed messages", e);
    }
    if (written > 0) {
      long n = written;
      LOG.log(
          Level.INFO,
          () -> "sessions: wrote the postings of " + n + " messages left unindexed before");
    }
  }

  /** Writes what is queued (a shutdown waits up to 10 s), then stops the worker. */
  @Override
  public void close() {
    worker.execute(this::flush);
    worker.shutdown();
    try {
      if (!worker.awaitTermination(10, TimeUnit.SECONDS)) {
        worker.shutdownNow();
      }
    } catch (InterruptedException e) {
      worker.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }
}
