package dev.memsidecar.sidecar;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import com.google.protobuf.WireFormat;
import dev.memsidecar.api.MemoryException;
import io.grpc.ForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerMethodDefinition;
import io.grpc.ServerServiceDefinition;
import io.grpc.ServiceDescriptor;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Answers a request that is not a valid protobuf message of its method's type with
 * INVALID_ARGUMENT, naming the field when the fault is a string field that is not UTF-8 (which is
 * what a lone UTF-16 surrogate becomes on the wire): "scope.user_id is not valid UTF-8 text".
 *
 * <p>Why this is needed: grpc-java parses a request before any interceptor sees it, and a parse
 * failure thrown there closes the call with UNKNOWN "Application error processing RPC". So the
 * request marshaller of every method is wrapped: it parses from a copy of the bytes and, when
 * parsing fails, hands on the type's default instance and leaves the fault in a thread-local. The
 * wrapped handler's listener, the outermost, runs on the same thread right after the parse (the
 * server runs on the transport threads, see {@link CallAdmission}); it takes the fault and closes
 * the call before anything else sees the message. Messages are bounded by the server's inbound
 * message size (4 MiB by default), so the copy is too.
 */
final class RequestParsing {
  /** Deeper nesting than any message of the contract; a deeper walk gives up naming a field. */
  private static final int MAX_DEPTH = 16;

  /** The fault of the request parsed last on this thread, taken by the next onMessage. */
  private static final ThreadLocal<MemoryException> FAULT = new ThreadLocal<>();

  private RequestParsing() {}

  /** {@code service} with every method's request parsed as this class says. */
  static ServerServiceDefinition guard(ServerServiceDefinition service) {
    ServiceDescriptor old = service.getServiceDescriptor();
    ServiceDescriptor.Builder descriptor =
        ServiceDescriptor.newBuilder(old.getName()).setSchemaDescriptor(old.getSchemaDescriptor());
    List<ServerMethodDefinition<?, ?>> methods = new ArrayList<>();
    for (ServerMethodDefinition<?, ?> method : service.getMethods()) {
      ServerMethodDefinition<?, ?> guarded = guard(method);
      descriptor.addMethod(guarded.getMethodDescriptor());
      methods.add(guarded);
    }
    ServerServiceDefinition.Builder out = ServerServiceDefinition.builder(descriptor.build());
    methods.forEach(out::addMethod);
    return out.build();
  }

  private static <Q, R> ServerMethodDefinition<Q, R> guard(ServerMethodDefinition<Q, R> method) {
    MethodDescriptor<Q, R> descriptor = method.getMethodDescriptor();
    if (!(descriptor.getRequestMarshaller() instanceof MethodDescriptor.PrototypeMarshaller<Q> m)
        || !(m.getMessagePrototype() instanceof Message prototype)) {
      return method; // not a protobuf method: left as it is
    }
    MethodDescriptor<Q, R> guarded =
        descriptor.toBuilder().setRequestMarshaller(new Lenient<>(m, prototype)).build();
    return ServerMethodDefinition.create(guarded, new Handler<>(method.getServerCallHandler()));
  }

  /**
   * Where {@code bytes} (a message of {@code type} that failed to parse) hold a string field that
   * is not UTF-8: its path, e.g. {@code scope.user_id} ({@code metadata} for a map), or null when
   * the fault is elsewhere (a truncated or malformed message).
   */
  static String invalidTextField(byte[] bytes, Descriptor type) {
    try {
      return invalidTextField(CodedInputStream.newInstance(bytes), type, "", 0);
    } catch (IOException | RuntimeException malformed) {
      return null;
    }
  }

  private static String invalidTextField(
      CodedInputStream in, Descriptor type, String prefix, int depth) throws IOException {
    while (!in.isAtEnd()) {
      int tag = in.readTag();
      FieldDescriptor field = type.findFieldByNumber(WireFormat.getTagFieldNumber(tag));
      if (field == null || WireFormat.getTagWireType(tag) != WireFormat.WIRETYPE_LENGTH_DELIMITED) {
        in.skipField(tag);
        continue;
      }
      ByteString value = in.readBytes();
      String path = prefix + field.getName();
      if (field.getType() == FieldDescriptor.Type.STRING && !value.isValidUtf8()) {
        return path;
      }
      if (field.getType() == FieldDescriptor.Type.MESSAGE && depth < MAX_DEPTH) {
        String inner =
            invalidTextField(value.newCodedInput(), field.getMessageType(), path + ".", depth + 1);
        if (inner != null) {
          return field.isMapField() ? path : inner;
        }
      }
    }
    return null;
  }

  /** Parses as the protobuf marshaller does; a request it refuses leaves a fault, not an error. */
  private static final class Lenient<Q> implements MethodDescriptor.PrototypeMarshaller<Q> {
    private final MethodDescriptor.PrototypeMarshaller<Q> strict;
    private final Message prototype;

    Lenient(MethodDescriptor.PrototypeMarshaller<Q> strict, Message prototype) {
      this.strict = strict;
      this.prototype = prototype;
    }

    @Override
    public InputStream stream(Q value) {
      return strict.stream(value);
    }

    @Override
    public Q getMessagePrototype() {
      return strict.getMessagePrototype();
    }

    @Override
    public Class<Q> getMessageClass() {
      return strict.getMessageClass();
    }

    @Override
    public Q parse(InputStream stream) {
      byte[] bytes;
      try (stream) {
        bytes = stream.readAllBytes();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      FAULT.remove();
      try {
        return strict.parse(new ByteArrayInputStream(bytes));
      } catch (RuntimeException refused) {
        Descriptor type = prototype.getDescriptorForType();
        String field = invalidTextField(bytes, type);
        FAULT.set(
            field != null
                ? MemoryException.invalidArgument(field, field + " is not valid UTF-8 text")
                : MemoryException.invalidArgument(
                    null,
                    "the request is not a valid "
                        + type.getFullName()
                        + " message (truncated, or a field of the wrong type)"));
        return strict.getMessagePrototype();
      }
    }
  }

  /** Closes a call whose request did not parse before its handler sees the message. */
  private record Handler<Q, R>(ServerCallHandler<Q, R> next) implements ServerCallHandler<Q, R> {
    @Override
    public ServerCall.Listener<Q> startCall(ServerCall<Q, R> call, Metadata headers) {
      return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(
          next.startCall(call, headers)) {
        private boolean refused;

        @Override
        public void onMessage(Q message) {
          MemoryException fault = FAULT.get();
          FAULT.remove();
          if (fault != null) {
            refused = true;
            StatusMapping.fail(call, fault);
          } else if (!refused) {
            super.onMessage(message);
          }
        }

        @Override
        public void onHalfClose() {
          if (!refused) {
            super.onHalfClose();
          }
        }

        @Override
        public void onReady() {
          if (!refused) {
            super.onReady();
          }
        }
      };
    }
  }
}
