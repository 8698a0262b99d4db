package dev.memsidecar.sidecar.bench;

import dev.memsidecar.proto.v1.BeginRunRequest;
import dev.memsidecar.proto.v1.CheckToolCallRequest;
import dev.memsidecar.proto.v1.EndRunRequest;
import dev.memsidecar.proto.v1.ForgetMemoryRequest;
import dev.memsidecar.proto.v1.GetMemoryRequest;
import dev.memsidecar.proto.v1.GetToolStatsRequest;
import dev.memsidecar.proto.v1.ListMemoriesRequest;
import dev.memsidecar.proto.v1.ListMemoriesResponse;
import dev.memsidecar.proto.v1.ListToolRulesRequest;
import dev.memsidecar.proto.v1.MemoryServiceGrpc;
import dev.memsidecar.proto.v1.MemoryServiceGrpc.MemoryServiceBlockingStub;
import dev.memsidecar.proto.v1.PutToolRuleRequest;
import dev.memsidecar.proto.v1.RememberRequest;
import dev.memsidecar.proto.v1.RenderToolRulesRequest;
import dev.memsidecar.proto.v1.Scope;
import dev.memsidecar.proto.v1.SearchRequest;
import dev.memsidecar.proto.v1.ToolCall;
import dev.memsidecar.proto.v1.ToolRule;
import dev.memsidecar.proto.v1.ToolRulePriority;
import dev.memsidecar.proto.v1.ToolRuleServiceGrpc;
import dev.memsidecar.proto.v1.ToolRuleServiceGrpc.ToolRuleServiceBlockingStub;
import io.grpc.ManagedChannel;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code bench footprint}: the resident memory (RSS) of a sidecar process over a day in its life.
 * Starts one sidecar ({@code java -jar} of the running jar with no JVM options, the case a user
 * gets by default, or {@code --launcher}), reads its RSS after {@code --idle} seconds, Remembers
 * {@code --records} {@link Sentences} into one namespace, then runs the rest of {@code
 * --operations} as a seeded mix of calls (Search, GetMemory, ListMemories, Remember, ForgetMemory,
 * BeginRun + EndRun on short transcripts, tool-rule calls) and reads RSS right after, after {@code
 * --settle} seconds idle, and its peak ({@code VmHWM}). Every call counts as one operation. Each
 * client is a thread with its own gRPC channel. RSS comes from {@code /proc}: Linux only.
 */
@Command(
    name = "footprint",
    sortOptions = false,
    usageHelpWidth = 100,
    sortSynopsis = false,
    description = {
      "The sidecar process's resident memory (RSS): idle after start, after N records, right"
          + " after a seeded mix of operations from several clients, after an idle settle, and"
          + " its peak (VmHWM). Without --launcher the sidecar runs as plain 'java -jar' with no"
          + " heap options. The embedder is hash unless --embedder or --workspace says otherwise.",
      "Progress goes to stderr, the tables to stdout. Linux only (reads /proc)."
    })
final class FootprintBench extends Bench {
  /** What a step of the mix calls; a run is BeginRun then EndRun (two operations). */
  enum Kind {
    SEARCH(30),
    GET(15),
    LIST(10),
    REMEMBER(20),
    FORGET(5),
    RUN(10),
    TOOL_RULE(10);

    final int weight;

    Kind(int weight) {
      this.weight = weight;
    }

    int operations() {
      return this == RUN ? 2 : 1;
    }
  }

  /** One step of the mix: its kind and a seeded number that picks its arguments. */
  record Step(Kind kind, int pick) {}

  private static final List<String> TOOLS =
      List.of(
          "send_email",
          "web_search",
          "read_calendar",
          "create_ticket",
          "run_sql",
          "deploy",
          "post_slack",
          "read_file");
  private static final List<String> RULES =
      List.of(
          "Never run it against the production database without a ticket.",
          "Always copy the on-call engineer.",
          "Prefer the staging environment on Fridays.",
          "Never send customer data outside the EU region.",
          "Ask before touching anything tagged legal-hold.");
  private static final int TOP_K = 8;
  private static final int PAGE_SIZE = 50;

