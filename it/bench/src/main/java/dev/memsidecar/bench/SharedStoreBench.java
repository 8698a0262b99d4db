package dev.memsidecar.bench;

import dev.memsidecar.bench.BenchArguments.SidecarJar;
import dev.memsidecar.jdbc.postgresql.PostgresCluster;
import dev.memsidecar.proto.v1.EndRunRequest;
import dev.memsidecar.proto.v1.GetMemoryRequest;
import dev.memsidecar.proto.v1.ListMemoriesRequest;
import dev.memsidecar.proto.v1.ListMemoriesResponse;
import dev.memsidecar.proto.v1.Memory;
import dev.memsidecar.proto.v1.MemoryServiceGrpc;
import dev.memsidecar.proto.v1.MemoryServiceGrpc.MemoryServiceBlockingStub;
import dev.memsidecar.proto.v1.RememberRequest;
import dev.memsidecar.proto.v1.Scope;
import dev.memsidecar.proto.v1.SearchRequest;
import dev.memsidecar.sidecar.bench.Figures;
import dev.memsidecar.sidecar.bench.Sentences;
import dev.memsidecar.sidecar.bench.SidecarProcess;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Several sidecars on one PostgreSQL 15 database ({@code MEMSIDECAR_STORE_URL}), each with a data
 * folder of its own as in separate pods, driven over loopback gRPC: a throwaway server is started
 * ({@link PostgresCluster}: Debian's {@code postgresql-15}, {@code fsync} on unless {@code
 * --no-fsync}), then, in one workspace:
 *
 * <ol>
 *   <li><b>load</b>: {@code --records} Remembers from {@code --clients} clients per sidecar (each
 *       its own connection); acknowledged per second in total;
 *   <li><b>search</b>: {@code --searches} Searches per client (top 8, 2-3 words of a stored text)
 *       from the same clients; p50 and p99 of all;
 *   <li><b>visibility</b>: {@code --probes} times, a Remember of a new word on one sidecar, then
 *       Search for it on each other sidecar until found; the lag from the acknowledgement;
 *   <li><b>duplicates</b>: {@code --facts} facts, each sent at the same moment as an EndRun (each
 *       its own run id) to every sidecar; active records holding the fact more than once;
 *   <li><b>kill -9</b>: {@code --kills} cycles of a fourth sidecar written to by {@code --clients}
 *       clients, killed with SIGKILL while writes are in flight, then started again;
 *   <li><b>database restarts</b>: {@code --restarts} fast restarts of the server while the sidecars
 *       take writes; errors while it is down, time to the first write after;
 *   <li>every acknowledged id of the last two phases read back with GetMemory.
 * </ol>
 *
 * Prints a markdown table. The sidecars use the {@code hash} embedder unless {@code --embedder}
 * says otherwise: with the default model the model, not the store, bounds Remember.
 *
 * <pre>
 * java -cp it/bench/target/memsidecar-bench.jar dev.memsidecar.bench.SharedStoreBench
 *     [--launcher sidecar/bin/memsidecar] [--sidecars 3] [--clients 4] [--records 100000]
 * </pre>
 */
public final class SharedStoreBench {
  private static final Scope SCOPE = Scope.newBuilder().setWorkspaceId("bench").build();
  private static final String PROFILE = "workspace";

  private final Options options;
  private final Map<String, String> env = new HashMap<>();
  private final List<SidecarProcess> sidecars = new ArrayList<>();
  private final List<String> rows = new ArrayList<>();
  private final List<String> sample = new ArrayList<>();
  private PostgresCluster cluster;
  private Path root;

  private SharedStoreBench(Options options) {
    this.options = options;
  }

  public static void main(String[] args) throws Exception {
    Options options = BenchArguments.parseOrExit(new Options(), args);
    options.sidecar.requireBuiltOrExit();
    new SharedStoreBench(options).run();
  }

