package dev.memsidecar.api;

/**
 * What a provider's stores can do ({@link MemoryProvider#capabilities()}). Every method of a
 * capability the provider does not declare fails with UNIMPLEMENTED, and the engine routes around
 * it: a profile without RECORDS contributes nothing to a search over all profiles, a profile
 * without FILES gets its memory file from the engine's files provider.
 */
public enum Capability {
  /** {@link MemoryStore#put}, get, list, search and delete of records. */
  RECORDS,
  /** {@link MemoryStore#readFile} and writeFile: whole markdown files with etags. */
  FILES
}