  @Option(
      names = "--records",
      paramLabel = "N",
      defaultValue = "10000",
      description = "records remembered into one namespace first (default: ${DEFAULT-VALUE})")
  int records;

  @Option(
      names = "--operations",
      paramLabel = "N",
      defaultValue = "25000",
      description =
          "calls in all, the --records Remembers included; the rest is the mix (default:"
              + " ${DEFAULT-VALUE})")
  int operations;

  @Mixin SidecarOptions sidecar;

  @Option(
      names = "--clients",
      paramLabel = "N",
      defaultValue = "4",
      description = "concurrent clients, each with its own connection (default: ${DEFAULT-VALUE})")
  int clients;

  @Option(
      names = "--idle",
      paramLabel = "SECONDS",
      defaultValue = "5",
      description = "seconds after 'listening' before the idle reading (default: ${DEFAULT-VALUE})")
  int idle;

  @Option(
      names = "--settle",
      paramLabel = "SECONDS",
      defaultValue = "10",
      description =
          "seconds without calls after the mix before the settled reading (default:"
              + " ${DEFAULT-VALUE})")
  int settle;

  @Option(
      names = "--seed",
      paramLabel = "N",
      defaultValue = "42",
      description = "seed of the texts and the mix (default: ${DEFAULT-VALUE})")
  long seed;

  FootprintBench(PrintStream out, PrintStream err, Class<?> sidecarMain) {
    super(out, err, sidecarMain);
  }

  /** Checks every option; a bad one is a {@link ParameterException} naming it. */
  void validate() {
    if (records < 1) {
      throw new ParameterException(spec.commandLine(), "--records must be >= 1, got " + records);
    }
    if (operations < records) {
      throw new ParameterException(
          spec.commandLine(),
          "--operations must be >= --records (" + records + "), got " + operations);
    }
    if (clients < 1 || clients > 256) {
      throw new ParameterException(spec.commandLine(), "--clients must be 1..256, got " + clients);
    }
    if (idle < 0 || idle > 3600) {
      throw new ParameterException(spec.commandLine(), "--idle must be 0..3600, got " + idle);
    }
    if (settle < 0 || settle > 3600) {
      throw new ParameterException(spec.commandLine(), "--settle must be 0..3600, got " + settle);
    }
    sidecar.validate(spec);
  }

  /**
   * The seeded mix: steps drawn by {@link Kind#weight} until they make exactly {@code operations}
   * calls (a run, two calls, is not drawn when one call is left).
   */
  static List<Step> plan(int operations, long seed) {
    Random random = new Random(seed);
    int total = Arrays.stream(Kind.values()).mapToInt(k -> k.weight).sum();
    List<Step> steps = new ArrayList<>();
    int left = operations;
    while (left > 0) {
      int r = random.nextInt(total);
      Kind kind = Kind.values()[0];
      for (Kind k : Kind.values()) {
        if (r < k.weight) {
          kind = k;
          break;
        }
        r -= k.weight;
      }
      if (kind.operations() > left) {
        continue;
      }
      steps.add(new Step(kind, random.nextInt(Integer.MAX_VALUE)));
      left -= kind.operations();
    }
    return steps;
  }

  private record Reading(String moment, OptionalLong bytes) {}

