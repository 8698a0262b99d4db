package dev.memsidecar.api;

import java.util.List;
import java.util.Optional;

/**
 * The memories of one profile, opened by a {@link MemoryProvider}. A store has up to two
 * capabilities, declared by its provider ({@link MemoryProvider#capabilities()}):
 *
 * <ul>
 *   <li>{@link Capability#RECORDS}: {@link #put}, {@link #get}, {@link #list}, {@link #search},
 *       {@link #delete};
 *   <li>{@link Capability#FILES}: {@link #readFile}, {@link #writeFile}.
 * </ul>
 *
 * And one call of neither: {@link #namespaces}, which the engine's maintenance uses to visit every
 * namespace a store holds; a store that cannot list them keeps its default (UNIMPLEMENTED) and is
 * left out of maintenance.
 *
 * <p>Every method of a capability the provider does not declare fails with UNIMPLEMENTED (the
 * defaults here do exactly that), so a provider implements only what it declares.
 *
 * <h2>Namespaces</h2>
 *
 * Every call is for one {@link Namespace}, and a store never reads, lists, returns or changes a
 * record or file of another namespace: the same id may exist in two namespaces as two unrelated
 * records. Namespaces come from the engine, never from a client string.
 *
 * <h2>Limits</h2>
 *
 * The engine checks client input before a store sees it, so a store may rely on: ids matching
 * {@link Ids#ID} (at most {@value Ids#MAX_LENGTH} characters); namespaces of at most {@value
 * Namespace#MAX_LENGTH} characters; content of at most {@value MemoryRecord#MAX_CONTENT_BYTES}
 * UTF-8 bytes and context of at most {@value MemoryRecord#MAX_CONTEXT_BYTES}; at most {@value
 * MemoryRecord#MAX_TAGS} tags; query vectors of the store's embedder's length (at most {@value
 * Embedder#MAX_DIMENSIONS}); memory files of at most {@value MemoryFile#MAX_BYTES} bytes. A store
 * may refuse more with INVALID_ARGUMENT.
 *
 * <h2>Threads and failures</h2>
 *
 * Implementations are thread-safe: the engine calls them from many threads at once. Failures are
 * {@link MemoryException}s: INVALID_ARGUMENT for input the store cannot take, UNAVAILABLE when its
 * storage fails, UNIMPLEMENTED for an undeclared capability. Messages may reach clients: never put
 * a secret (see {@link MemoryProvider#sensitiveSettings()}) in one.
 */
public interface MemoryStore extends AutoCloseable {

  /**
   * Inserts {@code record} into {@code record.namespace()}, or replaces the record with its id
   * there. When this returns, the write survives a crash of the process ({@code kill -9}).
   */
  default void put(MemoryRecord record) {
    throw MemoryException.unsupported(this, Capability.RECORDS);
  }

  /** The record with {@code id} in {@code namespace}, whatever its status. */
  default Optional<MemoryRecord> get(Namespace namespace, String id) {
    throw MemoryException.unsupported(this, Capability.RECORDS);
  }

  /** One page of the namespace's records, newest first; see {@link ListQuery}. */
  default Page list(Namespace namespace, ListQuery query) {
    throw MemoryException.unsupported(this, Capability.RECORDS);
  }

  /**
   * The records of {@code namespace} that best match {@code query}, at most {@code query.topK()},
   * in {@link ScoredRecord#BEST_FIRST} order, each passing {@link SearchQuery#admits} and scoring
   * at least {@link SearchQuery#minScore()}. Scores are on the scale {@link ScoredRecord} states. A
   * record holding the query's words should outrank one that does not.
   */
  default List<ScoredRecord> search(Namespace namespace, SearchQuery query) {
    throw MemoryException.unsupported(this, Capability.RECORDS);
  }

  /**
   * Makes the next {@link #search} of {@code namespace} see every write committed before this call
   * by any process sharing this store's storage (several sidecars on one database), not only this
   * store's own. The engine calls it before deciding whether a fact is new, under a lock all those
   * processes respect, so that two of them never both store one fact. A search without it sees the
   * others' writes a little later (a store says how much later). The default does nothing: right
   * for a store whose storage one process owns, which sees every write it can be asked about.
   */
  default void refresh(Namespace namespace) {}

  /**
   * The records this store acknowledged whose vectors are still being made, for GetStatus and the
   * metrics. The default, none, is right for a store that makes each vector before it acknowledges.
   */
  default PendingVectors pendingVectors() {
    return PendingVectors.NONE;
  }

  /** Removes the record for good. Returns whether it existed. Durable when it returns. */
  default boolean delete(Namespace namespace, String id) {
    throw MemoryException.unsupported(this, Capability.RECORDS);
  }

  /**
   * Every namespace in which this store holds a record (of any status) or a memory file, each once,
   * in no particular order. The engine's background maintenance calls it, rarely (once per pass),
   * to visit each namespace with {@link #list} or {@link #readFile}; it is never on a request's
   * path, so a scan of the store is fine. A namespace whose last record was deleted may still be
   * listed for a while, and one written concurrently may be missed until the next call.
   *
   * <p>Optional: the default fails with UNIMPLEMENTED, and the engine's maintenance then leaves the
   * store's profile alone (and says so in its counts).
   */
  default List<Namespace> namespaces() {
    throw MemoryException.unsupported(
        getClass().getName() + " cannot list its namespaces, so maintenance leaves it alone");
  }

  /** The namespace's memory file. A file never written reads as {@link MemoryFile#absent()}. */
  default MemoryFile readFile(Namespace namespace) {
    throw MemoryException.unsupported(this, Capability.FILES);
  }

  /**
   * Replaces the namespace's memory file atomically: readers see the old or the new content, never
   * a mix, and the new content survives a crash once this returns.
   *
   * @param expectedEtag null or empty to write unconditionally; otherwise the etag the caller read,
   *     and the write fails with ABORTED if the file has changed since
   * @return the file as written
   */
  default MemoryFile writeFile(Namespace namespace, String content, String expectedEtag) {
    throw MemoryException.unsupported(this, Capability.FILES);
  }

  /**
   * Releases files and connections. Idempotent. Every other call after close fails with
   * FAILED_PRECONDITION.
   */
  @Override
  void close();
}
