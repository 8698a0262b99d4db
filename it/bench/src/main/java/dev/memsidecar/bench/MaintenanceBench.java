package dev.memsidecar.bench;

import static dev.memsidecar.sidecar.bench.LockerFacts.fact;

import dev.memsidecar.api.MemoryKind;
import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.bench.BenchArguments.SidecarJar;
import dev.memsidecar.proto.v1.AdminServiceGrpc;
import dev.memsidecar.proto.v1.MaintenanceResult;
import dev.memsidecar.proto.v1.MemoryServiceGrpc;
import dev.memsidecar.proto.v1.RunMaintenanceRequest;
import dev.memsidecar.proto.v1.Scope;
import dev.memsidecar.proto.v1.SearchRequest;
import dev.memsidecar.sidecar.bench.Figures;
import dev.memsidecar.sidecar.bench.LockerFacts;
import dev.memsidecar.sidecar.bench.SidecarProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * A consolidation pass over one large namespace while Search is served: {@code --records} facts
 * ("Zora7 keeps the violin in locker 1042.", no two of them duplicates or contradictions) plus
 * {@code --duplicates} exact repeats of some of them, written straight into the workspace profile's
 * store with the provider (in-process, 4 threads, {@code hash} vectors), then the built sidecar is
 * started on that data (maintenance schedule off) and, over loopback gRPC:
 *
 * <ol>
 *   <li>{@code --searches} Searches (top 8, 2-3 words of one stored fact), one client: the normal
 *       latency;
 *   <li>{@code AdminService.RunMaintenance(langmem)} while the same client keeps searching until
 *       the pass returns: the pass's time and counts, and Search's latency meanwhile;
 *   <li>{@code --searches} Searches again (other load on the machine drifts: the pass's p99 is
 *       compared with the mean of the p99 before and after it);
 *   <li>a second pass, which finds nothing left to merge.
 * </ol>
 *
 * For each {@code --provider} it prints a markdown table row.
 *
 * <pre>
 * java -cp it/bench/target/memsidecar-bench.jar dev.memsidecar.bench.MaintenanceBench
 *     [--launcher sidecar/bin/memsidecar] [--provider langmem-sqlite,lucene-hnsw]
 *     [--records 100000] [--duplicates 1000] [--searches 2000] [--seed 42]
 * </pre>
 */
public final class MaintenanceBench {
  private static final Namespace NS = Namespace.of("bench:workspace:workspace");
  private static final Scope SCOPE = Scope.newBuilder().setWorkspaceId("bench").build();

  private final Options options;

  private MaintenanceBench(Options options) {
    this.options = options;
  }

  public static void main(String[] args) throws Exception {
    Options options = BenchArguments.parseOrExit(new Options(), args);
    options.sidecar.requireBuiltOrExit();
    new MaintenanceBench(options).run();
  }

  private void run() throws Exception {
    List<String> rows = new ArrayList<>();
    for (String provider : options.providers.split(",")) {
      rows.add(measure(provider.strip()));
    }
    System.out.println();
    System.out.println(
        "| provider | records | pass | counts | second pass | Search p50 / p99 before |"
            + " after | during the pass | p99 during / mean of before and after |");
    System.out.println("|---|---:|---:|---|---:|---:|---:|---:|---:|");
    rows.forEach(System.out::println);
  }

