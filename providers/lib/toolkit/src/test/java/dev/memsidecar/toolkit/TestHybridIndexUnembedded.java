package dev.memsidecar.toolkit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.api.ScoredRecord;
import dev.memsidecar.api.SearchQuery;
import java.time.Instant;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A record whose vector is still to be made (an all-zero embedding, in a store that makes vectors
 * behind its writes) is found by its words at once: scored by them alone, in the exact pass and in
 * the sketched one, not ranked below every record that has a vector.
 */
class TestHybridIndexUnembedded {
  private static final Namespace NS = Namespace.of("acme:user:alice:user");
  private static final Instant T0 = Instant.parse("2025-01-01T00:00:00Z");
  private static final int DIMENSIONS = 64;
  private static final double W = HybridScore.MEANING_WEIGHT;

  private final Random random = new Random(5);

  /** Vectors all close to the query's, so that any record with one scores high on meaning. */
  private float[] nearQuery(float[] query) {
    float[] v = new float[DIMENSIONS];
    double norm = 0;
    for (int i = 0; i < DIMENSIONS; i++) {
      v[i] = (float) (query[i] + 0.2 * random.nextGaussian() / Math.sqrt(DIMENSIONS));
      norm += v[i] * v[i];
    }
    for (int i = 0; i < DIMENSIONS; i++) {
      v[i] /= (float) Math.sqrt(norm);
    }
    return v;
  }

  private static MemoryRecord record(String id, String content) {
    return MemoryRecord.builder()
        .namespace(NS)
        .id(id)
        .profile("workspace")
        .content(content)
        .times(T0)
        .build();
  }

  private static SearchQuery query(float[] vector) {
    return new SearchQuery("zanzibar ferry", vector, 5, Set.of(), List.of(), 0f, T0.plusSeconds(9));
  }

  @ParameterizedTest(name = "{0} records with vectors")
  @ValueSource(ints = {40, 3_000})
  void aRecordWithoutItsVectorIsFoundByItsWordsAtOnce(int others) {
    // Above 1,000 records, searched through sketches (exact up to 1,000 here).
    HybridIndex index = new HybridIndex(DIMENSIONS, W, 1_000);
    float[] q = TestHybridIndexEquivalence.randomUnit(random, DIMENSIONS);
    for (int i = 0; i < others; i++) {
      index.put(record("r" + i, "note " + i + " about the ferry timetable"), nearQuery(q));
    }
    MemoryRecord fresh = record("fresh", "the zanzibar ferry leaves at nine");
    index.put(fresh, new float[DIMENSIONS]);

    List<ScoredRecord> hits = index.search(query(q), q);
    assertEquals("fresh", hits.get(0).record().id(), "found by its words: " + hits);
    // Scored as a query without a vector scores a record: its share of the best BM25F, here 1.
    assertEquals(HybridScore.of(W, false, true, 0, 1.0, false), hits.get(0).score(), 1e-6f);

    // Its vector lands: scored on meaning and words like the others.
    index.put(fresh, q);
    hits = index.search(query(q), q);
    assertEquals("fresh", hits.get(0).record().id());
    assertEquals(HybridScore.of(W, true, true, 1.0, 1.0, false), hits.get(0).score(), 1e-5f);
  }

  @ParameterizedTest(name = "{0} records with vectors")
  @ValueSource(ints = {40, 3_000})
  void aRemovalThatMovesARecordKeepsWhetherItHasAVector(int others) {
    HybridIndex index = new HybridIndex(DIMENSIONS, W, 1_000);
    float[] q = TestHybridIndexEquivalence.randomUnit(random, DIMENSIONS);
    // Vectors of other meanings than the query's, this time.
    index.put(
        record("first", "the first note about the ferry"),
        TestHybridIndexEquivalence.randomUnit(random, DIMENSIONS));
    for (int i = 0; i < others; i++) {
      index.put(
          record("r" + i, "note " + i + " about the ferry timetable"),
          TestHybridIndexEquivalence.randomUnit(random, DIMENSIONS));
    }
    // The last slot holds the record without a vector; removing the first moves it into slot 0,
    // and the slot it leaves is taken by a record with a vector.
    index.put(record("fresh", "the zanzibar ferry leaves at nine"), new float[DIMENSIONS]);
    index.remove("first");
    index.put(record("later", "a later note on the bus timetable"), q);

    List<ScoredRecord> hits = index.search(query(q), q);
    assertEquals("fresh", hits.get(0).record().id(), "still scored by its words: " + hits);
    ScoredRecord later =
        hits.stream().filter(h -> h.record().id().equals("later")).findFirst().orElseThrow();
    // No query word: scored on meaning alone (its words would give it 0).
    assertEquals(HybridScore.of(W, true, true, 1.0, 0, false), later.score(), 1e-5f);
  }
}
