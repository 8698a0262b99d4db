package dev.memsidecar.api;

import static java.util.Objects.requireNonNull;

import java.nio.charset.StandardCharsets;
import java.time.DateTimeException;
import java.time.Instant;
import java.util.Base64;
import java.util.Comparator;

/**
 * Where a {@link MemoryStore#list} page ends: the create time and id of its last record, for stores
 * that page by keyset in {@link #NEWEST_FIRST} order. The next page holds the records strictly
 * after it, so records added meanwhile with newer times never shift it. On the wire it is unpadded
 * base64url of {@code "1:<epochSecond>:<nano>:<id>"}; the leading version lets the format change
 * later. A store may use its own cursor instead: cursors are opaque to callers.
 */
public record ListCursor(Instant createTime, String id) {
  /** The list order of the SPI: newest create time first, then the greater id first. */
  public static final Comparator<MemoryRecord> NEWEST_FIRST =
      Comparator.comparing(MemoryRecord::createTime).thenComparing(MemoryRecord::id).reversed();

  private static final String VERSION = "1";

  public ListCursor {
    requireNonNull(createTime, "createTime is null");
    requireNonNull(id, "id is null");
  }

  /** The cursor just past {@code r}. */
  public static ListCursor after(MemoryRecord r) {
    return new ListCursor(r.createTime(), r.id());
  }

  /** Whether {@code r} comes after this cursor in list order (belongs to a later page). */
  public boolean precedes(MemoryRecord r) {
    int c = r.createTime().compareTo(createTime);
    return c < 0 || (c == 0 && r.id().compareTo(id) < 0);
  }

  public String encode() {
    String plain =
        VERSION + ":" + createTime.getEpochSecond() + ":" + createTime.getNano() + ":" + id;
    return Base64.getUrlEncoder()
        .withoutPadding()
        .encodeToString(plain.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * Parses a cursor made by {@link #encode()}.
   *
   * @throws MemoryException INVALID_ARGUMENT naming {@code page_token} if it is not one
   */
  public static ListCursor decode(String token) {
    String plain;
    try {
      plain = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw malformed(token);
    }
    String[] parts = plain.split(":", 4);
    if (parts.length != 4 || !parts[0].equals(VERSION) || !Ids.isValid(parts[3])) {
      throw malformed(token);
    }
    try {
      int nano = Integer.parseInt(parts[2]);
      if (nano < 0 || nano > 999_999_999) {
        throw malformed(token);
      }
      return new ListCursor(Instant.ofEpochSecond(Long.parseLong(parts[1]), nano), parts[3]);
    } catch (NumberFormatException | DateTimeException | ArithmeticException e) {
      throw malformed(token);
    }
  }

  private static MemoryException malformed(String token) {
    String shown = token.length() > 80 ? token.substring(0, 80) + "..." : token;
    return MemoryException.invalidArgument(
        "page_token", "page_token '" + shown + "' is not a cursor this store made");
  }
}
