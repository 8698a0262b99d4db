package dev.memsidecar.core.sessions;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.Embedder;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The meaning side of session search: a vector per visible message, made behind the append (a
 * write-behind worker, so AppendMessages and EndRun do not wait for the model) and kept in the
 * store; and, per owner, the vectors in memory for a search to score every message against the
 * query's vector.
 *
 * <p>The cache of an owner reads what it has not read yet ({@link SessionStore#vectors} after its
 * last vector sequence) at every search, so vectors another process wrote are found too, and reads
 * everything again when the owner's {@link SessionStore#generation} says messages were deleted.
 * Messages appended before a crash, before their vectors were made, are found and embedded when the
 * service starts ({@link SessionStore#unembedded}). A message whose vector is not made yet is still
 * found by its words, and ranked by them alone; a session search first waits a little for the
 * vectors of its owner's messages still queued ({@link #awaitOwner}). Thread-safe.
 */
final class SessionVectors implements AutoCloseable {
  /** Owners whose vectors stay in memory, least recently searched first out. */
  static final int MAX_OWNERS = 256;

  /** Messages embedded per model call. */
  static final int BATCH = 16;

  /** The text of a message given to the model, characters. */
  static final int MAX_TEXT_CHARS = 2000;

  /** Of that text, the previous message's part at most, characters. */
  static final int MAX_CONTEXT_CHARS = MAX_TEXT_CHARS / 4;

  /** Vectors read from the store per query. */
  private static final int PAGE = 2000;

  private static final System.Logger LOG = System.getLogger(SessionVectors.class.getName());

  private final SessionStore store;
  private final Embedder embedder;
  private final ExecutorService worker;
  // Messages queued whose vectors are not made yet, by owner (no entry: none); notified on change.
  private final Map<SessionKey.Owner, Long> pendingByOwner = new HashMap<>();
  private final Map<SessionKey.Owner, Cached> cache =
      new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<SessionKey.Owner, Cached> eldest) {
          return size() > MAX_OWNERS;
        }
      };

  SessionVectors(SessionStore store, Embedder embedder) {
    this.store = requireNonNull(store, "store is null");
    this.embedder = requireNonNull(embedder, "embedder is null");
    this.worker =
        new ThreadPoolExecutor(
            1,
            1,
            0,
            TimeUnit.MILLISECONDS,
            new LinkedBlockingQueue<>(),
            r -> {
              Thread t = new Thread(r, "session-embedder");
              t.setDaemon(true);
              return t;
            });
    worker.execute(this::embedUnembedded);
  }

  Embedder embedder() {
    return embedder;
  }

  /**
   * Embeds the visible messages of an append behind it, each with the visible message before it
   * ({@code before} for the first: the session's last before the append, or null).
   */
  void embedLater(SessionKey key, SessionMessage before, List<SessionMessage> messages) {
    List<Pending> visible = new ArrayList<>();
    SessionMessage previous = before;
    for (SessionMessage m : messages) {
      if (m.visible()) {
        visible.add(new Pending(new SessionStore.Keyed(key, m), previous));
        previous = m;
      }
    }
    if (!visible.isEmpty()) {
      SessionKey.Owner owner = key.owner();
      addPending(owner, visible.size());
      worker.execute(
          () -> {
            try {
              embedQuietly(visible);
            } finally {
              addPending(owner, -visible.size());
            }
          });
    }
  }

  /** Messages queued whose vectors are not made yet. */
  long pending() {
    synchronized (pendingByOwner) {
      return pendingByOwner.values().stream().mapToLong(Long::longValue).sum();
    }
  }

  private void addPending(SessionKey.Owner owner, long n) {
    synchronized (pendingByOwner) {
      pendingByOwner.merge(owner, n, (a, b) -> a + b == 0 ? null : a + b);
      pendingByOwner.notifyAll();
    }
  }

  /**
   * Waits at most {@code maxWait} until the vectors of every message of {@code owner} queued so far
   * are made (or failed); returns whether they are. Returns at once, false, when interrupted, with
   * the interrupt flag kept.
   */
  boolean awaitOwner(SessionKey.Owner owner, Duration maxWait) {
    long deadline = System.nanoTime() + maxWait.toNanos();
    synchronized (pendingByOwner) {
      while (pendingByOwner.containsKey(owner)) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        try {
          TimeUnit.NANOSECONDS.timedWait(pendingByOwner, left);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return false;
        }
      }
      return true;
    }
  }

  /** A message to embed and the visible message before it in its session, or null. */
  private record Pending(SessionStore.Keyed keyed, SessionMessage previous) {}

  /** The messages left without a vector by a crash or by another embedder, in batches. */
  private void embedUnembedded() {
    try {
      for (List<SessionStore.Keyed> batch;
          !(batch = store.unembedded(embedder.name(), 256)).isEmpty(); ) {
        List<Pending> pending = new ArrayList<>(batch.size());
        for (SessionStore.Keyed k : batch) {
          List<SessionMessage> before = store.history(k.key(), k.message().sequence(), null, 1);
          pending.add(new Pending(k, before.isEmpty() ? null : before.get(0)));
        }
        embed(pending);
      }
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "sessions: cannot embed the messages that have no vector yet", e);
    }
  }

  private void embedQuietly(List<Pending> messages) {
    try {
      embed(messages);
    } catch (RuntimeException e) {
      LOG.log(
          Level.WARNING,
          "sessions: cannot embed "
              + messages.size()
              + " messages; they are found by their words, and embedded at the next start",
          e);
    }
  }

  private void embed(List<Pending> messages) {
    for (int from = 0; from < messages.size(); from += BATCH) {
      List<Pending> batch = messages.subList(from, Math.min(messages.size(), from + BATCH));
      List<float[]> vectors =
          embedder.embedAll(
              batch.stream().map(p -> text(p.previous(), p.keyed().message())).toList());
      List<SessionStore.MessageVector> out = new ArrayList<>(batch.size());
      for (int i = 0; i < batch.size(); i++) {
        SessionStore.Keyed k = batch.get(i).keyed();
        SessionMessage m = k.message();
        out.add(
            new SessionStore.MessageVector(
                0, k.key(), m.sequence(), m.time(), m.role(), m.name(), vectors.get(i)));
      }
      store.putVectors(embedder.name(), out);
    }
  }

  /**
   * What the model reads of a message: the end of the message before it (at most {@value
   * #MAX_CONTEXT_CHARS} characters; a reply means little without its question) on one line, then
   * "Name: content" and a tool call's name and arguments, at most {@value #MAX_TEXT_CHARS}
   * characters in all.
   *
   * @param previous the visible message before it in its session, or null
   */
  static String text(SessionMessage previous, SessionMessage m) {
    StringBuilder b = new StringBuilder();
    if (previous != null) {
      String p = line(previous).replaceAll("\\s+", " ").strip();
      b.append(p.length() <= MAX_CONTEXT_CHARS ? p : p.substring(p.length() - MAX_CONTEXT_CHARS))
          .append('\n');
    }
    b.append(line(m));
    return b.length() <= MAX_TEXT_CHARS ? b.toString() : b.substring(0, MAX_TEXT_CHARS);
  }

  /** "Name: content", and a tool call's name and arguments. */
  private static String line(SessionMessage m) {
    StringBuilder b = new StringBuilder();
    if (!m.name().isEmpty()) {
      b.append(m.name()).append(": ");
    }
    b.append(m.content());
    if (m.toolCall() != null) {
      b.append(' ').append(m.toolCall().name()).append(' ').append(m.toolCall().arguments());
    }
    return b.toString();
  }

  /** The owner's vectors, current with the store. */
  List<SessionStore.MessageVector> of(SessionKey.Owner owner) {
    Cached c;
    synchronized (cache) {
      c = cache.computeIfAbsent(owner, o -> new Cached());
    }
    synchronized (c) {
      long generation = store.generation(owner);
      if (generation != c.generation) {
        c.vectors = new ArrayList<>();
        c.last = 0;
        c.generation = generation;
      }
      for (List<SessionStore.MessageVector> page;
          !(page = store.vectors(owner, embedder.name(), c.last, PAGE)).isEmpty(); ) {
        c.vectors.addAll(page);
        c.last = page.get(page.size() - 1).vectorSequence();
        if (page.size() < PAGE) {
          break;
        }
      }
      return List.copyOf(c.vectors);
    }
  }

  private static final class Cached {
    long generation = Long.MIN_VALUE;
    long last;
    List<SessionStore.MessageVector> vectors = new ArrayList<>();
  }

  @Override
  public void close() {
    worker.shutdownNow();
  }
}
