package dev.memsidecar.sidecar.bench;

import dev.memsidecar.proto.v1.MemoryServiceGrpc;
import dev.memsidecar.proto.v1.MemoryServiceGrpc.MemoryServiceBlockingStub;
import dev.memsidecar.proto.v1.RememberRequest;
import dev.memsidecar.proto.v1.RememberResponse;
import dev.memsidecar.proto.v1.Scope;
import dev.memsidecar.proto.v1.SearchHit;
import dev.memsidecar.proto.v1.SearchRequest;
import dev.memsidecar.proto.v1.SearchResponse;
import dev.memsidecar.proto.v1.WriteOutcome;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code bench load}: the sidecar under load through its gRPC API. Starts {@code --starts} sidecars
 * on fresh workspaces (cold start: spawn to {@code listening on}; the last one takes the load),
 * Remembers {@code --records} {@link Sentences} into one namespace from the largest number of
 * clients, then for each client count runs {@code --searches} Searches (top 8, 2-4 words drawn from
 * one stored text) and {@code --remembers} more Remembers, and reads the sidecar's peak RSS. Each
 * client is a thread with its own gRPC channel (connection), as separate agents would be.
 */
@Command(
    name = "load",
    sortOptions = false,
    usageHelpWidth = 100,
    sortSynopsis = false,
    description = {
      "The sidecar under load through its gRPC API: cold start to 'listening', N records into one"
          + " namespace, then Search and Remember latency p50/p99 and throughput for each number"
          + " of concurrent clients, and the sidecar process's peak RSS (VmHWM).",
      "Progress goes to stderr, the table to stdout."
    })
final class LoadBench extends Bench {
  private static final Set<String> STOPWORDS =
      Set.of(
          "a", "an", "and", "are", "as", "at", "be", "but", "by", "do", "for", "from", "has",
          "have", "in", "into", "is", "it", "its", "of", "on", "or", "our", "so", "that", "the",
          "their", "then", "this", "to", "was", "we", "with", "after", "before", "every", "each",
          "during", "ticket");
  private static final int TOP_K = 8;

  @Option(
      names = "--records",
      paramLabel = "N",
      defaultValue = "100000",
      description = "records remembered into one namespace first (default: ${DEFAULT-VALUE})")
  int records;

  @Mixin SidecarOptions sidecar;

  @Option(
      names = "--clients",
      split = ",",
      paramLabel = "N",
      defaultValue = "1,4",
      description =
          "concurrent clients of each Search and Remember phase (default: ${DEFAULT-VALUE});"
              + " the ingest of --records uses the largest")
  List<Integer> clients;

  @Option(
      names = "--searches",
      paramLabel = "N",
      defaultValue = "2000",
      description = "Searches per phase (default: ${DEFAULT-VALUE})")
  int searches;

  @Option(
      names = "--remembers",
      paramLabel = "N",
      defaultValue = "2000",
      description = "Remembers per phase, after the Searches (default: ${DEFAULT-VALUE})")
  int remembers;

  @Option(
      names = "--starts",
      paramLabel = "N",
      defaultValue = "3",
      description =
          "cold starts on fresh workspaces, the last one takes the load (default:"
              + " ${DEFAULT-VALUE})")
  int starts;

  @Option(
      names = "--warmup",
      paramLabel = "N",
      defaultValue = "500",
      description =
          "unmeasured Remembers (into another workspace) and Searches first (default:"
              + " ${DEFAULT-VALUE})")
  int warmup;

  @Option(
      names = "--settle",
      paramLabel = "SECONDS",
      defaultValue = "0",
      description =
          "seconds to wait after the ingest before searching, so background work it started (a"
              + " provider's merges) is done and Search is measured in steady state (default:"
              + " ${DEFAULT-VALUE})")
  int settle;

  @Option(
      names = "--seed",
      paramLabel = "N",
      defaultValue = "42",
      description = "seed of the texts and queries (default: ${DEFAULT-VALUE})")
  long seed;

  LoadBench(PrintStream out, PrintStream err, Class<?> sidecarMain) {
    super(out, err, sidecarMain);
  }

