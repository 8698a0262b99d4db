package dev.memsidecar.core;

import java.util.List;

/** One page of ListMemories; {@code nextPageToken} is empty at the end. */
public record MemoryPage(List<StoredMemory> memories, String nextPageToken) {
  public MemoryPage {
    memories = List.copyOf(memories);
  }
}
