package dev.memsidecar.toolkit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.memsidecar.api.MemoryKind;
import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.MemoryStatus;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.api.SearchQuery;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The postings-based index ranks exactly as the scan over every record it replaced ({@link
 * ScanHybridIndex}): same hits, same scores, same order, through puts, replacements and removals.
 * Random inputs from a seed each failure message prints.
 */
class TestHybridIndexEquivalence {
  private static final Namespace NS = Namespace.of("acme:user:alice:user");
  private static final Instant T0 = Instant.parse("2025-01-01T00:00:00Z");
  private static final List<String> NAMES = List.of("Caroline", "Melanie", "Chen", "Dana", "Omar");
  private static final List<String> WORDS =
      List.of(
          "kafka",
          "release",
          "budget",
          "painted",
          "paints",
          "camping",
          "lake",
          "deploy",
          "review",
          "outage",
          "ticket",
          "the",
          "team",
          "lunch",
          "thursday",
          "consumer",
          "migration",
          "tests",
          "dashboard",
          "alerts",
          "rotation",
          "secrets",
          "vault",
          "oncall",
          "runbook",
          "latency",
          "postgres",
          "index",
          "vector",
          "graph",
          "support",
          "group",
          "adoption",
          "painting");
  private static final List<String> TAGS = List.of("ops", "people", "infra", "rare");

  private final HashEmbedder embedder = new HashEmbedder();

  private static String words(Random random, int min, int max) {
    int n = min + random.nextInt(max - min + 1);
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < n; i++) {
      out.append(i == 0 ? "" : " ").append(WORDS.get(random.nextInt(WORDS.size())));
    }
    return out.toString();
  }

  private static MemoryRecord record(Random random, String id) {
    String content = words(random, 1, 12);
    if (random.nextInt(3) == 0) {
      content = NAMES.get(random.nextInt(NAMES.size())) + ": " + content;
    }
    List<String> tags = new ArrayList<>();
    for (String tag : TAGS) {
      if (random.nextInt(tag.equals("rare") ? 30 : 4) == 0) {
        tags.add(tag);
      }
    }
    int roll = random.nextInt(20);
    return MemoryRecord.builder()
        .namespace(NS)
        .id(id)
        .profile("workspace")
        .kind(MemoryKind.values()[random.nextInt(3)])
        .content(content)
        .summary(random.nextInt(4) == 0 ? words(random, 1, 3) : "")
        .context(random.nextBoolean() ? words(random, 0, 15) : "")
        .tags(tags)
        .times(T0.plusSeconds(random.nextInt(50))) // ties in update time happen
        .status(roll == 0 ? MemoryStatus.FORGOTTEN : MemoryStatus.ACTIVE)
        .expireTime(roll == 1 ? T0.plusSeconds(30) : null)
        .build();
  }

  private float[] vectorOf(Random random, MemoryRecord r) {
    return random.nextInt(10) == 0
        ? new float[embedder.dimensions()]
        : embedder.embed(r.indexedText());
  }

  private SearchQuery query(Random random) {
    String text =
        switch (random.nextInt(6)) {
          case 0 -> "";
          case 1 -> "the"; // a stopword alone: no keywords
          case 2 -> NAMES.get(random.nextInt(NAMES.size())) + " " + words(random, 1, 3);
          case 3 -> "unheard " + words(random, 1, 2);
          default -> words(random, 1, 5);
        };
    Set<MemoryKind> kinds =
        random.nextInt(4) == 0 ? Set.of(MemoryKind.values()[random.nextInt(3)]) : Set.of();
    List<String> tags =
        random.nextInt(5) == 0 ? List.of(TAGS.get(random.nextInt(TAGS.size()))) : List.of();
    float minScore = random.nextInt(4) == 0 ? random.nextFloat() * 0.6f : 0f;
    int topK = 1 + random.nextInt(random.nextBoolean() ? 10 : 60);
    return new SearchQuery(
        text, null, topK, kinds, tags, minScore, T0.plusSeconds(random.nextInt(60)));
  }

  private float[] queryVector(Random random, SearchQuery q) {
    return switch (random.nextInt(5)) {
      case 0 -> new float[embedder.dimensions()];
      case 1 -> randomUnit(random, embedder.dimensions());
      default -> embedder.embed(q.text());
    };
  }

  static float[] randomUnit(Random random, int dimensions) {
    float[] v = new float[dimensions];
    double norm = 0;
    for (int i = 0; i < dimensions; i++) {
      v[i] = (float) random.nextGaussian();
      norm += v[i] * v[i];
    }
    for (int i = 0; i < dimensions; i++) {
      v[i] /= (float) Math.sqrt(norm);
    }
    return v;
  }

  @Test
  void postingsRankExactlyAsTheScanOverEveryRecord() {
    long seed = new Random().nextLong();
    Random random = new Random(seed);
    ScanHybridIndex scan = new ScanHybridIndex(embedder.dimensions(), 0.5);
    HybridIndex index = new HybridIndex(embedder.dimensions(), 0.5);
    List<String> ids = new ArrayList<>();
    for (int round = 0; round < 6; round++) {
      // Puts of new records, puts replacing one (same or other text), removals.
      for (int op = 0; op < 150; op++) {
        int roll = random.nextInt(10);
        if (roll < 6 || ids.isEmpty()) {
          String id = "r" + ids.size() + "-" + round + "-" + op;
          ids.add(id);
          MemoryRecord r = record(random, id);
          float[] v = vectorOf(random, r);
          scan.put(r, v);
          index.put(r, v);
        } else if (roll < 8) {
          String id = ids.get(random.nextInt(ids.size()));
          MemoryRecord r = record(random, id);
          float[] v = vectorOf(random, r);
          scan.put(r, v);
          index.put(r, v);
        } else {
          String id = ids.remove(random.nextInt(ids.size()));
          scan.remove(id);
          index.remove(id);
        }
      }
      assertEquals(scan.size(), index.size(), "seed " + seed);
      for (int i = 0; i < 60; i++) {
        SearchQuery q = query(random);
        float[] v = queryVector(random, q);
        assertEquals(
            scan.search(q, v), index.search(q, v), "seed " + seed + ", round " + round + ", " + q);
      }
    }
  }

  /** Above {@link Halves#SPLIT_FROM} records a search scores the two halves on two threads. */
  @Test
  void searchesSplitInHalvesRankExactlyAsTheScan() {
    long seed = new Random().nextLong();
    Random random = new Random(seed);
    ScanHybridIndex scan = new ScanHybridIndex(embedder.dimensions(), 0.5);
    // Every vector compared (no sketches), as the scan does.
    HybridIndex index = new HybridIndex(embedder.dimensions(), 0.5, Integer.MAX_VALUE);
    int records = Halves.SPLIT_FROM + 4_000;
    for (int i = 0; i < records; i++) {
      MemoryRecord r = record(random, "r" + i);
      float[] v = vectorOf(random, r);
      scan.put(r, v);
      index.put(r, v);
    }
    for (int i = 0; i < 1_000; i++) {
      String id = "r" + random.nextInt(records);
      scan.remove(id);
      index.remove(id);
    }
    assertEquals(scan.size(), index.size(), "seed " + seed);
    for (int i = 0; i < 40; i++) {
      SearchQuery q = query(random);
      float[] v = queryVector(random, q);
      assertEquals(scan.search(q, v), index.search(q, v), "seed " + seed + ", " + q);
    }
  }
}
