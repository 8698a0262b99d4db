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
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code bench locomo}: evidence recall on LoCoMo through the gRPC API of a sidecar it starts. Each
 * conversation gets its own workspace; every dialog turn is remembered into the {@code workspace}
 * profile (see {@link LocomoData} for content and context), then every question is a Search of that
 * workspace with {@code top_k} = the largest k, from one client, and scored by {@link
 * EvidenceRecall}. Turns of one conversation are sent in order by one client (so ties rank the same
 * every run); conversations go in parallel.
 */
@Command(
    name = "locomo",
    sortOptions = false,
    usageHelpWidth = 100,
    sortSynopsis = false,
    description = {
      "Evidence recall on LoCoMo through the gRPC API of a sidecar it starts: every dialog turn"
          + " remembered (content 'speaker: text [image: caption] (session date: ...)', context"
          + " the neighbouring turns, metadata dia_id), one workspace per conversation; every"
          + " question asked with Search. Prints R@k overall and per category (1 multi-hop,"
          + " 2 temporal, 3 open-domain, 4 single-hop, 5 adversarial) and the Search latency.",
      "R@k of a question: the share of its evidence turns among the top k hits (the LoCoMo"
          + " paper's dialog-level recall). Progress goes to stderr, the table to stdout."
    })
final class LocomoBench extends Bench {
  private static final int REMEMBER_CLIENTS = 4;

  @Option(
      names = "--data",
      required = true,
      paramLabel = "FILE",
      description = "the LoCoMo JSON file, e.g. ../shared/bench/locomo-dev.json")
  Path data;

  @Mixin SidecarOptions sidecar;

  @Option(
      names = "--k",
      split = ",",
      paramLabel = "K",
      defaultValue = "5,10,25",
      description = "the cut-offs, 1..100 (default: ${DEFAULT-VALUE}); Search top_k is the largest")
  List<Integer> k;

  @Option(
      names = "--conversations",
      paramLabel = "N",
      defaultValue = "0",
      description = "only the first N conversations (default: all)")
  int conversations;

  @Option(
      names = "--warmup",
      paramLabel = "N",
      defaultValue = "100",
      description = "unmeasured Searches before the measured ones (default: ${DEFAULT-VALUE})")
  int warmup;

  LocomoBench(PrintStream out, PrintStream err, Class<?> sidecarMain) {
    super(out, err, sidecarMain);
  }

  /** The validated cut-offs, ascending and distinct. */
  int[] cutoffs() {
    int[] ks = k.stream().mapToInt(Integer::intValue).sorted().distinct().toArray();
    for (int x : ks) {
      if (x < 1 || x > 100) {
        throw new ParameterException(
            spec.commandLine(), "--k: each cut-off must be 1..100 (Search top_k), got " + x);
      }
    }
    return ks;
  }