  @Override
  public Integer call() throws Exception {
    validate();
    if (sidecar.embedder == null && sidecar.workspace == null) {
      sidecar.embedder = "hash";
    }
    List<Step> steps = plan(operations - records, seed);
    err.printf(
        Locale.ROOT,
        "bench footprint: %,d records, then %,d more operations in %,d steps from %d clients,"
            + " seed %d, %s%n",
        records,
        operations - records,
        steps.size(),
        clients,
        seed,
        sidecar.launcher == null ? "plain java -jar" : "launcher " + sidecar.launcher);
    List<Reading> readings = new ArrayList<>();
    Map<String, List<Long>> latencies = new LinkedHashMap<>();
    String description;
    try (SidecarOptions.Scratch scratch = sidecar.scratch("memsidecar-bench-footprint");
        SidecarProcess process = sidecar.start(scratch, sidecarMain)) {
      description = sidecar.describe(process);
      SidecarOptions.reportStart(err, process, description);
      Thread.sleep(idle * 1000L);
      readings.add(read(process, String.format(Locale.ROOT, "idle, %d s after `listening`", idle)));

      Scope scope = Scope.newBuilder().setWorkspaceId("bench").build();
      Sentences sentences = new Sentences(seed);
      String[] texts = new String[records];
      for (int i = 0; i < records; i++) {
        texts[i] = sentences.next();
      }
      String[] ids = new String[records];
      run(
          process,
          String.format(Locale.ROOT, "remember %,d records", records),
          records,
          latencies,
          (client, i) -> ids[i] = client.remember(scope, texts[i]));
      readings.add(
          read(process, String.format(Locale.ROOT, "after Remembering %,d records", records)));

      List<String> more = new ArrayList<>();
      for (Step s : steps) {
        more.add(s.kind() == Kind.REMEMBER || s.kind() == Kind.RUN ? sentences.next() : null);
      }
      run(
          process,
          String.format(Locale.ROOT, "mix of %,d operations", operations - records),
          steps.size(),
          latencies,
          (client, i) -> client.step(steps.get(i), scope, texts, ids, more.get(i)));
      readings.add(
          read(process, String.format(Locale.ROOT, "right after %,d operations", operations)));
      err.printf(Locale.ROOT, "  settling for %d s%n", settle);
      Thread.sleep(settle * 1000L);
      readings.add(read(process, String.format(Locale.ROOT, "after %d s without calls", settle)));
      readings.add(new Reading("peak (VmHWM)", process.peakRssBytes()));
      int exit = process.terminate();
      if (exit != 0) {
        err.println("sidecar exit code after SIGTERM: " + exit);
      }
    }

    out.printf(
        Locale.ROOT,
        "bench footprint: %,d records in one namespace, %,d operations in all from %d clients,"
            + " started by %s; %s; %s%n%n",
        records,
        operations,
        clients,
        sidecar.launcher == null
            ? "plain `java -jar` (no JVM options)"
            : "`" + sidecar.launcher + "`",
        description,
        SidecarOptions.machine());
    out.println("| moment | RSS of the sidecar process |");
    out.println("|---|---:|");
    for (Reading r : readings) {
      out.printf(Locale.ROOT, "| %s | %s |%n", r.moment(), mib(r.bytes()));
    }
    out.println();
    out.println("| call | n | p50 | p99 |");
    out.println("|---|---:|---:|---:|");
    for (Map.Entry<String, List<Long>> e : latencies.entrySet()) {
      long[] sorted = e.getValue().stream().mapToLong(Long::longValue).sorted().toArray();
      out.printf(
          Locale.ROOT,
          "| %s | %,d | %.2f ms | %.2f ms |%n",
          e.getKey(),
          sorted.length,
          Figures.millis(Figures.percentile(sorted, 50)),
          Figures.millis(Figures.percentile(sorted, 99)));
    }
    out.flush();
    return 0;
  }

  private Reading read(SidecarProcess process, String moment) {
    OptionalLong rss = process.rssBytes();
    err.printf(Locale.ROOT, "  RSS %s: %s%n", moment, mib(rss));
    return new Reading(moment, rss);
  }

  private static String mib(OptionalLong bytes) {
    return bytes.isPresent()
        ? String.format(Locale.ROOT, "%,.0f MiB", bytes.getAsLong() / (1024.0 * 1024.0))
        : "n/a (no /proc)";
  }

  /** Work item {@code i} of a phase, made by one client. */
  private interface Work {
    void run(Client client, int i);
  }

