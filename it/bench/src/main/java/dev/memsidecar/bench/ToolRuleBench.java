package dev.memsidecar.bench;

import dev.memsidecar.bench.BenchArguments.SidecarJar;
import dev.memsidecar.proto.v1.BeginRunRequest;
import dev.memsidecar.proto.v1.BeginRunResponse;
import dev.memsidecar.proto.v1.CheckToolCallRequest;
import dev.memsidecar.proto.v1.CheckToolCallResponse;
import dev.memsidecar.proto.v1.ListToolRulesRequest;
import dev.memsidecar.proto.v1.MemoryServiceGrpc;
import dev.memsidecar.proto.v1.MemoryServiceGrpc.MemoryServiceBlockingStub;
import dev.memsidecar.proto.v1.PromptSection;
import dev.memsidecar.proto.v1.PutToolRuleRequest;
import dev.memsidecar.proto.v1.RememberRequest;
import dev.memsidecar.proto.v1.RenderToolRulesRequest;
import dev.memsidecar.proto.v1.RenderToolRulesResponse;
import dev.memsidecar.proto.v1.Scope;
import dev.memsidecar.proto.v1.ToolCallVerdict;
import dev.memsidecar.proto.v1.ToolRule;
import dev.memsidecar.proto.v1.ToolRulePriority;
import dev.memsidecar.proto.v1.ToolRuleServiceGrpc;
import dev.memsidecar.proto.v1.ToolRuleServiceGrpc.ToolRuleServiceBlockingStub;
import dev.memsidecar.proto.v1.ToolRuleSource;
import dev.memsidecar.sidecar.bench.Figures;
import dev.memsidecar.sidecar.bench.SidecarProcess;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Tool-scoped memory on the built sidecar jar (default configuration), one client thread over
 * loopback gRPC, fresh temporary workspace:
 *
 * <ol>
 *   <li><b>PutToolRule</b> 1,000 rules into workspace {@code rules} (after the same 1,000 into
 *       another workspace, to warm up), over 100 tools: on {@code send_email} 20 critical
 *       prohibitions "Never email &lt;Name&gt; at &lt;address&gt;." and 5 normal notes; on {@code
 *       tool_00} .. {@code tool_98} 20 high rules and 955 normal ones (so 40 rules are pinned).
 *       Workspaces {@code rules} and {@code empty} then get the same {@code --records} records
 *       (Remember), so recall costs the same in both.
 *   <li><b>CheckToolCall</b>, interleaved, {@code --checks} calls each after {@code --warmup}: an
 *       allowed {@code send_email} call (all 20 critical rules tried), a call of a tool with no
 *       rule ({@code web_search}), and a denied {@code send_email} call (cycling through the 20
 *       addresses; each denial is recorded durably and emitted).
 *   <li><b>BeginRun</b> with {@code tools: [send_email, tool_03, tool_17, web_search]}, the same
 *       input, a new run id each call, alternating between {@code rules} and {@code empty} (which
 *       goes first alternates too): BeginRun's extra cost for the {@code tool_rules} section is the
 *       difference of the two. Also RenderToolRules, the same block on its own.
 * </ol>
 *
 * Prints progress and one markdown table.
 *
 * <pre>
 * java -cp it/bench/target/memsidecar-bench.jar dev.memsidecar.bench.ToolRuleBench
 *     [--jar sidecar/target/memsidecar.jar] [--launcher sidecar/bin/memsidecar] [--checks 20000]
 *     [--begins 1000] [--records 300] [--warmup 2000] [--seed 42]
 * </pre>
 */
public final class ToolRuleBench {
  private static final String MAIL = "send_email";
  private static final String NO_RULES = "web_search";
  private static final List<String> RUN_TOOLS = List.of(MAIL, "tool_03", "tool_17", NO_RULES);
  private static final String INPUT =
      "Email the Q3 numbers to Bob and the team, and look up the weather in Paris for the offsite"
          + " next week.";
  private static final List<String> FIRST =
      List.of(
          "Sarah",
          "Marcus",
          "Priya",
          "Olivia",
          "Tomasz",
          "Aiko",
          "Rafael",
          "Ingrid",
          "Kwame",
          "Lucia",
          "Dmitri",
          "Fatima",
          "Henrik",
          "Mei",
          "Santiago",
          "Nadia",
          "Oskar",
          "Leila",
          "Viktor",
          "Chloe");
  private static final List<String> LAST =
      List.of(
          "Connor",
          "Whitfield",
          "Raman",
          "Brennan",
          "Kowalski",
          "Tanaka",
          "Oliveira",
          "Lund",
          "Mensah",
          "Ferraro",
          "Volkov",
          "Haddad",
          "Nyberg",
          "Zhang",
          "Alvarez",
          "Petrova",
          "Lindqvist",
          "Farouk",
          "Novak",
          "Dubois");