  /** Checks every option; a bad one is a {@link ParameterException} naming it. */
  LocomoData validate() {
    int[] ks = cutoffs();
    if (ks.length == 0) {
      throw new ParameterException(spec.commandLine(), "--k: give at least one cut-off");
    }
    if (conversations < 0) {
      throw new ParameterException(spec.commandLine(), "--conversations must be >= 0");
    }
    if (warmup < 0) {
      throw new ParameterException(spec.commandLine(), "--warmup must be >= 0");
    }
    sidecar.validate(spec);
    if (!Files.isRegularFile(data)) {
      throw new ParameterException(spec.commandLine(), "--data: no such file: " + data);
    }
    try {
      LocomoData parsed = LocomoData.read(data).first(conversations);
      if (parsed.conversations().isEmpty()) {
        throw new ParameterException(spec.commandLine(), "--data: no conversation in " + data);
      }
      return parsed;
    } catch (IOException | IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), "--data: " + e.getMessage());
    }
  }

  @Override
  public Integer call() throws Exception {
    LocomoData locomo = validate();
    int[] ks = cutoffs();
    int topK = ks[ks.length - 1];
    err.printf(
        Locale.ROOT,
        "bench locomo: %s: %d conversations, %d turns, %d questions%n",
        data,
        locomo.conversations().size(),
        locomo.turnCount(),
        locomo.questionCount());
    EvidenceRecall recall = new EvidenceRecall(ks);
    String description;
    try (SidecarOptions.Scratch scratch = sidecar.scratch("memsidecar-bench-locomo");
        SidecarProcess process = sidecar.start(scratch, sidecarMain)) {
      description = sidecar.describe(process);
      SidecarOptions.reportStart(err, process, description);
      MemoryServiceBlockingStub stub = MemoryServiceGrpc.newBlockingStub(process.channel());
      rememberAll(stub, locomo);
      // Remember is acknowledged before its vector is made: ask once every turn has one.
      err.printf(
          Locale.ROOT,
          "  every turn had its vector %.1f s after the last Remember%n",
          process.awaitVectors(Duration.ofHours(1)) / 1e9);
      warmUp(stub, locomo, topK);
      ask(stub, locomo, topK, recall);
      int exit = process.terminate();
      if (exit != 0) {
        err.println("sidecar exit code after SIGTERM: " + exit);
      }
    }

    out.printf(
        Locale.ROOT,
        "LoCoMo %s: %d conversations (a workspace each), %d turns remembered; %s;"
            + " Search top %d from one client; %s%n%n",
        data.getFileName(),
        locomo.conversations().size(),
        locomo.turnCount(),
        description,
        topK,
        SidecarOptions.machine());
    out.print(recall.markdown());
    out.flush();
    return 0;
  }

  private void rememberAll(MemoryServiceBlockingStub stub, LocomoData locomo)
      throws InterruptedException, ExecutionException {
    AtomicInteger notStored = new AtomicInteger();
    int clients = Math.min(REMEMBER_CLIENTS, locomo.conversations().size());
    ExecutorService pool = Executors.newFixedThreadPool(clients);
    try (Progress progress = new Progress(err, "remember turns", locomo.turnCount())) {
      List<Future<?>> work = new ArrayList<>();
      for (LocomoData.Conversation conv : locomo.conversations()) {
        work.add(
            pool.submit(
                () -> {
                  Scope scope = scope(conv);
                  int seq = 0;
                  for (LocomoData.Turn turn : conv.turns()) {
                    RememberResponse r =
                        stub.withDeadlineAfter(60, TimeUnit.SECONDS)
                            .remember(
                                RememberRequest.newBuilder()
                                    .setScope(scope)
                                    .setProfile(sidecar.profile)
                                    .setContent(turn.content())
                                    .setContext(turn.context())
                                    .putMetadata("dia_id", turn.diaId())
                                    .setRequestId("turn-" + seq++)
                                    .build());
                    if (r.getDecision().getOutcome() != WriteOutcome.WRITE_OUTCOME_STORED) {
                      notStored.incrementAndGet();
                    }
                    progress.add(1);
                  }
                  return null;
                }));
      }
      for (Future<?> f : work) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    if (notStored.get() > 0) {
      err.printf(Locale.ROOT, "warning: %d turns were not STORED%n", notStored.get());
    }
  }

  private void warmUp(MemoryServiceBlockingStub stub, LocomoData locomo, int topK) {
    List<Asked> all = questions(locomo);
    if (all.isEmpty() || warmup == 0) {
      return;
    }
    try (Progress progress = new Progress(err, "warm-up searches", warmup)) {
      for (int i = 0; i < warmup; i++) {
        Asked q = all.get(i % all.size());
        search(stub, q.scope(), q.question().text(), topK);
        progress.add(1);
      }
    }
  }

  private void ask(
      MemoryServiceBlockingStub stub, LocomoData locomo, int topK, EvidenceRecall recall) {
    int skipped = 0;
    try (Progress progress = new Progress(err, "questions", locomo.questionCount())) {
      for (LocomoData.Conversation conv : locomo.conversations()) {
        for (LocomoData.Question q : conv.questions()) {
          if (q.evidence().isEmpty()) {
            recall.skip(q.category());
            skipped++;
          } else {
            long t0 = System.nanoTime();
            SearchResponse response = search(stub, scope(conv), q.text(), topK);
            long nanos = System.nanoTime() - t0;
            List<String> ranked = new ArrayList<>(response.getHitsCount());
            for (SearchHit hit : response.getHitsList()) {
              ranked.add(hit.getMemory().getMetadataOrDefault("dia_id", ""));
            }
            recall.add(q.category(), q.evidence(), ranked, nanos);
          }
          progress.add(1);
        }
      }
    }
    if (skipped > 0) {
      err.printf(
          Locale.ROOT, "  %d questions have no evidence turn: counted, not scored%n", skipped);
    }
  }

  private record Asked(Scope scope, LocomoData.Question question) {}

  /** The questions that can be scored, interleaved across conversations. */
  private static List<Asked> questions(LocomoData locomo) {
    List<List<Asked>> per = new ArrayList<>();
    for (LocomoData.Conversation conv : locomo.conversations()) {
      List<Asked> mine = new ArrayList<>();
      for (LocomoData.Question q : conv.questions()) {
        if (!q.evidence().isEmpty()) {
          mine.add(new Asked(scope(conv), q));
        }
      }
      per.add(mine);
    }
    int longest = per.stream().mapToInt(List::size).max().orElse(0);
    List<Asked> out = new ArrayList<>();
    IntStream.range(0, longest)
        .forEach(
            i -> {
              for (List<Asked> mine : per) {
                if (i < mine.size()) {
                  out.add(mine.get(i));
                }
              }
            });
    return out;
  }

  private static Scope scope(LocomoData.Conversation conv) {
    return Scope.newBuilder().setWorkspaceId(conv.workspaceId()).build();
  }

  private SearchResponse search(
      MemoryServiceBlockingStub stub, Scope scope, String query, int topK) {
    return stub.withDeadlineAfter(60, TimeUnit.SECONDS)
        .search(
            SearchRequest.newBuilder()
                .setScope(scope)
                .setQuery(query)
                .setTopK(topK)
                .addProfiles(sidecar.profile)
                .build());
  }
}
