package dev.memsidecar.bench;

import dev.memsidecar.bench.BenchArguments.SidecarJar;
import dev.memsidecar.proto.v1.BeginRunRequest;
import dev.memsidecar.proto.v1.BeginRunResponse;
import dev.memsidecar.proto.v1.EndRunRequest;
import dev.memsidecar.proto.v1.EndRunResponse;
import dev.memsidecar.proto.v1.GetMemoryRequest;
import dev.memsidecar.proto.v1.ListMemoriesRequest;
import dev.memsidecar.proto.v1.ListMemoriesResponse;
import dev.memsidecar.proto.v1.MemoryServiceGrpc;
import dev.memsidecar.proto.v1.MemoryServiceGrpc.MemoryServiceBlockingStub;
import dev.memsidecar.proto.v1.RememberRequest;
import dev.memsidecar.proto.v1.Scope;
import dev.memsidecar.proto.v1.SearchRequest;
import dev.memsidecar.proto.v1.SearchResponse;
import dev.memsidecar.proto.v1.WriteDecision;
import dev.memsidecar.proto.v1.WriteOutcome;
import dev.memsidecar.sidecar.bench.Figures;
import dev.memsidecar.sidecar.bench.Sentences;
import dev.memsidecar.sidecar.bench.SidecarProcess;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/**
 * The latency of the agent's two calls on the built sidecar jar (default configuration: rules
 * extractor, langmem-sqlite), one client thread over loopback gRPC, fresh temporary workspace:
 *
 * <ol>
 *   <li><b>EndRun</b>: runs of about 2 KB of input plus output — a user message with context, a
 *       preference and a procedure with a command, and an assistant answer with steps, commands and
 *       a fact — drawn from pools small enough that later runs repeat earlier facts (dedupe merges)
 *       while unique tickets and settings make new ones; {@code --warmup} runs on another workspace
 *       first, then {@code --runs} measured runs into one scope. Afterwards it checks what dedupe
 *       left: how many of the tickets and flags taught the active records still name, and whether
 *       each supersede replaced the same flag's value or another flag.
 *   <li><b>BeginRun</b> with {@code --records} records in the scope (filled with Remember, varied
 *       sentences about a team, from {@code --writers} threads): new run ids and varied inputs; on
 *       each same input a bare Search (top 8, same scope), the order of the two alternating per
 *       input; BeginRun's extra cost is given per input (BeginRun minus Search) and as the
 *       difference of the medians. Then every run is begun again with the same run id (replay: the
 *       frozen snapshot is served).
 * </ol>
 *
 * Prints progress and one markdown table.
 *
 * <pre>
 * java -cp it/bench/target/memsidecar-bench.jar dev.memsidecar.bench.RunLatencyBench
 *     [--jar sidecar/target/memsidecar.jar] [--launcher sidecar/bin/memsidecar] [--runs 300]
 *     [--records 10000] [--begins 500] [--warmup 100] [--writers 4] [--seed 42]
 * </pre>
 */
public final class RunLatencyBench {
  private static final Pattern FLAG = Pattern.compile("FEATURE_\\w+=\\w+");
  private static final Pattern OLD_ID = Pattern.compile("; supersedes ([0-9a-f-]{36})");
  private static final List<String> TOOLS = List.of("shell", "read_file", "write_file", "http_get");

  private final Options options;

  private RunLatencyBench(Options options) {
    this.options = options;
  }

  public static void main(String[] args) throws Exception {
    Options options = BenchArguments.parseOrExit(new Options(), args);
    options.sidecar.requireBuiltOrExit();
    new RunLatencyBench(options).run();
  }

  private record Row(String name, long[] sorted, String note) {
    static Row of(String name, long[] nanos, String note) {
      long[] sorted = nanos.clone();
      Arrays.sort(sorted);
      return new Row(name, sorted, note);
    }

    String markdown() {
      return String.format(
          Locale.ROOT,
          "| %s | %d | %.2f | %.2f | %.2f | %.2f | %s |",
          name,
          sorted.length,
          Figures.millis(Figures.percentile(sorted, 50)),
          Figures.millis(Figures.percentile(sorted, 90)),
          Figures.millis(Figures.percentile(sorted, 99)),
          Figures.millis(sorted.length == 0 ? 0 : sorted[sorted.length - 1]),
          note);
    }
  }

