package dev.memsidecar.core;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.MemoryException;
import java.util.Locale;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * What travels beside a request rather than inside it: whether the caller asked that nothing be
 * written, and whether the caller is still waiting. Made by the transport (the sidecar's services),
 * read by {@link AccessPolicy} and by loops that should stop when nobody waits for their result.
 *
 * @param readOnly the request must change nothing anywhere (request {@code
 *     metadata["memoryWrite"]="false"}): every write access is PERMISSION_DENIED
 * @param cancelled true once the caller has gone away or its deadline has passed
 */
public record RequestOptions(boolean readOnly, BooleanSupplier cancelled) {
  /** Request metadata key that, set to "false", makes a call read-only. */
  public static final String MEMORY_WRITE = "memoryWrite";

  /** A writable request nobody cancels (tools, tests). */
  public static final RequestOptions DEFAULT = new RequestOptions(false, () -> false);

  public RequestOptions {
    requireNonNull(cancelled, "cancelled is null");
  }

  /**
   * The options a request's {@code metadata} asks for: read-only when {@code memoryWrite} is {@code
   * "false"} (any case, surrounding spaces ignored). Every RPC with request metadata passes it
   * here, so it is held to {@link Limits#checkMetadata}'s bounds on each of them (INVALID_ARGUMENT
   * naming {@code metadata}) before any other work.
   */
  public static RequestOptions fromMetadata(Map<String, String> metadata) {
    Limits.checkMetadata(metadata);
    String value = metadata.getOrDefault(MEMORY_WRITE, "");
    return new RequestOptions(
        value.strip().toLowerCase(Locale.ROOT).equals("false"), DEFAULT.cancelled());
  }

  /** These options, cancelled when {@code cancelled} says so. */
  public RequestOptions withCancellation(BooleanSupplier cancelled) {
    return new RequestOptions(readOnly, cancelled);
  }

  /** Throws CANCELLED when the caller no longer waits; long loops call it between steps. */
  public void checkNotCancelled() {
    if (cancelled.getAsBoolean()) {
      throw new MemoryException(
          MemoryException.Code.CANCELLED,
          "the call was cancelled or its deadline passed; the rest of its work was skipped");
    }
  }
}