  private String measure(String provider) throws Exception {
    Path ws = Files.createTempDirectory("memsidecar-maintenance-bench");
    try {
      Files.writeString(
          ws.resolve("memsidecar.yaml"),
          "memory:\n  embedder: hash\n  maintenance: { enabled: false }\n");
      Files.createDirectories(ws.resolve("config/memory"));
      Files.writeString(
          ws.resolve("config/memory/workspace.yaml"),
          "apiVersion: memsidecar.dev/v1\nkind: Memory\nmetadata: { name: workspace }\n"
              + "spec: { provider: "
              + provider
              + ", profile: workspace }\n");
      long seedStart = System.nanoTime();
      seed(provider, ws.resolve(".memsidecar/profiles/workspace"));
      System.err.printf(
          Locale.ROOT,
          "%s: %,d records written in %.1f s%n",
          provider,
          options.records + options.duplicates,
          Figures.seconds(System.nanoTime() - seedStart));
      try (SidecarProcess sidecar =
          SidecarProcess.start(options.sidecar.jar, options.sidecar.launcher, ws)) {
        var memory = MemoryServiceGrpc.newBlockingStub(sidecar.channel());
        var admin = AdminServiceGrpc.newBlockingStub(sidecar.channel());
        Random random = new Random(options.seed);
        search(memory, random, 300); // warm-up, and the namespace's index loaded
        long[] before = search(memory, random, options.searches);
        System.err.printf(Locale.ROOT, "%s: Search before the pass measured%n", provider);

        ExecutorService caller = Executors.newSingleThreadExecutor();
        Future<MaintenanceResult> pass =
            caller.submit(
                () ->
                    admin
                        .withDeadlineAfter(30, TimeUnit.MINUTES)
                        .runMaintenance(
                            RunMaintenanceRequest.newBuilder().addTargets("langmem").build())
                        .getResults(0));
        List<Long> during = new ArrayList<>();
        while (!pass.isDone()) {
          during.add(searchOnce(memory, random));
        }
        MaintenanceResult first = pass.get();
        long[] after = search(memory, random, options.searches);
        MaintenanceResult second =
            admin
                .withDeadlineAfter(30, TimeUnit.MINUTES)
                .runMaintenance(RunMaintenanceRequest.newBuilder().addTargets("langmem").build())
                .getResults(0);
        caller.shutdown();
        sidecar
            .stderrTail(200)
            .lines()
            .filter(l -> l.contains("maintenance: namespace"))
            .forEach(l -> System.err.println(provider + ": " + l.strip()));
        if (!first.getOk()) {
          throw new IllegalStateException("the pass failed: " + first.getError());
        }
        long[] meanwhile = during.stream().mapToLong(Long::longValue).sorted().toArray();
        Arrays.sort(before);
        Arrays.sort(after);
        double p99Before = Figures.millis(Figures.percentile(before, 99));
        double p99After = Figures.millis(Figures.percentile(after, 99));
        double p99During = Figures.millis(Figures.percentile(meanwhile, 99));
        // Normal is the mean of the p99 just before and just after the pass: other load on the
        // machine drifts, and the pass sits between the two.
        double p99Normal = (p99Before + p99After) / 2;
        Map<String, Long> c = first.getCountsMap();
        return String.format(
            Locale.ROOT,
            "| %s | %,d | %.1f s | merged %d, superseded %d, dropped %d, expired %d |"
                + " %.1f s | %.2f / %.2f ms | %.2f / %.2f ms | %.2f / %.2f ms (%d Searches) |"
                + " %.2f |",
            provider,
            c.getOrDefault("records", 0L),
            seconds(first),
            c.getOrDefault("merged", 0L),
            c.getOrDefault("superseded", 0L),
            c.getOrDefault("dropped", 0L),
            c.getOrDefault("expired", 0L),
            seconds(second),
            Figures.millis(Figures.percentile(before, 50)),
            p99Before,
            Figures.millis(Figures.percentile(after, 50)),
            p99After,
            Figures.millis(Figures.percentile(meanwhile, 50)),
            p99During,
            meanwhile.length,
            p99During / p99Normal);
      }
    } finally {
      Figures.deleteTree(ws);
    }
  }

  private static double seconds(MaintenanceResult r) {
    Duration d =
        Duration.between(
            Instant.ofEpochSecond(r.getStartTime().getSeconds(), r.getStartTime().getNanos()),
            Instant.ofEpochSecond(r.getEndTime().getSeconds(), r.getEndTime().getNanos()));
    return d.toNanos() / 1e9;
  }

  private long[] search(MemoryServiceGrpc.MemoryServiceBlockingStub memory, Random random, int n) {
    long[] out = new long[n];
    for (int i = 0; i < n; i++) {
      out[i] = searchOnce(memory, random);
    }
    return out;
  }

  private long searchOnce(MemoryServiceGrpc.MemoryServiceBlockingStub memory, Random random) {
    String[] words = fact(random.nextInt(options.records)).replace(".", "").split(" ");
    String query = words[0] + " " + words[words.length - 4] + " " + words[words.length - 1];
    long start = System.nanoTime();
    memory.search(SearchRequest.newBuilder().setScope(SCOPE).setQuery(query).setTopK(8).build());
    return System.nanoTime() - start;
  }

  private void seed(String provider, Path data) throws Exception {
    if (!List.of("langmem-sqlite", "lucene-hnsw").contains(provider)) {
      throw new IllegalArgumentException(
          "--provider takes langmem-sqlite and lucene-hnsw, got " + provider);
    }
    Instant t = Instant.parse("2026-01-01T00:00:00Z");
    List<MemoryRecord> records = new ArrayList<>();
    for (int i = 0; i < options.records + options.duplicates; i++) {
      boolean dup = i >= options.records;
      int f = dup ? (i - options.records) * (options.records / options.duplicates) : i;
      records.add(
          MemoryRecord.builder()
              .id((dup ? "d" : "f") + i)
              .namespace(NS)
              .profile("workspace")
              .kind(MemoryKind.SEMANTIC)
              .content(fact(f))
              .times(t.plusMillis(i))
              .gateScore(7.8f)
              .sourceRefs(List.of("run:bench-" + i))
              .build());
    }
    LockerFacts.seed(data, provider, records);
  }

  private static final class Options {
    @Mixin SidecarJar sidecar;

    @Option(
        names = "--provider",
        paramLabel = "NAMES",
        description = "langmem-sqlite, lucene-hnsw, or both with a comma")
    String providers = "langmem-sqlite,lucene-hnsw";

    @Option(names = "--records", paramLabel = "N", description = "distinct facts")
    int records = 100_000;

    @Option(names = "--duplicates", paramLabel = "N", description = "repeats of earlier facts")
    int duplicates = 1_000;

    @Option(names = "--searches", paramLabel = "N", description = "Searches measured before")
    int searches = 2_000;

    @Option(names = "--seed", paramLabel = "N", description = "RNG seed of the queries")
    long seed = 42;
  }
}
