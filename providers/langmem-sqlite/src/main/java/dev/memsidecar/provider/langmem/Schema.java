package dev.memsidecar.provider.langmem;

import dev.memsidecar.api.Embedder;
import dev.memsidecar.jdbc.VersionedSchema;
import java.util.List;

/**
 * The provider's tables and their versions, migrated with Flyway when a store opens ({@link
 * #SCHEMA}): the scripts {@code db/migration/langmem/<dialect>/V<n>__*.sql} (resources of this
 * module) and {@link VectorsToBytes}, the history in {@code langmem_schema_history}. Releases
 * before Flyway kept the version in {@code langmem_schema} (one row); such a database is taken over
 * at that version and migrated, and the table keeps the current version so those releases refuse a
 * newer database. A database of a later release is refused rather than misread.
 *
 * <ul>
 *   <li>{@code memory_records}: the source of truth, one row per record, primary key ({@code
 *       namespace}, {@code id}), indexed by ({@code namespace}, {@code created_at DESC}, {@code id
 *       DESC}) for listing, newest first. Columns: see {@link RecordRows}.
 *   <li>{@code memory_vectors}: the recall index, one row per ACTIVE record, primary key ({@code
 *       namespace}, {@code record_id}): {@code dimensions}, {@code embedding}, the vector as {@link
 *       VectorBytes} in the dialect's {@link dev.memsidecar.jdbc.Dialect#binaryType() binary type},
 *       and {@code embedder}, the {@linkplain Embedder#name() name} of the embedder that made it
 *       (NULL: not known). {@link Reembedding} makes every vector the open store's embedder's when
 *       it opens.
 *   <li>{@code langmem_embedder}: at most one row ({@code id} 1): {@code name} and {@code
 *       dimensions} of the embedder that made every vector in {@code memory_vectors}. Absent while
 *       that is not known (a new or migrated database, a re-embedding under way), so opening with
 *       that embedder need not look at the vectors.
 *   <li>{@code memory_changes}: on PostgreSQL, one row per record a transaction changed, kept ten
 *       minutes ({@link ChangeFeed}).
 * </ul>
 *
 * <h2>Versions</h2>
 *
 * <ol>
 *   <li>Vectors as JSON text ({@code embedding_json}, a float array).
 *   <li>Vectors as bytes ({@link VectorsToBytes}, {@value #MIGRATION_BATCH} rows per transaction;
 *       resumable).
 *   <li>The embedder's name with each vector: the nullable {@code memory_vectors.embedder} column
 *       (NULL in every row it had) and the {@code langmem_embedder} table; {@link Reembedding} then
 *       embeds those vectors again, in batches, when the store opens.
 *   <li>The listing index in listing order: {@link #LISTING_INDEX} replaces the ascending index
 *       before it, so a page of {@link LangMemSqliteStore#list} reads its rows from the index in
 *       order instead of sorting the namespace.
 *   <li>The change log {@code memory_changes} ({@code seq} identity, {@code namespace}, {@code
 *       record_id}, {@code changed_at}), through which stores of several processes on one
 *       PostgreSQL database keep their indexes fresh ({@link ChangeFeed}); on H2 it stays empty.
 * </ol>
 */
final class Schema {
  /** The version this code reads and writes. */
  static final int VERSION = 5;

  /** Vector rows converted per transaction when migrating from version 1. */
  static final int MIGRATION_BATCH = 500;

  /** The tables' versions, for {@link dev.memsidecar.jdbc.Database#open}. */
  static final VersionedSchema SCHEMA =
      new VersionedSchema(
          "langmem",
          VERSION,
          "langmem_schema_history",
          "langmem_schema",
          List.of(new VectorsToBytes()),
          Schema.class.getClassLoader());

  static final String VECTORS = "memory_vectors";
  static final List<String> VECTOR_COLUMNS =
      List.of("namespace", "record_id", "dimensions", "embedding", "embedder");
  static final List<String> VECTOR_KEY = List.of("namespace", "record_id");

  /** The table naming the embedder of every vector; see the class comment. */
  static final String EMBEDDER = "langmem_embedder";

  /**
   * The listing index of version 4, in the order {@link LangMemSqliteStore#list} pages: newest
   * first. An ascending index cannot serve that order on H2, which then read and sorted a whole
   * namespace for every page.
   */
  static final String LISTING_INDEX = "memory_records_by_created_desc";

  private Schema() {}
}
