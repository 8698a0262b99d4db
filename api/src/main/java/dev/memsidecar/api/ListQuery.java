package dev.memsidecar.api;

/**
 * One page request to {@link MemoryStore#list}. Records come newest first (create time, then id,
 * both descending), which is stable under concurrent inserts of newer records.
 *
 * @param pageSize 1..1000 records at most in the page
 * @param cursor the {@link Page#nextCursor()} of the previous page, or {@code null} for the first;
 *     opaque to everyone but the store that made it
 * @param includeInactive whether forgotten and superseded records are listed too
 */
public record ListQuery(int pageSize, String cursor, boolean includeInactive) {
  public ListQuery {
    if (pageSize < 1 || pageSize > 1000) {
      throw MemoryException.invalidArgument("page_size", "page_size must be 1..1000: " + pageSize);
    }
    cursor = cursor == null || cursor.isEmpty() ? null : cursor;
  }
}