  /** The validated client counts, ascending and distinct. */
  int[] clientCounts() {
    int[] counts = clients.stream().mapToInt(Integer::intValue).sorted().distinct().toArray();
    if (counts.length == 0) {
      throw new ParameterException(spec.commandLine(), "--clients: give at least one count");
    }
    for (int c : counts) {
      if (c < 1 || c > 256) {
        throw new ParameterException(
            spec.commandLine(), "--clients: each must be 1..256, got " + c);
      }
    }
    return counts;
  }

  /** Checks every option; a bad one is a {@link ParameterException} naming it. */
  void validate() {
    clientCounts();
    if (records < 1) {
      throw new ParameterException(spec.commandLine(), "--records must be >= 1, got " + records);
    }
    if (searches < 0 || remembers < 0 || warmup < 0) {
      throw new ParameterException(
          spec.commandLine(), "--searches, --remembers and --warmup must be >= 0");
    }
    if (starts < 1) {
      throw new ParameterException(spec.commandLine(), "--starts must be >= 1, got " + starts);
    }
    if (settle < 0 || settle > 3600) {
      throw new ParameterException(spec.commandLine(), "--settle must be 0..3600, got " + settle);
    }
    sidecar.validate(spec);
  }

  private record Row(String name, long[] sorted, String unit, Double throughput) {
    static Row latency(String name, long[] nanos, Double throughput) {
      long[] sorted = nanos.clone();
      Arrays.sort(sorted);
      return new Row(name, sorted, "ms", throughput);
    }

    String markdown() {
      return String.format(
          Locale.ROOT,
          "| %s | %d | %.2f ms | %.2f ms | %.2f ms | %s |",
          name,
          sorted.length,
          Figures.millis(Figures.percentile(sorted, 50)),
          Figures.millis(Figures.percentile(sorted, 99)),
          Figures.millis(sorted.length == 0 ? 0 : sorted[sorted.length - 1]),
          throughput == null ? "" : String.format(Locale.ROOT, "%,.0f/s", throughput));
    }
  }

