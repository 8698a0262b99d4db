package dev.memsidecar.sidecar.bench;

import dev.memsidecar.proto.v1.AdminServiceGrpc;
import dev.memsidecar.proto.v1.GetMemoryRequest;
import dev.memsidecar.proto.v1.GetStatusRequest;
import dev.memsidecar.proto.v1.ListWriteDecisionsRequest;
import dev.memsidecar.proto.v1.ListWriteDecisionsResponse;
import dev.memsidecar.proto.v1.Memory;
import dev.memsidecar.proto.v1.MemoryServiceGrpc;
import dev.memsidecar.proto.v1.MemoryServiceGrpc.MemoryServiceBlockingStub;
import dev.memsidecar.proto.v1.RememberRequest;
import dev.memsidecar.proto.v1.Scope;
import dev.memsidecar.proto.v1.SearchRequest;
import dev.memsidecar.proto.v1.WriteDecisionEntry;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code bench crash}: a crash loop on one data folder. After one clean start and stop elsewhere
 * (which leaves the launcher's class-data archive, as any clean stop would), each cycle starts a
 * sidecar, lets {@code --clients} clients Remember until {@code --records / --cycles} more writes
 * are acknowledged, and kills it with SIGKILL while their next writes are in flight. Then one more
 * start: the start-up after the last crash, a check that every acknowledged write is still there
 * (GetMemory of each), and the data folder's size against the logical data (each record as
 * GetMemory returns it, its float32 vector, and the write-decision audit as ListWriteDecisions
 * returns it), after the crashes and after a clean stop. Exit code 1 when an acknowledged write is
 * missing.
 */
@Command(
    name = "crash",
    sortOptions = false,
    usageHelpWidth = 100,
    sortSynopsis = false,
    description = {
      "A crash loop on one data folder: start, Remember from N clients, kill -9 mid-write, again."
          + " Reports the start-up time after each crash, whether every acknowledged write"
          + " survived, and the data folder's size against the logical data.",
      "Progress goes to stderr, the table to stdout."
    })
final class CrashBench extends Bench {
  @Mixin SidecarOptions sidecar;

  @Option(
      names = "--cycles",
      paramLabel = "N",
      defaultValue = "20",
      description = "start, write, kill -9 cycles (default: ${DEFAULT-VALUE})")
  int cycles;

  @Option(
      names = "--records",
      paramLabel = "N",
      defaultValue = "20000",
      description =
          "acknowledged Remembers over all cycles, an equal share per cycle (default:"
              + " ${DEFAULT-VALUE})")
  int records;

  @Option(
      names = "--clients",
      paramLabel = "N",
      defaultValue = "4",
      description = "concurrent writing clients, each with its own connection (default: 4)")
  int clients;

  @Option(
      names = "--seed",
      paramLabel = "N",
      defaultValue = "42",
      description = "seed of the texts (default: ${DEFAULT-VALUE})")
  long seed;

  CrashBench(PrintStream out, PrintStream err, Class<?> sidecarMain) {
    super(out, err, sidecarMain);
  }

  void validate() {
    if (cycles < 1 || cycles > 10_000) {
      throw new ParameterException(spec.commandLine(), "--cycles must be 1..10000, got " + cycles);
    }
    if (records < cycles) {
      throw new ParameterException(
          spec.commandLine(), "--records must be >= --cycles (one write per cycle at least)");
    }
    if (clients < 1 || clients > 256) {
      throw new ParameterException(spec.commandLine(), "--clients must be 1..256, got " + clients);
    }
    sidecar.validate(spec);
  }

  /** One cycle's figures. */
  private record Cycle(
      int number, long listeningNanos, long firstSearchNanos, int acked, long bytes) {
    String markdown() {
      return String.format(
          Locale.ROOT,
          "| %d | %.0f ms | %.0f ms | %,d | %s |",
          number,
          Figures.millis(listeningNanos),
          Figures.millis(firstSearchNanos),
          acked,
          mib(bytes));
    }
  }

