package dev.memsidecar.api;

import static java.util.Objects.requireNonNull;

/**
 * The one exception that crosses the SPI and the engine. Its {@link Code} says which gRPC status a
 * caller sees; {@link #field()} names the request field at fault, when there is one. Messages name
 * the bad value and are safe to show to a client: never put secrets or stack traces in them.
 */
public final class MemoryException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** What went wrong, in terms a client can act on. Mirrors the gRPC codes the sidecar uses. */
  public enum Code {
    INVALID_ARGUMENT,
    NOT_FOUND,
    ALREADY_EXISTS,
    PERMISSION_DENIED,
    FAILED_PRECONDITION,
    RESOURCE_EXHAUSTED,
    ABORTED,
    UNIMPLEMENTED,
    UNAVAILABLE,
    /** The caller went away or its deadline passed; the work was abandoned. */
    CANCELLED,
    INTERNAL
  }

  private final Code code;
  private final String field;

  public MemoryException(Code code, String field, String message, Throwable cause) {
    super(requireNonNull(message, "message is null"), cause);
    this.code = requireNonNull(code, "code is null");
    this.field = field;
  }

  public MemoryException(Code code, String message) {
    this(code, null, message, null);
  }

  public Code code() {
    return code;
  }

  /** The request field at fault (e.g. {@code "scope.user_id"}), or {@code null}. */
  public String field() {
    return field;
  }

  public static MemoryException invalidArgument(String field, String message) {
    return new MemoryException(Code.INVALID_ARGUMENT, field, message, null);
  }

  public static MemoryException resourceExhausted(String field, String message) {
    return new MemoryException(Code.RESOURCE_EXHAUSTED, field, message, null);
  }

  public static MemoryException notFound(String message) {
    return new MemoryException(Code.NOT_FOUND, message);
  }

  public static MemoryException permissionDenied(String message) {
    return new MemoryException(Code.PERMISSION_DENIED, message);
  }

  public static MemoryException failedPrecondition(String message) {
    return new MemoryException(Code.FAILED_PRECONDITION, message);
  }

  public static MemoryException aborted(String message) {
    return new MemoryException(Code.ABORTED, message);
  }

  /** Something this build or this provider does not do. */
  public static MemoryException unsupported(String message) {
    return new MemoryException(Code.UNIMPLEMENTED, message);
  }

  /** A method of {@code capability} called on a store whose provider does not declare it. */
  public static MemoryException unsupported(MemoryStore store, Capability capability) {
    return unsupported(
        store.getClass().getName() + " does not declare the " + capability + " capability");
  }

  public static MemoryException unavailable(String message, Throwable cause) {
    return new MemoryException(Code.UNAVAILABLE, null, message, cause);
  }

  public static MemoryException internal(String message, Throwable cause) {
    return new MemoryException(Code.INTERNAL, null, message, cause);
  }
}
