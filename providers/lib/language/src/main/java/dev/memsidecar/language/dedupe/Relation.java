package dev.memsidecar.language.dedupe;

/** How a candidate memory relates to a stored one ({@link MemoryComparison}). */
public enum Relation {
  /** The candidate says what the stored memory says: merge it into the stored one. */
  DUPLICATE,
  /**
   * The candidate gives a new value for the stored memory's subject: store it, supersede the old.
   */
  SUPERSEDES
}
