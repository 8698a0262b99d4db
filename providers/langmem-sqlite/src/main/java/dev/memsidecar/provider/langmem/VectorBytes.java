package dev.memsidecar.provider.langmem;

import static java.util.Objects.requireNonNull;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The bytes of an embedding in {@code memory_vectors.embedding}, in one of two formats told apart
 * by their length, {@code 2d} or {@code 4d} bytes for a vector of {@code d} floats, nothing else:
 *
 * <ul>
 *   <li><b>float16</b> (what is written now; no schema change came with it): each float rounded to
 *       the nearest IEEE 754 binary16 ({@link Float#floatToFloat16}), its 2 bytes little-endian, in
 *       order; {@code numpy.frombuffer(b, "<f2")} reads it. Half the bytes of float32; a unit
 *       vector's components keep about 3 significant digits (relative error at most
 *       2<sup>-11</sup>), which moves a cosine by about 10<sup>-4</sup> at most: LoCoMo recall is
 *       unchanged (docs/benchmarks.md). Used for every vector whose components are all finite and
 *       within binary16's range (|x| &lt;= 65504), as unit vectors always are.
 *   <li><b>float32</b>: each float as its 4 IEEE 754 bytes, little-endian, in order ({@code
 *       numpy.frombuffer(b, "<f4")}). What earlier releases wrote, still read; written now only for
 *       a vector float16 cannot hold.
 * </ul>
 *
 * Little-endian because it is what x86 and ARM hold in memory, and what a PostgreSQL {@code bytea}
 * reader on them expects. Stateless and thread-safe.
 */
final class VectorBytes {
  /** The largest finite binary16 value. */
  private static final float FLOAT16_MAX = 65504f;

  private VectorBytes() {}

  /** {@code vector} as stored: float16 if it can hold every component, else float32. */
  static byte[] encode(float[] vector) {
    requireNonNull(vector, "vector is null");
    if (!fitsFloat16(vector)) {
      return float32(vector);
    }
    byte[] out = new byte[vector.length * Short.BYTES];
    for (int i = 0; i < vector.length; i++) {
      short h = Float.floatToFloat16(vector[i]);
      out[2 * i] = (byte) h;
      out[2 * i + 1] = (byte) (h >>> 8);
    }
    return out;
  }

  /** {@code vector} as float32 bytes, as earlier releases stored every vector. */
  static byte[] float32(float[] vector) {
    ByteBuffer out =
        ByteBuffer.allocate(vector.length * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN);
    out.asFloatBuffer().put(vector);
    return out.array();
  }

  /**
   * The floats a search sees once {@code vector} is stored and read back ({@code
   * decode(encode(vector), vector.length)}): the store indexes these, so a record ranks the same
   * before and after a restart.
   */
  static float[] rounded(float[] vector) {
    requireNonNull(vector, "vector is null");
    if (!fitsFloat16(vector)) {
      return vector;
    }
    float[] out = new float[vector.length];
    for (int i = 0; i < vector.length; i++) {
      out[i] = Float.float16ToFloat(Float.floatToFloat16(vector[i]));
    }
    return out;
  }

  /**
   * The {@code dimensions} floats in {@code bytes}, float16 or float32 by their length.
   *
   * @throws IllegalArgumentException if the length is neither 2 nor 4 bytes per dimension
   */
  static float[] decode(byte[] bytes, int dimensions) {
    requireNonNull(bytes, "bytes is null");
    if (bytes.length == dimensions * Short.BYTES) {
      float[] out = new float[dimensions];
      for (int i = 0; i < dimensions; i++) {
        out[i] = Float.float16ToFloat((short) ((bytes[2 * i] & 0xFF) | (bytes[2 * i + 1] << 8)));
      }
      return out;
    }
    if (bytes.length == dimensions * Float.BYTES) {
      float[] out = new float[dimensions];
      ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(out);
      return out;
    }
    throw new IllegalArgumentException(
        "a vector of "
            + dimensions
            + " dimensions is "
            + dimensions * Short.BYTES
            + " bytes (float16) or "
            + dimensions * Float.BYTES
            + " bytes (float32), not "
            + bytes.length);
  }

  /** Whether {@code bytes} hold a vector of {@code dimensions} floats in either format. */
  static boolean holds(byte[] bytes, int dimensions) {
    return bytes.length == dimensions * Short.BYTES || bytes.length == dimensions * Float.BYTES;
  }

  private static boolean fitsFloat16(float[] vector) {
    for (float x : vector) {
      if (!(Math.abs(x) <= FLOAT16_MAX)) { // NaN too
        return false;
      }
    }
    return true;
  }
}
