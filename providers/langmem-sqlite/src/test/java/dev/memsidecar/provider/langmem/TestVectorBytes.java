package dev.memsidecar.provider.langmem;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Random;
import org.junit.jupiter.api.Test;

class TestVectorBytes {

  @Test
  void everyFloatRoundTripsBitForBit() {
    float[] v = {
      0f,
      -0f,
      1f,
      -1f,
      Float.MIN_VALUE,
      -Float.MIN_NORMAL,
      Float.MAX_VALUE,
      0.1f,
      1.0e-5f,
      Float.NaN,
      Float.POSITIVE_INFINITY
    };
    assertArrayEquals(v, VectorBytes.decode(VectorBytes.encode(v)));
    Random random = new Random(7);
    float[] noise = new float[4096];
    for (int i = 0; i < noise.length; i++) {
      noise[i] = Float.intBitsToFloat(random.nextInt());
    }
    float[] back = VectorBytes.decode(VectorBytes.encode(noise));
    for (int i = 0; i < noise.length; i++) {
      assertEquals(Float.floatToRawIntBits(noise[i]), Float.floatToRawIntBits(back[i]), "at " + i);
    }
    assertArrayEquals(new float[0], VectorBytes.decode(VectorBytes.encode(new float[0])));
  }

  @Test
  void eachFloatIsFourLittleEndianBytes() {
    // 1.0f is 0x3F800000 and -2.5f is 0xC0200000.
    assertArrayEquals(
        new byte[] {0, 0, (byte) 0x80, 0x3F, 0, 0, 0x20, (byte) 0xC0},
        VectorBytes.encode(new float[] {1.0f, -2.5f}));
    assertArrayEquals(
        new float[] {1.0f, -2.5f},
        VectorBytes.decode(new byte[] {0, 0, (byte) 0x80, 0x3F, 0, 0, 0x20, (byte) 0xC0}));
  }

  @Test
  void bytesThatAreNotWholeFloatsAreRejected() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> VectorBytes.decode(new byte[6]));
    assertEquals("a vector is 4 bytes per float; 6 bytes is not a whole number", e.getMessage());
  }
}