  private void run() throws Exception {
    root = Files.createTempDirectory("memsidecar-shared-bench");
    cluster = PostgresCluster.start(!options.noFsync);
    try {
      String database = cluster.createDatabase();
      env.put("MEMSIDECAR_STORE_URL", cluster.url(database));
      env.put("MEMSIDECAR_STORE_USER", PostgresCluster.USER);
      env.put("MEMSIDECAR_STORE_PASSWORD", PostgresCluster.PASSWORD);
      for (int i = 0; i < options.sidecars; i++) {
        sidecars.add(start("pod-" + i));
      }
      System.err.printf(
          Locale.ROOT,
          "%d sidecars on %s (fsync %s)%n",
          sidecars.size(),
          cluster.url(database),
          options.noFsync ? "off" : "on");
      load();
      search();
      if (options.probes > 0 && sidecars.size() > 1) {
        visibility();
      }
      if (options.facts > 0) {
        duplicates();
      }
      Set<String> acknowledged = ConcurrentHashMap.newKeySet();
      kills(acknowledged);
      restarts(acknowledged);
      readBack(acknowledged);
    } finally {
      for (SidecarProcess s : sidecars) {
        s.close();
      }
      cluster.close();
      Figures.deleteTree(root);
    }
    System.out.println();
    System.out.printf(
        Locale.ROOT,
        "## %d sidecars on one PostgreSQL 15, %d clients each, embedder %s%n%n",
        options.sidecars,
        options.clients,
        options.embedder);
    System.out.println("| measure | figure |");
    System.out.println("|---|---:|");
    rows.forEach(System.out::println);
  }

  private SidecarProcess start(String pod) throws Exception {
    Path ws = root.resolve(pod);
    Files.createDirectories(ws);
    Files.writeString(
        ws.resolve("memsidecar.yaml"),
        "memory:\n  embedder: " + options.embedder + "\n  maintenance: { enabled: false }\n");
    List<String> command =
        options.sidecar.launcher == null
            ? SidecarProcess.javaCommand(options.sidecar.jar)
            : SidecarProcess.launcherCommand(options.sidecar.launcher);
    return SidecarProcess.start(command, ws, null, env);
  }

  private void row(String measure, String format, Object... args) {
    String figure = String.format(Locale.ROOT, format, args);
    rows.add("| " + measure + " | " + figure + " |");
    System.err.println(measure + ": " + figure);
  }

  /** A task per client of every sidecar: sidecar index, client index, its stub. */
  private interface ClientTask {
    void run(int sidecar, int client, MemoryServiceBlockingStub stub) throws Exception;
  }