  @Override
  public Integer call() throws Exception {
    validate();
    err.printf(
        Locale.ROOT,
        "bench crash: %d cycles, %,d acknowledged Remembers in all from %d clients, seed %d%n",
        cycles,
        records,
        clients,
        seed);
    Scope scope = Scope.newBuilder().setWorkspaceId("bench-crash").build();
    Sentences sentences = new Sentences(seed);
    ConcurrentLinkedQueue<String> acked = new ConcurrentLinkedQueue<>();
    List<Cycle> rows = new ArrayList<>();
    // One clean start and stop first, so what a clean stop leaves (the launcher's class-data
    // archive) is there as it would be for a sidecar that ever stopped cleanly.
    try (SidecarOptions.Scratch first = sidecar.scratch("memsidecar-bench-crash-first");
        SidecarProcess process = sidecar.start(first, sidecarMain)) {
      process.terminate();
    }
    try (SidecarOptions.Scratch scratch = sidecar.scratch("memsidecar-bench-crash")) {
      String description = "";
      for (int c = 1; c <= cycles; c++) {
        int quota = records / cycles + (c <= records % cycles ? 1 : 0);
        long firstSearch;
        long listening;
        try (SidecarProcess process = sidecar.start(scratch, sidecarMain)) {
          listening = process.startNanos();
          firstSearch = firstSearch(process, scope);
          if (c == 1) {
            description = sidecar.describe(process);
            SidecarOptions.reportStart(err, process, description);
          }
          writeThenKill(process, scope, sentences, quota, acked);
        }
        rows.add(
            new Cycle(c, listening, firstSearch, acked.size(), Figures.treeBytes(scratch.data())));
        err.printf(Locale.ROOT, "cycle %d: %s%n", c, rows.get(rows.size() - 1).markdown());
      }
      return report(scratch, scope, acked, rows, description);
    }
  }

  /** The latency of a first Search of the profile (which opens its store if it is lazy). */
  private long firstSearch(SidecarProcess process, Scope scope) {
    long t0 = System.nanoTime();
    MemoryServiceGrpc.newBlockingStub(process.channel())
        .withDeadlineAfter(60, TimeUnit.SECONDS)
        .search(
            SearchRequest.newBuilder()
                .setScope(scope)
                .addProfiles(sidecar.profile)
                .setQuery("start")
                .setTopK(1)
                .build());
    return System.nanoTime() - t0;
  }

  /**
   * Remembers from {@link #clients} threads until {@code quota} more are acknowledged, then kills
   * the sidecar while the next ones are in flight. Every answered Remember's id goes to {@code
   * acked}, also one answered after the kill was decided.
   */
  private void writeThenKill(
      SidecarProcess process,
      Scope scope,
      Sentences sentences,
      int quota,
      ConcurrentLinkedQueue<String> acked)
      throws InterruptedException {
    AtomicInteger done = new AtomicInteger();
    AtomicBoolean stop = new AtomicBoolean();
    CountDownLatch enough = new CountDownLatch(1);
    try (Clients pool = new Clients(process, clients)) {
      List<Future<?>> writers =
          pool.start(
              (channel, client) -> {
                MemoryServiceBlockingStub stub = MemoryServiceGrpc.newBlockingStub(channel);
                while (!stop.get()) {
                  String text;
                  synchronized (sentences) {
                    text = sentences.next();
                  }
                  try {
                    String id =
                        stub.withDeadlineAfter(60, TimeUnit.SECONDS)
                            .remember(
                                RememberRequest.newBuilder()
                                    .setScope(scope)
                                    .setProfile(sidecar.profile)
                                    .setContent(text)
                                    .build())
                            .getDecision()
                            .getMemory()
                            .getId();
                    acked.add(id);
                    if (done.incrementAndGet() >= quota) {
                      enough.countDown();
                    }
                  } catch (StatusRuntimeException e) {
                    if (!stop.get()) {
                      throw e;
                    }
                  }
                }
              });
      while (!enough.await(100, TimeUnit.MILLISECONDS)) {
        for (Future<?> w : writers) {
          if (w.isDone()) {
            stop.set(true);
            getQuietly(w);
          }
        }
      }
      stop.set(true);
      process.kill();
      for (Future<?> w : writers) {
        getQuietly(w);
      }
    } finally {
      stop.set(true);
    }
  }

