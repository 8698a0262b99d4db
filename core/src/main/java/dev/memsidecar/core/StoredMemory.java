package dev.memsidecar.core;

import dev.memsidecar.api.MemoryRecord;

/** A record and the provider that holds it. */
public record StoredMemory(MemoryRecord record, String provider) {}
