package dev.memsidecar.provider.langmem;

import static java.util.Objects.requireNonNull;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The bytes of an embedding in {@code memory_vectors.embedding}: each float as its 4 IEEE 754
 * bytes, little-endian, in order, nothing else (a vector of {@code d} floats is {@code 4d} bytes).
 * Every float round-trips bit for bit. Little-endian because it is what x86 and ARM hold in memory,
 * and what {@code numpy.frombuffer(b, "<f4")} or a PostgreSQL {@code bytea} reader expects.
 * Stateless and thread-safe.
 */
final class VectorBytes {
  private VectorBytes() {}

  static byte[] encode(float[] vector) {
    requireNonNull(vector, "vector is null");
    ByteBuffer out =
        ByteBuffer.allocate(vector.length * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN);
    out.asFloatBuffer().put(vector);
    return out.array();
  }

  /**
   * The floats in {@code bytes}.
   *
   * @throws IllegalArgumentException if the length is not a multiple of 4
   */
  static float[] decode(byte[] bytes) {
    requireNonNull(bytes, "bytes is null");
    if (bytes.length % Float.BYTES != 0) {
      throw new IllegalArgumentException(
          "a vector is 4 bytes per float; " + bytes.length + " bytes is not a whole number");
    }
    float[] out = new float[bytes.length / Float.BYTES];
    ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(out);
    return out;
  }
}