  private void run() throws Exception {
    System.out.printf(
        Locale.ROOT,
        "run latency bench: jar %s, runs %d, records %d, begins %d, warmup %d, writers %d,"
            + " seed %d%n",
        options.sidecar.jar.toAbsolutePath().normalize(),
        options.runs,
        options.records,
        options.begins,
        options.warmup,
        options.writers,
        options.seed);
    List<Row> rows = new ArrayList<>();
    Path ws = Files.createTempDirectory("memsidecar-run-latency");
    try (SidecarProcess sidecar =
        SidecarProcess.start(options.sidecar.jar, options.sidecar.launcher, ws)) {
      MemoryServiceBlockingStub stub = MemoryServiceGrpc.newBlockingStub(sidecar.channel());
      endRuns(stub, rows);
      beginRuns(stub, rows);
      int exit = sidecar.terminate();
      System.out.println("sidecar exit code after SIGTERM: " + exit);
    } finally {
      Figures.deleteTree(ws);
    }
    System.out.println();
    System.out.println("| measurement | n | p50 ms | p90 ms | p99 ms | max ms | note |");
    System.out.println("|---|---:|---:|---:|---:|---:|---|");
    for (Row row : rows) {
      System.out.println(row.markdown());
    }
    System.out.println();
    System.out.printf(
        Locale.ROOT,
        "machine: %d cores, %s %s (%s), java %s (%s)%n",
        Runtime.getRuntime().availableProcessors(),
        System.getProperty("os.name"),
        System.getProperty("os.version"),
        System.getProperty("os.arch"),
        Runtime.version(),
        System.getProperty("java.vm.name"));
  }

  // ---------------------------------------------------------------- EndRun

