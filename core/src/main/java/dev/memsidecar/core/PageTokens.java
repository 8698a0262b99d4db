package dev.memsidecar.core;

import dev.memsidecar.api.Digests;
import dev.memsidecar.api.MemoryException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * Opaque AIP-158 page tokens: a store's cursor bound to the request it came from (profile,
 * namespace, include_inactive), so a token replayed with another scope or filter is refused instead
 * of leaking or skipping records.
 */
public final class PageTokens {
  private static final String VERSION = "p1";

  private PageTokens() {}

  public static String encode(String requestKey, String cursor) {
    if (cursor == null) {
      return "";
    }
    String raw = VERSION + "\n" + fingerprint(requestKey) + "\n" + cursor;
    return Base64.getUrlEncoder()
        .withoutPadding()
        .encodeToString(raw.getBytes(StandardCharsets.UTF_8));
  }

  /** The store cursor inside {@code token}, or {@code null} for an empty token. */
  public static String decode(String requestKey, String token) {
    if (token == null || token.isEmpty()) {
      return null;
    }
    String raw;
    try {
      raw = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw invalid();
    }
    String[] parts = raw.split("\n", 3);
    if (parts.length != 3
        || !parts[0].equals(VERSION)
        || !parts[1].equals(fingerprint(requestKey))) {
      throw invalid();
    }
    return parts[2];
  }

  private static MemoryException invalid() {
    return MemoryException.invalidArgument(
        "page_token",
        "page_token is malformed or belongs to a different request (scope, profile, filters)");
  }

  private static String fingerprint(String requestKey) {
    return Digests.sha256Hex(requestKey, 16);
  }
}
