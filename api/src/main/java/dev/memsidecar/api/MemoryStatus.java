package dev.memsidecar.api;

/** A record's life: only ACTIVE records are recalled by search. */
public enum MemoryStatus {
  ACTIVE,
  SUPERSEDED,
  FORGOTTEN
}