  private void endRuns(MemoryServiceBlockingStub stub, List<Row> rows) {
    AgentRuns texts = new AgentRuns(options.seed);
    Scope warm = Scope.newBuilder().setWorkspaceId("warm-end").setUserId("alice").build();
    for (int i = 0; i < options.warmup; i++) {
      AgentRuns.Run r = texts.next();
      endRun(stub, warm, "warm-" + i, r);
    }
    Scope scope = Scope.newBuilder().setWorkspaceId("bench-end").setUserId("alice").build();
    long[] nanos = new long[options.runs];
    Map<String, Integer> outcomes = new TreeMap<>();
    List<String> supersedeExamples = new ArrayList<>();
    Set<String> taught = new HashSet<>();
    Map<String, String> lastFlag = new HashMap<>();
    Map<String, Integer> supersedePairs = new TreeMap<>();
    Map<String, Integer> supersedeReasons = new TreeMap<>();
    long bytes = 0;
    int decisions = 0;
    for (int i = 0; i < options.runs; i++) {
      AgentRuns.Run r = texts.next();
      bytes += r.bytes();
      FLAG.matcher(r.input())
          .results()
          .forEach(
              m -> {
                taught.add(m.group());
                lastFlag.put(m.group().substring(0, m.group().indexOf('=')), m.group());
              });
      long start = System.nanoTime();
      EndRunResponse response = endRun(stub, scope, "run-" + i, r);
      nanos[i] = System.nanoTime() - start;
      decisions += response.getDecisionsCount();
      if (i == 0) {
        System.out.println(
            "first measured run:\n--- input\n" + r.input() + "\n--- output\n" + r.output());
        for (WriteDecision d : response.getDecisionsList()) {
          System.out.printf(
              Locale.ROOT,
              "  %s %.1f %s: %s%n",
              d.getOutcome(),
              d.getGateScore(),
              d.getReason(),
              d.getMemory().getContent());
        }
      }
      for (WriteDecision d : response.getDecisionsList()) {
        String o = d.getOutcome().name().substring("WRITE_OUTCOME_".length());
        if (d.getOutcome() == WriteOutcome.WRITE_OUTCOME_STORED
            && d.getReason().contains("; supersedes ")) {
          o = "STORED superseding";
          String why = d.getReason().substring(d.getReason().indexOf("; supersedes ") + 2);
          why = why.replaceAll("[0-9a-f]{8}-[0-9a-f-]{27}", "<id>");
          if (supersedeExamples.size() < 3) {
            supersedeExamples.add(why + " | " + d.getMemory().getContent());
          }
          supersedeReasons.merge(
              why.replaceAll("new value \\S+ for", "new value <v> for"), 1, Integer::sum);
          Matcher id = OLD_ID.matcher(d.getReason());
          if (id.find()) {
            String old =
                stub.getMemory(
                        GetMemoryRequest.newBuilder()
                            .setScope(scope)
                            .setProfile(d.getMemory().getProfile())
                            .setId(id.group(1))
                            .build())
                    .getMemory()
                    .getContent();
            supersedePairs.merge(
                flagName(old).equals(flagName(d.getMemory().getContent()))
                    ? "same flag name, new value"
                    : "another flag name: "
                        + flagName(old)
                        + " -> "
                        + flagName(d.getMemory().getContent()),
                1,
                Integer::sum);
          }
        }
        outcomes.merge(o, 1, Integer::sum);
      }
      if ((i + 1) % 100 == 0) {
        System.out.printf(Locale.ROOT, "  EndRun %d/%d%n", i + 1, options.runs);
      }
    }
    List<String> kept = new ArrayList<>(contents(stub, scope, "user"));
    kept.addAll(contents(stub, scope, "workspace"));
    int records = kept.size();
    long tickets =
        kept.stream()
            .flatMap(c -> Pattern.compile("OPS-\\d+").matcher(c).results())
            .map(m -> m.group())
            .distinct()
            .count();
    Set<String> flags = new HashSet<>();
    for (String c : kept) {
      FLAG.matcher(c).results().forEach(m -> flags.add(m.group()));
    }
    Set<String> taughtNames = new HashSet<>();
    taught.forEach(f -> taughtNames.add(f.substring(0, f.indexOf('='))));
    Set<String> keptNames = new HashSet<>();
    flags.forEach(f -> keptNames.add(f.substring(0, f.indexOf('='))));
    long lastValueKept =
        lastFlag.entrySet().stream().filter(e -> flags.contains(e.getValue())).count();
    System.out.printf(
        Locale.ROOT,
        "EndRun: of %d distinct tickets taught, active records name %d; of %d flags taught"
            + " (NAME), active records name %d, with the last value taught for %d%n",
        options.runs,
        tickets,
        taughtNames.size(),
        keptNames.size(),
        lastValueKept);
    System.out.println("EndRun superseding decisions by reason: " + supersedeReasons);
    long sameName = supersedePairs.getOrDefault("same flag name, new value", 0);
    System.out.printf(
        Locale.ROOT,
        "EndRun supersedes: %d replace the same flag's value, %d replace another flag%n",
        sameName,
        supersedePairs.values().stream().mapToInt(Integer::intValue).sum() - sameName);
    supersedePairs.entrySet().stream()
        .filter(e -> e.getKey().startsWith("another"))
        .limit(3)
        .forEach(e -> System.out.println("  e.g. " + e.getKey()));
    for (String e : supersedeExamples) {
      System.out.println("  e.g. " + e);
    }
    double avgBytes = options.runs == 0 ? 0 : (double) bytes / options.runs;
    System.out.printf(
        Locale.ROOT,
        "EndRun: %.0f bytes of input + output per run on average, %.1f decisions per run %s,"
            + " %d active records after %d runs%n",
        avgBytes,
        options.runs == 0 ? 0.0 : (double) decisions / options.runs,
        outcomes,
        records,
        options.runs);
    rows.add(
        Row.of(
            String.format(Locale.ROOT, "EndRun, %.1f KB in+out, rules extractor", avgBytes / 1024),
            nanos,
            String.format(
                Locale.ROOT,
                "%.1f decisions/run: %s; %d active records at the end",
                options.runs == 0 ? 0.0 : (double) decisions / options.runs,
                outcomes,
                records)));
  }

  private static EndRunResponse endRun(
      MemoryServiceBlockingStub stub, Scope scope, String runId, AgentRuns.Run r) {
    return stub.withDeadlineAfter(60, TimeUnit.SECONDS)
        .endRun(
            EndRunRequest.newBuilder()
                .setScope(scope)
                .setRunId(runId)
                .setInput(r.input())
                .setOutput(r.output())
                .build());
  }

