package dev.memsidecar.provider.lucene;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.SearcherManager;

/**
 * What a {@link LuceneHnswStore} read must refresh so it sees every write acknowledged before it
 * started. A search or a listing refreshes the searchers (near real time, no commit) when they do
 * not show every write the log holds as durable; a point read (get, delete) only when a write to a
 * key sharing its slot (one of {@value #SLOTS}, by hash) may not be visible yet. Thread-safe:
 * readers that arrive while a refresh runs wait for it and do not refresh again if it covered them.
 */
final class Visibility {
  /** Slots of key hashes whose last write is tracked, so point reads refresh only when needed. */
  static final int SLOTS = 4096;

  private final SearcherManager searchers;
  private final Translog log;
  private final ReentrantLock refreshLock = new ReentrantLock();
  private final AtomicLong refreshes = new AtomicLong();
  // Per slot of key hashes, the log sequence number of the last write to one of its keys.
  private final AtomicLongArray written = new AtomicLongArray(SLOTS);
  private volatile long visibleSeq = -1; // every log entry up to it is visible to searchers

  Visibility(SearcherManager searchers, Translog log) {
    this.searchers = requireNonNull(searchers, "searchers is null");
    this.log = requireNonNull(log, "log is null");
    for (int i = 0; i < SLOTS; i++) {
      written.set(i, -1);
    }
  }

  /** Notes that log entry {@code seq} writes {@code key}, for {@link #ensureVisible(Term)}. */
  void wrote(Term key, long seq) {
    written.accumulateAndGet(slot(key), seq, Math::max);
  }

  /**
   * Makes every acknowledged write of {@code key} visible to searchers acquired afterwards: {@link
   * #ensureVisible()} if a write to a key of its slot came after the last refresh started.
   */
  void ensureVisible(Term key) throws IOException {
    if (written.get(slot(key)) > visibleSeq) {
      ensureVisible();
    }
  }

  /**
   * Makes every acknowledged write visible to searchers acquired afterwards: refreshes them unless
   * they already show every write the log holds as durable.
   */
  void ensureVisible() throws IOException {
    if (visibleSeq >= log.durableSeq()) {
      return;
    }
    refreshLock.lock();
    try {
      long need = log.durableSeq();
      if (visibleSeq >= need) {
        return;
      }
      // Every entry up to the last one appended was in the writer before it was appended.
      long covered = log.lastSeq();
      searchers.maybeRefreshBlocking();
      visibleSeq = covered;
      refreshes.incrementAndGet();
    } finally {
      refreshLock.unlock();
    }
  }

  /** How many refreshes reads have made. */
  long refreshes() {
    return refreshes.get();
  }

  private static int slot(Term key) {
    return Math.floorMod(key.bytes().hashCode(), SLOTS);
  }
}
