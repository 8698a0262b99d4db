package dev.memsidecar.core;

/** A search hit: the memory and its relevance 0..1. */
public record MemoryHit(StoredMemory memory, float score) {}
