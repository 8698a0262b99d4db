package dev.memsidecar.api;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** The SHA-256 digests that etags, file names and page tokens are made of. */
public final class Digests {
  private Digests() {}

  /**
   * The first {@code hexDigits} hex digits (lower case, even, 2..64) of the SHA-256 of {@code
   * text}'s UTF-8 bytes.
   */
  public static String sha256Hex(String text, int hexDigits) {
    if (hexDigits < 2 || hexDigits > 64 || hexDigits % 2 != 0) {
      throw new IllegalArgumentException("hexDigits must be even, 2..64: " + hexDigits);
    }
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest, 0, hexDigits / 2);
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError("SHA-256 is always present", e);
    }
  }
}
