package dev.memsidecar.sidecar.cli;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;

/**
 * Why a client command failed, and the exit code that says so. The codes (docs/operations.md, "From
 * the terminal"):
 *
 * <ul>
 *   <li>0: done;
 *   <li>1: any other failure (the sidecar's INTERNAL, an unexpected error);
 *   <li>2: the command line or the request was wrong (usage, INVALID_ARGUMENT, OUT_OF_RANGE,
 *       FAILED_PRECONDITION);
 *   <li>3: not found (NOT_FOUND: a memory, rule or session that does not exist);
 *   <li>4: the sidecar could not be reached or did not answer in time (UNAVAILABLE,
 *       DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED);
 *   <li>5: refused (UNAUTHENTICATED: no or a wrong token; PERMISSION_DENIED: a flag or a read-only
 *       request forbids it);
 *   <li>6: {@code rules check} said the tool call is denied.
 * </ul>
 */
final class CliException extends RuntimeException {
  static final int FAILURE = 1;
  static final int USAGE = 2;
  static final int NOT_FOUND = 3;
  static final int UNREACHABLE = 4;
  static final int REFUSED = 5;
  static final int DENIED = 6;

  private final int exitCode;

  CliException(int exitCode, String message) {
    super(message);
    this.exitCode = exitCode;
  }

  static CliException usage(String message) {
    return new CliException(USAGE, message);
  }

  int exitCode() {
    return exitCode;
  }

  /** The failure of a call, in words a terminal user can act on. */
  static CliException of(StatusRuntimeException e, String target) {
    Status s = e.getStatus();
    String detail = s.getDescription() == null ? s.getCode().name() : s.getDescription();
    return switch (s.getCode()) {
      case INVALID_ARGUMENT, OUT_OF_RANGE, FAILED_PRECONDITION, ALREADY_EXISTS ->
          new CliException(USAGE, detail);
      case NOT_FOUND -> new CliException(NOT_FOUND, detail);
      case UNAVAILABLE ->
          new CliException(
              UNREACHABLE,
              "cannot reach the sidecar at " + target + " (is it running?): " + detail);
      case DEADLINE_EXCEEDED ->
          new CliException(UNREACHABLE, "the sidecar at " + target + " did not answer in time");
      case RESOURCE_EXHAUSTED -> new CliException(UNREACHABLE, "the sidecar is busy: " + detail);
      case UNAUTHENTICATED ->
          new CliException(
              REFUSED,
              detail + " (give the token with --token-file or " + Connection.ENV_AUTH_TOKEN + ")");
      case PERMISSION_DENIED -> new CliException(REFUSED, detail);
      default -> new CliException(FAILURE, s.getCode() + ": " + detail);
    };
  }
}