  private static String flagName(String content) {
    Matcher m = FLAG.matcher(content);
    return m.find() ? m.group().substring(0, m.group().indexOf('=')) : "(no flag)";
  }

  /** The contents of the active records of one profile. */
  private static List<String> contents(
      MemoryServiceBlockingStub stub, Scope scope, String profile) {
    List<String> out = new ArrayList<>();
    String token = "";
    do {
      ListMemoriesResponse page =
          stub.withDeadlineAfter(60, TimeUnit.SECONDS)
              .listMemories(
                  ListMemoriesRequest.newBuilder()
                      .setScope(scope)
                      .setProfile(profile)
                      .setPageSize(500)
                      .setPageToken(token)
                      .build());
      page.getMemoriesList().forEach(m -> out.add(m.getContent()));
      token = page.getNextPageToken();
    } while (!token.isEmpty());
    return out;
  }

  // ---------------------------------------------------------------- BeginRun

  private void beginRuns(MemoryServiceBlockingStub stub, List<Row> rows) throws Exception {
    Scope scope = Scope.newBuilder().setWorkspaceId("bench-begin").setUserId("alice").build();
    Sentences sentences = new Sentences(options.seed);
    List<String> stored = new ArrayList<>(options.records);
    for (int i = 0; i < options.records; i++) {
      stored.add(sentences.next());
    }
    long f0 = System.nanoTime();
    ExecutorService pool = Executors.newFixedThreadPool(options.writers);
    try {
      List<Future<?>> work = new ArrayList<>();
      for (int w = 0; w < options.writers; w++) {
        int first = w;
        work.add(
            pool.submit(
                () -> {
                  for (int i = first; i < stored.size(); i += options.writers) {
                    stub.withDeadlineAfter(60, TimeUnit.SECONDS)
                        .remember(
                            RememberRequest.newBuilder()
                                .setScope(scope)
                                .setProfile("workspace")
                                .setContent(stored.get(i))
                                .build());
                  }
                  return null;
                }));
      }
      for (Future<?> f : work) {
        f.get();
      }
    } finally {
      pool.shutdown();
    }
    System.out.printf(
        Locale.ROOT,
        "filled %d records with Remember from %d threads in %.1f s%n",
        options.records,
        options.writers,
        Figures.seconds(System.nanoTime() - f0));

    Random random = new Random(options.seed + 7);
    for (int i = 0; i < options.warmup; i++) {
      String input = userMessage(stored, random);
      beginRun(stub, scope, "warm-begin-" + i, input);
      search(stub, scope, input);
    }
    List<String> inputs = new ArrayList<>(options.begins);
    for (int i = 0; i < options.begins; i++) {
      inputs.add(userMessage(stored, random));
    }
    long[] begin = new long[options.begins];
    long[] search = new long[options.begins];
    long[] extra = new long[options.begins];
    String[] snapshots = new String[options.begins];
    long recalled = 0;
    for (int i = 0; i < options.begins; i++) {
      String input = inputs.get(i);
      String runId = "begin-" + i;
      long s;
      BeginRunResponse r;
      if (i % 2 == 0) {
        s = System.nanoTime();
        r = beginRun(stub, scope, runId, input);
        begin[i] = System.nanoTime() - s;
        s = System.nanoTime();
        search(stub, scope, input);
        search[i] = System.nanoTime() - s;
      } else {
        s = System.nanoTime();
        search(stub, scope, input);
        search[i] = System.nanoTime() - s;
        s = System.nanoTime();
        r = beginRun(stub, scope, runId, input);
        begin[i] = System.nanoTime() - s;
      }
      extra[i] = begin[i] - search[i];
      snapshots[i] = r.getSnapshotId();
      recalled += r.getRecalledCount();
      if ((i + 1) % 100 == 0) {
        System.out.printf(Locale.ROOT, "  BeginRun + Search %d/%d%n", i + 1, options.begins);
      }
    }
    long[] replay = new long[options.begins];
    int differing = 0;
    for (int i = 0; i < options.begins; i++) {
      long s = System.nanoTime();
      BeginRunResponse r = beginRun(stub, scope, "begin-" + i, inputs.get(i));
      replay[i] = System.nanoTime() - s;
      if (!r.getSnapshotId().equals(snapshots[i])) {
        differing++;
      }
    }
    double avgInput =
        inputs.stream()
            .mapToInt(x -> x.getBytes(StandardCharsets.UTF_8).length)
            .average()
            .orElse(0);
    long beginP50 = Figures.percentile(sorted(begin), 50);
    long searchP50 = Figures.percentile(sorted(search), 50);
    System.out.printf(
        Locale.ROOT,
        "BeginRun: %.0f-byte inputs on average, %.1f memories recalled per run; extra cost over"
            + " Search: p50 %.2f ms - %.2f ms = %.2f ms; replays serving another snapshot: %d%n",
        avgInput,
        options.begins == 0 ? 0.0 : (double) recalled / options.begins,
        Figures.millis(beginP50),
        Figures.millis(searchP50),
        Figures.millis(beginP50 - searchP50),
        differing);
    String where = String.format(Locale.ROOT, "%,d records in the scope", options.records);
    rows.add(Row.of("BeginRun, new run id, top 8, 4 tools", begin, where));
    rows.add(Row.of("Search, top 8, same inputs", search, where));
    rows.add(
        Row.of(
            "BeginRun minus Search, per input",
            extra,
            String.format(
                Locale.ROOT,
                "difference of the medians: %.2f ms",
                Figures.millis(beginP50 - searchP50))));
    rows.add(
        Row.of(
            "BeginRun replay (same run id)",
            replay,
            differing == 0
                ? "every replay served the first snapshot"
                : differing + " replays served another snapshot"));
  }