  /**
   * Runs items {@code 0..n-1} from {@link #clients} threads, each with its own channel; thread
   * {@code t} makes items {@code t, t + clients, ...}. Latencies go to {@code latencies} by call.
   */
  private void run(
      SidecarProcess process, String name, int n, Map<String, List<Long>> latencies, Work work)
      throws Exception {
    Client[] all = new Client[clients];
    try (Progress progress = new Progress(err, name, n);
        Clients pool = new Clients(process, clients)) {
      pool.run(
          (channel, first) -> {
            Client client = new Client(channel, first);
            all[first] = client;
            for (int i = first; i < n; i += clients) {
              work.run(client, i);
              progress.add(1);
            }
          });
    } finally {
      for (Client c : all) {
        if (c != null) {
          c.latencies.forEach(
              (call, nanos) ->
                  latencies.computeIfAbsent(call, k -> new ArrayList<>()).addAll(nanos));
        }
      }
    }
  }

  /** One client: its stubs, its place in the list, its latencies. One thread. */
  private final class Client {
    final int index;
    final MemoryServiceBlockingStub memory;
    final ToolRuleServiceBlockingStub rules;
    final Map<String, List<Long>> latencies = new LinkedHashMap<>();
    String pageToken = "";
    int nextForget;

    Client(ManagedChannel channel, int index) {
      this.index = index;
      this.memory = MemoryServiceGrpc.newBlockingStub(channel);
      this.rules = ToolRuleServiceGrpc.newBlockingStub(channel);
      this.nextForget = index;
    }

    private MemoryServiceBlockingStub memory() {
      return memory.withDeadlineAfter(60, TimeUnit.SECONDS);
    }

    private ToolRuleServiceBlockingStub rules() {
      return rules.withDeadlineAfter(60, TimeUnit.SECONDS);
    }

