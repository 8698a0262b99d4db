package dev.memsidecar.toolkit;

import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.api.ScoredRecord;
import dev.memsidecar.api.SearchQuery;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;

/**
 * Search latency of one {@link HybridIndex} in process, no gRPC, no store: the scan over every
 * record it replaced ({@link ScanHybridIndex}, "before") and the postings ("after"), both with the
 * exact vector scan, and how many queries the two rank differently (0 expected: the same hits in
 * the same order with the same scores). Records are team sentences ("Chen reviews the Kafka
 * consumer before every release (ticket 1042)") with random unit vectors; a query is 2-4 words of a
 * stored sentence with a vector near that record's ({@code near}: cosine about 0.7) or a random one
 * ({@code random}). Also the load cost per put of each.
 *
 * <pre>
 * java -Xmx3g -cp ... dev.memsidecar.toolkit.HybridIndexBench [records,...] [dimensions] [queries]
 * </pre>
 *
 * Defaults: 10000,100000 records, 384 dimensions, 2000 queries of top 10, meaning weight 0.8.
 */
public final class HybridIndexBench {
  private static final Namespace NS = Namespace.of("bench:workspace:bench");
  private static final Instant T0 = Instant.parse("2025-01-01T00:00:00Z");
  private static final String[] NAMES = {
    "Alice", "Bruno", "Chen", "Dana", "Emeka", "Farah", "Goran", "Hana", "Ines", "Jonas", "Kiran",
    "Lena", "Mateo", "Nadia", "Omar", "Priya", "Rosa", "Sven", "Tariq", "Uma", "Wen", "Zoe"
  };
  private static final String[] VERBS = {
    "prefers", "avoids", "reviews", "schedules", "deploys", "documents", "tests", "migrates",
    "monitors", "archives", "refactors", "benchmarks", "approves", "drafts", "rotates", "patches",
    "audits", "profiles", "demos", "owns", "escalates", "debugs", "plans"
  };
  private static final String[] OBJECTS = {
    "dark roast coffee",
    "the billing service",
    "green tea",
    "the release notes",
    "the staging cluster",
    "flaky integration tests",
    "the Postgres replica",
    "quarterly budget slides",
    "the onboarding checklist",
    "TLS certificates",
    "the Kafka consumer",
    "design review comments",
    "the mobile login screen",
    "weekly metrics dashboards",
    "the payment webhook",
    "legacy cron jobs",
    "the search ranking model",
    "customer support macros",
    "the Terraform modules",
    "the incident runbook",
    "vendor contracts",
    "the accessibility audit",
    "error budget reports",
    "the GraphQL gateway",
    "nightly backups",
    "the feature flag cleanup",
    "the data retention policy",
    "the Redis cache",
    "the CI pipeline",
    "the pricing page",
    "the SSO integration",
    "the churn report",
    "the Helm charts"
  };
  private static final String[] TIMES = {
    "before the 9am standup",
    "every Friday afternoon",
    "right after lunch",
    "during the on-call week",
    "at the end of each sprint",
    "on Monday mornings",
    "before every release",
    "late in the evening",
    "after the product sync",
    "twice a month",
    "in the Lisbon office",
    "ahead of board meetings",
    "when the pager is quiet"
  };

  private HybridIndexBench() {}

  public static void main(String[] args) {
    int[] sizes =
        Arrays.stream((args.length > 0 ? args[0] : "10000,100000").split(","))
            .mapToInt(Integer::parseInt)
            .toArray();
    int dimensions = args.length > 1 ? Integer.parseInt(args[1]) : 384;
    int queries = args.length > 2 ? Integer.parseInt(args[2]) : 2000;
    for (int size : sizes) {
      run(size, dimensions, queries);
    }
  }

