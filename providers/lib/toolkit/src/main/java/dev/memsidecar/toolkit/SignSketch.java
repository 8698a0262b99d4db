package dev.memsidecar.toolkit;

import java.util.Arrays;
import java.util.Random;

/**
 * One-bit sketches of the vectors of a {@link HybridIndex}, from which a search over a large
 * namespace estimates every record's cosine in a few instructions, so that only the records most
 * likely to rank are compared in full.
 *
 * <p>Each vector {@code e} is kept as {@code r = |e - c|} and the signs of {@code R(e - c)}: {@code
 * c} the mean of the index's vectors (embedding models give every text a common component; without
 * it most signs would say the same for every record) and {@code R} a fixed random rotation (two
 * rounds of random sign flips and a Walsh-Hadamard transform, padded to a power of two: a model's
 * coordinates are not independent, and a sparse vector, the {@code hash} embedder's, has no sign
 * where it is 0). For a unit query {@code q}, {@code q . e = q . c + |q - c| r cos(q - c, e - c)},
 * and the angle between two rotated vectors is estimated by the share of signs they disagree on
 * ({@code angle ~ pi h / b} for {@code h} of {@code b} bits): {@code v ~ q . c + |q - c| r cos(pi h
 * / b)}. The estimate only chooses which records are scored exactly; how much that misses is
 * measured in {@code it/bench} SketchBench (with bge-small-en-q, 0.02% of the exact top 10 at
 * 25,000 records and 0.4% at 100,000) and {@code TestHybridIndexSketch}.
 *
 * <p>Costs 8 bytes per 64 rotated dimensions and a float per record (68 bytes at 384 dimensions,
 * rotated as 512). The centre is fixed when the sketches are built; {@link HybridIndex} builds them
 * again whenever the number of records with a vector doubled. The index's lock guards it: updates
 * under its write lock, probes under its read lock (a probe may be read by two threads at once).
 */
final class SignSketch {
  // Rounds of random sign flips and a Walsh-Hadamard transform that rotate each vector first.
  private static final int ROUNDS = 2;

  private final int dimensions;
  // The rotated vectors' dimensions: the power of two at or above dimensions.
  private final int bits;
  private final int words;
  private final boolean[][] flips;
  // update's rotated vector, reused (updates run one at a time, under the index's write lock).
  private final float[] rotatedForUpdate;
  private float[] center;
  private long[] codes = new long[0];
  // |e - c| of each slot's vector; negative for a slot whose vector is all zeros (none yet).
  private float[] spread = new float[0];
  private int embeddedAtBuild;

  SignSketch(int dimensions) {
    this.dimensions = dimensions;
    this.bits = Math.max(64, Integer.highestOneBit(dimensions - 1) << 1);
    this.words = bits >>> 6;
    Random random = new Random(dimensions);
    this.flips = new boolean[ROUNDS][bits];
    for (boolean[] round : flips) {
      for (int i = 0; i < bits; i++) {
        round[i] = random.nextBoolean();
      }
    }
    this.rotatedForUpdate = new float[bits];
  }

  /**
   * {@code v - c} ({@code dimensions} floats of {@code v} from {@code off}) rotated into {@code
   * out} ({@code bits} floats): the signs of a model's coordinates say little each, and those of a
   * sparse vector (the {@code hash} embedder's) nothing where it is 0; after a random rotation
   * every sign carries a share of the whole. Returns {@code |v - c|}.
   */
  private double rotate(float[] v, int off, float[] out) {
    double squares = 0;
    for (int i = 0; i < bits; i++) {
      double d = i < dimensions ? v[off + i] - center[i] : 0;
      squares += d * d;
      out[i] = (float) d;
    }
    for (boolean[] round : flips) {
      for (int i = 0; i < bits; i++) {
        if (round[i]) {
          out[i] = -out[i];
        }
      }
      for (int half = 1; half < bits; half <<= 1) { // Walsh-Hadamard, unnormalised
        for (int i = 0; i < bits; i += half << 1) {
          for (int j = i; j < i + half; j++) {
            float a = out[j];
            float b = out[j + half];
            out[j] = a + b;
            out[j + half] = a - b;
          }
        }
      }
    }
    return Math.sqrt(squares);
  }

