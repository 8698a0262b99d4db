package dev.memsidecar.bench;

import dev.memsidecar.api.Embedder;
import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.api.ScoredRecord;
import dev.memsidecar.api.SearchQuery;
import dev.memsidecar.bench.RankBench.CachingEmbedder;
import dev.memsidecar.provider.embedder.BgeSmallEnQuantizedEmbedder;
import dev.memsidecar.sidecar.bench.Figures;
import dev.memsidecar.sidecar.bench.Sentences;
import dev.memsidecar.toolkit.HashEmbedder;
import dev.memsidecar.toolkit.HybridIndex;
import dev.memsidecar.toolkit.HybridScore;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * What langmem-sqlite's search of a large namespace gives up by comparing the query with only the
 * likeliest records ({@link HybridIndex#EXACT_UP_TO}), in process, with the model's own vectors:
 * for each size, the same records in an index that compares every record and in one that sketches
 * (its exact-up-to set to 0, so it sketches at any size), the same queries to both; recall@k of the
 * sketched hits against the exact ones, the share of queries with the very same hits, and the
 * search latency of each (one thread).
 *
 * <p>Records are {@code bench load}'s sentences ({@link Sentences}, seed 42); a query is 2-4 words
 * of one of them, as {@code bench load} draws them. Embeddings are cached in {@code --cache}.
 *
 * <pre>
 * java -cp it/bench/target/memsidecar-bench.jar dev.memsidecar.bench.SketchBench
 *     [--sizes 25000,100000] [--queries 1000] [--embedder bge-small-en-q|hash] [--cache DIR]
 * </pre>
 */
public final class SketchBench {
  private static final Namespace NS = Namespace.of("bench:workspace:sketch");
  private static final Instant T0 = Instant.parse("2025-01-01T00:00:00Z");
  private static final int TOP_K = 10;

  @Command(description = "Recall and latency of the sketched search against the exact one.")
  private static final class Options {
    @Option(names = "--sizes", split = ",", paramLabel = "N", description = "records per index")
    List<Integer> sizes = List.of(25_000, 100_000);

    @Option(names = "--queries", paramLabel = "N", description = "queries per size")
    int queries = 1000;

    @Option(names = "--embedder", paramLabel = "NAME", description = "bge-small-en-q or hash")
    String embedder = "bge-small-en-q";

    @Option(names = "--cache", paramLabel = "DIR", description = "embeddings, a file per embedder")
    Path cache = Path.of("/tmp/rank-cache");
  }

  private SketchBench() {}

  public static void main(String[] args) throws Exception {
    Options o = BenchArguments.parseOrExit(new Options(), args);
    Embedder base =
        o.embedder.equals("hash") ? new HashEmbedder() : new BgeSmallEnQuantizedEmbedder();
    CachingEmbedder embedder =
        new CachingEmbedder(base, o.cache.resolve("sketch-" + o.embedder + ".bin"));
    int largest = o.sizes.stream().mapToInt(Integer::intValue).max().orElseThrow();
    Sentences sentences = new Sentences(42);
    List<String> texts = new ArrayList<>(largest);
    for (int i = 0; i < largest; i++) {
      texts.add(sentences.next());
    }
    Random random = new Random(7);
    List<String> queries = new ArrayList<>(o.queries);
    for (int i = 0; i < o.queries; i++) {
      queries.add(query(texts.get(random.nextInt(largest)), random));
    }
    List<String> all = new ArrayList<>(texts);
    all.addAll(queries);
    embedder.warm(all);
    double w = HybridScore.meaningWeightFor(embedder.name());
    System.out.printf(
        Locale.ROOT,
        "| records | recall@%d | same hits | exact p50 / p99 | sketched p50 / p99 |%n"
            + "|---:|---:|---:|---:|---:|%n",
        TOP_K);
    for (int size : o.sizes) {
      HybridIndex exact = new HybridIndex(embedder.dimensions(), w, Integer.MAX_VALUE);
      HybridIndex sketched = new HybridIndex(embedder.dimensions(), w, 0);
      for (int i = 0; i < size; i++) {
        MemoryRecord r = record(i, texts.get(i));
        // The store embeds r.indexedText(), the text and a newline: the same tokens.
        float[] v = embedder.embed(texts.get(i));
        exact.put(r, v);
        sketched.put(r, v);
      }
      long[] exactNanos = new long[queries.size()];
      long[] sketchedNanos = new long[queries.size()];
      int found = 0;
      int same = 0;
      for (int round = 0; round < 2; round++) { // the first warms the JIT
        found = 0;
        same = 0;
        for (int q = 0; q < queries.size(); q++) {
          SearchQuery query = new SearchQuery(queries.get(q), null, TOP_K, null, null, 0f, T0);
          float[] v = embedder.embed(queries.get(q));
          long t0 = System.nanoTime();
          List<ScoredRecord> want = exact.search(query, v);
          long t1 = System.nanoTime();
          List<ScoredRecord> got = sketched.search(query, v);
          long t2 = System.nanoTime();
          exactNanos[q] = t1 - t0;
          sketchedNanos[q] = t2 - t1;
          Set<String> wanted = new HashSet<>();
          want.forEach(h -> wanted.add(h.record().id()));
          int hit = 0;
          for (ScoredRecord h : got) {
            hit += wanted.contains(h.record().id()) ? 1 : 0;
          }
          found += hit;
          same += ids(want).equals(ids(got)) ? 1 : 0;
        }
      }
      Arrays.sort(exactNanos);
      Arrays.sort(sketchedNanos);
      System.out.printf(
          Locale.ROOT,
          "| %,d | %.4f | %.1f%% | %.2f / %.2f ms | %.2f / %.2f ms |%n",
          size,
          found / (double) (TOP_K * queries.size()),
          100.0 * same / queries.size(),
          Figures.millis(Figures.percentile(exactNanos, 50)),
          Figures.millis(Figures.percentile(exactNanos, 99)),
          Figures.millis(Figures.percentile(sketchedNanos, 50)),
          Figures.millis(Figures.percentile(sketchedNanos, 99)));
    }
  }

  private static List<String> ids(List<ScoredRecord> hits) {
    return hits.stream().map(h -> h.record().id()).toList();
  }

  private static MemoryRecord record(int i, String text) {
    return MemoryRecord.builder()
        .namespace(NS)
        .id("r" + i)
        .profile("workspace")
        .content(text)
        .times(T0)
        .build();
  }

  /** 2-4 distinct words of {@code text} longer than two letters, in their order. */
  private static String query(String text, Random random) {
    List<String> words = new ArrayList<>();
    for (String w : text.split("[^\\p{L}\\p{N}]+")) {
      if (w.length() > 2 && !w.chars().allMatch(Character::isDigit) && !words.contains(w)) {
        words.add(w);
      }
    }
    int want = Math.min(words.size(), 2 + random.nextInt(3));
    List<Integer> picked = new ArrayList<>();
    while (picked.size() < want) {
      int at = random.nextInt(words.size());
      if (!picked.contains(at)) {
        picked.add(at);
      }
    }
    picked.sort(null);
    StringBuilder q = new StringBuilder();
    for (int at : picked) {
      q.append(q.isEmpty() ? "" : " ").append(words.get(at));
    }
    return q.toString();
  }
}
