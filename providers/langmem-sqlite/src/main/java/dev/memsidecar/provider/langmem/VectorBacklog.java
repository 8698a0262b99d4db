package dev.memsidecar.provider.langmem;

import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.api.PendingVectors;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * The ACTIVE records whose vector is still to be made: written and searchable by their words, not
 * yet by their meaning. {@link LangMemSqliteStore} adds a record here when a put committed it
 * without a vector, and its vector worker {@linkplain #take takes} them in batches, embeds them and
 * writes the vectors; a later put or delete of the record clears it. At most {@code capacity}
 * records wait: a put {@linkplain #reserve reserves} room first and waits (bounded) while the
 * backlog is full, so a model slower than the writes slows the writers instead of growing memory.
 *
 * <p>Each waiting record is the version whose vector is due: a vector made for an older version
 * ({@link #isDue} false) is dropped. Thread-safe; every method takes one short lock.
 */
final class VectorBacklog {
  /** A record by namespace and id. */
  record Key(Namespace namespace, String id) {}

  private final int capacity;
  private final Semaphore room;
  // Guarded by this.
  private final Map<Key, MemoryRecord> due = new HashMap<>();
  // When each waiting record started to wait (System.nanoTime), kept across its newer versions;
  // the keys of due, in the order they started (so the first waited longest).
  private final Map<Key, Long> since = new LinkedHashMap<>();
  private final ArrayDeque<Key> order = new ArrayDeque<>();
  private int overdraft;
  private boolean closed;
  // Indexes loading now, and what landed meanwhile (see loadStarted).
  private int loading;
  private final Map<Key, MemoryRecord> landedWhileLoading = new HashMap<>();

  VectorBacklog(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be at least 1: " + capacity);
    }
    this.capacity = capacity;
    this.room = new Semaphore(capacity);
  }

  /**
   * Takes room for one record before a put that will {@link #add} it; waits up to {@code
   * timeoutMillis} for room.
   *
   * @throws MemoryException UNAVAILABLE when there was no room in time, or on interrupt
   */
  void reserve(long timeoutMillis, String store) {
    try {
      if (room.tryAcquire(timeoutMillis, TimeUnit.MILLISECONDS)) {
        return;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    throw MemoryException.unavailable(
        store
            + ": "
            + capacity
            + " records wait for their vectors (the embedder is slower than the writes);"
            + " try again later",
        null);
  }

  /** Gives back room {@link #reserve} took for a put that added nothing (it failed). */
  void unreserve() {
    room.release();
  }

  /**
   * {@code record}, just committed without a vector, is due for one; it replaces an older version
   * waiting, whose room it gives back. Uses the room the put reserved.
   */
  synchronized void add(MemoryRecord record) {
    Key key = new Key(record.namespace(), record.id());
    if (due.put(key, record) != null) {
      giveBack();
    }
    since.putIfAbsent(key, System.nanoTime());
    // Also when an older version waits: that one may be in a batch already, whose vector the
    // store then drops; this version is taken again.
    order.add(key);
    notifyAll();
  }

  /**
   * Adds a record found without a vector (when the store opens, or as an index loads), beyond the
   * capacity if need be (it is already written; the room is taken back as its vector lands);
   * nothing when it waits already.
   */
  synchronized void recover(MemoryRecord record) {
    Key key = new Key(record.namespace(), record.id());
    if (landedWhileLoading.containsKey(key)) {
      MemoryRecord landed = landedWhileLoading.get(key);
      if (landed == null || !landed.updateTime().isBefore(record.updateTime())) {
        return; // a load read it just before its vector landed (or it was deleted)
      }
    }
    if (due.putIfAbsent(key, record) != null) {
      return;
    }
    since.put(key, System.nanoTime());
    if (!room.tryAcquire()) {
      overdraft++;
    }
    order.add(key);
    notifyAll();
  }

  /**
   * An index starts to load: it reads the records of its namespace and {@link #recover recovers}
   * those without a vector. A record it read just before the record's vector landed must not be
   * made due again (its vector would be made twice): until every load that started has {@linkplain
   * #loadEnded ended}, what {@link #clear} clears is remembered, and recover leaves it alone.
   */
  synchronized void loadStarted() {
    loading++;
  }

  /** A load that {@link #loadStarted} ended, whether or not it succeeded. */
  synchronized void loadEnded() {
    if (--loading == 0) {
      landedWhileLoading.clear();
    }
  }

  /**
   * The record no longer waits (a vector landed, or a later write made it moot): {@code version} is
   * the version written, null for a delete.
   */
  synchronized void clear(Namespace namespace, String id, MemoryRecord version) {
    Key key = new Key(namespace, id);
    if (loading > 0) {
      landedWhileLoading.put(key, version);
    }
    if (due.remove(key) != null) {
      since.remove(key);
      giveBack();
      notifyAll();
    }
  }

  /**
   * {@code version}'s vector was not written: its record changed in the database after the worker
   * took it. A change this store made has already replaced it here (then nothing changes); one
   * another store made (a sidecar on the same database updated, superseded or deleted the record)
   * leaves it here, no longer taken by the worker, until this clears it. Its vector is moot: the
   * store that changed the record makes the vector of what it wrote.
   */
  synchronized void clearIfDue(MemoryRecord version) {
    if (isDue(version)) {
      clear(version.namespace(), version.id(), version);
    }
  }

  /** Returns one record's room, first repaying what recovery took beyond the capacity. */
  private void giveBack() {
    if (overdraft > 0) {
      overdraft--;
    } else {
      room.release();
    }
  }

  /** Whether {@code record} is the version of its record whose vector is due. */
  synchronized boolean isDue(MemoryRecord record) {
    return due.get(new Key(record.namespace(), record.id())) == record;
  }

  /** Whether the record waits for its vector. */
  synchronized boolean waits(Namespace namespace, String id) {
    return due.containsKey(new Key(namespace, id));
  }

  /** How many records wait. */
  synchronized int size() {
    return due.size();
  }

  /** How many records wait, and how long the one waiting longest has waited. */
  synchronized PendingVectors pending() {
    long now = System.nanoTime();
    long oldest = since.isEmpty() ? now : since.values().iterator().next();
    return new PendingVectors(due.size(), Duration.ofNanos(now - oldest));
  }

  /**
   * Up to {@code max} waiting records, oldest first, waiting for one when there is none; empty only
   * once {@link #close}d. They keep waiting (and are taken again) until {@link #clear}ed.
   */
  synchronized List<MemoryRecord> take(int max) throws InterruptedException {
    List<MemoryRecord> out = new ArrayList<>();
    Set<Key> taken = new HashSet<>();
    while (out.isEmpty()) {
      if (order.isEmpty()) {
        if (closed) {
          return out;
        }
        wait();
      }
      // The line may hold only keys no longer due (a record recovered by a load and then added by
      // its put is in line twice): then this waits again rather than returning nothing.
      while (out.size() < max && !order.isEmpty()) {
        Key key = order.poll();
        MemoryRecord r = due.get(key);
        if (r != null && taken.add(key)) {
          out.add(r);
        }
      }
    }
    return out;
  }

  /** Puts records a failed batch took back at the head of the line, to be taken again. */
  synchronized void retry(List<MemoryRecord> records) {
    for (int i = records.size() - 1; i >= 0; i--) {
      MemoryRecord r = records.get(i);
      if (isDue(r)) {
        order.addFirst(new Key(r.namespace(), r.id()));
      }
    }
    notifyAll();
  }

  /**
   * Waits until none of the records of {@code namespace} (null: of every namespace) waiting now
   * still waits, or {@code timeoutMillis} passed; returns whether they all landed. Returns false at
   * once when more than {@code atMost} of them wait.
   */
  synchronized boolean awaitNamespace(Namespace namespace, long timeoutMillis, int atMost)
      throws InterruptedException {
    List<Map.Entry<Key, MemoryRecord>> waiting = new ArrayList<>();
    for (Map.Entry<Key, MemoryRecord> e : due.entrySet()) {
      if (namespace == null || e.getKey().namespace().equals(namespace)) {
        if (waiting.size() == atMost) {
          // Behind a bulk load: thousands may wait, and a search would copy them all to give up.
          return false;
        }
        waiting.add(Map.entry(e.getKey(), e.getValue()));
      }
    }
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    for (Map.Entry<Key, MemoryRecord> w : waiting) {
      while (due.get(w.getKey()) == w.getValue()) {
        long left = deadline - System.nanoTime();
        if (left <= 0 || closed) {
          return false;
        }
        TimeUnit.NANOSECONDS.timedWait(this, left);
      }
    }
    return true;
  }

  /** Wakes every waiter; {@link #take} returns empty from now on. */
  synchronized void close() {
    closed = true;
    notifyAll();
  }
}