  /** The signs of {@code rotated} into {@code codes} from {@code at}. */
  private void signs(float[] rotated, long[] codes, int at) {
    Arrays.fill(codes, at, at + words, 0L);
    for (int i = 0; i < bits; i++) {
      if (rotated[i] > 0) {
        codes[at + (i >>> 6)] |= 1L << i;
      }
    }
  }

  boolean built() {
    return center != null;
  }

  /**
   * Whether the sketches should be (re)built now that {@code embedded} records have a vector: not
   * built yet, or that number doubled since (and reached {@code minimum}).
   */
  boolean due(int embedded, int minimum) {
    return center == null || embedded >= 2 * Math.max(embeddedAtBuild, minimum);
  }

  /**
   * Sketches the first {@code size} slots of {@code vectors} ({@code dimensions} floats each, as
   * many slots as it has room for) about their mean, of which {@code embedded} are not all zeros.
   */
  void build(float[] vectors, int size, int embedded) {
    double[] sum = new double[dimensions];
    for (int slot = 0; slot < size; slot++) {
      int off = slot * dimensions;
      for (int i = 0; i < dimensions; i++) {
        sum[i] += vectors[off + i];
      }
    }
    center = new float[dimensions];
    for (int i = 0; i < dimensions; i++) {
      center[i] = embedded == 0 ? 0f : (float) (sum[i] / embedded);
    }
    int capacity = vectors.length / dimensions;
    codes = new long[capacity * words];
    spread = new float[capacity];
    for (int slot = 0; slot < size; slot++) {
      update(slot, vectors);
    }
    embeddedAtBuild = embedded;
  }

  /** Makes room for {@code slots} slots, once built. */
  void ensureCapacity(int slots) {
    if (center != null && spread.length < slots) {
      int capacity = Math.max(slots, spread.length + (spread.length >> 1));
      codes = Arrays.copyOf(codes, capacity * words);
      spread = Arrays.copyOf(spread, capacity);
    }
  }

  /** Sketches the vector of {@code slot} in {@code vectors} again, once built. */
  void update(int slot, float[] vectors) {
    if (center == null) {
      return;
    }
    int off = slot * dimensions;
    if (HybridIndex.isZero(vectors, off, dimensions)) {
      spread[slot] = -1f;
      return;
    }
    spread[slot] = (float) rotate(vectors, off, rotatedForUpdate);
    signs(rotatedForUpdate, codes, slot * words);
  }

  /** Moves the sketch of slot {@code from} to slot {@code to}, once built. */
  void move(int from, int to) {
    if (center == null) {
      return;
    }
    System.arraycopy(codes, from * words, codes, to * words, words);
    spread[to] = spread[from];
  }

  /** What estimating cosines with unit {@code query} needs. Requires {@link #built}. */
  Probe probe(float[] query) {
    double onCenter = 0;
    for (int i = 0; i < dimensions; i++) {
      onCenter += query[i] * center[i];
    }
    float[] rotated = new float[bits];
    double length = rotate(query, 0, rotated);
    long[] code = new long[words];
    signs(rotated, code, 0);
    float[] cosine = new float[bits + 1];
    for (int h = 0; h <= bits; h++) {
      cosine[h] = (float) (length * Math.cos(Math.PI * h / bits));
    }
    return new Probe(code, (float) onCenter, cosine);
  }

  /** A query's sketch, and its cosine for each number of differing signs. */
  final class Probe {
    private final long[] code;
    private final float onCenter;
    private final float[] cosine;

    private Probe(long[] code, float onCenter, float[] cosine) {
      this.code = code;
      this.onCenter = onCenter;
      this.cosine = cosine;
    }

    /** The estimated cosine of the query with the vector of {@code slot}; 0 for no vector. */
    float estimate(int slot) {
      float r = spread[slot];
      if (r < 0) {
        return 0f;
      }
      int h = 0;
      for (int w = 0, off = slot * words; w < words; w++) {
        h += Long.bitCount(code[w] ^ codes[off + w]);
      }
      return onCenter + r * cosine[h];
    }
  }
}