  private static long[] sorted(long[] values) {
    long[] out = values.clone();
    Arrays.sort(out);
    return out;
  }

  private static BeginRunResponse beginRun(
      MemoryServiceBlockingStub stub, Scope scope, String runId, String input) {
    return stub.withDeadlineAfter(60, TimeUnit.SECONDS)
        .beginRun(
            BeginRunRequest.newBuilder()
                .setScope(scope)
                .setRunId(runId)
                .setInput(input)
                .addAllTools(TOOLS)
                .setTopK(8)
                .build());
  }

  private static SearchResponse search(MemoryServiceBlockingStub stub, Scope scope, String q) {
    return stub.withDeadlineAfter(60, TimeUnit.SECONDS)
        .search(SearchRequest.newBuilder().setScope(scope).setQuery(q).setTopK(8).build());
  }

  private static final List<String> ASKS =
      List.of(
          "Before I start on this: what do we know about %s? Keep it short.",
          "Can you check whether %s still holds, and tell me who to ping if not?",
          "I'm writing the handover notes. Anything I should mention about %s?",
          "Quick one - remind me how %s works on our side, I forgot the details.",
          "The manager asked me about %s this morning. What's the current state?",
          "Draft a Slack message to the team about %s, friendly but precise.",
          "I need to plan next sprint. Summarise what matters about %s and any open tickets.",
          "Is there a runbook step for %s? I'm on call tonight and want to be ready.");

  /** A user message around a few consecutive words of a stored sentence. */
  private static String userMessage(List<String> stored, Random random) {
    String source =
        stored.get(random.nextInt(stored.size())).replaceAll("\\s*\\(ticket \\d+\\)\\.", "");
    String[] words = source.split(" ");
    int want = Math.min(words.length, 3 + random.nextInt(4));
    int from = random.nextInt(Math.max(1, words.length - want + 1));
    String topic = String.join(" ", Arrays.copyOfRange(words, from, from + want));
    return String.format(Locale.ROOT, ASKS.get(random.nextInt(ASKS.size())), topic);
  }

  // ---------------------------------------------------------------- agent run texts

