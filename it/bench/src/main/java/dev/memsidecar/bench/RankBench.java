package dev.memsidecar.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.memsidecar.api.Embedder;
import dev.memsidecar.api.MemoryKind;
import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.MemoryStore;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.api.ProviderContext;
import dev.memsidecar.api.ScoredRecord;
import dev.memsidecar.api.SearchQuery;
import dev.memsidecar.provider.embedder.BgeSmallEnEmbedder;
import dev.memsidecar.provider.lucene.LuceneHnswProvider;
import dev.memsidecar.sidecar.bench.Figures;
import dev.memsidecar.toolkit.HashEmbedder;
import dev.memsidecar.toolkit.HybridIndex;
import dev.memsidecar.toolkit.HybridScore;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Fast, in-process LoCoMo evidence recall of the two rankers, for tuning: the turns of {@code bench
 * locomo} (same content and context) go straight into a {@code lucene-hnsw} store and into a {@link
 * HybridIndex} (the ranker of {@code langmem-sqlite}), with embeddings cached on disk by text, so a
 * ranking change is measured in seconds rather than minutes. Prints R@10 overall, per category and
 * per conversation for each ranker. {@code bench locomo} over gRPC stays the figure of record.
 *
 * <pre>
 * java -cp it/bench/target/memsidecar-bench.jar dev.memsidecar.bench.RankBench
 *     --data ../shared/bench/locomo-dev.json [--embedder bge-small-en|hash]
 *     [--cache /tmp/rank-cache] [--rankers lucene,kit] [--settings K=V,...] [--sweep NAME=V1,...]
 * </pre>
 *
 * {@code --sweep} sets a system property to each value in turn before the questions are asked again
 * (the index is built once), for experimental knobs a ranker reads per search.
 */
public final class RankBench {
  private static final Pattern SESSION = Pattern.compile("session_(\\d+)");
  private static final Pattern DIA_ID = Pattern.compile("D\\d+:\\d+");
  private static final Instant T0 = Instant.parse("2025-01-01T00:00:00Z");
  private static final int TOP_K = 25;
  private static final int[] KS = {5, 10, 25};

  private record Question(
      int conv, Namespace ns, String text, int category, Set<String> evidence) {}

  private final List<MemoryRecord> turns = new ArrayList<>();
  private final List<Question> questions = new ArrayList<>();
  private final List<Namespace> namespaces = new ArrayList<>();

  @Command(description = "LoCoMo evidence recall of the two rankers in-process, embeddings cached.")
  private static final class Options {
    @Option(names = "--data", paramLabel = "FILE", description = "LoCoMo file")
    Path data = Path.of("/work/shared/bench/locomo-dev.json");

    @Option(names = "--embedder", paramLabel = "NAME", description = "bge-small-en or hash")
    String embedder = "bge-small-en";

    @Option(names = "--cache", paramLabel = "DIR", description = "embeddings, a file per embedder")
    Path cache = Path.of("/tmp/rank-cache");

    @Option(names = "--rankers", split = ",", paramLabel = "NAME", description = "lucene, kit")
    Set<String> rankers = new LinkedHashSet<>(List.of("lucene", "kit"));

    @Option(names = "--settings", split = ",", paramLabel = "K=V", description = "lucene settings")
    Map<String, String> settings = new LinkedHashMap<>();

    @Option(
        names = "--sweep",
        paramLabel = "NAME=V1,V2...",
        description = "set system property NAME to each value in turn and ask the questions again")
    String sweep;
  }

  public static void main(String[] args) throws Exception {
    Options o = BenchArguments.parseOrExit(new Options(), args);
    RankBench b = new RankBench();
    b.read(o.data);
    String embedderName = o.embedder;
    Embedder base = embedderName.equals("hash") ? new HashEmbedder() : new BgeSmallEnEmbedder();
    CachingEmbedder embedder = new CachingEmbedder(base, o.cache.resolve(embedderName + ".bin"));
    List<String> texts = new ArrayList<>();
    for (MemoryRecord r : b.turns) {
      texts.add(r.indexedText());
    }
    for (Question q : b.questions) {
      texts.add(q.text());
    }
    embedder.warm(texts);
    Set<String> rankers = o.rankers;
    List<String> sweepValues = List.of("");
    String sweepName = null;
    if (o.sweep != null) {
      String[] kv = o.sweep.split("=", 2);
      sweepName = kv[0];
      sweepValues = List.of(kv[1].split(","));
    }
    if (rankers.contains("kit")) {
      Map<Namespace, HybridIndex> indexes = new LinkedHashMap<>();
      for (MemoryRecord r : b.turns) {
        indexes
            .computeIfAbsent(
                r.namespace(),
                n ->
                    new HybridIndex(
                        embedder.dimensions(), HybridScore.meaningWeightFor(embedder.name())))
            .put(r, embedder.embed(r.indexedText()));
      }
      for (String v : sweepValues) {
        if (sweepName != null) {
          System.setProperty(sweepName, v);
        }
        b.score("kit " + (sweepName == null ? "" : sweepName + "=" + v), embedder, indexes::get);
      }
    }
    if (rankers.contains("lucene")) {
      Path dir = Files.createTempDirectory("rank-bench");
      Map<String, String> settings = o.settings;
      try (MemoryStore store =
          new LuceneHnswProvider().open(new ProviderContext("bench", dir, settings, embedder))) {
        for (MemoryRecord r : b.turns) {
          store.put(r);
        }
        for (String v : sweepValues) {
          if (sweepName != null) {
            System.setProperty(sweepName, v);
          }
          b.score(
              "lucene " + (sweepName == null ? "" : sweepName + "=" + v),
              embedder,
              ns -> (Ranker) (q, vec) -> search(store, ns, q));
        }
      } finally {
        Figures.deleteTree(dir);
      }
    }
  }