  private static void run(int size, int dimensions, int queries) {
    Random random = new Random(42);
    List<MemoryRecord> records = new ArrayList<>(size);
    List<float[]> vectors = new ArrayList<>(size);
    for (int i = 0; i < size; i++) {
      records.add(record(random, i));
      vectors.add(TestHybridIndexEquivalence.randomUnit(random, dimensions));
    }
    double w = HybridScore.MEANING_WEIGHT;
    ScanHybridIndex before = new ScanHybridIndex(dimensions, w);
    HybridIndex index = new HybridIndex(dimensions, w);
    long beforeNanos = 0;
    long putNanos = 0;
    for (int i = 0; i < size; i++) {
      long t = System.nanoTime();
      before.put(records.get(i), vectors.get(i));
      beforeNanos += System.nanoTime() - t;
      t = System.nanoTime();
      index.put(records.get(i), vectors.get(i));
      putNanos += System.nanoTime() - t;
    }
    System.out.printf(
        Locale.ROOT,
        "%,d records x %d dims: load scan (before) %.2f us/put | postings %.2f us/put%n",
        size,
        dimensions,
        beforeNanos / 1e3 / size,
        putNanos / 1e3 / size);
    for (String kind : List.of("near", "random")) {
      List<SearchQuery> qs = new ArrayList<>();
      List<float[]> qv = new ArrayList<>();
      for (int i = 0; i < queries; i++) {
        int target = random.nextInt(records.size());
        qs.add(
            new SearchQuery(
                wordsOf(random, records.get(target).content()),
                null,
                10,
                Set.of(),
                List.of(),
                0f,
                T0.plusSeconds(1)));
        qv.add(
            kind.equals("near")
                ? near(random, vectors.get(target))
                : TestHybridIndexEquivalence.randomUnit(random, dimensions));
      }
      long[] tBefore = time(qs, qv, (q, v) -> before.search(q, v));
      long[] tIndex = time(qs, qv, (q, v) -> index.search(q, v));
      int differ = 0;
      for (int i = 0; i < queries; i++) {
        List<ScoredRecord> want = before.search(qs.get(i), qv.get(i));
        if (!want.equals(index.search(qs.get(i), qv.get(i)))) {
          differ++;
        }
      }
      System.out.printf(
          Locale.ROOT,
          "  %-6s queries: scan (before) p50 %6.2f p99 %6.2f ms | postings p50 %6.2f p99 %6.2f ms"
              + " | ranked differently: %d of %d%n",
          kind,
          percentile(tBefore, 0.5) / 1e6,
          percentile(tBefore, 0.99) / 1e6,
          percentile(tIndex, 0.5) / 1e6,
          percentile(tIndex, 0.99) / 1e6,
          differ,
          queries);
    }
  }

  private interface Searcher {
    List<ScoredRecord> search(SearchQuery q, float[] v);
  }

  /** Each query's time, after one unmeasured pass over the first quarter (JIT warm-up). */
  private static long[] time(List<SearchQuery> qs, List<float[]> qv, Searcher s) {
    for (int i = 0; i < qs.size() / 4; i++) {
      s.search(qs.get(i), qv.get(i));
    }
    long[] out = new long[qs.size()];
    for (int i = 0; i < qs.size(); i++) {
      long t = System.nanoTime();
      s.search(qs.get(i), qv.get(i));
      out[i] = System.nanoTime() - t;
    }
    return out;
  }

  private static double percentile(long[] values, double p) {
    long[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted.length == 0 ? 0 : sorted[(int) Math.min(sorted.length - 1, p * sorted.length)];
  }

  /** A unit vector at cosine about 0.7 to {@code v}. */
  private static float[] near(Random random, float[] v) {
    float[] noise = TestHybridIndexEquivalence.randomUnit(random, v.length);
    float[] out = new float[v.length];
    double norm = 0;
    for (int i = 0; i < v.length; i++) {
      out[i] = v[i] + noise[i];
      norm += out[i] * out[i];
    }
    for (int i = 0; i < v.length; i++) {
      out[i] /= (float) Math.sqrt(norm);
    }
    return out;
  }

  private static String wordsOf(Random random, String text) {
    String[] words = text.replaceAll("[^A-Za-z ]", "").split(" +");
    int n = 2 + random.nextInt(3);
    int from = random.nextInt(Math.max(1, words.length - n));
    return String.join(" ", Arrays.copyOfRange(words, from, Math.min(words.length, from + n)));
  }

  private static MemoryRecord record(Random random, int i) {
    String content =
        String.format(
            Locale.ROOT,
            "%s %s %s %s (ticket %d).",
            NAMES[random.nextInt(NAMES.length)],
            VERBS[random.nextInt(VERBS.length)],
            OBJECTS[random.nextInt(OBJECTS.length)],
            TIMES[random.nextInt(TIMES.length)],
            1000 + i);
    return MemoryRecord.builder()
        .namespace(NS)
        .id("r" + i)
        .profile("workspace")
        .content(content)
        .times(T0)
        .build();
  }
}
