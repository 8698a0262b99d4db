package dev.memsidecar.sidecar;

import com.google.protobuf.Any;
import com.google.rpc.BadRequest;
import dev.memsidecar.api.MemoryException;
import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.ForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.grpc.StatusException;
import io.grpc.protobuf.StatusProto;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The one place exceptions become gRPC statuses, for every exception a service method throws.
 *
 * <ul>
 *   <li>A {@link MemoryException} keeps its code and its message (core keeps client text in it
 *       short; a message longer than {@value #MAX_DESCRIPTION_CHARS} characters is cut). One with
 *       INVALID_ARGUMENT and a {@link MemoryException#field() field} also carries a {@code
 *       google.rpc.BadRequest} with one field violation (field, message) in the status details
 *       ({@code grpc-status-details-bin}), for clients in any language.
 *   <li>CANCELLED (the engine stopped because nobody waits) is DEADLINE_EXCEEDED when the call's
 *       deadline has passed, else CANCELLED.
 *   <li>Any other exception is INTERNAL. INTERNAL and UNAVAILABLE are logged once, with the stack
 *       trace and an error id that the client's message ends with ("... (error id 1a2b3c4d)"); the
 *       client's message for INTERNAL is only "internal error (error id ...)", never the internal
 *       message.
 * </ul>
 */
final class StatusMapping implements ServerInterceptor {
  private static final System.Logger LOG = System.getLogger(StatusMapping.class.getName());

  /** The longest status message sent; longer ones are cut and end with "...". */
  static final int MAX_DESCRIPTION_CHARS = 1024;

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(
      ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
    ServerCall.Listener<Q> listener = next.startCall(call, headers);
    return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(listener) {
      @Override
      public void onMessage(Q message) {
        try {
          super.onMessage(message);
        } catch (RuntimeException | Error e) {
          fail(call, e);
        }
      }

      @Override
      public void onHalfClose() {
        try {
          super.onHalfClose();
        } catch (RuntimeException | Error e) {
          fail(call, e);
        }
      }
    };
  }

  /** Closes {@code call} with the status {@code e} maps to (a call answered already: logged). */
  static <Q, R> void fail(ServerCall<Q, R> call, Throwable e) {
    StatusException status = toStatus(e, call.getMethodDescriptor().getFullMethodName());
    Metadata trailers = status.getTrailers() == null ? new Metadata() : status.getTrailers();
    try {
      call.close(status.getStatus(), trailers);
    } catch (IllegalStateException alreadyClosed) {
      LOG.log(
          System.Logger.Level.WARNING,
          "a failure after the call was answered was not sent: {0}",
          status.getStatus());
    }
  }

  /**
   * The status (and trailers) {@code e} becomes for the call of the current {@link Context}, a call
   * of {@code method}; logs INTERNAL and UNAVAILABLE.
   */
  private static StatusException toStatus(Throwable e, String method) {
    if (!(e instanceof MemoryException m)) {
      return logged(Status.INTERNAL, "internal error", e, method);
    }
    return switch (m.code()) {
      case INTERNAL -> logged(Status.INTERNAL, "internal error", e, method);
      case UNAVAILABLE -> logged(Status.UNAVAILABLE, cut(m.getMessage()), e, method);
      case CANCELLED ->
          new StatusException(
              (deadlinePassed() ? Status.DEADLINE_EXCEEDED : Status.CANCELLED)
                  .withDescription(cut(m.getMessage())));
      case INVALID_ARGUMENT ->
          m.field() == null ? plain(m) : StatusProto.toStatusException(badRequest(m));
      default -> plain(m);
    };
  }

  private static StatusException plain(MemoryException m) {
    return new StatusException(code(m.code()).withDescription(cut(m.getMessage())));
  }

  private static com.google.rpc.Status badRequest(MemoryException m) {
    String message = cut(m.getMessage());
    BadRequest detail =
        BadRequest.newBuilder()
            .addFieldViolations(
                BadRequest.FieldViolation.newBuilder().setField(m.field()).setDescription(message))
            .build();
    return com.google.rpc.Status.newBuilder()
        .setCode(Status.Code.INVALID_ARGUMENT.value())
        .setMessage(message)
        .addDetails(Any.pack(detail))
        .build();
  }

  /** Logs {@code e} with its stack trace under a new error id that the description ends with. */
  private static StatusException logged(
      Status status, String description, Throwable e, String method) {
    String errorId = HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());
    LOG.log(
        System.Logger.Level.ERROR,
        status.getCode() + " (error id " + errorId + ") in " + method,
        e);
    return new StatusException(status.withDescription(description + " (error id " + errorId + ")"));
  }

  private static boolean deadlinePassed() {
    Deadline deadline = Context.current().getDeadline();
    return deadline != null && deadline.isExpired();
  }

  private static String cut(String message) {
    return message.length() <= MAX_DESCRIPTION_CHARS
        ? message
        : message.substring(0, MAX_DESCRIPTION_CHARS - 3) + "...";
  }

  private static Status code(MemoryException.Code code) {
    return switch (code) {
      case INVALID_ARGUMENT -> Status.INVALID_ARGUMENT;
      case NOT_FOUND -> Status.NOT_FOUND;
      case ALREADY_EXISTS -> Status.ALREADY_EXISTS;
      case PERMISSION_DENIED -> Status.PERMISSION_DENIED;
      case FAILED_PRECONDITION -> Status.FAILED_PRECONDITION;
      case RESOURCE_EXHAUSTED -> Status.RESOURCE_EXHAUSTED;
      case ABORTED -> Status.ABORTED;
      case UNIMPLEMENTED -> Status.UNIMPLEMENTED;
      case UNAVAILABLE -> Status.UNAVAILABLE;
      case CANCELLED -> Status.CANCELLED;
      case INTERNAL -> Status.INTERNAL;
    };
  }
}