  private static List<ScoredRecord> search(MemoryStore store, Namespace ns, SearchQuery q) {
    return store.search(ns, q);
  }

  /** Something searchable per namespace. */
  private interface Ranker {
    List<ScoredRecord> search(SearchQuery q, float[] vector);
  }

  private interface Rankers {
    Object get(Namespace ns);
  }

  private void score(String label, Embedder embedder, Rankers rankers) {
    // category -> sums of R@k; conversation -> sum of R@10
    Map<Integer, double[]> cat = new TreeMap<>();
    Map<Integer, double[]> conv = new TreeMap<>();
    long nanos = 0;
    for (Question q : questions) {
      float[] vec = embedder.embed(q.text());
      SearchQuery sq = new SearchQuery(q.text(), vec, TOP_K, Set.of(), List.of(), 0f, T0);
      Object r = rankers.get(q.ns());
      long t0 = System.nanoTime();
      List<ScoredRecord> hits =
          r instanceof HybridIndex h ? h.search(sq, vec) : ((Ranker) r).search(sq, vec);
      nanos += System.nanoTime() - t0;
      List<String> ranked = new ArrayList<>();
      for (ScoredRecord s : hits) {
        ranked.add(s.record().metadata().get("dia_id"));
      }
      if (Integer.getInteger("rank.debug", 0) == q.category()) {
        StringBuilder d = new StringBuilder();
        for (String e : q.evidence()) {
          int at = ranked.indexOf(e);
          d.append(' ').append(e).append('@').append(at < 0 ? "-" : String.valueOf(at + 1));
        }
        System.out.println("Q " + q.text() + " |" + d);
      }
      double[] c = cat.computeIfAbsent(q.category(), x -> new double[KS.length + 1]);
      double[] cv = conv.computeIfAbsent(q.conv(), x -> new double[2]);
      for (int i = 0; i < KS.length; i++) {
        Set<String> found = new HashSet<>(ranked.subList(0, Math.min(KS[i], ranked.size())));
        found.retainAll(q.evidence());
        double s = found.size() / (double) q.evidence().size();
        c[i] += s;
        if (KS[i] == 10) {
          cv[0] += s;
        }
      }
      c[KS.length]++;
      cv[1]++;
    }
    double[] all = new double[KS.length + 1];
    double[] nonAdv = new double[KS.length + 1];
    StringBuilder cats = new StringBuilder();
    for (Map.Entry<Integer, double[]> e : cat.entrySet()) {
      double[] c = e.getValue();
      for (int i = 0; i <= KS.length; i++) {
        all[i] += c[i];
        if (e.getKey() != 5) {
          nonAdv[i] += c[i];
        }
      }
      cats.append(String.format(Locale.ROOT, " c%d=%.3f", e.getKey(), c[1] / c[KS.length]));
    }
    StringBuilder convs = new StringBuilder();
    for (double[] cv : conv.values()) {
      convs.append(String.format(Locale.ROOT, " %.3f", cv[0] / cv[1]));
    }
    System.out.printf(
        Locale.ROOT,
        "%-28s all R@5 %.3f R@10 %.3f R@25 %.3f | nonadv R@10 %.3f |%s | conv%s | %.2f ms/q%n",
        label,
        all[0] / all[3],
        all[1] / all[3],
        all[2] / all[3],
        nonAdv[1] / nonAdv[3],
        cats,
        convs,
        nanos / 1e6 / questions.size());
  }

