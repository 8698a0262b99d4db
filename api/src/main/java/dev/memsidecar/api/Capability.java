package dev.memsidecar.api;

/** What a provider's stores can do. A capability not declared fails with UNIMPLEMENTED. */
public enum Capability {
  /** put/get/list/search/delete of records: every record provider. */
  RECORDS,
  /** Whole markdown files under {@code /memories/} with etags (deepagents-files). */
  FILES
}