  private void onAllClients(List<SidecarProcess> on, ClientTask task) throws Exception {
    int n = on.size() * options.clients;
    ExecutorService pool = Executors.newFixedThreadPool(n);
    List<ManagedChannel> channels = new ArrayList<>();
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int s = 0; s < on.size(); s++) {
        for (int c = 0; c < options.clients; c++) {
          ManagedChannel channel = on.get(s).newChannel();
          channels.add(channel);
          MemoryServiceBlockingStub stub = MemoryServiceGrpc.newBlockingStub(channel);
          int sidecar = s;
          int client = c;
          futures.add(
              pool.submit(
                  () -> {
                    task.run(sidecar, client, stub);
                    return null;
                  }));
        }
      }
      for (Future<?> f : futures) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
      channels.forEach(ManagedChannel::shutdownNow);
    }
  }

  private void load() throws Exception {
    AtomicInteger next = new AtomicInteger();
    int clients = sidecars.size() * options.clients;
    long t0 = System.nanoTime();
    onAllClients(
        sidecars,
        (s, c, stub) -> {
          Sentences sentences = new Sentences(options.seed + s * 100L + c);
          Random random = new Random(options.seed + s * 100L + c);
          while (next.getAndIncrement() < options.records) {
            String text = sentences.next();
            stub.remember(
                RememberRequest.newBuilder()
                    .setScope(SCOPE)
                    .setProfile(PROFILE)
                    .setContent(text)
                    .build());
            if (random.nextInt(100) == 0) {
              synchronized (sample) {
                sample.add(text);
              }
            }
          }
        });
    long nanos = System.nanoTime() - t0;
    row(
        "Remember, " + options.records + " records from " + clients + " clients",
        "%,.0f /s (%.1f s)",
        options.records / Figures.seconds(nanos),
        Figures.seconds(nanos));
  }

  private void search() throws Exception {
    long[] all = new long[sidecars.size() * options.clients * options.searches];
    AtomicInteger slot = new AtomicInteger();
    onAllClients(
        sidecars,
        (s, c, stub) -> {
          Random random = new Random(options.seed * 31 + s * 100L + c);
          for (int i = 0; i < options.searches; i++) {
            String query = query(random);
            long t = System.nanoTime();
            stub.search(
                SearchRequest.newBuilder()
                    .setScope(SCOPE)
                    .setQuery(query)
                    .addProfiles(PROFILE)
                    .setTopK(8)
                    .build());
            all[slot.getAndIncrement()] = System.nanoTime() - t;
          }
        });
    Arrays.sort(all);
    row(
        "Search p50 / p99, " + all.length + " Searches at " + options.records + " records",
        "%.2f / %.2f ms",
        Figures.millis(Figures.percentile(all, 50)),
        Figures.millis(Figures.percentile(all, 99)));
  }

  private String query(Random random) {
    String text;
    synchronized (sample) {
      text = sample.get(random.nextInt(sample.size()));
    }
    String[] words = text.replaceAll("[^\\p{L}\\p{N} ]", " ").trim().split("\\s+");
    int n = 2 + random.nextInt(2);
    int from = random.nextInt(Math.max(1, words.length - n));
    return String.join(" ", Arrays.copyOfRange(words, from, Math.min(words.length, from + n)));
  }

  private void visibility() {
    List<MemoryServiceBlockingStub> stubs = new ArrayList<>();
    sidecars.forEach(s -> stubs.add(MemoryServiceGrpc.newBlockingStub(s.channel())));
    List<Long> lags = new ArrayList<>();
    for (int i = 0; i < options.probes; i++) {
      int writer = i % stubs.size();
      String word = "probe" + Long.toString(options.seed, 36) + "x" + i + "q";
      stubs
          .get(writer)
          .remember(
              RememberRequest.newBuilder()
                  .setScope(SCOPE)
                  .setProfile(PROFILE)
                  .setContent("The " + word + " marker was set by pod " + writer)
                  .build());
      long acknowledged = System.nanoTime();
      for (int r = 0; r < stubs.size(); r++) {
        if (r == writer) {
          continue;
        }
        while (stubs
            .get(r)
            .search(
                SearchRequest.newBuilder()
                    .setScope(SCOPE)
                    .setQuery(word)
                    .addProfiles(PROFILE)
                    .setTopK(1)
                    .build())
            .getHitsList()
            .stream()
            .noneMatch(h -> h.getMemory().getContent().contains(word))) {
          if (System.nanoTime() - acknowledged > TimeUnit.SECONDS.toNanos(30)) {
            throw new IllegalStateException(word + " not visible on sidecar " + r + " after 30 s");
          }
          Thread.onSpinWait();
        }
        lags.add(System.nanoTime() - acknowledged);
      }
    }
    long[] sorted = lags.stream().mapToLong(Long::longValue).sorted().toArray();
    row(
        "visible on another sidecar, p50 / p99 / max (" + sorted.length + " probes)",
        "%.1f / %.1f / %.1f ms",
        Figures.millis(Figures.percentile(sorted, 50)),
        Figures.millis(Figures.percentile(sorted, 99)),
        Figures.millis(sorted[sorted.length - 1]));
  }

  private void duplicates() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(sidecars.size());
    int duplicated = 0;
    int kept = 0;
    try {
      for (int f = 0; f < options.facts; f++) {
        Scope scope =
            Scope.newBuilder().setWorkspaceId("dup" + f).setUserId("u").setSessionId("s").build();
        String fact =
            "Remember: the release train for service kestrel" + f + " leaves on Tuesdays.";
        CountDownLatch go = new CountDownLatch(1);
        List<Future<?>> calls = new ArrayList<>();
        for (int s = 0; s < sidecars.size(); s++) {
          MemoryServiceBlockingStub stub =
              MemoryServiceGrpc.newBlockingStub(sidecars.get(s).channel());
          String runId = "dup-" + f + "-" + s;
          calls.add(
              pool.submit(
                  () -> {
                    go.await();
                    return stub.endRun(
                        EndRunRequest.newBuilder()
                            .setScope(scope)
                            .setRunId(runId)
                            .setInput(fact)
                            .setOutput("Noted.")
                            .build());
                  }));
        }
        go.countDown();
        for (Future<?> c : calls) {
          c.get();
        }
        MemoryServiceBlockingStub reader =
            MemoryServiceGrpc.newBlockingStub(sidecars.get(0).channel());
        String marker = "kestrel" + f;
        long copies = 0;
        for (String profile : List.of("workspace", "user")) {
          copies +=
              active(reader, scope, profile).stream()
                  .filter(m -> m.getContent().contains(marker))
                  .count();
        }
        if (copies > 0) {
          kept++;
        }
        if (copies > 1) {
          duplicated++;
        }
      }
    } finally {
      pool.shutdownNow();
    }
    row(
        "duplicate records from " + options.facts + " facts sent to every sidecar at once",
        "%d (%d facts kept)",
        duplicated,
        kept);
  }

  private static List<Memory> active(MemoryServiceBlockingStub stub, Scope scope, String profile) {
    List<Memory> all = new ArrayList<>();
    String token = "";
    do {
      ListMemoriesResponse page =
          stub.listMemories(
              ListMemoriesRequest.newBuilder()
                  .setScope(scope)
                  .setProfile(profile)
                  .setPageSize(100)
                  .setPageToken(token)
                  .build());
      all.addAll(page.getMemoriesList());
      token = page.getNextPageToken();
    } while (!token.isEmpty());
    return all;
  }

  /** Writes from {@code clients} clients to {@code target} until {@code stop}; ids acknowledged. */
  private List<Future<?>> writers(
      ExecutorService pool,
      SidecarProcess target,
      String tag,
      AtomicBoolean stop,
      Set<String> acknowledged,
      AtomicLong errors) {
    List<Future<?>> futures = new ArrayList<>();
    for (int c = 0; c < options.clients; c++) {
      ManagedChannel channel = target.newChannel();
      MemoryServiceBlockingStub stub = MemoryServiceGrpc.newBlockingStub(channel);
      int client = c;
      futures.add(
          pool.submit(
              () -> {
                try {
                  for (int i = 0; !stop.get(); i++) {
                    try {
                      Memory m =
                          stub.withDeadlineAfter(30, TimeUnit.SECONDS)
                              .remember(
                                  RememberRequest.newBuilder()
                                      .setScope(SCOPE)
                                      .setProfile(PROFILE)
                                      .setContent(
                                          tag + " client " + client + " wrote ledger line " + i)
                                      .build())
                              .getDecision()
                              .getMemory();
                      acknowledged.add(m.getId());
                    } catch (StatusRuntimeException e) {
                      errors.incrementAndGet();
                      if (e.getStatus().getCode() != Status.Code.UNAVAILABLE
                          && e.getStatus().getCode() != Status.Code.DEADLINE_EXCEEDED) {
                        System.err.println(tag + ": " + e.getStatus());
                      }
                      Thread.sleep(20);
                    }
                  }
                } finally {
                  channel.shutdownNow();
                }
                return null;
              }));
    }
    return futures;
  }

  private void kills(Set<String> acknowledged) throws Exception {
    ExecutorService pool = Executors.newCachedThreadPool();
    Random random = new Random(options.seed);
    long startNanos = 0;
    try {
      for (int cycle = 0; cycle < options.kills; cycle++) {
        long t = System.nanoTime();
        SidecarProcess victim = start("victim");
        startNanos += System.nanoTime() - t;
        AtomicBoolean stop = new AtomicBoolean();
        int before = acknowledged.size();
        List<Future<?>> writers =
            writers(pool, victim, "kill" + cycle, stop, acknowledged, new AtomicLong());
        // Killed while writes are in flight: once it acknowledged some, at a random moment.
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (acknowledged.size() < before + 20 && System.nanoTime() < deadline) {
          Thread.sleep(5);
        }
        Thread.sleep(random.nextInt(500));
        victim.kill();
        stop.set(true);
        for (Future<?> w : writers) {
          w.get(2, TimeUnit.MINUTES);
        }
        victim.close();
      }
    } finally {
      pool.shutdownNow();
    }
    row(
        "kill -9 cycles (a sidecar killed mid-write, started again)",
        "%d, %,d writes acknowledged, start %.1f s mean",
        options.kills,
        acknowledged.size(),
        options.kills == 0 ? 0.0 : Figures.seconds(startNanos) / options.kills);
  }

  private void restarts(Set<String> acknowledged) throws Exception {
    ExecutorService pool = Executors.newCachedThreadPool();
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong errors = new AtomicLong();
    int before = acknowledged.size();
    List<Future<?>> writers = new ArrayList<>();
    for (int s = 0; s < sidecars.size(); s++) {
      writers.addAll(writers(pool, sidecars.get(s), "restart" + s, stop, acknowledged, errors));
    }
    List<Long> recoveries = new ArrayList<>();
    try {
      for (int r = 0; r < options.restarts; r++) {
        Thread.sleep(2_000);
        int seen = acknowledged.size();
        cluster.restart();
        long up = System.nanoTime();
        while (acknowledged.size() == seen) {
          if (System.nanoTime() - up > TimeUnit.MINUTES.toNanos(2)) {
            throw new IllegalStateException("no write acknowledged 2 minutes after the restart");
          }
          Thread.sleep(5);
        }
        recoveries.add(System.nanoTime() - up);
      }
      Thread.sleep(2_000);
    } finally {
      stop.set(true);
      for (Future<?> w : writers) {
        w.get(2, TimeUnit.MINUTES);
      }
      pool.shutdownNow();
    }
    long[] sorted = recoveries.stream().mapToLong(Long::longValue).sorted().toArray();
    row(
        "database restarts under load",
        "%d, %,d writes acknowledged, %,d refused while down, first write %.2f s after (max)",
        options.restarts,
        acknowledged.size() - before,
        errors.get(),
        sorted.length == 0 ? 0.0 : Figures.seconds(sorted[sorted.length - 1]));
  }

  private void readBack(Set<String> acknowledged) {
    MemoryServiceBlockingStub stub = MemoryServiceGrpc.newBlockingStub(sidecars.get(0).channel());
    int lost = 0;
    for (String id : acknowledged) {
      try {
        stub.getMemory(
            GetMemoryRequest.newBuilder().setScope(SCOPE).setProfile(PROFILE).setId(id).build());
      } catch (StatusRuntimeException e) {
        if (e.getStatus().getCode() != Status.Code.NOT_FOUND) {
          throw e;
        }
        lost++;
      }
    }
    row("acknowledged writes lost (kill -9 and restarts)", "%d of %,d", lost, acknowledged.size());
  }

  @Command(description = "Several sidecars on one PostgreSQL: throughput, freshness, safety.")
  static final class Options {
    @Mixin SidecarJar sidecar = new SidecarJar();

    @Option(names = "--sidecars", description = "sidecars on the database")
    int sidecars = 3;

    @Option(names = "--clients", description = "clients per sidecar")
    int clients = 4;

    @Option(names = "--records", description = "records Remembered in the load phase")
    int records = 100_000;

    @Option(names = "--searches", description = "Searches per client")
    int searches = 500;

    @Option(names = "--probes", description = "cross-sidecar visibility probes")
    int probes = 200;

    @Option(names = "--facts", description = "facts sent to every sidecar at once as EndRuns")
    int facts = 50;

    @Option(names = "--kills", description = "kill -9 cycles")
    int kills = 20;

    @Option(names = "--restarts", description = "database restarts under load")
    int restarts = 3;

    @Option(names = "--embedder", description = "the sidecars' embedder")
    String embedder = "hash";

    @Option(names = "--no-fsync", description = "run the server with fsync off")
    boolean noFsync;

    @Option(names = "--seed", description = "random seed")
    long seed = 42;
  }
}