  private void read(Path file) throws IOException {
    JsonNode root = new ObjectMapper().readTree(file.toFile());
    int convIndex = 0;
    for (JsonNode sample : root) {
      Namespace ns = Namespace.of("locomo:" + sample.path("sample_id").asText("c" + convIndex));
      namespaces.add(ns);
      JsonNode conversation = sample.path("conversation");
      TreeMap<Integer, JsonNode> sessions = new TreeMap<>();
      for (Map.Entry<String, JsonNode> e : conversation.properties()) {
        Matcher m = SESSION.matcher(e.getKey());
        if (m.matches() && e.getValue().isArray()) {
          sessions.put(Integer.parseInt(m.group(1)), e.getValue());
        }
      }
      Set<String> known = new HashSet<>();
      int seq = 0;
      for (Map.Entry<Integer, JsonNode> session : sessions.entrySet()) {
        String date = conversation.path("session_" + session.getKey() + "_date_time").asText("");
        List<JsonNode> raw = new ArrayList<>();
        session.getValue().forEach(raw::add);
        for (int i = 0; i < raw.size(); i++) {
          JsonNode t = raw.get(i);
          StringBuilder content = new StringBuilder(line(t));
          String caption = t.path("blip_caption").asText("").strip();
          if (!caption.isEmpty()) {
            content.append(" [image: ").append(caption).append(']');
          }
          if (!date.isBlank()) {
            content.append(" (session date: ").append(date.strip()).append(')');
          }
          StringBuilder context = new StringBuilder();
          if (i > 0) {
            context.append(line(raw.get(i - 1)));
          }
          if (i + 1 < raw.size()) {
            if (!context.isEmpty()) {
              context.append('\n');
            }
            context.append(line(raw.get(i + 1)));
          }
          String diaId = t.path("dia_id").asText("").strip();
          known.add(diaId);
          turns.add(
              MemoryRecord.builder()
                  .namespace(ns)
                  .id(String.format(Locale.ROOT, "t%05d", seq))
                  .profile("workspace")
                  .kind(MemoryKind.EPISODIC)
                  .content(content.toString())
                  .context(context.toString())
                  .metadata(Map.of("dia_id", diaId))
                  .times(T0.plusSeconds(seq++))
                  .build());
        }
      }
      for (JsonNode qa : sample.path("qa")) {
        String text = qa.path("question").asText("").strip();
        Set<String> evidence = new HashSet<>();
        for (JsonNode raw : qa.path("evidence")) {
          Matcher m = DIA_ID.matcher(raw.asText(""));
          while (m.find()) {
            if (known.contains(m.group())) {
              evidence.add(m.group());
            }
          }
        }
        if (!text.isEmpty() && !evidence.isEmpty()) {
          questions.add(new Question(convIndex, ns, text, qa.path("category").asInt(0), evidence));
        }
      }
      convIndex++;
    }
  }

  private static String line(JsonNode turn) {
    return turn.path("speaker").asText("").strip()
        + ": "
        + turn.path("text").asText("").replaceAll("\\s+", " ").strip();
  }

  /** An embedder that remembers every embedding by text, and keeps them in a file. */
  static final class CachingEmbedder implements Embedder {
    private final Embedder base;
    private final Path file;
    private final Map<String, float[]> cache = new ConcurrentHashMap<>();

    CachingEmbedder(Embedder base, Path file) throws IOException {
      this.base = base;
      this.file = file;
      if (Files.isRegularFile(file)) {
        try (DataInputStream in =
            new DataInputStream(new BufferedInputStream(Files.newInputStream(file)))) {
          int n = in.readInt();
          for (int i = 0; i < n; i++) {
            String text = in.readUTF();
            float[] v = new float[in.readInt()];
            for (int j = 0; j < v.length; j++) {
              v[j] = in.readFloat();
            }
            cache.put(text, v);
          }
        }
      }
    }

    void warm(List<String> texts) throws IOException {
      List<String> missing = new ArrayList<>(new java.util.LinkedHashSet<>(texts));
      missing.removeIf(cache::containsKey);
      if (missing.isEmpty()) {
        return;
      }
      System.err.printf(Locale.ROOT, "embedding %d texts%n", missing.size());
      for (int i = 0; i < missing.size(); i += 16) {
        List<String> batch = missing.subList(i, Math.min(missing.size(), i + 16));
        List<float[]> vs = base.embedAll(batch);
        for (int j = 0; j < batch.size(); j++) {
          cache.put(batch.get(j), vs.get(j));
        }
        System.err.printf(Locale.ROOT, "\r%d/%d", i + batch.size(), missing.size());
        if ((i / 16) % 40 == 39) {
          save();
        }
      }
      System.err.println();
      save();
    }

    private void save() throws IOException {
      Files.createDirectories(file.getParent());
      try (DataOutputStream out =
          new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(file)))) {
        out.writeInt(cache.size());
        for (Map.Entry<String, float[]> e : cache.entrySet()) {
          out.writeUTF(e.getKey());
          out.writeInt(e.getValue().length);
          for (float x : e.getValue()) {
            out.writeFloat(x);
          }
        }
      }
    }

    @Override
    public String name() {
      return base.name();
    }

    @Override
    public int dimensions() {
      return base.dimensions();
    }

    @Override
    public float[] embed(String text) {
      float[] v = cache.get(text);
      if (v == null) {
        v = base.embed(text);
        cache.put(text, v);
      }
      return v.clone();
    }
  }
}