  @Override
  public Integer call() throws Exception {
    validate();
    int[] counts = clientCounts();
    int most = counts[counts.length - 1];
    err.printf(
        Locale.ROOT,
        "bench load: %,d records, clients %s, %,d searches and %,d remembers per phase, %d starts,"
            + " warm-up %d, seed %d%n",
        records,
        Arrays.toString(counts),
        searches,
        remembers,
        starts,
        warmup,
        seed);
    List<Row> rows = new ArrayList<>();
    long[] startNanos = new long[starts];
    for (int i = 0; i < starts - 1; i++) {
      try (SidecarOptions.Scratch scratch = sidecar.scratch("memsidecar-bench-start");
          SidecarProcess process = sidecar.start(scratch, sidecarMain)) {
        startNanos[i] = process.startNanos();
        err.printf(Locale.ROOT, "cold start %d: %.0f ms%n", i + 1, Figures.millis(startNanos[i]));
        process.terminate();
      }
    }

    String description;
    String rssCell;
    String found = "";
    try (SidecarOptions.Scratch scratch = sidecar.scratch("memsidecar-bench-load");
        SidecarProcess process = sidecar.start(scratch, sidecarMain)) {
      startNanos[starts - 1] = process.startNanos();
      description = sidecar.describe(process);
      SidecarOptions.reportStart(err, process, description);
      rows.add(Row.latency("cold start (spawn to `listening`)", startNanos, null));

      Scope scope = Scope.newBuilder().setWorkspaceId("bench").build();
      Sentences sentences = new Sentences(seed);
      List<String> warm = new ArrayList<>();
      for (int i = 0; i < warmup; i++) {
        warm.add(sentences.next());
      }
      Scope warmScope = Scope.newBuilder().setWorkspaceId("bench-warmup").build();
      phase(
          process,
          "warm-up remembers",
          most,
          warm.size(),
          (stub, i) -> {
            remember(stub, warmScope, warm.get(i));
          });

      List<String> texts = new ArrayList<>(records);
      for (int i = 0; i < records; i++) {
        texts.add(sentences.next());
      }
      String[] ids = new String[records];
      Map<WriteOutcome, Integer> outcomes = new EnumMap<>(WriteOutcome.class);
      Phase ingest =
          phase(
              process,
              String.format(Locale.ROOT, "remember %,d records", records),
              most,
              records,
              (stub, i) -> {
                RememberResponse r = remember(stub, scope, texts.get(i));
                ids[i] = r.getDecision().getMemory().getId();
                synchronized (outcomes) {
                  outcomes.merge(r.getDecision().getOutcome(), 1, Integer::sum);
                }
              });
      rows.add(
          Row.latency(
              String.format(
                  Locale.ROOT, "Remember, ingest of %,d records, %s", records, clientsText(most)),
              ingest.nanos,
              ingest.throughput()));
      err.println("  Remember outcomes: " + outcomes);
      err.printf(
          Locale.ROOT,
          "  sidecar RSS after ingest: %s%n",
          mib(process.peakRssBytes()).orElse("n/a"));

      // Remember is acknowledged before its vector is made: Search is measured once the vectors
      // of the ingest have all landed (how long that took is a figure of its own).
      long catchUp = process.awaitVectors(Duration.ofHours(2));
      rows.add(
          Row.latency(
              "vectors of the ingest all made (after its last Remember)",
              new long[] {catchUp},
              null));
      err.printf(
          Locale.ROOT, "  every record had its vector %.1f s after the ingest%n", catchUp / 1e9);
      if (settle > 0) {
        err.printf(Locale.ROOT, "  settling for %d s%n", settle);
        Thread.sleep(settle * 1000L);
      }
      Random random = new Random(seed + 1);
      List<Query> warmQueries = queries(texts, ids, warmup, random);
      phase(
          process,
          "warm-up searches",
          most,
          warmQueries.size(),
          (stub, i) -> {
            search(stub, scope, warmQueries.get(i).text());
          });
      for (int c : counts) {
        List<Query> queries = queries(texts, ids, searches, new Random(seed + 100 + c));
        AtomicInteger hits = new AtomicInteger();
        Phase p =
            phase(
                process,
                "search, " + clientsText(c),
                c,
                queries.size(),
                (stub, i) -> {
                  if (contains(search(stub, scope, queries.get(i).text()), queries.get(i).id())) {
                    hits.incrementAndGet();
                  }
                });
        String settled =
            settle > 0 ? String.format(Locale.ROOT, " (%d s after the ingest)", settle) : "";
        rows.add(
            Row.latency(
                "Search top " + TOP_K + ", " + clientsText(c) + settled, p.nanos, p.throughput()));
        if (found.isEmpty() && !queries.isEmpty()) {
          found =
              String.format(
                  Locale.ROOT,
                  "; the record a query was drawn from is in its top %d for %.1f%% of queries",
                  TOP_K,
                  100.0 * hits.get() / queries.size());
        }
      }
      for (int c : counts) {
        List<String> more = new ArrayList<>(remembers);
        for (int i = 0; i < remembers; i++) {
          more.add(sentences.next());
        }
        Phase p =
            phase(
                process,
                "remember, " + clientsText(c),
                c,
                more.size(),
                (stub, i) -> remember(stub, scope, more.get(i)));
        rows.add(Row.latency("Remember, " + clientsText(c), p.nanos, p.throughput()));
      }
      rssCell = mib(process.peakRssBytes()).orElse("n/a (no /proc)");
      int exit = process.terminate();
      if (exit != 0) {
        err.println("sidecar exit code after SIGTERM: " + exit);
      }
    }

    out.printf(
        Locale.ROOT,
        "bench load: %,d records in one namespace, then %,d Searches and %,d Remembers per phase;"
            + " %s; %s%s%n%n",
        records,
        searches,
        remembers,
        description,
        SidecarOptions.machine(),
        found);
    out.println("| measurement | n | p50 | p99 | max | throughput |");
    out.println("|---|---:|---:|---:|---:|---:|");
    for (Row row : rows) {
      out.println(row.markdown());
    }
    out.printf(Locale.ROOT, "| peak RSS of the sidecar process (VmHWM) | | | | %s | |%n", rssCell);
    out.flush();
    return 0;
  }

