package dev.memsidecar.core.toolrules;

import dev.memsidecar.language.TextRules;
import dev.memsidecar.language.tool.ToolArguments;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Measures the matching behind one CheckToolCall ({@link ToolCallArguments} and the language
 * module's {@code ToolCallMatcher}): parse the call's arguments once, pick the called tool's rules
 * out of the workspace's 1,000 (5 of them on {@code send_email}, each with objects), and match
 * them, stopping at the first hit, as a DENY would. Calls alternate between a small allowed mail, a
 * denied one (the Sarah case) and an allowed mail with a 20 KB body. Prints p50, p90, p99, p99.9
 * and the maximum per call in microseconds, wall clock, in-process (no gRPC, no store). Not a test:
 * run it with the module's test class path, e.g.
 *
 * <pre>
 * cd core
 * mvn -o -q test-compile dependency:build-classpath -Dmdep.outputFile=target/cp.txt
 * java -cp target/test-classes:target/classes:$(cat target/cp.txt) \
 *     dev.memsidecar.core.toolrules.ToolCallMatcherBench 200000
 * </pre>
 */
public final class ToolCallMatcherBench {
  private static final TextRules TEXT = TextRules.standard();

  private ToolCallMatcherBench() {}

  public static void main(String[] args) {
    int iterations = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
    List<ToolRule> rules = workspace();
    String body =
        "Quarterly numbers attached; Sarah and Bob Smith were in the meeting. ".repeat(300);
    String[] calls = {
      "{\"to\":\"bob@example.com\",\"subject\":\"hi\",\"body\":\"see you at 10\"}",
      "{\"to\":[\"Bob <bob@x.io>\",\"Sarah <SARAH@example.com>\"],\"subject\":\"hi\"}",
      "{\"to\":[\"team@example.com\"],\"cc\":[\"ops@example.com\"],\"subject\":\"report\","
          + "\"body\":\""
          + body
          + "\"}"
    };
    String[] names = {"small allowed", "denied (Sarah)", "20 KB body allowed"};
    int sink = 0;
    for (int i = 0; i < 50_000; i++) { // warm-up
      sink += check(rules, "send_email", calls[i % calls.length]).length();
    }
    long[][] times = new long[calls.length][iterations / calls.length];
    for (int i = 0; i < iterations / calls.length * calls.length; i++) {
      int c = i % calls.length;
      long start = System.nanoTime();
      sink += check(rules, "send_email", calls[c]).length();
      times[c][i / calls.length] = System.nanoTime() - start;
    }
    long[] all = Arrays.stream(times).flatMapToLong(Arrays::stream).toArray();
    System.out.printf(
        Locale.ROOT,
        "CheckToolCall matching, 1,000 rules (5 on the tool), %,d calls%n",
        all.length);
    print("all calls", all);
    for (int c = 0; c < calls.length; c++) {
      print(names[c], times[c]);
    }
    System.out.println("(sink " + sink + ")");
  }

  /** What CheckToolCall does in-process: the verdict's matched object, or empty for ALLOW. */
  private static String check(List<ToolRule> rules, String tool, String json) {
    ToolArguments arguments = ToolCallArguments.parse(json);
    for (ToolRule rule : rules) {
      if (rule.toolName().equals(tool)) {
        Optional<String> hit = TEXT.matchToolCall(rule.toolName(), rule.objects(), arguments);
        if (hit.isPresent()) {
          return hit.get();
        }
      }
    }
    return "";
  }

  private static void print(String name, long[] nanos) {
    long[] sorted = nanos.clone();
    Arrays.sort(sorted);
    System.out.printf(
        Locale.ROOT,
        "  %-20s p50 %6.1f us  p90 %6.1f us  p99 %6.1f us  p99.9 %7.1f us  max %8.1f us%n",
        name,
        at(sorted, 0.50),
        at(sorted, 0.90),
        at(sorted, 0.99),
        at(sorted, 0.999),
        sorted[sorted.length - 1] / 1000.0);
  }

  private static double at(long[] sorted, double q) {
    return sorted[Math.min(sorted.length - 1, (int) (q * sorted.length))] / 1000.0;
  }

  private static List<ToolRule> workspace() {
    List<ToolRule> rules = new ArrayList<>();
    List<List<String>> mail =
        List.of(
            List.of("sarah@example.com", "sarah"),
            List.of("bob smith"),
            List.of("acme-competitor.com"),
            List.of("ceo@acme.test", "dana"),
            List.of("press@news.test", "reporter.io"));
    for (int i = 0; i < mail.size(); i++) {
      rules.add(rule("mail-" + i, "send_email", mail.get(i)));
    }
    for (int i = 0; rules.size() < 1_000; i++) {
      List<String> objects =
          switch (i % 4) {
            case 0 -> List.of("/srv/data/" + i, "~/.ssh");
            case 1 -> List.of("host" + i + ".internal.test");
            case 2 -> List.of("rm -rf /var/" + i);
            default -> List.of("person" + i);
          };
      rules.add(rule("r-" + i, "tool_" + (i % 200), objects));
    }
    return List.copyOf(rules);
  }

  private static ToolRule rule(String id, String tool, List<String> objects) {
    return new ToolRule(
        id,
        tool,
        "rule " + id,
        ToolRule.Priority.CRITICAL,
        ToolRule.Source.USER_EXPLICIT,
        List.of("safety"),
        Instant.EPOCH,
        Instant.EPOCH,
        objects);
  }
}
