package dev.memsidecar.sidecar.bench;

import static dev.memsidecar.sidecar.bench.LoadRows.mib;

import com.google.protobuf.Timestamp;
import dev.memsidecar.proto.v1.AdminServiceGrpc;
import dev.memsidecar.proto.v1.AdminServiceGrpc.AdminServiceBlockingStub;
import dev.memsidecar.proto.v1.ExportedMemory;
import dev.memsidecar.proto.v1.ImportScopeRequest;
import dev.memsidecar.proto.v1.Memory;
import dev.memsidecar.proto.v1.MemoryKind;
import dev.memsidecar.proto.v1.MemoryServiceGrpc;
import dev.memsidecar.proto.v1.MemoryServiceGrpc.MemoryServiceBlockingStub;
import dev.memsidecar.proto.v1.MemoryStatus;
import dev.memsidecar.proto.v1.RememberRequest;
import dev.memsidecar.proto.v1.RememberResponse;
import dev.memsidecar.proto.v1.Scope;
import dev.memsidecar.proto.v1.ScopeItem;
import dev.memsidecar.proto.v1.SearchHit;
import dev.memsidecar.proto.v1.SearchRequest;
import dev.memsidecar.proto.v1.SearchResponse;
import dev.memsidecar.proto.v1.WriteOutcome;
import dev.memsidecar.sidecar.bench.LoadRows.Phase;
import dev.memsidecar.sidecar.bench.LoadRows.Row;
import dev.memsidecar.sidecar.bench.LoadRows.Snapshot;
import io.grpc.ManagedChannel;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code bench load}: the sidecar under load through its gRPC API. Starts {@code --starts} sidecars
 * on fresh workspaces (cold start: spawn to {@code listening on}; the last one takes the load),
 * Remembers {@code --records} {@link Sentences} into one namespace from the largest number of
 * clients, then for each client count runs {@code --searches} Searches (top 8, 2-4 words drawn from
 * one stored text) and {@code --remembers} more Remembers. It reads the sidecar's RSS (now and its
 * peak) and the data folder's size after the ingest, after the Search phases and after the Remember
 * phases, stops the sidecar cleanly, and starts it {@code --restarts} times on the same data: spawn
 * to {@code listening on}, then its first Search. Each client is a thread with its own gRPC channel
 * (connection), as separate agents would be.
 *
 * <p>The command and its phases, which share its options and its sidecar process; the figures they
 * measure and the lines of the two tables are {@link LoadRows}, and what other benches share is
 * elsewhere ({@link Figures}, {@link Clients}, {@link Progress}, {@link SidecarProcess}).
 */
