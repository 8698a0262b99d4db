package dev.memsidecar.provider.embedder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * How a model run holds its memory: the reused direct buffers the hidden states are written into,
 * and ONNX Runtime with and without its CPU arena, which must give the same vectors.
 */
class TestOnnxRunMemory {
  private static OnnxBertEmbedder withArena;
  private static OnnxBertEmbedder withoutArena;

  @BeforeAll
  static void load() {
    withArena = new OnnxBertEmbedder(ModelSpec.BGE_SMALL_EN, 1, true, 0);
    withoutArena = new OnnxBertEmbedder(ModelSpec.BGE_SMALL_EN, 1, false, 0);
  }

  @AfterAll
  static void close() {
    withArena.encoder().close();
    withoutArena.encoder().close();
  }

  private static List<String> texts(int n, int words) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      StringBuilder b = new StringBuilder("Note " + i + ":");
      for (int w = 0; w < words + i % 7; w++) {
        b.append(' ').append(List.of("deploy", "Tuesday", "violin", "locker", "team").get(w % 5));
      }
      out.add(b.toString());
    }
    return out;
  }

  @Test
  void theArenaDoesNotChangeTheVectors() {
    List<String> texts = texts(40, 30);
    List<float[]> a = withArena.embedAll(texts);
    List<float[]> b = withoutArena.embedAll(texts);
    for (int i = 0; i < texts.size(); i++) {
      assertArrayEquals(a.get(i), b.get(i), 1e-5f, texts.get(i));
      assertArrayEquals(a.get(i), withoutArena.embed(texts.get(i)), 1e-5f, texts.get(i));
    }
  }

  @Test
  void aRunLargerThanThePooledBuffersGivesTheSameVectorsAsSmallRuns() {
    OnnxBertEncoder encoder = withoutArena.encoder();
    // 12 rows of ~500 tokens: more than a new scratch holds (32 x 128 tokens).
    List<int[]> rows = new ArrayList<>();
    for (String text : texts(12, 480)) {
      rows.add(encoder.tokenize(text));
    }
    assertTrue(rows.size() * rows.getLast().length > OnnxBertEncoder.MIN_SCRATCH_TOKENS);
    float[][] together = encoder.run(rows);
    for (int i = 0; i < rows.size(); i++) {
      assertArrayEquals(encoder.run(List.of(rows.get(i)))[0], together[i], 1e-4f, "row " + i);
    }
    // A short run after the long one reads only its own rows from the larger buffer.
    int[] shortRow = encoder.tokenize("Deploys happen on Tuesdays.");
    float[] alone = encoder.run(List.of(shortRow))[0];
    float[][] pair = encoder.run(List.of(shortRow, rows.get(0)));
    assertArrayEquals(alone, pair[0], 1e-4f);
    assertArrayEquals(together[0], pair[1], 1e-4f);
  }

  @Test
  void concurrentRunsKeepAtMostThePooledBuffers() throws Exception {
    OnnxBertEncoder encoder = withoutArena.encoder();
    List<int[]> rows = new ArrayList<>();
    for (String text : texts(8, 20)) {
      rows.add(encoder.tokenize(text));
    }
    float[][] expected = encoder.run(rows);
    ExecutorService pool = Executors.newFixedThreadPool(6);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<float[][]>> futures = new ArrayList<>();
      for (int i = 0; i < 12; i++) {
        futures.add(
            pool.submit(
                () -> {
                  start.await();
                  return encoder.run(rows);
                }));
      }
      start.countDown();
      for (Future<float[][]> f : futures) {
        float[][] got = f.get();
        for (int r = 0; r < rows.size(); r++) {
          assertArrayEquals(expected[r], got[r], 1e-5f, "row " + r);
        }
      }
    } finally {
      pool.shutdownNow();
    }
    int kept = encoder.pooledScratch();
    assertTrue(kept >= 1 && kept <= OnnxBertEncoder.POOLED_SCRATCH, "kept " + kept);
  }

  @Test
  void arenaSettingReadsThePropertyThenTheVariable() {
    assertFalse(OnnxBertEmbedder.arenaSetting(null, null), "off by default");
    assertFalse(OnnxBertEmbedder.arenaSetting(" ", ""));
    assertTrue(OnnxBertEmbedder.arenaSetting("on", null));
    assertTrue(OnnxBertEmbedder.arenaSetting(null, "ON"));
    assertTrue(OnnxBertEmbedder.arenaSetting("true", "off"), "the property wins");
    assertFalse(OnnxBertEmbedder.arenaSetting("off", "on"));
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> OnnxBertEmbedder.arenaSetting(null, "sometimes"));
    assertEquals("MEMSIDECAR_EMBEDDER_ARENA must be on or off: sometimes", e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class, () -> OnnxBertEmbedder.arenaSetting("2", null));
    assertEquals("memsidecar.embedder.arena must be on or off: 2", e.getMessage());
  }
}
