package dev.memsidecar.provider.embedder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.embedding.onnx.bgesmallenv15.BgeSmallEnV15EmbeddingModel;
import dev.langchain4j.model.embedding.onnx.bgesmallenv15q.BgeSmallEnV15QuantizedEmbeddingModel;
import dev.langchain4j.model.embedding.onnx.bgesmallzhv15.BgeSmallZhV15EmbeddingModel;
import dev.memsidecar.api.Embedder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** What a caller of the two bge embedders relies on, for each of them. */
class TestBgeEmbedders {
  private static final Embedder EN = new BgeSmallEnEmbedder();
  private static final Embedder ZH = new BgeSmallZhEmbedder();
  private static final Embedder EN_Q = new BgeSmallEnQuantizedEmbedder();

  private static final List<String> TEXTS =
      List.of(
          "The user prefers dark mode in every editor.",
          "Deploys to production happen on Tuesdays after the standup.",
          "Never force-push to the main branch.",
          "用户更喜欢用深色主题。",
          "周二上午例会之后发布到生产环境。",
          "ok",
          "Caroline went to an LGBTQ support group on 7 May 2023 and found the transgender stories"
              + " there inspiring; it gave her the courage to embrace herself.");

  static Stream<Arguments> embedders() {
    return Stream.of(Arguments.of(EN, 384), Arguments.of(ZH, 512), Arguments.of(EN_Q, 384));
  }

  @Test
  void serviceLoaderFindsEachByName() {
    Map<String, Embedder> found = new HashMap<>();
    for (Embedder e : ServiceLoader.load(Embedder.class)) {
      found.put(e.name(), e);
    }
    assertEquals(384, found.get("bge-small-en").dimensions());
    assertEquals(512, found.get("bge-small-zh").dimensions());
    assertEquals(384, found.get("bge-small-en-q").dimensions());
  }

  @ParameterizedTest
  @MethodSource("embedders")
  void vectorsHaveTheModelsDimensionsAndUnitLength(Embedder embedder, int dimensions) {
    assertEquals(dimensions, embedder.dimensions());
    for (String text : TEXTS) {
      float[] v = embedder.embed(text);
      assertEquals(dimensions, v.length);
      assertEquals(1.0, norm(v), 1e-5, text);
    }
  }

  @ParameterizedTest
  @MethodSource("embedders")
  void theSameTextAlwaysGivesTheSameVector(Embedder embedder, int dimensions) {
    for (String text : TEXTS) {
      assertArrayEquals(embedder.embed(text), embedder.embed(text), text);
    }
  }

  @ParameterizedTest
  @MethodSource("embedders")
  void embedAllGivesWhatEmbedGivesInOrder(Embedder embedder, int dimensions) {
    List<String> texts = new ArrayList<>(TEXTS);
    texts.add("");
    texts.addAll(TEXTS.reversed());
    List<float[]> all = embedder.embedAll(texts);
    assertEquals(texts.size(), all.size());
    for (int i = 0; i < texts.size(); i++) {
      assertArrayEquals(embedder.embed(texts.get(i)), all.get(i), 1e-5f, texts.get(i));
    }
    assertEquals(List.of(), embedder.embedAll(List.of()));
  }

  @ParameterizedTest
  @MethodSource("embedders")
  void textWithoutTokensGivesTheZeroVector(Embedder embedder, int dimensions) {
    assertArrayEquals(new float[dimensions], embedder.embed(""));
    assertArrayEquals(new float[dimensions], embedder.embed(" \n\t "));
  }

  @ParameterizedTest
  @MethodSource("embedders")
  void textsBeyond512TokensAreCutNotRejected(Embedder embedder, int dimensions) {
    String head = "The deployment checklist: run the tests, tag the release, notify the team. ";
    String longText = head.repeat(100);
    String longer =
        longText + "Completely different words about gardening and tomatoes. ".repeat(50);
    float[] v = embedder.embed(longText);
    assertEquals(1.0, norm(v), 1e-5);
    assertArrayEquals(v, embedder.embed(longer), 1e-5f, "only the first 512 tokens count");
  }

  @ParameterizedTest
  @MethodSource("embedders")
  void concurrentCallersGetTheirOwnVectors(Embedder embedder, int dimensions) throws Exception {
    List<String> texts = new ArrayList<>();
    for (int i = 0; i < 48; i++) {
      texts.add(TEXTS.get(i % TEXTS.size()) + " (note " + i + ")");
    }
    List<float[]> expected = new ArrayList<>();
    for (String text : texts) {
      expected.add(embedder.embed(text));
    }
    ExecutorService pool = Executors.newFixedThreadPool(12);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<float[]>> futures = new ArrayList<>();
      for (String text : texts) {
        futures.add(
            pool.submit(
                () -> {
                  start.await();
                  return embedder.embed(text);
                }));
      }
      start.countDown();
      for (int i = 0; i < texts.size(); i++) {
        assertArrayEquals(expected.get(i), futures.get(i).get(), 1e-5f, texts.get(i));
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @ParameterizedTest
  @MethodSource("embedders")
  void nullTextIsRejected(Embedder embedder, int dimensions) {
    assertThrows(NullPointerException.class, () -> embedder.embed(null));
    List<String> withNull = new ArrayList<>();
    withNull.add("x");
    withNull.add(null);
    assertThrows(NullPointerException.class, () -> embedder.embedAll(withNull));
  }

  @ParameterizedTest
  @MethodSource("embedders")
  void differentTextsGiveDifferentVectors(Embedder embedder, int dimensions) {
    assertNotEquals(
        1.0f, Embedder.cosine(embedder.embed(TEXTS.get(0)), embedder.embed(TEXTS.get(1))), 1e-3f);
  }

  /**
   * langchain4j's own in-process model (DJL tokenizer, its ONNX session) gives the same vectors.
   */
  @Test
  void vectorsAreLangchain4jsForTheSameModel() {
    compare(EN, new BgeSmallEnV15EmbeddingModel());
    compare(ZH, new BgeSmallZhV15EmbeddingModel());
    compare(EN_Q, new BgeSmallEnV15QuantizedEmbeddingModel());
  }

  /** The int8 model's vectors stay close to the float model's: the same meaning, rounded. */
  @Test
  void theQuantizedModelsVectorsAreCloseToTheFloatModels() {
    for (String text : TEXTS.subList(0, 3)) {
      float cosine = Embedder.cosine(EN.embed(text), EN_Q.embed(text));
      assertTrue(cosine > 0.95f, () -> "cosine " + cosine + " for " + text);
    }
  }

  private static void compare(Embedder ours, EmbeddingModel reference) {
    for (String text : TEXTS) {
      float[] expected = reference.embed(text).content().vector();
      float cosine = Embedder.cosine(Embedder.unit(expected), ours.embed(text));
      assertTrue(cosine > 0.9999f, () -> ours.name() + " cosine " + cosine + " for " + text);
    }
  }

  private static double norm(float[] v) {
    double s = 0;
    for (float x : v) {
      s += (double) x * x;
    }
    return Math.sqrt(s);
  }
}
