package dev.memsidecar.provider.lucene;

import dev.memsidecar.api.Ids;
import dev.memsidecar.api.MemoryException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * Where a {@code list} page ends: the create time (epoch nanoseconds) and id of its last record.
 * The next page holds the records strictly after it in (create time DESC, id DESC) order, so
 * records inserted meanwhile with newer times never shift it. On the wire it is unpadded base64url
 * of {@code "L1:<nanos>:<id>"}; the leading version lets the format change later.
 */
record ListCursor(long createdNanos, String id) {
  private static final String VERSION = "L1";

  String encode() {
    String plain = VERSION + ":" + createdNanos + ":" + id;
    return Base64.getUrlEncoder()
        .withoutPadding()
        .encodeToString(plain.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * Parses a cursor made by {@link #encode()}.
   *
   * @throws MemoryException INVALID_ARGUMENT naming {@code page_token} if it is not one
   */
  static ListCursor decode(String token) {
    String plain;
    try {
      plain = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw malformed(token);
    }
    String[] parts = plain.split(":", 3);
    if (parts.length != 3 || !parts[0].equals(VERSION) || !Ids.isValid(parts[2])) {
      throw malformed(token);
    }
    try {
      return new ListCursor(Long.parseLong(parts[1]), parts[2]);
    } catch (NumberFormatException e) {
      throw malformed(token);
    }
  }

  private static MemoryException malformed(String token) {
    String shown = token.length() > 80 ? token.substring(0, 80) + "..." : token;
    return MemoryException.invalidArgument(
        "page_token", "page_token '" + shown + "' is not a cursor this store made");
  }
}
