package dev.memsidecar.sidecar;

import static java.util.Objects.requireNonNull;

import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * Lets a call through only when its {@code authorization} header is {@code Bearer <token>} with the
 * configured token; any other call is closed with UNAUTHENTICATED before it takes a worker or reads
 * its request. The comparison takes the same time whatever the header holds: both sides are hashed
 * (SHA-256) and the digests compared with {@link MessageDigest#isEqual}, so neither the token's
 * length nor a matching prefix shows in the timing. Installed on every service but health, which
 * probes must reach without the token. Thread-safe.
 */
final class BearerAuth implements ServerInterceptor {
  static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

  private static final String SCHEME = "Bearer ";

  private final byte[] expected;

  /**
   * @param token the token clients must send; not empty
   */
  BearerAuth(String token) {
    requireNonNull(token, "token is null");
    if (token.isEmpty()) {
      throw new IllegalArgumentException("token is empty");
    }
    this.expected = digest(SCHEME + token);
  }

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(
      ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
    String presented = headers.get(AUTHORIZATION);
    if (presented == null || !MessageDigest.isEqual(expected, digest(presented))) {
      call.close(
          Status.UNAUTHENTICATED.withDescription(
              presented == null
                  ? "this sidecar needs a bearer token: send the metadata 'authorization: Bearer"
                      + " <token>'"
                  : "wrong bearer token"),
          new Metadata());
      return new ServerCall.Listener<>() {};
    }
    return next.startCall(call, headers);
  }

  private static byte[] digest(String value) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }
}
