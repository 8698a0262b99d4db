package dev.memsidecar.sidecar;

import dev.memsidecar.api.MemoryException;
import io.grpc.ForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.util.UUID;

/**
 * The one place exceptions become gRPC statuses. A {@link MemoryException} keeps its code and its
 * message (which names the field at fault); anything else is INTERNAL with an error id that is
 * also logged with the stack trace, and its message is not echoed to the client.
 */
final class StatusMapping implements ServerInterceptor {
  private static final System.Logger LOG = System.getLogger(StatusMapping.class.getName());

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(
      ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
    ServerCall.Listener<Q> listener = next.startCall(call, headers);
    return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(listener) {
      @Override
      public void onMessage(Q message) {
        try {
          super.onMessage(message);
        } catch (RuntimeException e) {
          fail(call, e);
        }
      }

      @Override
      public void onHalfClose() {
        try {
          super.onHalfClose();
        } catch (RuntimeException e) {
          fail(call, e);
        }
      }
    };
  }

  static Status toStatus(Throwable e) {
    if (e instanceof MemoryException m) {
      return code(m.code()).withDescription(m.getMessage());
    }
    String errorId = UUID.randomUUID().toString().substring(0, 8);
    LOG.log(System.Logger.Level.ERROR, "internal error " + errorId, e);
    return Status.INTERNAL.withDescription("internal error (error id " + errorId + ")");
  }

  private static <Q, R> void fail(ServerCall<Q, R> call, RuntimeException e) {
    try {
      call.close(toStatus(e), new Metadata());
    } catch (IllegalStateException alreadyClosed) {
      LOG.log(System.Logger.Level.WARNING, "failure after the call was closed", e);
    }
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
