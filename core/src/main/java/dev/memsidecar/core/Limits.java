package dev.memsidecar.core;

/** What one request may carry. Past a size bound: RESOURCE_EXHAUSTED; past a count: INVALID_ARGUMENT. */
public final class Limits {
  /** Remember content, UTF-8 bytes. */
  public static final int MAX_CONTENT_BYTES = 32 * 1024;
  /** Remember context, UTF-8 bytes. */
  public static final int MAX_CONTEXT_BYTES = 64 * 1024;
  /** Search query, UTF-8 bytes. */
  public static final int MAX_QUERY_BYTES = 4 * 1024;
  public static final int MAX_TAGS = 32;
  public static final int MAX_TAG_CHARS = 64;
  public static final int MAX_METADATA_ENTRIES = 32;
  public static final int MAX_METADATA_KEY_CHARS = 64;
  public static final int MAX_METADATA_VALUE_CHARS = 1024;
  public static final int DEFAULT_TOP_K = 8;
  public static final int MAX_TOP_K = 100;
  public static final int DEFAULT_PAGE_SIZE = 50;
  /** Larger page sizes are capped to this (AIP-158), not refused. */
  public static final int MAX_PAGE_SIZE = 500;

  private Limits() {}
}
