package dev.memsidecar.api;

import java.util.List;
import java.util.Optional;

/**
 * The records of one memory profile, opened by a {@link MemoryProvider}.
 *
 * <p>Every method takes the {@link Namespace} the call is for, and a store never reads, lists,
 * returns or changes a record of another namespace: the same id may exist in two namespaces as two
 * unrelated records. Implementations are thread-safe: the engine calls them from many threads at
 * once. Failures are {@link MemoryException}s: INVALID_ARGUMENT for input the store cannot take,
 * UNAVAILABLE when its storage fails.
 */
public interface MemoryStore extends AutoCloseable {

  /**
   * Inserts {@code record}, or replaces the record with its id in {@code namespace}. When this
   * returns, the write survives a crash of the process ({@code kill -9}).
   *
   * @throws MemoryException INVALID_ARGUMENT if {@code record.namespace()} is not {@code namespace}
   */
  void put(Namespace namespace, MemoryRecord record);

  /** The record with {@code id} in {@code namespace}, whatever its status. */
  Optional<MemoryRecord> get(Namespace namespace, String id);

  /** One page of the namespace's records, newest first; see {@link ListQuery}. */
  Page list(Namespace namespace, ListQuery query);

  /**
   * The records of {@code namespace} that best match {@code query}, best first, at most {@code
   * query.topK()}, each passing {@link SearchQuery#admits}. A record holding the query's words
   * should outrank one that does not.
   */
  List<ScoredRecord> search(Namespace namespace, SearchQuery query);

  /** Removes the record for good. Returns whether it existed. */
  boolean delete(Namespace namespace, String id);

  /**
   * The namespace's memory file ({@link Capability#FILES}). A store without that capability
   * answers UNIMPLEMENTED.
   */
  default MemoryFile readFile(Namespace namespace) {
    throw MemoryException.unsupported(getClass().getName() + " has no memory files");
  }

  /**
   * Replaces the namespace's memory file ({@link Capability#FILES}) atomically: readers see the old
   * or the new content, never a mix, and the new content survives a crash once this returns.
   *
   * @param expectedEtag null or empty to write unconditionally; otherwise the etag the caller read,
   *     and the write fails with ABORTED if the file has changed since
   * @return the file as written
   */
  default MemoryFile writeFile(Namespace namespace, String content, String expectedEtag) {
    throw MemoryException.unsupported(getClass().getName() + " has no memory files");
  }

  /** Releases files and connections. Calls after close fail. Idempotent. */
  @Override
  void close();
}