    private <T> T timed(String call, Callable<T> body) {
      long t0 = System.nanoTime();
      T result;
      try {
        result = body.call();
      } catch (RuntimeException e) {
        throw e;
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
      latencies.computeIfAbsent(call, k -> new ArrayList<>()).add(System.nanoTime() - t0);
      return result;
    }

    String remember(Scope scope, String text) {
      return timed(
          "Remember",
          () ->
              memory()
                  .remember(
                      RememberRequest.newBuilder()
                          .setScope(scope)
                          .setProfile(sidecar.profile)
                          .setContent(text)
                          .build())
                  .getDecision()
                  .getMemory()
                  .getId());
    }

    void step(Step step, Scope scope, String[] texts, String[] ids, String fresh) {
      Random random = new Random(step.pick());
      switch (step.kind()) {
        case SEARCH -> {
          String query = query(texts[random.nextInt(texts.length)], random);
          timed(
              "Search",
              () ->
                  memory()
                      .search(
                          SearchRequest.newBuilder()
                              .setScope(scope)
                              .setQuery(query)
                              .setTopK(TOP_K)
                              .build()));
        }
        case GET -> {
          String id = ids[random.nextInt(ids.length)];
          timed(
              "GetMemory",
              () ->
                  memory()
                      .getMemory(
                          GetMemoryRequest.newBuilder()
                              .setScope(scope)
                              .setProfile(sidecar.profile)
                              .setId(id)
                              .build()));
        }
        case LIST -> {
          ListMemoriesResponse page =
              timed(
                  "ListMemories",
                  () ->
                      memory()
                          .listMemories(
                              ListMemoriesRequest.newBuilder()
                                  .setScope(scope)
                                  .setProfile(sidecar.profile)
                                  .setPageSize(PAGE_SIZE)
                                  .setPageToken(pageToken)
                                  .build()));
          pageToken = page.getNextPageToken();
        }
        case REMEMBER -> remember(scope, fresh);
        case FORGET -> {
          // Each client forgets records of its own share, so no two forget the same one.
          String id = ids[nextForget % ids.length];
          nextForget += clients;
          timed(
              "ForgetMemory",
              () ->
                  memory()
                      .forgetMemory(
                          ForgetMemoryRequest.newBuilder()
                              .setScope(scope)
                              .setProfile(sidecar.profile)
                              .setId(id)
                              .build()));
        }
        case RUN -> run(scope, step, fresh, random);
        case TOOL_RULE -> toolRule(scope, random);
      }
    }

    /** BeginRun, then EndRun of a short transcript that states one fact and calls one tool. */
    private void run(Scope base, Step step, String fact, Random random) {
      Scope scope = base.toBuilder().setUserId("user-" + random.nextInt(8)).build();
      String runId = String.format(Locale.ROOT, "run-%d-%d", index, step.pick());
      String tool = TOOLS.get(random.nextInt(TOOLS.size()));
      String input = "Please remember this for later: " + fact + " Then check my calendar.";
      timed(
          "BeginRun",
          () ->
              memory()
                  .beginRun(
                      BeginRunRequest.newBuilder()
                          .setScope(scope)
                          .setRunId(runId)
                          .setInput(input)
                          .addTools(tool)
                          .setTopK(TOP_K)
                          .build()));
      boolean ok = random.nextInt(4) != 0;
      ToolCall.Builder call = ToolCall.newBuilder().setToolName(tool).setOk(ok);
      if (!ok) {
        call.setErrorCategory("timeout").setErrorMessage("the upstream did not answer in 30 s");
      }
      timed(
          "EndRun",
          () ->
              memory()
                  .endRun(
                      EndRunRequest.newBuilder()
                          .setScope(scope)
                          .setRunId(runId)
                          .setInput(input)
                          .setOutput("Noted. Your calendar is free on Thursday afternoon.")
                          .addToolCalls(call)
                          .build()));
    }

    /** One of the tool-rule calls, on a small fixed set of tools and rules. */
    private void toolRule(Scope scope, Random random) {
      String tool = TOOLS.get(random.nextInt(TOOLS.size()));
      switch (random.nextInt(5)) {
        case 0 -> {
          ToolRule rule =
              ToolRule.newBuilder()
                  .setToolName(tool)
                  .setRule(RULES.get(random.nextInt(RULES.size())))
                  .setPriority(
                      random.nextBoolean()
                          ? ToolRulePriority.TOOL_RULE_PRIORITY_HIGH
                          : ToolRulePriority.TOOL_RULE_PRIORITY_NORMAL)
                  .build();
          timed(
              "PutToolRule",
              () ->
                  rules()
                      .putToolRule(
                          PutToolRuleRequest.newBuilder().setScope(scope).setRule(rule).build()));
        }
        case 1 ->
            timed(
                "CheckToolCall",
                () ->
                    rules()
                        .checkToolCall(
                            CheckToolCallRequest.newBuilder()
                                .setScope(scope)
                                .setToolName(tool)
                                .setArgumentsJson("{\"to\":\"bob@example.com\",\"limit\":10}")
                                .build()));
        case 2 ->
            timed(
                "ListToolRules",
                () ->
                    rules()
                        .listToolRules(
                            ListToolRulesRequest.newBuilder()
                                .setScope(scope)
                                .setToolName(tool)
                                .build()));
        case 3 ->
            timed(
                "RenderToolRules",
                () ->
                    rules()
                        .renderToolRules(
                            RenderToolRulesRequest.newBuilder().setScope(scope).build()));
        default ->
            timed(
                "GetToolStats",
                () ->
                    rules()
                        .getToolStats(
                            GetToolStatsRequest.newBuilder()
                                .setScope(scope)
                                .setToolName(tool)
                                .build()));
      }
    }
  }

  /** 2-4 words of {@code text} longer than three letters, in their order. */
  private static String query(String text, Random random) {
    List<String> words = new ArrayList<>();
    for (String w : text.split("[^\\p{L}\\p{N}]+")) {
      if (w.length() > 3) {
        words.add(w);
      }
    }
    int want = Math.min(words.size(), 2 + random.nextInt(3));
    int from = words.size() == want ? 0 : random.nextInt(words.size() - want + 1);
    return String.join(" ", words.subList(from, from + want));
  }
}