  private static void getQuietly(Future<?> writer) throws InterruptedException {
    try {
      writer.get();
    } catch (java.util.concurrent.ExecutionException e) {
      throw new IllegalStateException("a Remember failed before the kill: " + e.getCause(), e);
    }
  }

  private int report(
      SidecarOptions.Scratch scratch,
      Scope scope,
      ConcurrentLinkedQueue<String> acked,
      List<Cycle> rows,
      String description)
      throws IOException, InterruptedException {
    long afterCrashes = Figures.treeBytes(scratch.data());
    List<String> ids = new ArrayList<>(acked);
    AtomicInteger missing = new AtomicInteger();
    AtomicLong recordBytes = new AtomicLong();
    long listening;
    long firstSearch;
    int dimensions;
    long afterRestart;
    long auditBytes;
    try (SidecarProcess process = sidecar.start(scratch, sidecarMain)) {
      listening = process.startNanos();
      firstSearch = firstSearch(process, scope);
      err.printf(
          Locale.ROOT,
          "restart after the last crash: listening after %.0f ms, first Search %.0f ms%n",
          Figures.millis(listening),
          Figures.millis(firstSearch));
      dimensions =
          AdminServiceGrpc.newBlockingStub(process.channel())
              .withDeadlineAfter(30, TimeUnit.SECONDS)
              .getStatus(GetStatusRequest.getDefaultInstance())
              .getEmbedderDimensions();
      verify(process, scope, ids, missing, recordBytes);
      auditBytes = auditBytes(process, scope);
      afterRestart = Figures.treeBytes(scratch.data());
      int exit = process.terminate();
      if (exit != 0) {
        err.println("sidecar exit code after SIGTERM: " + exit);
      }
    }
    long afterStop = Figures.treeBytes(scratch.data());
    printBreakdown(scratch.data());
    long vectorBytes = (long) (ids.size() - missing.get()) * dimensions * 4L;
    long logical = recordBytes.get() + vectorBytes + auditBytes;

    out.printf(
        Locale.ROOT,
        "bench crash: %d cycles of start, Remember from %d clients, kill -9; %s; %s%n%n",
        cycles,
        clients,
        description,
        SidecarOptions.machine());
    out.println(
        "| cycle | start to `listening` | first Search | acknowledged so far | data folder after"
            + " the kill |");
    out.println("|---:|---:|---:|---:|---:|");
    for (Cycle row : rows) {
      out.println(row.markdown());
    }
    out.println();
    out.println("| after the crash loop | |");
    out.println("|---|---:|");
    out.printf(
        Locale.ROOT,
        "| start-up after the last crash: to `listening`, then first Search | %.0f ms + %.0f ms"
            + " |%n",
        Figures.millis(listening),
        Figures.millis(firstSearch));
    out.printf(
        Locale.ROOT,
        "| start to `listening` over all cycles: median, max | %.0f ms, %.0f ms |%n",
        Figures.millis(Figures.median(listeningTimes(rows, listening))),
        Figures.millis(max(listeningTimes(rows, listening))));
    out.printf(
        Locale.ROOT, "| acknowledged writes lost | %,d of %,d |%n", missing.get(), ids.size());
    out.printf(
        Locale.ROOT,
        "| logical data: records as GetMemory returns them, their %d-dim float32 vectors, the"
            + " write-decision audit as ListWriteDecisions returns it | %s + %s + %s = %s |%n",
        dimensions,
        mib(recordBytes.get()),
        mib(vectorBytes),
        mib(auditBytes),
        mib(logical));
    out.printf(
        Locale.ROOT,
        "| data folder after the last kill | %s (%.1fx) |%n",
        mib(afterCrashes),
        ratio(afterCrashes, logical));
    out.printf(
        Locale.ROOT,
        "| data folder after restart and reading every record | %s (%.1fx) |%n",
        mib(afterRestart),
        ratio(afterRestart, logical));
    out.printf(
        Locale.ROOT,
        "| data folder after a clean stop (SIGTERM) | %s (%.1fx) |%n",
        mib(afterStop),
        ratio(afterStop, logical));
    out.flush();
    if (missing.get() > 0) {
      err.printf(Locale.ROOT, "LOST %,d acknowledged writes%n", missing.get());
      return 1;
    }
    return 0;
  }

