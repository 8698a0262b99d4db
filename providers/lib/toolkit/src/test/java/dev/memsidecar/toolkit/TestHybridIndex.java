package dev.memsidecar.toolkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.api.ScoredRecord;
import dev.memsidecar.api.SearchQuery;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class TestHybridIndex {
  private static final Namespace NS = Namespace.of("acme:user:alice:user");
  private static final Instant T0 = Instant.parse("2025-01-01T00:00:00Z");
  private final HashEmbedder embedder = new HashEmbedder();
  private final HybridIndex index = new HybridIndex(embedder.dimensions());

  private void put(String id, String content, String context) {
    MemoryRecord r =
        MemoryRecord.builder()
            .namespace(NS)
            .id(id)
            .profile("workspace")
            .content(content)
            .context(context)
            .times(T0)
            .build();
    index.put(r, embedder.embed(r.indexedText()));
  }

  private List<ScoredRecord> search(String text) {
    SearchQuery q = new SearchQuery(text, null, 10, Set.of(), List.of(), 0f, T0.plusSeconds(60));
    return index.search(q, embedder.embed(text));
  }

  private String first(String text) {
    return search(text).get(0).record().id();
  }

  @Test
  void aQueryNamingTheSpeakerPrefersThatSpeakersLine() {
    put("mel", "Melanie: we went camping at the lake", "");
    put("car", "Caroline: we went camping at the lake", "");
    assertEquals("mel", first("Where has Melanie gone camping?"));
    assertEquals("car", first("Where has Caroline gone camping?"));
  }

  @Test
  void aWordInTheContentOutweighsTheSameWordInTheContext() {
    put("content", "the quarterly budget", "lunch with the team");
    put("context", "lunch with the team", "the quarterly budget");
    assertEquals("content", first("budget"));
  }

  @Test
  void otherFormsOfAWordMatch() {
    put("paint", "she paints landscapes on weekends", "");
    put("other", "he fixes bicycles on weekends", "");
    assertEquals("paint", first("what has she painted"));
  }

  @Test
  void scoresStayWithinTheScale() {
    put("a", "Melanie: release train leaves on thursday", "");
    put("b", "lunch with the team", "");
    List<ScoredRecord> hits = search("Melanie release train leaves on thursday");
    assertEquals("a", hits.get(0).record().id());
    assertEquals(1f, hits.get(0).score(), 1e-5f, "same text, best words, speaker named: capped");
    assertTrue(hits.stream().allMatch(h -> h.score() >= 0 && h.score() <= 1), hits.toString());
  }
}