  /**
   * Realistic agent runs of about 2 KB: a user message (context, a preference, a procedure with a
   * command, a request) and the assistant's answer (diagnosis, steps with commands, a fact). Pools
   * are small enough that facts repeat across runs; tickets and settings are unique. Not
   * thread-safe.
   */
  static final class AgentRuns {
    private static final List<String> SERVICES =
        List.of(
            "billing service",
            "search API",
            "checkout frontend",
            "notification worker",
            "auth gateway",
            "reporting pipeline",
            "mobile backend",
            "inventory sync job");
    private static final List<String> SYMPTOMS =
        List.of(
            "intermittent 502s under load",
            "p99 latency doubling after the last deploy",
            "a memory leak that gets the pods OOM-killed every few hours",
            "duplicate webhook deliveries",
            "stale cache entries after price updates",
            "a failing nightly migration",
            "connection pool exhaustion on the Postgres replica",
            "flaky integration tests in CI");
    private static final List<String[]> PREFERENCES =
        List.of(
            new String[] {"pnpm", "npm", "for the web packages"},
            new String[] {"squash merges", "merge commits", "on the main branch"},
            new String[] {"short answers with the command first", "long explanations", ""},
            new String[] {"Postgres", "MySQL", "for new services"},
            new String[] {"Grafana dashboards", "raw Prometheus queries", "when debugging"},
            new String[] {"tabs", "spaces", "in the Go services"},
            new String[] {"British spelling", "American spelling", "in user-facing copy"},
            new String[] {"feature flags", "long-lived branches", "for risky changes"},
            new String[] {"structured JSON logs", "plain text logs", "in production"},
            new String[] {"kubectl port-forward", "exposing debug ports", "to reach staging pods"},
            new String[] {"table-driven tests", "one test per case", "in Go code"},
            new String[] {"reviewing diffs in split view", "unified view", ""});
    private static final List<String[]> PROCEDURES =
        List.of(
            new String[] {"before pushing, always run", "npm run check:rules"},
            new String[] {
              "to run the integration tests locally, run", "mvn -B -o verify -pl it/e2e"
            },
            new String[] {
              "to restart the billing pods on staging, run",
              "kubectl rollout restart deployment/billing -n staging"
            },
            new String[] {
              "to bring up the local databases, run", "docker compose up -d postgres redis"
            },
            new String[] {"to apply migrations on staging, run", "make migrate ENV=staging"},
            new String[] {
              "to upgrade the search chart, run",
              "helm upgrade search charts/search -f values-staging.yaml"
            },
            new String[] {"before opening a PR, run", "go test ./... -race"},
            new String[] {
              "to check the replica is reachable, run",
              "psql -h db-replica-2.internal -U report -c 'select 1'"
            },
            new String[] {"to plan infra changes, run", "terraform plan -var-file=prod.tfvars"},
            new String[] {
              "to run only the webhook tests, run", "python -m pytest tests/integration -k webhook"
            });
    private static final List<String> CONTEXT =
        List.of(
            "We rolled out the new connection settings on Tuesday and things looked fine at"
                + " first, but the on-call engineer saw the alert fire twice overnight.",
            "The customer success team says three enterprise accounts noticed it, so it is a"
                + " priority for this sprint even though the error rate is still under 1%.",
            "I already looked at the dashboards and the spike lines up with the batch import"
                + " that runs every hour at minute five.",
            "Nobody on the team changed the code path recently, the last commit touching it is"
                + " from March, so I suspect configuration or infrastructure.",
            "Staging does not reproduce it reliably; it shows up maybe one time in twenty when"
                + " we replay production traffic with the load generator.",
            "Please don't suggest rewriting the module, we only have two days before the"
                + " release freeze and the fix has to be small and reviewable.");
    private static final List<String> CAUSES =
        List.of(
            "the pool size being lower than the number of worker threads",
            "a retry loop without jitter that stampedes the database after a timeout",
            "the cache key missing the currency, so two prices share one entry",
            "the readiness probe passing before the migrations finish",
            "a missing index on the events table that turns one query into a full scan",
            "the client timeout being shorter than the server's slowest path");
    private static final List<String> FACTS =
        List.of(
            "The staging database is db-staging-3.internal on port 5433.",
            "Alerts for the %s go to the #payments-oncall channel.",
            "The %s is deployed from the release branch every Thursday.",
            "The load generator lives in tools/loadgen and replays a 10%% sample of traffic.",
            "The %s reads its settings from config/%s.yaml at start-up.",
            "Error budgets are reviewed in the Monday ops sync.");

    private final Random random;
    private int index;

    AgentRuns(long seed) {
      this.random = new Random(seed);
    }

    /** One run's texts. */
    record Run(String input, String output) {
      int bytes() {
        return input.getBytes(StandardCharsets.UTF_8).length
            + output.getBytes(StandardCharsets.UTF_8).length;
      }
    }