  private final Options options;

  private ToolRuleBench(Options options) {
    this.options = options;
  }

  public static void main(String[] args) throws Exception {
    Options options = BenchArguments.parseOrExit(new Options(), args);
    options.sidecar.requireBuiltOrExit();
    new ToolRuleBench(options).run();
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
          "| %s | %,d | %.3f | %.3f | %.3f | %.3f | %s |",
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
        "tool rule bench: jar %s, checks %d, begins %d, records %d, warmup %d, seed %d%n",
        options.sidecar.jar.toAbsolutePath().normalize(),
        options.checks,
        options.begins,
        options.records,
        options.warmup,
        options.seed);
    List<Row> rows = new ArrayList<>();
    Path ws = Files.createTempDirectory("memsidecar-tool-rules");
    try (SidecarProcess sidecar =
        SidecarProcess.start(options.sidecar.jar, options.sidecar.launcher, ws)) {
      ToolRuleServiceBlockingStub rules = ToolRuleServiceGrpc.newBlockingStub(sidecar.channel());
      MemoryServiceBlockingStub memory = MemoryServiceGrpc.newBlockingStub(sidecar.channel());
      Scope withRules = Scope.newBuilder().setWorkspaceId("rules").setUserId("alice").build();
      Scope without = Scope.newBuilder().setWorkspaceId("empty").setUserId("alice").build();
      puts(rules, withRules, rows);
      fill(memory, List.of(withRules, without));
      checks(rules, withRules, rows);
      begins(memory, rules, withRules, without, rows);
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

  // ---------------------------------------------------------------- PutToolRule

  private void puts(ToolRuleServiceBlockingStub stub, Scope scope, List<Row> rows) {
    List<ToolRule> all = rules();
    Scope warm = Scope.newBuilder().setWorkspaceId("warm-rules").build();
    for (ToolRule r : all) { // warms the write path up on another workspace
      stub.withDeadlineAfter(60, TimeUnit.SECONDS)
          .putToolRule(PutToolRuleRequest.newBuilder().setScope(warm).setRule(r).build());
    }
    long[] nanos = new long[all.size()];
    for (int i = 0; i < all.size(); i++) {
      PutToolRuleRequest request =
          PutToolRuleRequest.newBuilder().setScope(scope).setRule(all.get(i)).build();
      long s = System.nanoTime();
      stub.withDeadlineAfter(60, TimeUnit.SECONDS).putToolRule(request);
      nanos[i] = System.nanoTime() - s;
    }
    List<ToolRule> stored =
        stub.listToolRules(ListToolRulesRequest.newBuilder().setScope(scope).build())
            .getRulesList();
    long pinned =
        stored.stream()
            .filter(r -> r.getPriority() != ToolRulePriority.TOOL_RULE_PRIORITY_NORMAL)
            .count();
    long tools = stored.stream().map(ToolRule::getToolName).distinct().count();
    System.out.printf(
        Locale.ROOT,
        "workspace rules: %d rules over %d tools, %d critical or high%n",
        stored.size(),
        tools,
        pinned);
    if (stored.size() != all.size()) {
      throw new IllegalStateException("expected " + all.size() + " rules, got " + stored.size());
    }
    rows.add(
        Row.of(
            "PutToolRule",
            nanos,
            String.format(
                Locale.ROOT,
                "%,d rules, 100 tools; after %,d puts into another workspace",
                all.size(),
                all.size())));
  }

  /** The same records in each scope, so recall costs the same in both. */
  private void fill(MemoryServiceBlockingStub stub, List<Scope> scopes) {
    Random random = new Random(options.seed);
    List<String> people = List.of("Bob", "Dana", "Eve", "Farid", "Grace", "Hiro", "Ines", "Jon");
    List<String> topics =
        List.of(
            "the Q3 numbers",
            "the Paris offsite",
            "the billing migration",
            "the on-call rota",
            "the design review",
            "the hiring plan",
            "the release checklist",
            "the customer escalations");
    List<String> records = new ArrayList<>();
    for (int i = 0; i < options.records; i++) {
      records.add(
          String.format(
              Locale.ROOT,
              "%s owns %s and prefers updates by email on %s (note %d).",
              people.get(random.nextInt(people.size())),
              topics.get(random.nextInt(topics.size())),
              List.of("Mondays", "Wednesdays", "Fridays").get(random.nextInt(3)),
              i));
    }
    long t0 = System.nanoTime();
    for (Scope scope : scopes) {
      for (String content : records) {
        stub.withDeadlineAfter(60, TimeUnit.SECONDS)
            .remember(
                RememberRequest.newBuilder()
                    .setScope(scope)
                    .setProfile("workspace")
                    .setContent(content)
                    .build());
      }
    }
    System.out.printf(
        Locale.ROOT,
        "filled %d records into each of %d workspaces in %.1f s%n",
        options.records,
        scopes.size(),
        Figures.seconds(System.nanoTime() - t0));
  }

  // ---------------------------------------------------------------- CheckToolCall

  private void checks(ToolRuleServiceBlockingStub stub, Scope scope, List<Row> rows) {
    String allowed = allowedCall();
    String none = "{\"query\":\"weather in Paris tomorrow\",\"max_results\":5}";
    List<String> denied = new ArrayList<>();
    for (int i = 0; i < FIRST.size(); i++) {
      denied.add(deniedCall(i));
    }
    // The figures mean nothing unless the verdicts are the expected ones.
    expect(check(stub, scope, MAIL, allowed, ""), true, "the allowed call");
    expect(check(stub, scope, NO_RULES, none, ""), true, "the tool without rules");
    for (int i = 0; i < denied.size(); i++) {
      expect(check(stub, scope, MAIL, denied.get(i), ""), false, "denied call " + i);
    }
    for (int i = 0; i < options.warmup; i++) {
      check(stub, scope, MAIL, allowed, "");
      check(stub, scope, NO_RULES, none, "");
      check(stub, scope, MAIL, denied.get(i % denied.size()), "warm-" + i);
    }
    int n = options.checks;
    long[] allow = new long[n];
    long[] noRule = new long[n];
    long[] deny = new long[n];
    for (int i = 0; i < n; i++) {
      long s = System.nanoTime();
      check(stub, scope, MAIL, allowed, "");
      allow[i] = System.nanoTime() - s;
      s = System.nanoTime();
      check(stub, scope, NO_RULES, none, "");
      noRule[i] = System.nanoTime() - s;
      s = System.nanoTime();
      check(stub, scope, MAIL, denied.get(i % denied.size()), "run-" + i);
      deny[i] = System.nanoTime() - s;
      if ((i + 1) % 5_000 == 0) {
        System.out.printf(Locale.ROOT, "  CheckToolCall x3 %d/%d%n", i + 1, n);
      }
    }
    String where = "1,000 rules in the workspace";
    rows.add(Row.of("CheckToolCall: allowed send_email", allow, where + "; 20 critical tried"));
    rows.add(Row.of("CheckToolCall: tool with no rules", noRule, where));
    rows.add(
        Row.of(
            "CheckToolCall: denied send_email",
            deny,
            where + "; each denial a durable row + event"));
  }

  private static CheckToolCallResponse check(
      ToolRuleServiceBlockingStub stub, Scope scope, String tool, String args, String runId) {
    return stub.withDeadlineAfter(60, TimeUnit.SECONDS)
        .checkToolCall(
            CheckToolCallRequest.newBuilder()
                .setScope(scope)
                .setToolName(tool)
                .setArgumentsJson(args)
                .setRunId(runId)
                .build());
  }

  private static void expect(CheckToolCallResponse response, boolean allowed, String what) {
    ToolCallVerdict want =
        allowed ? ToolCallVerdict.TOOL_CALL_VERDICT_ALLOW : ToolCallVerdict.TOOL_CALL_VERDICT_DENY;
    if (response.getVerdict() != want) {
      throw new IllegalStateException(
          what
              + ": expected "
              + want
              + ", got "
              + response.getVerdict()
              + ": "
              + response.getReason());
    }
  }

  // ---------------------------------------------------------------- BeginRun

  private void begins(
      MemoryServiceBlockingStub memory,
      ToolRuleServiceBlockingStub rules,
      Scope withRules,
      Scope without,
      List<Row> rows) {
    BeginRunResponse first = beginRun(memory, withRules, "first-rules");
    BeginRunResponse bare = beginRun(memory, without, "first-empty");
    String section = section(first, "tool_rules");
    if (!section.contains("### `" + MAIL + "`") || !section.contains("- **[critical]**")) {
      throw new IllegalStateException("no critical send_email rule in tool_rules:\n" + section);
    }
    System.out.printf(
        Locale.ROOT,
        "BeginRun sections with rules: %d (%,d bytes, tool_rules %,d bytes, %d recalled);"
            + " without: %d (%,d bytes, tool_rules %,d bytes, %d recalled)%n",
        first.getSectionsCount(),
        first.getSerializedSize(),
        section.getBytes(StandardCharsets.UTF_8).length,
        first.getRecalledCount(),
        bare.getSectionsCount(),
        bare.getSerializedSize(),
        section(bare, "tool_rules").getBytes(StandardCharsets.UTF_8).length,
        bare.getRecalledCount());
    int warm = Math.max(1, options.warmup / 10);
    for (int i = 0; i < warm; i++) {
      beginRun(memory, withRules, "warm-rules-" + i);
      beginRun(memory, without, "warm-empty-" + i);
    }
    int n = options.begins;
    long[] with = new long[n];
    long[] bareRuns = new long[n];
    long[] extra = new long[n];
    for (int i = 0; i < n; i++) {
      long s;
      if (i % 2 == 0) {
        s = System.nanoTime();
        beginRun(memory, withRules, "begin-" + i);
        with[i] = System.nanoTime() - s;
        s = System.nanoTime();
        beginRun(memory, without, "begin-" + i);
        bareRuns[i] = System.nanoTime() - s;
      } else {
        s = System.nanoTime();
        beginRun(memory, without, "begin-" + i);
        bareRuns[i] = System.nanoTime() - s;
        s = System.nanoTime();
        beginRun(memory, withRules, "begin-" + i);
        with[i] = System.nanoTime() - s;
      }
      extra[i] = with[i] - bareRuns[i];
      if ((i + 1) % 250 == 0) {
        System.out.printf(Locale.ROOT, "  BeginRun x2 %d/%d%n", i + 1, n);
      }
    }
    long[] render = new long[n];
    RenderToolRulesRequest request =
        RenderToolRulesRequest.newBuilder().setScope(withRules).build();
    RenderToolRulesResponse block = rules.renderToolRules(request);
    for (int i = 0; i < warm; i++) {
      rules.renderToolRules(request);
    }
    for (int i = 0; i < n; i++) {
      long s = System.nanoTime();
      rules.withDeadlineAfter(60, TimeUnit.SECONDS).renderToolRules(request);
      render[i] = System.nanoTime() - s;
    }
    long withP50 = Figures.percentile(sorted(with), 50);
    long bareP50 = Figures.percentile(sorted(bareRuns), 50);
    long withP99 = Figures.percentile(sorted(with), 99);
    long bareP99 = Figures.percentile(sorted(bareRuns), 99);
    System.out.printf(
        Locale.ROOT,
        "BeginRun extra cost of the tool_rules section: p50 %.3f - %.3f = %.3f ms;"
            + " p99 %.3f - %.3f = %.3f ms%n",
        Figures.millis(withP50),
        Figures.millis(bareP50),
        Figures.millis(withP50 - bareP50),
        Figures.millis(withP99),
        Figures.millis(bareP99),
        Figures.millis(withP99 - bareP99));
    String recalled = String.format(Locale.ROOT, "%,d records, top 8", options.records);
    rows.add(
        Row.of(
            "BeginRun, 1,000 rules (40 pinned), 4 tools",
            with,
            recalled + String.format(Locale.ROOT, "; tool_rules %,d bytes", section.length())));
    rows.add(Row.of("BeginRun, no rules, same input and tools", bareRuns, recalled));
    rows.add(
        Row.of(
            "BeginRun with rules minus without, per pair",
            extra,
            String.format(
                Locale.ROOT,
                "difference of the medians: %.3f ms",
                Figures.millis(withP50 - bareP50))));
    rows.add(
        Row.of(
            "RenderToolRules, 1,000 rules",
            render,
            String.format(
                Locale.ROOT,
                "%d rules, %,d chars of markdown",
                block.getRulesCount(),
                block.getMarkdown().length())));
  }

  private static BeginRunResponse beginRun(
      MemoryServiceBlockingStub stub, Scope scope, String runId) {
    return stub.withDeadlineAfter(60, TimeUnit.SECONDS)
        .beginRun(
            BeginRunRequest.newBuilder()
                .setScope(scope)
                .setRunId(runId)
                .setInput(INPUT)
                .addAllTools(RUN_TOOLS)
                .setTopK(8)
                .build());
  }

  private static String section(BeginRunResponse response, String id) {
    for (PromptSection s : response.getSectionsList()) {
      if (s.getId().equals(id)) {
        return s.getBody();
      }
    }
    return "";
  }

  private static long[] sorted(long[] values) {
    long[] out = values.clone();
    Arrays.sort(out);
    return out;
  }

  // ---------------------------------------------------------------- the workspace's rules

  /**
   * 1,000 rules: on {@code send_email} 20 critical prohibitions naming a person and an address, and
   * 5 normal notes; on {@code tool_00} .. {@code tool_98} 20 high rules (one on each of the first
   * 20 tools) and 955 normal ones, spread evenly.
   */
  private static List<ToolRule> rules() {
    List<ToolRule> rules = new ArrayList<>();
    for (int i = 0; i < FIRST.size(); i++) {
      rules.add(
          rule(
              MAIL,
              "Never email " + FIRST.get(i) + " " + LAST.get(i) + " at " + address(i) + ".",
              ToolRulePriority.TOOL_RULE_PRIORITY_CRITICAL,
              ToolRuleSource.TOOL_RULE_SOURCE_USER_EXPLICIT));
    }
    for (int i = 0; i < 5; i++) {
      rules.add(
          rule(
              MAIL,
              "Keep subject lines under 60 characters (style note " + i + ").",
              ToolRulePriority.TOOL_RULE_PRIORITY_NORMAL,
              ToolRuleSource.TOOL_RULE_SOURCE_POST_TURN));
    }
    for (int i = 0; i < 20; i++) {
      rules.add(
          rule(
              tool(i),
              "Confirm the target with the user before calling "
                  + tool(i)
                  + " on shared resources (policy "
                  + i
                  + ").",
              ToolRulePriority.TOOL_RULE_PRIORITY_HIGH,
              ToolRuleSource.TOOL_RULE_SOURCE_PROGRAMMATIC));
    }
    for (int i = 0; rules.size() < 1_000; i++) {
      String tool = tool(i % 99);
      rules.add(
          rule(
              tool,
              tool
                  + " answered slowly with large page sizes; prefer page_size 50 (observation "
                  + i
                  + ").",
              ToolRulePriority.TOOL_RULE_PRIORITY_NORMAL,
              ToolRuleSource.TOOL_RULE_SOURCE_POST_TURN));
    }
    return List.copyOf(rules);
  }

  private static ToolRule rule(
      String tool, String text, ToolRulePriority priority, ToolRuleSource source) {
    return ToolRule.newBuilder()
        .setToolName(tool)
        .setRule(text)
        .setPriority(priority)
        .setSource(source)
        .build();
  }

  private static String tool(int i) {
    return String.format(Locale.ROOT, "tool_%02d", i);
  }

  private static String address(int i) {
    return FIRST.get(i).toLowerCase(Locale.ROOT)
        + "."
        + LAST.get(i).toLowerCase(Locale.ROOT)
        + "@example.com";
  }

  /** A {@code send_email} call to people no rule names. */
  private static String allowedCall() {
    return "{\"to\":[\"bob.jones@example.org\"],\"cc\":[\"team@example.org\"],"
        + "\"subject\":\"Quarterly numbers\",\"body\":\"Hi Bob, the Q3 numbers are attached;"
        + " the summary is on page two. Thanks!\"}";
  }

  /** A {@code send_email} call to the {@code i}th prohibited address, among allowed ones. */
  private static String deniedCall(int i) {
    return "{\"to\":[\"bob.jones@example.org\",\""
        + address(i)
        + "\"],\"subject\":\"Quarterly numbers\",\"body\":\"Hi all, the Q3 numbers are"
        + " attached. Thanks!\"}";
  }

  // ---------------------------------------------------------------- options

  @Command(
      description = "CheckToolCall and BeginRun latency with tool rules, of a sidecar it starts.")
  private static final class Options {
    @Mixin SidecarJar sidecar;

    @Option(names = "--checks", paramLabel = "N", description = "CheckToolCall calls of each kind")
    int checks = 20_000;

    @Option(names = "--begins", paramLabel = "N", description = "BeginRun calls per workspace")
    int begins = 1_000;

    @Option(names = "--records", paramLabel = "N", description = "records in each workspace")
    int records = 300;

    @Option(
        names = "--warmup",
        paramLabel = "N",
        description = "warm-up CheckToolCall rounds; a tenth of it for BeginRun")
    int warmup = 2_000;

    @Option(names = "--seed", paramLabel = "N", description = "RNG seed for the records")
    long seed = 42;
  }
}
