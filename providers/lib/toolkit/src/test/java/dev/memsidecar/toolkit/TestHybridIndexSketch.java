package dev.memsidecar.toolkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.api.MemoryKind;
import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.api.ScoredRecord;
import dev.memsidecar.api.SearchQuery;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The search of a namespace larger than {@link HybridIndex#EXACT_UP_TO}, which compares the query
 * only with the records its {@link SignSketch sketches} make likeliest, against the search that
 * compares it with all of them.
 */
class TestHybridIndexSketch {
  private static final Namespace NS = Namespace.of("acme:user:alice:user");
  private static final Instant T0 = Instant.parse("2025-01-01T00:00:00Z");
  private static final int DIMENSIONS = 384;
  private static final int RECORDS = 30_000;
  private static final double W = HybridScore.MEANING_WEIGHT;

  private final Random random = new Random(11);
  // Vectors around 300 topics, sharing a common component as a model's do. (Vectors all as far
  // from their topic, their neighbours told apart by noise alone, are the sketches' worst case:
  // recall@10 0.87 at 384 dimensions. With bge-small-en-q it is 0.994 at 100,000 records.)
  private final float[][] topics = new float[300][];
  private final float[] common = TestHybridIndexEquivalence.randomUnit(random, DIMENSIONS);

  {
    for (int i = 0; i < topics.length; i++) {
      topics[i] = TestHybridIndexEquivalence.randomUnit(random, DIMENSIONS);
    }
  }

  private float[] near(float[] center, double noise) {
    float[] v = new float[DIMENSIONS];
    double norm = 0;
    for (int i = 0; i < DIMENSIONS; i++) {
      v[i] =
          (float)
              (center[i]
                  + 0.8 * common[i]
                  + noise * random.nextGaussian() / Math.sqrt(DIMENSIONS / 8.0));
      norm += v[i] * v[i];
    }
    for (int i = 0; i < DIMENSIONS; i++) {
      v[i] /= (float) Math.sqrt(norm);
    }
    return v;
  }

  /** A record's vector: near one topic, some closer to it than others, as texts are. */
  private float[] someVector() {
    return near(topics[random.nextInt(topics.length)], 0.3 + 1.2 * random.nextDouble());
  }

  private static MemoryRecord record(int i, MemoryKind kind) {
    return MemoryRecord.builder()
        .namespace(NS)
        .id("r" + i)
        .profile("workspace")
        .kind(kind)
        .content("note " + i + (i % 7 == 0 ? " about the billing service" : " about lunch"))
        .times(T0)
        .build();
  }

  private static SearchQuery query(String text, Set<MemoryKind> kinds) {
    return new SearchQuery(text, null, 10, kinds, List.of(), 0f, T0.plusSeconds(60));
  }

  /** Puts the same records with the same vectors into both indexes. */
  private Map<Integer, float[]> fill(HybridIndex sketched, HybridIndex exact, int records) {
    Map<Integer, float[]> vectors = new HashMap<>();
    for (int i = 0; i < records; i++) {
      MemoryRecord r = record(i, i % 1000 == 0 ? MemoryKind.EPISODIC : MemoryKind.SEMANTIC);
      float[] v = someVector();
      vectors.put(i, v);
      sketched.put(r, v);
      exact.put(r, v);
    }
    return vectors;
  }

  @Test
  void aLargeNamespaceFindsNearlyWhatComparingEveryRecordFinds() {
    // Sentences of a small vocabulary with hash vectors, queried by a few of their words.
    HashEmbedder hash = new HashEmbedder(DIMENSIONS);
    double w = HybridScore.meaningWeightFor(HashEmbedder.NAME);
    HybridIndex sketched = new HybridIndex(DIMENSIONS, w, 10_000);
    HybridIndex exact = new HybridIndex(DIMENSIONS, w, Integer.MAX_VALUE);
    String[] who = {"Alice", "Bruno", "Chen", "Dana", "Emeka", "Farah", "Goran", "Hana", "Ines"};
    String[] does = {"reviews", "deploys", "tests", "migrates", "monitors", "patches", "audits"};
    String[] what = {
      "the billing service",
      "green tea",
      "the staging cluster",
      "the Kafka consumer",
      "the Redis cache",
      "nightly backups",
      "the pricing page",
      "the Helm charts",
      "vendor contracts"
    };
    String[] when = {"on Fridays", "after lunch", "before every release", "twice a month"};
    List<String> texts = new java.util.ArrayList<>();
    for (int i = 0; i < RECORDS; i++) {
      String text =
          String.join(
              " ",
              who[random.nextInt(who.length)],
              does[random.nextInt(does.length)],
              what[random.nextInt(what.length)],
              when[random.nextInt(when.length)],
              "(ticket " + (1000 + i) + ")");
      texts.add(text);
      MemoryRecord r =
          MemoryRecord.builder()
              .namespace(NS)
              .id("r" + i)
              .profile("workspace")
              .content(text)
              .times(T0)
              .build();
      float[] v = hash.embed(r.indexedText());
      sketched.put(r, v);
      exact.put(r, v);
    }
    assertTrue(sketched.sketches());
    assertFalse(exact.sketches());
    int found = 0;
    int asked = 0;
    for (int q = 0; q < 200; q++) {
      String[] words = texts.get(random.nextInt(RECORDS)).split(" ");
      String text = words[random.nextInt(3)] + " " + words[3 + random.nextInt(3)];
      SearchQuery query = query(text, Set.of());
      float[] v = hash.embed(text);
      List<ScoredRecord> want = exact.search(query, v);
      Map<String, Float> wanted = new HashMap<>();
      want.forEach(h -> wanted.put(h.record().id(), h.score()));
      float last = want.get(want.size() - 1).score();
      for (ScoredRecord hit : sketched.search(query, v)) {
        Float score = wanted.get(hit.record().id());
        if (score != null) {
          assertEquals(score, hit.score(), "a hit is scored exactly");
        }
        // Many sentences score the same: one tied with the exact search's last is as good.
        found += hit.score() >= last ? 1 : 0;
      }
      asked += want.size();
    }
    double recall = found / (double) asked;
    assertTrue(recall >= 0.99, "recall@10 against the exact search: " + recall);
  }

  @Test
  void aFilterFewRecordsPassStillFillsTheHits() {
    HybridIndex sketched = new HybridIndex(DIMENSIONS, W, 10_000);
    HybridIndex exact = new HybridIndex(DIMENSIONS, W, Integer.MAX_VALUE);
    fill(sketched, exact, RECORDS);
    SearchQuery episodes = query("lunch", Set.of(MemoryKind.EPISODIC));
    float[] v = someVector();
    List<ScoredRecord> got = sketched.search(episodes, v);
    assertEquals(10, got.size());
    assertEquals(ids(exact.search(episodes, v)), ids(got));
  }

  @Test
  void sketchesFollowTheirRecordsThroughRemovalsAndLateVectors() {
    HybridIndex index = new HybridIndex(DIMENSIONS, W, 10_000);
    // Records first, their vectors later, as langmem-sqlite's write-behind vectors land.
    float[] none = new float[DIMENSIONS];
    for (int i = 0; i < RECORDS; i++) {
      index.put(record(i, MemoryKind.SEMANTIC), none);
    }
    Map<Integer, float[]> vectors = new HashMap<>();
    for (int i = 0; i < RECORDS; i++) {
      float[] v = someVector();
      vectors.put(i, v);
      index.put(record(i, MemoryKind.SEMANTIC), v);
    }
    // Removing moves the last records into the holes, their sketches with them.
    for (int i = 0; i < RECORDS; i += 3) {
      index.remove("r" + i);
      vectors.remove(i);
    }
    assertTrue(index.sketches());
    for (int i = 1; i < RECORDS; i += 97) {
      if (vectors.containsKey(i)) {
        List<ScoredRecord> hits =
            index.search(query("nothing matches this", Set.of()), vectors.get(i));
        assertEquals("r" + i, hits.get(0).record().id(), "a record is found by its own vector");
      }
    }
  }

  private static List<String> ids(List<ScoredRecord> hits) {
    return hits.stream().map(h -> h.record().id()).toList();
  }
}