    Run next() {
      int n = index++;
      String service = pick(SERVICES);
      String symptom = pick(SYMPTOMS);
      String[] pref = pick(PREFERENCES);
      String[] proc = pick(PROCEDURES);
      String ticket = "OPS-" + (4000 + n);
      String flag =
          "FEATURE_"
              + service.toUpperCase(Locale.ROOT).replaceAll("[^A-Z]+", "_")
              + "_V"
              + (2 + n % 7)
              + "="
              + (n % 2 == 0 ? "on" : "off");
      StringBuilder in = new StringBuilder();
      in.append("Hi! I'm picking up ")
          .append(ticket)
          .append(": the ")
          .append(service)
          .append(" has ")
          .append(symptom)
          .append(". ");
      List<String> context = new ArrayList<>(CONTEXT);
      Collections.shuffle(context, random);
      in.append(context.get(0))
          .append(' ')
          .append(context.get(1))
          .append(' ')
          .append(context.get(3))
          .append("\n\n");
      in.append("By the way, I prefer ")
          .append(pref[0])
          .append(" over ")
          .append(pref[1])
          .append(pref[2].isEmpty() ? "" : " " + pref[2])
          .append(". Also, ")
          .append(proc[0])
          .append(" `")
          .append(proc[1])
          .append("`.\n\n");
      in.append("The flag ")
          .append(flag)
          .append(" is set in staging right now. ")
          .append(context.get(2))
          .append(" Can you figure out what is going on and tell me the smallest safe fix?");

      String cause = pick(CAUSES);
      String fact = String.format(Locale.ROOT, pick(FACTS), service, service.replace(' ', '-'));
      StringBuilder out = new StringBuilder();
      out.append("I looked into ")
          .append(ticket)
          .append(". The most likely cause of the ")
          .append(symptom)
          .append(" in the ")
          .append(service)
          .append(" is ")
          .append(cause)
          .append(
              ". That matches the timing you saw: the errors cluster right after bursts of traffic,"
                  + " and the logs show requests queueing for the same resource before they"
                  + " fail.\n\n");
      out.append("Smallest safe fix:\n")
          .append(
              "1. Reproduce it locally first: `docker compose up -d postgres redis`, then"
                  + " replay the sample with the load generator.\n")
          .append("2. Apply the one-line configuration change and keep ")
          .append(flag, 0, flag.indexOf('='))
          .append(" as it is, so the rollout stays reversible.\n")
          .append("3. As you said, ")
          .append(proc[0])
          .append(" `")
          .append(proc[1])
          .append("`, and attach the output to the PR.\n\n");
      out.append("I also checked the last three deploys of the ")
          .append(service)
          .append(
              ": none of them changed the code path, which supports the configuration"
                  + " theory.\n\n");
      out.append(fact)
          .append(" If the fix holds for a day on staging, we can close ")
          .append(ticket)
          .append(
              " and add a short note to the runbook so the next on-call engineer knows"
                  + " where to look.");
      return new Run(in.toString(), out.toString());
    }

    private <T> T pick(List<T> values) {
      return values.get(random.nextInt(values.size()));
    }
  }

  // ---------------------------------------------------------------- options

  @Command(description = "EndRun, BeginRun and Search latency of a sidecar it starts, one client.")
  private static final class Options implements BenchArguments.Checked {
    @Mixin SidecarJar sidecar;

    @Option(names = "--runs", paramLabel = "N", description = "measured EndRun calls")
    int runs = 300;

    @Option(names = "--records", paramLabel = "N", description = "records in the BeginRun scope")
    int records = 10_000;

    @Option(names = "--begins", paramLabel = "N", description = "measured BeginRun + Search pairs")
    int begins = 500;

    @Option(names = "--warmup", paramLabel = "N", description = "warm-up calls before each phase")
    int warmup = 100;

    @Option(names = "--writers", paramLabel = "N", description = "threads filling the scope")
    int writers = 4;

    @Option(names = "--seed", paramLabel = "N", description = "RNG seed for texts and inputs")
    long seed = 42;

    /** At least one record and one writer, as before: 0 counts as 1. */
    @Override
    public void check(CommandSpec spec) {
      records = Math.max(1, records);
      writers = Math.max(1, writers);
    }
  }
}
