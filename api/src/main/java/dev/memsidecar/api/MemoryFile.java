package dev.memsidecar.api;

import static java.util.Objects.requireNonNull;

import java.time.Instant;

/**
 * A whole memory file (the markdown an agent reads and edits as {@code /memories/<profile>.md}). A
 * file that does not exist yet reads as empty content with the empty content's etag and no update
 * time, so "write only if still absent" is a write with that etag.
 *
 * @param content the markdown
 * @param etag {@link #etagOf(String) etagOf(content)}: equal contents, equal etags
 * @param updateTime when it was last written, or {@code null} when it does not exist
 */
public record MemoryFile(String content, String etag, Instant updateTime) {
  /** The largest memory file the engine writes, UTF-8 bytes. */
  public static final int MAX_BYTES = 256 * 1024;

  public MemoryFile {
    requireNonNull(content, "content is null");
    requireNonNull(etag, "etag is null");
  }

  /** The file as it reads before anything was written. */
  public static MemoryFile absent() {
    return new MemoryFile("", etagOf(""), null);
  }

  public static MemoryFile of(String content, Instant updateTime) {
    return new MemoryFile(content, etagOf(content), updateTime);
  }

  /** A strong validator: the first 16 hex digits of the content's SHA-256 (UTF-8). */
  public static String etagOf(String content) {
    return Digests.sha256Hex(content, 16);
  }
}