  private static long[] listeningTimes(List<Cycle> rows, long last) {
    long[] all = new long[rows.size() + 1];
    for (int i = 0; i < rows.size(); i++) {
      all[i] = rows.get(i).listeningNanos();
    }
    all[rows.size()] = last;
    return all;
  }

  private static long max(long[] values) {
    long max = 0;
    for (long v : values) {
      max = Math.max(max, v);
    }
    return max;
  }

  private static double ratio(long bytes, long logical) {
    return logical == 0 ? 0 : (double) bytes / logical;
  }

  /** GetMemory of every id from {@link #clients} threads: counts the missing, sums the sizes. */
  private void verify(
      SidecarProcess process,
      Scope scope,
      List<String> ids,
      AtomicInteger missing,
      AtomicLong recordBytes)
      throws InterruptedException {
    try (Progress progress = new Progress(err, "read back every acknowledged write", ids.size());
        Clients pool = new Clients(process, clients)) {
      List<Future<?>> work =
          pool.start(
              (channel, first) -> {
                MemoryServiceBlockingStub stub = MemoryServiceGrpc.newBlockingStub(channel);
                for (int i = first; i < ids.size(); i += clients) {
                  try {
                    Memory m =
                        stub.withDeadlineAfter(60, TimeUnit.SECONDS)
                            .getMemory(
                                GetMemoryRequest.newBuilder()
                                    .setScope(scope)
                                    .setProfile(sidecar.profile)
                                    .setId(ids.get(i))
                                    .build())
                            .getMemory();
                    recordBytes.addAndGet(m.getSerializedSize());
                  } catch (StatusRuntimeException e) {
                    if (e.getStatus().getCode() != Status.Code.NOT_FOUND) {
                      throw e;
                    }
                    missing.incrementAndGet();
                  }
                  progress.add(1);
                }
              });
      for (Future<?> f : work) {
        getQuietly(f);
      }
    }
  }

  /** The size of the workspace's write-decision audit as ListWriteDecisions pages it out. */
  private static long auditBytes(SidecarProcess process, Scope scope) {
    AdminServiceGrpc.AdminServiceBlockingStub admin =
        AdminServiceGrpc.newBlockingStub(process.channel());
    long bytes = 0;
    String token = "";
    do {
      ListWriteDecisionsResponse page =
          admin
              .withDeadlineAfter(60, TimeUnit.SECONDS)
              .listWriteDecisions(
                  ListWriteDecisionsRequest.newBuilder()
                      .setScope(scope)
                      .setPageSize(500)
                      .setPageToken(token)
                      .build());
      for (WriteDecisionEntry entry : page.getDecisionsList()) {
        bytes += entry.getSerializedSize();
      }
      token = page.getNextPageToken();
    } while (!token.isEmpty());
    return bytes;
  }

  /** The data folder's files, largest first, on stderr. */
  private void printBreakdown(Path data) throws IOException {
    try (Stream<Path> files = Files.walk(data)) {
      files
          .filter(Files::isRegularFile)
          .sorted(Comparator.comparingLong(Figures::fileSize).reversed())
          .limit(8)
          .forEach(
              f ->
                  err.printf(
                      Locale.ROOT, "  %10s  %s%n", mib(Figures.fileSize(f)), data.relativize(f)));
    }
  }

  private static String mib(long bytes) {
    return String.format(Locale.ROOT, "%,.1f MiB", bytes / (1024.0 * 1024.0));
  }
}