@Command(
    name = "load",
    sortOptions = false,
    usageHelpWidth = 100,
    sortSynopsis = false,
    description = {
      "The sidecar under load through its gRPC API: cold start to 'listening', N records into one"
          + " namespace, then Search and Remember latency p50/p99 and throughput for each number"
          + " of concurrent clients; the sidecar process's RSS (VmRSS and its peak VmHWM) and the"
          + " data folder's size after each phase; a restart on that data to 'listening' and to"
          + " its first Search.",
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

  /** How many 5 s windows in a row the sidecar must stay under --quiet-cpu. */
  static final int QUIET_WINDOWS = 6;

  /** Records per ImportScope call (its limit). */
  static final int IMPORT_BATCH = 500;

  @Option(
      names = "--ingest",
      paramLabel = "HOW",
      defaultValue = "remember",
      description =
          "how the --records are written: remember (one Remember each, deduplicated against the"
              + " namespace) or import (ImportScope, "
              + IMPORT_BATCH
              + " a call, stored as given, no gate or dedupe: a bulk load) (default:"
              + " ${DEFAULT-VALUE})")
  String ingest;

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
      names = "--restarts",
      paramLabel = "N",
      defaultValue = "1",
      description =
          "after the load, stop the sidecar cleanly and start it again on the same data this many"
              + " times: spawn to 'listening', then its first Search (default: ${DEFAULT-VALUE})")
  int restarts;

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
      names = "--quiet-cpu",
      paramLabel = "PERCENT",
      defaultValue = "0",
      description =
          "after --settle, also wait (at most an hour) until the sidecar used less than this share"
              + " of one core in each of 6 windows of 5 s in a row, so the merges the ingest"
              + " started are done; 0 does not wait (default: ${DEFAULT-VALUE})")
  int quietCpu;

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
    if (!ingest.equals("remember") && !ingest.equals("import")) {
      throw new ParameterException(
          spec.commandLine(), "--ingest must be remember or import, got '" + ingest + "'");
    }
    if (quietCpu < 0 || quietCpu > 100) {
      throw new ParameterException(
          spec.commandLine(), "--quiet-cpu must be 0..100, got " + quietCpu);
    }
    if (restarts < 0) {
      throw new ParameterException(spec.commandLine(), "--restarts must be >= 0, got " + restarts);
    }
    if (settle < 0 || settle > 3600) {
      throw new ParameterException(spec.commandLine(), "--settle must be 0..3600, got " + settle);
    }
    sidecar.validate(spec);
  }

  @Override
  public Integer call() throws Exception {
    validate();
    int[] counts = clientCounts();
    int most = counts[counts.length - 1];
    err.printf(
        Locale.ROOT,
        "bench load: %,d records (%s), clients %s, %,d searches and %,d remembers per phase, %d"
            + " starts, warm-up %d, seed %d%n",
        records,
        ingest,
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
    String found = "";
    List<Snapshot> snapshots = new ArrayList<>();
    long[] restartListening = new long[restarts];
    long[] restartSearch = new long[restarts];
    try (SidecarOptions.Scratch scratch = sidecar.scratch("memsidecar-bench-load")) {
      Scope scope = Scope.newBuilder().setWorkspaceId("bench").build();
      Sentences sentences = new Sentences(seed);
      List<String> texts = new ArrayList<>(records);
      String[] ids = new String[records];
      try (SidecarProcess process = sidecar.start(scratch, sidecarMain)) {
        startNanos[starts - 1] = process.startNanos();
        description = sidecar.describe(process);
        SidecarOptions.reportStart(err, process, description);
        rows.add(Row.latency("cold start (spawn to `listening`)", startNanos, null));

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

        for (int i = 0; i < records; i++) {
          texts.add(sentences.next());
        }
        Phase load;
        String ingestRow;
        Double ingestRate;
        if (ingest.equals("import")) {
          int calls = (records + IMPORT_BATCH - 1) / IMPORT_BATCH;
          Instant base = Instant.now().minusSeconds(records);
          load =
              adminPhase(
                  process,
                  String.format(Locale.ROOT, "import %,d records", records),
                  most,
                  calls,
                  IMPORT_BATCH,
                  (stub, call) -> {
                    ImportScopeRequest.Builder req =
                        ImportScopeRequest.newBuilder().setScope(scope);
                    int from = call * IMPORT_BATCH;
                    int to = Math.min(records, from + IMPORT_BATCH);
                    for (int i = from; i < to; i++) {
                      ids[i] = UUID.randomUUID().toString();
                      req.addItems(exported(ids[i], texts.get(i), base.plusSeconds(i)));
                    }
                    stub.withDeadlineAfter(10, TimeUnit.MINUTES).importScope(req.build());
                  });
          ingestRow =
              String.format(
                  Locale.ROOT,
                  "ImportScope, ingest of %,d records, %d a call, %s",
                  records,
                  IMPORT_BATCH,
                  clientsText(most));
          ingestRate = records / Figures.seconds(load.wallNanos());
        } else {
          Map<WriteOutcome, Integer> outcomes = new EnumMap<>(WriteOutcome.class);
          load =
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
          ingestRow =
              String.format(
                  Locale.ROOT, "Remember, ingest of %,d records, %s", records, clientsText(most));
          ingestRate = load.throughput();
          err.println("  Remember outcomes: " + outcomes);
        }

        // Remember is acknowledged before its vector is made: Search is measured once the vectors
        // of the ingest have all landed (how long that took is a figure of its own).
        long catchUp = process.awaitVectors(Duration.ofHours(2));
        rows.add(Row.of(ingestRow, load.ended(process), ingestRate));
        rows.add(
            Row.latency(
                "vectors of the ingest all made (after its last call)",
                new long[] {catchUp},
                null));
        err.printf(
            Locale.ROOT, "  every record had its vector %.1f s after the ingest%n", catchUp / 1e9);
        snapshots.add(snapshot("after the ingest", process, scratch, warmup + records));
        if (settle > 0) {
          err.printf(Locale.ROOT, "  settling for %d s%n", settle);
          Thread.sleep(settle * 1000L);
          snapshots.add(
              snapshot(
                  String.format(Locale.ROOT, "after settling %d s", settle),
                  process,
                  scratch,
                  warmup + records));
        }
        if (quietCpu > 0) {
          long waited = awaitQuiet(process);
          rows.add(
              Row.latency(
                  String.format(
                      Locale.ROOT,
                      "then until the sidecar used < %d%% of a core for 30 s",
                      quietCpu),
                  new long[] {waited},
                  null));
          snapshots.add(snapshot("once the sidecar was quiet", process, scratch, warmup + records));
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
              Row.of(
                  "Search top " + TOP_K + ", " + clientsText(c) + settled,
                  p.ended(process),
                  p.throughput()));
          if (found.isEmpty() && !queries.isEmpty()) {
            found =
                String.format(
                    Locale.ROOT,
                    "; the record a query was drawn from is in its top %d for %.1f%% of queries",
                    TOP_K,
                    100.0 * hits.get() / queries.size());
          }
        }
        snapshots.add(snapshot("after the Search phases", process, scratch, warmup + records));
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
          rows.add(Row.of("Remember, " + clientsText(c), p.withVectors(process), p.throughput()));
        }
        long stored = warmup + records + (long) remembers * counts.length;
        snapshots.add(snapshot("after the Remember phases", process, scratch, stored));
        int exit = process.terminate();
        if (exit != 0) {
          err.println("sidecar exit code after SIGTERM: " + exit);
        }
      }
      long stored = warmup + records + (long) remembers * counts.length;
      snapshots.add(snapshot("after a clean stop", null, scratch, stored));
      printBreakdown(scratch.data());

      // Restarts on the data just written: what a sidecar holding these records takes to come
      // back, to `listening` and then to the first Search answered (which may open the store and
      // read its index from disk).
      List<Query> firstQueries = queries(texts, ids, restarts, new Random(seed + 2));
      for (int r = 0; r < restarts; r++) {
        try (SidecarProcess process = sidecar.start(scratch, sidecarMain)) {
          restartListening[r] = process.startNanos();
          long t0 = System.nanoTime();
          search(
              MemoryServiceGrpc.newBlockingStub(process.channel()),
              scope,
              firstQueries.get(r).text());
          restartSearch[r] = System.nanoTime() - t0;
          err.printf(
              Locale.ROOT,
              "restart %d on the same data: listening after %.0f ms, first Search %.0f ms%n",
              r + 1,
              Figures.millis(restartListening[r]),
              Figures.millis(restartSearch[r]));
          if (r == restarts - 1) {
            snapshots.add(snapshot("restarted, after its first Search", process, scratch, stored));
          }
          int exit = process.terminate();
          if (exit != 0) {
            err.println("sidecar exit code after SIGTERM: " + exit);
          }
        }
      }
    }
    if (restarts > 0) {
      long[] toSearch = new long[restarts];
      for (int r = 0; r < restarts; r++) {
        toSearch[r] = restartListening[r] + restartSearch[r];
      }
      rows.add(Row.latency("restart on that data (spawn to `listening`)", restartListening, null));
      rows.add(Row.latency("restart: its first Search (after `listening`)", restartSearch, null));
      rows.add(Row.latency("restart: spawn to the first Search answered", toSearch, null));
    }

    out.printf(
        Locale.ROOT,
        "bench load: %,d records in one namespace (by %s), then %,d Searches and %,d Remembers per"
            + " phase; %s; %s%s%n%n",
        records,
        ingest.equals("import") ? "ImportScope" : "Remember",
        searches,
        remembers,
        description,
        SidecarOptions.machine(),
        found);
    out.println("| measurement | n | p50 | p99 | max | throughput | sidecar CPU per call |");
    out.println("|---|---:|---:|---:|---:|---:|---:|");
    for (Row row : rows) {
      out.println(row.markdown());
    }
    out.println();
    out.println(
        "| sidecar process and data folder | RSS (VmRSS) | of which mapped files (RssFile) | peak"
            + " RSS so far (VmHWM) | data folder | per record |");
    out.println("|---|---:|---:|---:|---:|---:|");
    for (Snapshot s : snapshots) {
      out.println(s.markdown());
    }
    out.flush();
    return 0;
  }

  private static String clientsText(int c) {
    return c + (c == 1 ? " client" : " clients");
  }

  private Snapshot snapshot(
      String moment, SidecarProcess process, SidecarOptions.Scratch scratch, long stored)
      throws IOException {
    OptionalLong rss = process == null ? OptionalLong.empty() : process.rssBytes();
    OptionalLong fileRss = process == null ? OptionalLong.empty() : process.fileRssBytes();
    OptionalLong peak = process == null ? OptionalLong.empty() : process.peakRssBytes();
    long bytes = Figures.treeBytes(scratch.data());
    err.printf(
        Locale.ROOT,
        "  %s: RSS %s (files %s), peak %s, data folder %,.1f MiB%n",
        moment,
        mib(rss),
        mib(fileRss),
        mib(peak),
        bytes / (1024.0 * 1024.0));
    return new Snapshot(moment, rss, fileRss, peak, bytes, stored);
  }

  /** The data folder's top-level entries and their sizes, largest first, on stderr. */
  private void printBreakdown(Path data) throws IOException {
    if (!Files.isDirectory(data)) {
      return;
    }
    List<Path> entries;
    try (Stream<Path> list = Files.list(data)) {
      entries = list.toList();
    }
    Map<Path, Long> sizes = new HashMap<>();
    for (Path e : entries) {
      sizes.put(e, Files.isDirectory(e) ? Figures.treeBytes(e) : Figures.fileSize(e));
    }
    entries.stream()
        .sorted(Comparator.comparingLong((Path e) -> sizes.get(e)).reversed())
        .forEach(
            e ->
                err.printf(
                    Locale.ROOT,
                    "  %,10.1f MiB  %s%n",
                    sizes.get(e) / (1024.0 * 1024.0),
                    data.relativize(e)));
  }

  /**
   * Runs calls {@code 0..n-1} from {@code clients} threads, each with its own channel; thread
   * {@code t} makes calls {@code t, t + clients, ...}.
   */
  private Phase phase(
      SidecarProcess process,
      String name,
      int clients,
      int n,
      Timed<MemoryServiceBlockingStub> call)
      throws InterruptedException, ExecutionException {
    return timed(process, name, clients, n, 1, MemoryServiceGrpc::newBlockingStub, call);
  }

  /**
   * Waits until the sidecar used less than {@link #quietCpu} percent of one core in each of {@link
   * #QUIET_WINDOWS} windows of 5 s in a row (its background merges done), at most an hour; returns
   * how long it waited.
   */
  private long awaitQuiet(SidecarProcess process) throws InterruptedException {
    long t0 = System.nanoTime();
    OptionalLong before = process.cpuNanos();
    if (before.isEmpty()) {
      err.println("  no /proc: not waiting for the sidecar to be quiet");
      return 0;
    }
    long window = TimeUnit.SECONDS.toNanos(5);
    int quiet = 0;
    while (System.nanoTime() - t0 < TimeUnit.HOURS.toNanos(1)) {
      Thread.sleep(5000);
      OptionalLong now = process.cpuNanos();
      if (now.isEmpty()) {
        break;
      }
      double share = 100.0 * (now.getAsLong() - before.getAsLong()) / window;
      err.printf(Locale.ROOT, "  sidecar CPU over the last 5 s: %.0f%% of a core%n", share);
      // A merge writing a large segment can wait on the disk for a while: quiet means quiet for
      // QUIET_WINDOWS windows in a row.
      quiet = share < quietCpu ? quiet + 1 : 0;
      if (quiet >= QUIET_WINDOWS) {
        break;
      }
      before = now;
    }
    return System.nanoTime() - t0;
  }

  /** {@link #phase} for AdminService calls of {@code perCall} items each; progress counts items. */
  private Phase adminPhase(
      SidecarProcess process,
      String name,
      int clients,
      int n,
      int perCall,
      Timed<AdminServiceBlockingStub> call)
      throws InterruptedException, ExecutionException {
    return timed(process, name, clients, n, perCall, AdminServiceGrpc::newBlockingStub, call);
  }

  /** One timed call: call {@code i} with the client's stub. */
  private interface Timed<S> {
    void run(S stub, int i);
  }

  /**
   * Runs calls {@code 0..n-1} from {@code clients} threads, each with its own channel and a stub of
   * it; thread {@code t} makes calls {@code t, t + clients, ...}; progress counts {@code perCall}
   * items a call.
   */
  private <S> Phase timed(
      SidecarProcess process,
      String name,
      int clients,
      int n,
      int perCall,
      Function<ManagedChannel, S> stubOf,
      Timed<S> call)
      throws InterruptedException, ExecutionException {
    long[] nanos = new long[n];
    OptionalLong cpu = process.cpuNanos();
    if (n == 0) {
      return new Phase(nanos, 0, cpu, OptionalLong.empty());
    }
    try (Progress progress = new Progress(err, name, (long) n * perCall);
        Clients pool = new Clients(process, clients)) {
      long t0 = System.nanoTime();
      pool.run(
          (channel, first) -> {
            S stub = stubOf.apply(channel);
            for (int i = first; i < n; i += clients) {
              long s = System.nanoTime();
              call.run(stub, i);
              nanos[i] = System.nanoTime() - s;
              progress.add(perCall);
            }
          });
      return new Phase(nanos, System.nanoTime() - t0, cpu, OptionalLong.empty());
    }
  }

  /** A record of the bench profile as an export carries it, created at {@code time}. */
  private ScopeItem exported(String id, String text, Instant time) {
    Timestamp t =
        Timestamp.newBuilder().setSeconds(time.getEpochSecond()).setNanos(time.getNano()).build();
    return ScopeItem.newBuilder()
        .setMemory(
            ExportedMemory.newBuilder()
                .setMemory(
                    Memory.newBuilder()
                        .setId(id)
                        .setProfile(sidecar.profile)
                        .setKind(MemoryKind.MEMORY_KIND_SEMANTIC)
                        .setContent(text)
                        .setConfidence(1.0f)
                        .setCreateTime(t)
                        .setUpdateTime(t)
                        .setGateScore(8.0f)
                        .setStatus(MemoryStatus.MEMORY_STATUS_ACTIVE)))
        .build();
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
