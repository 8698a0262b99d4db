package dev.memsidecar.api;

/** What sort of thing a memory is. */
public enum MemoryKind {
  /** Durable facts and preferences. */
  SEMANTIC,
  /** Events: runs, incidents, migrations. */
  EPISODIC,
  /** How-to: commands, recovery steps, release gates. */
  PROCEDURAL
}
