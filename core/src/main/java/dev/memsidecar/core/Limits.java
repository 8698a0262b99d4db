package dev.memsidecar.core;

import dev.memsidecar.api.Ids;
import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.MemoryFile;
import dev.memsidecar.api.MemoryRecord;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * What one request may carry, and the checks that hold a request to it before any other work. Past
 * a size bound: RESOURCE_EXHAUSTED; past a count or a length: INVALID_ARGUMENT. Messages quote
 * client text cut to 80 characters ({@link Ids#quote}). The record-level bounds are the SPI's
 * ({@link MemoryRecord}).
 */
public final class Limits {
  /** Remember content, UTF-8 bytes. */
  public static final int MAX_CONTENT_BYTES = MemoryRecord.MAX_CONTENT_BYTES;

  /** Remember context, UTF-8 bytes. */
  public static final int MAX_CONTEXT_BYTES = MemoryRecord.MAX_CONTEXT_BYTES;

  /** Search query, UTF-8 bytes. */
  public static final int MAX_QUERY_BYTES = 4 * 1024;

  /** A memory file's content, UTF-8 bytes. */
  public static final int MAX_FILE_BYTES = MemoryFile.MAX_BYTES;

  public static final int MAX_TAGS = MemoryRecord.MAX_TAGS;
  public static final int MAX_TAG_CHARS = MemoryRecord.MAX_TAG_CHARS;
  public static final int MAX_METADATA_ENTRIES = MemoryRecord.MAX_METADATA_ENTRIES;
  public static final int MAX_METADATA_KEY_CHARS = MemoryRecord.MAX_METADATA_KEY_CHARS;
  public static final int MAX_METADATA_VALUE_CHARS = MemoryRecord.MAX_METADATA_VALUE_CHARS;

  /** Profiles one Search may name. */
  public static final int MAX_PROFILES = 32;

  /** Kinds one Search may name (there are three; repeats count). */
  public static final int MAX_KINDS = 8;

  public static final int DEFAULT_TOP_K = 8;
  public static final int MAX_TOP_K = 100;
  public static final int DEFAULT_PAGE_SIZE = 50;

  /** Larger page sizes are capped to this (AIP-158), not refused. */
  public static final int MAX_PAGE_SIZE = 500;

  private Limits() {}

  /** {@code topK} with 0 meaning the default; INVALID_ARGUMENT outside 0..{@value #MAX_TOP_K}. */
  public static int topK(int topK) {
    if (topK < 0 || topK > MAX_TOP_K) {
      throw MemoryException.invalidArgument("top_k", "top_k must be 0.." + MAX_TOP_K + ": " + topK);
    }
    return topK == 0 ? DEFAULT_TOP_K : topK;
  }

  /**
   * A page size per AIP-158: 0 means {@value #DEFAULT_PAGE_SIZE}, larger than {@value
   * #MAX_PAGE_SIZE} is capped; negative is INVALID_ARGUMENT.
   */
  public static int pageSize(int pageSize) {
    if (pageSize < 0) {
      throw MemoryException.invalidArgument(
          "page_size", "page_size must not be negative: " + pageSize);
    }
    return pageSize == 0 ? DEFAULT_PAGE_SIZE : Math.min(pageSize, MAX_PAGE_SIZE);
  }

  /** RESOURCE_EXHAUSTED naming {@code field} when {@code value} is over {@code max} UTF-8 bytes. */
  public static void checkBytes(String field, String value, int max) {
    // Over max chars is over max bytes; only shorter strings need the exact UTF-8 count.
    long bytes = value.length() > max ? value.length() : utf8Length(value);
    if (bytes > max) {
      throw MemoryException.resourceExhausted(
          field,
          field
              + " is "
              + (value.length() > max ? "over " + max : bytes)
              + " bytes; the limit is "
              + max
              + " bytes (UTF-8)");
    }
  }

  /**
   * INVALID_ARGUMENT naming {@code field} when a repeated field has more than {@code max} items.
   */
  public static void checkCount(String field, int count, int max) {
    if (count > max) {
      throw MemoryException.invalidArgument(
          field, "at most " + max + " " + field + "; got " + count);
    }
  }

  /** The tags stripped and de-duplicated, in order; INVALID_ARGUMENT past the bounds. */
  public static List<String> checkTags(List<String> tags) {
    checkCount("tags", tags.size(), MAX_TAGS);
    LinkedHashSet<String> out = new LinkedHashSet<>();
    for (String tag : tags) {
      String t = tag.strip();
      if (t.isEmpty() || t.length() > MAX_TAG_CHARS) {
        throw MemoryException.invalidArgument(
            "tags", "each tag must be 1.." + MAX_TAG_CHARS + " characters: " + Ids.quote(tag));
      }
      out.add(t);
    }
    return List.copyOf(out);
  }

  /** INVALID_ARGUMENT when metadata has too many entries, or a key or value too long. */
  public static void checkMetadata(Map<String, String> metadata) {
    checkCount("metadata", metadata.size(), MAX_METADATA_ENTRIES);
    metadata.forEach(
        (k, v) -> {
          if (k.isEmpty() || k.length() > MAX_METADATA_KEY_CHARS) {
            throw MemoryException.invalidArgument(
                "metadata",
                "metadata keys must be 1.."
                    + MAX_METADATA_KEY_CHARS
                    + " characters: "
                    + Ids.quote(k));
          }
          if (v.length() > MAX_METADATA_VALUE_CHARS) {
            throw MemoryException.invalidArgument(
                "metadata",
                "metadata["
                    + Ids.quote(k)
                    + "] exceeds "
                    + MAX_METADATA_VALUE_CHARS
                    + " characters");
          }
        });
  }

  /**
   * The longest prefix of {@code s} within {@code maxBytes} UTF-8 bytes, never splitting a code
   * point; {@code s} itself when it fits.
   */
  public static String cutUtf8(String s, int maxBytes) {
    if (s.length() <= maxBytes / 4 || utf8Length(s) <= maxBytes) {
      return s;
    }
    int bytes = 0;
    int i = 0;
    while (i < s.length()) {
      int cp = s.codePointAt(i);
      int n = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
      if (bytes + n > maxBytes) {
        break;
      }
      bytes += n;
      i += Character.charCount(cp);
    }
    return s.substring(0, i);
  }

  /** The length of {@code s} in UTF-8 bytes (a lone surrogate counts as 3). */
  public static long utf8Length(String s) {
    long n = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x80) {
        n += 1;
      } else if (c < 0x800) {
        n += 2;
      } else if (Character.isHighSurrogate(c)
          && i + 1 < s.length()
          && Character.isLowSurrogate(s.charAt(i + 1))) {
        n += 4;
        i++;
      } else {
        n += 3;
      }
    }
    return n;
  }
}
