package dev.memsidecar.toolkit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.api.Embedder;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

class TestHashEmbedder {
  private final HashEmbedder embedder = new HashEmbedder();

  @Test
  void sameTextSameUnitVector() {
    float[] a = embedder.embed("The deploy runs on Fridays");
    assertArrayEquals(a, embedder.embed("The deploy runs on Fridays"));
    assertEquals(1.0f, Embedder.cosine(a, a), 1e-5);
  }

  @Test
  void sharedWordsScoreHigherThanUnrelatedText() {
    float[] q = embedder.embed("which editor does alice prefer");
    float near = Embedder.cosine(q, embedder.embed("Alice prefers the vim editor"));
    float far = Embedder.cosine(q, embedder.embed("Release checklist runs mvn verify"));
    assertTrue(near > far + 0.2f, near + " vs " + far);
  }

  @Test
  void emptyTextIsZeroVector() {
    assertArrayEquals(new float[256], embedder.embed("the of"));
  }

  @Test
  void foundByServiceLoader() {
    assertTrue(
        ServiceLoader.load(Embedder.class).stream().anyMatch(p -> p.get().name().equals("hash")));
  }
}
