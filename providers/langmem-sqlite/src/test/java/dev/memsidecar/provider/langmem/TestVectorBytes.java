package dev.memsidecar.provider.langmem;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.api.Embedder;
import dev.memsidecar.toolkit.HashEmbedder;
import java.util.Random;
import org.junit.jupiter.api.Test;

class TestVectorBytes {

  @Test
  void aUnitVectorIsTwoBytesPerFloatAndReadsBackAsItsRoundedFloats() {
    Random random = new Random(7);
    for (int dimensions : new int[] {1, 256, 384, 1024}) {
      float[] v = new float[dimensions];
      for (int i = 0; i < dimensions; i++) {
        v[i] = (float) random.nextGaussian();
      }
      v = Embedder.unit(v);
      byte[] bytes = VectorBytes.encode(v);
      assertEquals(2 * dimensions, bytes.length);
      float[] back = VectorBytes.decode(bytes, dimensions);
      assertArrayEquals(VectorBytes.rounded(v), back);
      for (int i = 0; i < dimensions; i++) {
        // binary16 keeps 11 significant bits; below its normal range, an absolute 2^-24.
        assertEquals(v[i], back[i], Math.max(Math.abs(v[i]) * 0x1p-11f, 0x1p-24f), "at " + i);
      }
      // Stored again, the rounded floats do not move.
      assertArrayEquals(back, VectorBytes.decode(VectorBytes.encode(back), dimensions));
    }
  }

  @Test
  void roundingMovesACosineByLessThanATenThousandth() {
    HashEmbedder embedder = new HashEmbedder(384);
    float[] a = embedder.embed("Chen reviews the Kafka consumer before every release");
    float[] b = embedder.embed("who reviews the consumer before a release?");
    float[] ra = VectorBytes.rounded(a);
    assertTrue(Math.abs(dot(a, b) - dot(ra, b)) < 1e-4, dot(a, b) + " vs " + dot(ra, b));
  }

  @Test
  void eachFloatIsTwoLittleEndianBytesOfBinary16() {
    // 1.0 is 0x3C00 and -2.5 is 0xC100 in binary16.
    assertArrayEquals(
        new byte[] {0, 0x3C, 0, (byte) 0xC1}, VectorBytes.encode(new float[] {1.0f, -2.5f}));
    assertArrayEquals(
        new float[] {1.0f, -2.5f}, VectorBytes.decode(new byte[] {0, 0x3C, 0, (byte) 0xC1}, 2));
  }

  @Test
  void float32BytesOfEarlierReleasesReadBitForBit() {
    Random random = new Random(11);
    float[] noise = new float[4096];
    for (int i = 0; i < noise.length; i++) {
      noise[i] = Float.intBitsToFloat(random.nextInt());
    }
    float[] back = VectorBytes.decode(VectorBytes.float32(noise), noise.length);
    for (int i = 0; i < noise.length; i++) {
      assertEquals(Float.floatToRawIntBits(noise[i]), Float.floatToRawIntBits(back[i]), "at " + i);
    }
    // 1.0f is 0x3F800000 and -2.5f is 0xC0200000.
    assertArrayEquals(
        new float[] {1.0f, -2.5f},
        VectorBytes.decode(new byte[] {0, 0, (byte) 0x80, 0x3F, 0, 0, 0x20, (byte) 0xC0}, 2));
  }

  @Test
  void aVectorFloat16CannotHoldIsStoredAsFloat32Exactly() {
    for (float odd : new float[] {70000f, -1e9f, Float.NaN, Float.POSITIVE_INFINITY}) {
      float[] v = {0.1f, odd, 0.3f};
      byte[] bytes = VectorBytes.encode(v);
      assertEquals(12, bytes.length);
      assertArrayEquals(v, VectorBytes.decode(bytes, 3));
      assertSame(v, VectorBytes.rounded(v));
    }
  }

  @Test
  void bytesOfAnotherLengthAreRejectedNamingBothFormats() {
    assertTrue(VectorBytes.holds(new byte[8], 4));
    assertTrue(VectorBytes.holds(new byte[16], 4));
    assertFalse(VectorBytes.holds(new byte[6], 4));
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> VectorBytes.decode(new byte[6], 4));
    assertEquals(
        "a vector of 4 dimensions is 8 bytes (float16) or 16 bytes (float32), not 6",
        e.getMessage());
  }

  private static double dot(float[] a, float[] b) {
    double s = 0;
    for (int i = 0; i < a.length; i++) {
      s += a[i] * b[i];
    }
    return s;
  }
}
