package dev.memsidecar.api;

import java.util.List;

/**
 * A page of records.
 *
 * @param records the records, in the store's list order
 * @param nextCursor where the next page starts, or {@code null} at the end
 */
public record Page(List<MemoryRecord> records, String nextCursor) {
  public Page {
    records = List.copyOf(records);
    nextCursor = nextCursor == null || nextCursor.isEmpty() ? null : nextCursor;
  }
}
