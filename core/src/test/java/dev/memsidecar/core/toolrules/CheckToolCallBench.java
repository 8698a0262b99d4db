package dev.memsidecar.core.toolrules;

import dev.memsidecar.api.MemoryProvider;
import dev.memsidecar.conformance.InMemoryProvider;
import dev.memsidecar.core.AccessPolicy;
import dev.memsidecar.core.NamedServices;
import dev.memsidecar.core.NamespaceResolver;
import dev.memsidecar.core.ProfileCatalog;
import dev.memsidecar.core.RequestOptions;
import dev.memsidecar.core.Scope;
import dev.memsidecar.core.config.Flags;
import dev.memsidecar.core.config.ProfileSpec;
import dev.memsidecar.core.config.ScopeKind;
import dev.memsidecar.core.control.SqlControlStore;
import dev.memsidecar.core.events.EventBus;
import dev.memsidecar.language.TextRules;
import dev.memsidecar.toolkit.HashEmbedder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Measures {@link ToolRuleService#check} in-process, as CheckToolCall runs it, over a real {@link
 * SqlControlStore} in a temporary folder: one workspace holds 1,000 rules over 100 tools — on
 * {@code send_email} 20 critical prohibitions written as "Never email &lt;Name&gt; at
 * &lt;address&gt;." (the service derives their objects) and 5 normal notes; on 99 other tools 20
 * high rules and 955 normal ones. After a warm-up it times, interleaved, {@code --iterations} calls
 * each of
 *
 * <ul>
 *   <li>an allowed {@code send_email} call (no critical rule's objects match: all 20 are tried);
 *   <li>a call of a tool with no rule ({@code web_search});
 *   <li>a denied {@code send_email} call (cycling through the 20 addresses): a denial is recorded
 *       durably (a row and the stats, one H2 commit) and emitted, so it is reported apart;
 * </ul>
 *
 * then the first check after a write (the service re-reads the workspace's rules from the store),
 * and the pinned block ({@link ToolRuleService#render}, what BeginRun's {@code tool_rules} section
 * costs in-process), and the 1,000 puts themselves (after the same 1,000 into another workspace, to
 * warm up). Prints p50, p90, p99, p99.9 and the maximum in microseconds, wall clock, one thread.
 * Not a test: run it with the module's test class path, e.g.
 *
 * <pre>
 * cd core
 * mvn -B -o -q test-compile dependency:build-classpath -Dmdep.outputFile=target/cp.txt
 * $(../sidecar/bin/find-java) -cp target/test-classes:target/classes:$(cat target/cp.txt) \
 *     dev.memsidecar.core.toolrules.CheckToolCallBench [--iterations 100000] [--warmup 20000]
 *     [--reloads 500] [--renders 20000]
 * </pre>
 */
public final class CheckToolCallBench {
  static final String MAIL = "send_email";
  static final String NO_RULES = "web_search";
  static final List<String> RUN_TOOLS = List.of(MAIL, "tool_03", "tool_17", NO_RULES);

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

  private CheckToolCallBench() {}

  public static void main(String[] args) throws Exception {
    int iterations = option(args, "--iterations", 100_000);
    int warmup = option(args, "--warmup", 20_000);
    int reloads = option(args, "--reloads", 500);
    int renders = option(args, "--renders", 20_000);
    Path dir = Files.createTempDirectory("memsidecar-check-bench");
    Scope scope = Scope.workspace("bench");
    RequestOptions options = RequestOptions.DEFAULT;
    MemoryProvider provider = new InMemoryProvider();
    NamedServices<MemoryProvider> providers =
        NamedServices.of(
            "memory provider", MemoryProvider::name, MemoryProvider::aliases, List.of(provider));
    ProfileSpec profile =
        new ProfileSpec(
            AccessPolicy.DEFAULT_PROFILE,
            ScopeKind.WORKSPACE,
            InMemoryProvider.NAME,
            true,
            "",
            Map.of(),
            Map.of());
    try (ProfileCatalog catalog =
            new ProfileCatalog(List.of(profile), providers, new HashEmbedder(), dir, null);
        SqlControlStore control = SqlControlStore.open(dir);
        EventBus events = new EventBus()) {
      AccessPolicy access = new AccessPolicy(catalog, new NamespaceResolver(), Flags.ALL_ON);
      ToolRuleService service =
          new ToolRuleService(access, control, events, Clock.systemUTC(), TextRules.standard());

      List<ToolRule> rules = rules();
      for (ToolRule r : rules) { // warms the write path up on another workspace
        service.put(Scope.workspace("warm"), r, options);
      }
      long[] puts = new long[rules.size()];
      for (int i = 0; i < rules.size(); i++) {
        long start = System.nanoTime();
        service.put(scope, rules.get(i), options);
        puts[i] = System.nanoTime() - start;
      }
      List<ToolRule> stored = service.list(scope, "", options);
      long tools = stored.stream().map(ToolRule::toolName).distinct().count();
      long critical =
          stored.stream().filter(r -> r.priority() == ToolRule.Priority.CRITICAL).count();
      long high = stored.stream().filter(r -> r.priority() == ToolRule.Priority.HIGH).count();
      ToolRule first =
          stored.stream().filter(r -> r.toolName().equals(MAIL)).findFirst().orElseThrow();
      System.out.printf(
          Locale.ROOT,
          "workspace: %d rules over %d tools (%d critical, %d high); e.g. %s -> objects %s%n",
          stored.size(),
          tools,
          critical,
          high,
          first.rule(),
          first.objects());

      String allowed = allowedCall();
      String none = "{\"query\":\"weather in Paris tomorrow\",\"max_results\":5}";
      List<String> denied = new ArrayList<>();
      for (int i = 0; i < FIRST.size(); i++) {
        denied.add(deniedCall(i));
      }
      // The figures mean nothing unless the verdicts are the expected ones.
      expect(service.check(scope, MAIL, allowed, "", options), true, "the allowed call");
      expect(service.check(scope, NO_RULES, none, "", options), true, "the tool without rules");
      for (int i = 0; i < denied.size(); i++) {
        expect(service.check(scope, MAIL, denied.get(i), "", options), false, "denied call " + i);
      }

      int sink = 0;
      for (int i = 0; i < warmup; i++) {
        sink += service.check(scope, MAIL, allowed, "", options).rules().size();
        sink += service.check(scope, NO_RULES, none, "", options).rules().size();
        sink += service.check(scope, MAIL, denied.get(i % 20), "w" + i, options).rules().size();
      }
      long[] allow = new long[iterations];
      long[] noRule = new long[iterations];
      long[] deny = new long[iterations];
      long t0 = System.nanoTime();
      for (int i = 0; i < iterations; i++) {
        long s = System.nanoTime();
        sink += service.check(scope, MAIL, allowed, "", options).rules().size();
        allow[i] = System.nanoTime() - s;
        s = System.nanoTime();
        sink += service.check(scope, NO_RULES, none, "", options).rules().size();
        noRule[i] = System.nanoTime() - s;
        s = System.nanoTime();
        sink += service.check(scope, MAIL, denied.get(i % 20), "r" + i, options).rules().size();
        deny[i] = System.nanoTime() - s;
      }
      double seconds = (System.nanoTime() - t0) / 1e9;

      long[] reload = new long[reloads];
      ToolRule touched = rules.get(rules.size() - 1);
      for (int i = 0; i < reloads; i++) {
        service.put(scope, touched, options); // same text, same id: only drops the cached rules
        long s = System.nanoTime();
        sink += service.check(scope, MAIL, allowed, "", options).rules().size();
        reload[i] = System.nanoTime() - s;
      }

      for (int i = 0; i < renders / 4; i++) {
        sink += service.render(scope, RUN_TOOLS, options).markdown().length();
      }
      long[] render = new long[renders];
      ToolRuleService.Rendered block = service.render(scope, RUN_TOOLS, options);
      for (int i = 0; i < renders; i++) {
        long s = System.nanoTime();
        sink += service.render(scope, RUN_TOOLS, options).markdown().length();
        render[i] = System.nanoTime() - s;
      }

      System.out.printf(
          Locale.ROOT,
          "check(): %,d iterations of each kind after %,d warm-up rounds (%.1f s);"
              + " denials recorded: %,d%n",
          iterations,
          warmup,
          seconds,
          control.toolStats("bench", MAIL).denials());
      System.out.println();
      System.out.println("| measurement | n | p50 us | p90 us | p99 us | p99.9 us | max us |");
      System.out.println("|---|---:|---:|---:|---:|---:|---:|");
      row("check: allowed send_email (20 critical rules tried)", allow);
      row("check: tool with no rules (web_search)", noRule);
      row("check: denied send_email (+ durable denial row, event)", deny);
      row("check: first after a write (rules re-read from H2)", reload);
      row(
          String.format(
              Locale.ROOT,
              "render: pinned block, %d rules, %,d chars",
              block.rules().size(),
              block.markdown().length()),
          render);
      row("put: 1,000 rules (each a durable H2 write), after 1,000 on another workspace", puts);
      System.out.println();
      System.out.printf(
          Locale.ROOT,
          "machine: %d cores, %s %s (%s), java %s (%s); sink %d%n",
          Runtime.getRuntime().availableProcessors(),
          System.getProperty("os.name"),
          System.getProperty("os.version"),
          System.getProperty("os.arch"),
          Runtime.version(),
          System.getProperty("java.vm.name"),
          sink);
    } finally {
      deleteTree(dir);
    }
  }

  /**
   * The workspace's 1,000 rules: on {@code send_email} 20 critical prohibitions naming a person and
   * an address, and 5 normal notes; on {@code tool_00} .. {@code tool_98} 20 high rules (one on
   * each of the first 20 tools) and 955 normal ones, spread evenly.
   */
  static List<ToolRule> rules() {
    List<ToolRule> rules = new ArrayList<>();
    for (int i = 0; i < FIRST.size(); i++) {
      rules.add(
          rule(
              MAIL,
              "Never email " + FIRST.get(i) + " " + LAST.get(i) + " at " + address(i) + ".",
              ToolRule.Priority.CRITICAL,
              ToolRule.Source.USER_EXPLICIT));
    }
    for (int i = 0; i < 5; i++) {
      rules.add(
          rule(
              MAIL,
              "Keep subject lines under 60 characters (style note " + i + ").",
              ToolRule.Priority.NORMAL,
              ToolRule.Source.POST_TURN));
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
              ToolRule.Priority.HIGH,
              ToolRule.Source.PROGRAMMATIC));
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
              ToolRule.Priority.NORMAL,
              ToolRule.Source.POST_TURN));
    }
    return List.copyOf(rules);
  }

  static String tool(int i) {
    return String.format(Locale.ROOT, "tool_%02d", i);
  }

  static String address(int i) {
    return FIRST.get(i).toLowerCase(Locale.ROOT)
        + "."
        + LAST.get(i).toLowerCase(Locale.ROOT)
        + "@example.com";
  }

  /** A {@code send_email} call to people no rule names. */
  static String allowedCall() {
    return "{\"to\":[\"bob.jones@example.org\"],\"cc\":[\"team@example.org\"],"
        + "\"subject\":\"Quarterly numbers\",\"body\":\"Hi Bob, the Q3 numbers are attached;"
        + " the summary is on page two. Thanks!\"}";
  }

  /** A {@code send_email} call to the {@code i}th prohibited address, among allowed ones. */
  static String deniedCall(int i) {
    return "{\"to\":[\"bob.jones@example.org\",\""
        + address(i)
        + "\"],\"subject\":\"Quarterly numbers\",\"body\":\"Hi all, the Q3 numbers are"
        + " attached. Thanks!\"}";
  }

  private static ToolRule rule(
      String tool, String text, ToolRule.Priority priority, ToolRule.Source source) {
    return new ToolRule(
        "", tool, text, priority, source, List.of(), Instant.EPOCH, Instant.EPOCH, List.of());
  }

  private static void expect(ToolRuleService.Verdict verdict, boolean allowed, String what) {
    if (verdict.allowed() != allowed) {
      throw new IllegalStateException(
          what + " was " + (verdict.allowed() ? "allowed" : "denied") + ": " + verdict.reason());
    }
  }

  private static void row(String name, long[] nanos) {
    long[] sorted = nanos.clone();
    Arrays.sort(sorted);
    System.out.printf(
        Locale.ROOT,
        "| %s | %,d | %.1f | %.1f | %.1f | %.1f | %.1f |%n",
        name,
        sorted.length,
        at(sorted, 50),
        at(sorted, 90),
        at(sorted, 99),
        at(sorted, 99.9),
        sorted.length == 0 ? 0.0 : sorted[sorted.length - 1] / 1e3);
  }

  /** Nearest-rank percentile of sorted nanoseconds, in microseconds. */
  private static double at(long[] sorted, double p) {
    if (sorted.length == 0) {
      return 0;
    }
    int rank = (int) Math.ceil(p / 100.0 * sorted.length);
    return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))] / 1e3;
  }

  private static int option(String[] args, String name, int fallback) {
    for (int i = 0; i < args.length - 1; i++) {
      if (args[i].equals(name)) {
        return Integer.parseInt(args[i + 1]);
      }
    }
    return fallback;
  }

  private static void deleteTree(Path root) throws IOException {
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
