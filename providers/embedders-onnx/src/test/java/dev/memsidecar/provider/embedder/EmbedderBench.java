package dev.memsidecar.provider.embedder;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.memsidecar.api.Embedder;
import dev.memsidecar.toolkit.HashEmbedder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Prints the figures of the ONNX embedders: model load time and resident memory, single-text
 * latency, throughput per batch size, concurrent callers through the micro-batcher, and retrieval
 * quality (the tests' pairs, and dense-only evidence recall on LoCoMo turns when given the file).
 * Not a test: run it on a quiet machine.
 *
 * <pre>
 * mvn -B -q install -DskipTests -f providers/embedders-onnx/pom.xml
 * mvn -B -q dependency:build-classpath -Dmdep.outputFile=/tmp/cp.txt -f providers/embedders-onnx/pom.xml
 * java -cp providers/embedders-onnx/target/test-classes:providers/embedders-onnx/target/classes:$(cat /tmp/cp.txt) \
 *   dev.memsidecar.provider.embedder.EmbedderBench [bge-small-en|bge-small-en-q|bge-small-zh] \
 *   [--threads N] [--arena on|off] [--locomo ../shared/bench/locomo-dev.json] [--skip-speed] [--skip-recall]
 * </pre>
 */
public final class EmbedderBench {
  /** The query instruction the bge-en model card suggests for short-query retrieval. */
  static final String EN_INSTRUCTION = "Represent this sentence for searching relevant passages: ";

  private EmbedderBench() {}

  public static void main(String[] args) throws Exception {
    String model = "bge-small-en";
    int threads = 0;
    boolean arena = false;
    Path locomo = null;
    boolean speed = true;
    boolean recall = true;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--threads" -> threads = Integer.parseInt(args[++i]);
        case "--arena" -> arena = OnnxBertEmbedder.arenaSetting(args[++i], null);
        case "--locomo" -> locomo = Path.of(args[++i]);
        case "--skip-speed" -> speed = false;
        case "--skip-recall" -> recall = false;
        default -> model = args[i];
      }
    }
    ModelSpec spec = spec(model);
    System.out.printf(
        Locale.ROOT,
        "%s, ONNX Runtime threads %s, arena %s, %d cores, java %s%n",
        spec.name(),
        threads == 0 ? "default" : threads,
        arena ? "on" : "off",
        Runtime.getRuntime().availableProcessors(),
        Runtime.version());
    System.out.printf(Locale.ROOT, "RSS before load: %d MiB%n", rssMib("VmRSS"));

    OnnxBertEmbedder embedder = new OnnxBertEmbedder(spec, threads, arena, 0);
    long t0 = System.nanoTime();
    OnnxBertEncoder encoder = embedder.encoder();
    long loadMs = (System.nanoTime() - t0) / 1_000_000;
    long firstT = System.nanoTime();
    embedder.embed("warm up the session");
    long firstMs = (System.nanoTime() - firstT) / 1_000_000;
    System.gc();
    Thread.sleep(300);
    System.out.printf(
        Locale.ROOT,
        "load: %d ms (%s); first embed %d ms; RSS after load %d MiB%n",
        loadMs,
        encoder.loadTimes(),
        firstMs,
        rssMib("VmRSS"));

    List<String> texts = sampleTexts(locomo, spec);
    if (speed) {
      speed(embedder, encoder, spec, texts, threads);
    }
    retrieval(embedder, spec, recall ? locomo : null);
    System.out.printf(
        Locale.ROOT, "RSS at end %d MiB, peak %d MiB%n", rssMib("VmRSS"), rssMib("VmHWM"));
    System.exit(0);
  }

  static ModelSpec spec(String name) {
    return switch (name) {
      case "bge-small-en" -> ModelSpec.BGE_SMALL_EN;
      case "bge-small-zh" -> ModelSpec.BGE_SMALL_ZH;
      case "bge-small-en-q" -> ModelSpec.BGE_SMALL_EN_Q;
      default -> throw new IllegalArgumentException("unknown model " + name);
    };
  }

  private static void speed(
      OnnxBertEmbedder embedder,
      OnnxBertEncoder encoder,
      ModelSpec spec,
      List<String> texts,
      int threads)
      throws Exception {
    int[] tokens = texts.stream().mapToInt(t -> encoder.tokenize(t).length).sorted().toArray();
    System.out.printf(
        Locale.ROOT,
        "texts: %d, tokens per text p50 %d, p90 %d, max %d%n",
        texts.size(),
        tokens[tokens.length / 2],
        tokens[tokens.length * 9 / 10],
        tokens[tokens.length - 1]);

    // Single texts, one caller: what a Search pays for its query.
    List<String> singles = texts.subList(0, Math.min(200, texts.size()));
    for (int i = 0; i < 10; i++) {
      embedder.embed(singles.get(i));
    }
    long[] latency = new long[singles.size()];
    for (int i = 0; i < singles.size(); i++) {
      long t = System.nanoTime();
      embedder.embed(singles.get(i));
      latency[i] = System.nanoTime() - t;
    }
    Arrays.sort(latency);
    System.out.printf(
        Locale.ROOT,
        "single text, one caller: p50 %.1f ms, p99 %.1f ms%n",
        pct(latency, 0.50),
        pct(latency, 0.99));
    // A short query, like Search's.
    String query = "What did Caroline do after the support group?";
    long[] q = new long[100];
    for (int i = 0; i < q.length; i++) {
      long t = System.nanoTime();
      embedder.embed(query);
      q[i] = System.nanoTime() - t;
    }
    Arrays.sort(q);
    System.out.printf(
        Locale.ROOT,
        "short query (%d tokens): p50 %.1f ms, p99 %.1f ms%n",
        encoder.tokenize(query).length,
        pct(q, 0.50),
        pct(q, 0.99));

    // Fixed batch sizes, texts in their given order (padding as it comes).
    List<String> pool = texts.subList(0, Math.min(256, texts.size()));
    for (int batch : new int[] {1, 8, 32}) {
      long t = System.nanoTime();
      for (int i = 0; i < pool.size(); i += batch) {
        List<int[]> rows = new ArrayList<>();
        for (String s : pool.subList(i, Math.min(pool.size(), i + batch))) {
          rows.add(encoder.tokenize(s));
        }
        encoder.run(rows);
      }
      double s = (System.nanoTime() - t) / 1e9;
      System.out.printf(Locale.ROOT, "batch %2d: %.0f texts/s%n", batch, pool.size() / s);
    }
    long t = System.nanoTime();
    embedder.embedAll(pool);
    System.out.printf(
        Locale.ROOT,
        "embedAll (length-sorted, planned runs): %.0f texts/s%n",
        pool.size() / ((System.nanoTime() - t) / 1e9));

    // Concurrent callers of embed(): the micro-batcher.
    for (long lingerMicros : new long[] {0, 1000, 2000}) {
      embedder.linger(lingerMicros * 1000);
      for (int callers : new int[] {1, 4, 16}) {
        concurrent(embedder, pool, callers, lingerMicros);
      }
    }
    embedder.linger(OnnxBertEmbedder.LINGER_NANOS);
  }

  private static void concurrent(
      OnnxBertEmbedder embedder, List<String> pool, int callers, long lingerMicros)
      throws Exception {
    int total = Math.min(pool.size(), 160);
    AtomicInteger next = new AtomicInteger();
    long[] latency = new long[total];
    ExecutorService executor = Executors.newFixedThreadPool(callers);
    try {
      long t = System.nanoTime();
      List<Future<?>> futures = new ArrayList<>();
      for (int c = 0; c < callers; c++) {
        futures.add(
            executor.submit(
                () -> {
                  for (int i; (i = next.getAndIncrement()) < total; ) {
                    long s = System.nanoTime();
                    embedder.embed(pool.get(i));
                    latency[i] = System.nanoTime() - s;
                  }
                }));
      }
      for (Future<?> f : futures) {
        f.get();
      }
      double s = (System.nanoTime() - t) / 1e9;
      Arrays.sort(latency);
      System.out.printf(
          Locale.ROOT,
          "embed() from %2d callers, linger %4d us: %.0f texts/s, latency p50 %.1f ms, p99 %.1f"
              + " ms%n",
          callers,
          lingerMicros,
          total / s,
          pct(latency, 0.5),
          pct(latency, 0.99));
    } finally {
      executor.shutdownNow();
    }
  }

  private static void retrieval(OnnxBertEmbedder embedder, ModelSpec spec, Path locomo)
      throws IOException {
    HashEmbedder hash = new HashEmbedder();
    List<String[]> pairs =
        spec == ModelSpec.BGE_SMALL_ZH ? TestRetrieval.chinese() : TestRetrieval.english();
    System.out.printf(
        Locale.ROOT,
        "test pairs ranked first: %s %d, hash %d, of %d%n",
        spec.name(),
        TestRetrieval.firsts(embedder, pairs),
        TestRetrieval.firsts(hash, pairs),
        pairs.size());
    if (locomo == null) {
      return;
    }
    Map<String, Embedder> embedders = new LinkedHashMap<>();
    embedders.put("hash", hash);
    embedders.put(spec.name(), embedder);
    for (Map.Entry<String, Embedder> e : embedders.entrySet()) {
      long t = System.nanoTime();
      double[] r = locomoRecall(locomo, e.getValue(), "");
      System.out.printf(
          Locale.ROOT,
          "LoCoMo dense-only %s: R@5 %.3f R@10 %.3f R@25 %.3f (%d questions, %.0f s)%n",
          e.getKey(),
          r[0],
          r[1],
          r[2],
          (int) r[3],
          (System.nanoTime() - t) / 1e9);
    }
    if (spec != ModelSpec.BGE_SMALL_ZH) {
      double[] r = locomoRecall(locomo, embedder, EN_INSTRUCTION);
      System.out.printf(
          Locale.ROOT,
          "LoCoMo dense-only %s, query instruction: R@5 %.3f R@10 %.3f R@25 %.3f%n",
          spec.name(),
          r[0],
          r[1],
          r[2]);
    }
  }

  /**
   * Dialog-level evidence recall at 5, 10, 25: every turn ("speaker: text", plus its image caption)
   * embedded, every question ranked against its conversation's turns by cosine.
   */
  static double[] locomoRecall(Path file, Embedder embedder, String queryPrefix)
      throws IOException {
    JsonNode root = new ObjectMapper().readTree(Files.readAllBytes(file));
    int[] ks = {5, 10, 25};
    double[] sum = new double[3];
    int questions = 0;
    for (JsonNode sample : root) {
      JsonNode conversation = sample.get("conversation");
      List<String> ids = new ArrayList<>();
      List<String> turns = new ArrayList<>();
      for (Iterator<String> it = conversation.fieldNames(); it.hasNext(); ) {
        String key = it.next();
        JsonNode session = conversation.get(key);
        if (!key.startsWith("session_") || !session.isArray()) {
          continue;
        }
        for (JsonNode turn : session) {
          String text = turn.get("speaker").asText() + ": " + turn.get("text").asText();
          if (turn.has("blip_caption")) {
            text += " [image: " + turn.get("blip_caption").asText() + "]";
          }
          ids.add(turn.get("dia_id").asText());
          turns.add(text);
        }
      }
      List<float[]> vectors = embedder.embedAll(turns);
      Map<String, Integer> index = new HashMap<>();
      for (int i = 0; i < ids.size(); i++) {
        index.put(ids.get(i), i);
      }
      List<String> qs = new ArrayList<>();
      List<List<Integer>> evidence = new ArrayList<>();
      for (JsonNode qa : sample.get("qa")) {
        List<Integer> ev = new ArrayList<>();
        for (JsonNode e : qa.get("evidence")) {
          Integer i = index.get(e.asText().strip());
          if (i != null) {
            ev.add(i);
          }
        }
        if (!ev.isEmpty()) {
          qs.add(queryPrefix + qa.get("question").asText());
          evidence.add(ev);
        }
      }
      List<float[]> qv = embedder.embedAll(qs);
      for (int qi = 0; qi < qs.size(); qi++) {
        float[] query = qv.get(qi);
        Integer[] order = new Integer[vectors.size()];
        float[] score = new float[vectors.size()];
        for (int i = 0; i < order.length; i++) {
          order[i] = i;
          score[i] = Embedder.cosine(query, vectors.get(i));
        }
        Arrays.sort(order, (a, b) -> Float.compare(score[b], score[a]));
        for (int k = 0; k < ks.length; k++) {
          int found = 0;
          List<Integer> top = Arrays.asList(order).subList(0, Math.min(ks[k], order.length));
          for (int e : evidence.get(qi)) {
            if (top.contains(e)) {
              found++;
            }
          }
          sum[k] += (double) found / evidence.get(qi).size();
        }
        questions++;
      }
    }
    return new double[] {sum[0] / questions, sum[1] / questions, sum[2] / questions, questions};
  }

  /** LoCoMo turns when the file is given, else the tests' sentences. */
  private static List<String> sampleTexts(Path locomo, ModelSpec spec) throws IOException {
    List<String> out = new ArrayList<>();
    if (locomo != null && spec != ModelSpec.BGE_SMALL_ZH) {
      JsonNode root = new ObjectMapper().readTree(Files.readAllBytes(locomo));
      JsonNode conversation = root.get(0).get("conversation");
      for (int s = 1; conversation.has("session_" + s); s++) {
        for (JsonNode turn : conversation.get("session_" + s)) {
          out.add(turn.get("speaker").asText() + ": " + turn.get("text").asText());
        }
      }
      return out;
    }
    List<String[]> pairs =
        spec == ModelSpec.BGE_SMALL_ZH ? TestRetrieval.chinese() : TestRetrieval.english();
    for (int round = 0; out.size() < 256; round++) {
      for (String[] p : pairs) {
        out.add(p[0] + (round == 0 ? "" : " (" + round + ")"));
        out.add(p[1]);
      }
    }
    return out;
  }

  private static double pct(long[] sortedNanos, double p) {
    int i = (int) Math.min(sortedNanos.length - 1, Math.round(p * (sortedNanos.length - 1)));
    return sortedNanos[i] / 1e6;
  }

  /** A field of /proc/self/status in MiB (Linux), -1 elsewhere. */
  static long rssMib(String field) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith(field + ":")) {
          return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024;
        }
      }
    } catch (IOException | NumberFormatException e) {
      // not Linux
    }
    return -1;
  }
}