  private static String clientsText(int c) {
    return c + (c == 1 ? " client" : " clients");
  }

  private static Optional<String> mib(OptionalLong bytes) {
    return bytes.isPresent()
        ? Optional.of(
            String.format(Locale.ROOT, "%,.0f MiB", bytes.getAsLong() / (1024.0 * 1024.0)))
        : Optional.empty();
  }

  /** One call of a phase: call {@code i} with the client's stub. */
  private interface Call {
    void run(MemoryServiceBlockingStub stub, int i);
  }

  private record Phase(long[] nanos, long wallNanos) {
    Double throughput() {
      return wallNanos == 0 ? null : nanos.length / Figures.seconds(wallNanos);
    }
  }

  /**
   * Runs calls {@code 0..n-1} from {@code clients} threads, each with its own channel; thread
   * {@code t} makes calls {@code t, t + clients, ...}.
   */
  private Phase phase(SidecarProcess process, String name, int clients, int n, Call call)
      throws InterruptedException, ExecutionException {
    long[] nanos = new long[n];
    if (n == 0) {
      return new Phase(nanos, 0);
    }
    try (Progress progress = new Progress(err, name, n);
        Clients pool = new Clients(process, clients)) {
      long t0 = System.nanoTime();
      pool.run(
          (channel, first) -> {
            MemoryServiceBlockingStub stub = MemoryServiceGrpc.newBlockingStub(channel);
            for (int i = first; i < n; i += clients) {
              long s = System.nanoTime();
              call.run(stub, i);
              nanos[i] = System.nanoTime() - s;
              progress.add(1);
            }
          });
      return new Phase(nanos, System.nanoTime() - t0);
    }
  }

  private RememberResponse remember(MemoryServiceBlockingStub stub, Scope scope, String text) {
    return stub.withDeadlineAfter(60, TimeUnit.SECONDS)
        .remember(
            RememberRequest.newBuilder()
                .setScope(scope)
                .setProfile(sidecar.profile)
                .setContent(text)
                .build());
  }

  private static SearchResponse search(MemoryServiceBlockingStub stub, Scope scope, String q) {
    return stub.withDeadlineAfter(60, TimeUnit.SECONDS)
        .search(SearchRequest.newBuilder().setScope(scope).setQuery(q).setTopK(TOP_K).build());
  }

  private static boolean contains(SearchResponse response, String id) {
    for (SearchHit hit : response.getHitsList()) {
      if (hit.getMemory().getId().equals(id)) {
        return true;
      }
    }
    return false;
  }

  private record Query(String text, String id) {}

  /** {@code n} queries of 2-4 words, each drawn from one stored text. */
  private static List<Query> queries(List<String> texts, String[] ids, int n, Random random) {
    List<Query> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      int source = random.nextInt(texts.size());
      List<String> words = keywords(texts.get(source));
      int want = Math.min(words.size(), 2 + random.nextInt(3));
      Set<Integer> picked = new TreeSet<>();
      while (picked.size() < want) {
        picked.add(random.nextInt(words.size()));
      }
      StringBuilder q = new StringBuilder();
      for (int index : picked) {
        if (!q.isEmpty()) {
          q.append(' ');
        }
        q.append(words.get(index));
      }
      out.add(new Query(q.toString(), ids[source]));
    }
    return out;
  }

  private static List<String> keywords(String text) {
    Set<String> words = new LinkedHashSet<>();
    for (String w : text.split("[^\\p{L}\\p{N}]+")) {
      String lower = w.toLowerCase(Locale.ROOT);
      if (lower.length() > 2
          && !STOPWORDS.contains(lower)
          && !lower.chars().allMatch(Character::isDigit)) {
        words.add(w);
      }
    }
    return new ArrayList<>(words);
  }
}
