package dev.memsidecar.core.toolrules;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memsidecar.api.Ids;
import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.ToolCall;
import dev.memsidecar.core.Access;
import dev.memsidecar.core.AccessPolicy;
import dev.memsidecar.core.Limits;
import dev.memsidecar.core.RequestOptions;
import dev.memsidecar.core.Scope;
import dev.memsidecar.core.events.EventBus;
import dev.memsidecar.core.events.RuntimeEvent;
import dev.memsidecar.language.TextRules;
import dev.memsidecar.language.prohibition.Prohibition;
import dev.memsidecar.language.tool.ToolArguments;
import java.time.Clock;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Tool-scoped memory (OpenHuman's tool memory, one step further): rules per tool, captured from
 * what users forbid and from repeated failures, pinned into every BeginRun (normal rules when the
 * run's input is about their tool), and enforced when the agent is about to call a tool
 * (CheckToolCall denies a call that a critical prohibition's objects match, an act such as deleting
 * files included, and warns of the rules it cannot enforce). Rules live in the control-plane store
 * per workspace, in the namespace {@code <workspaceId>:tool-<toolName>}; stats apart in {@code
 * <workspaceId>:tool_effectiveness/tool/<toolName>}. Thread-safe; CheckToolCall reads rules from an
 * in-memory copy kept in step with every write.
 */
public final class ToolRuleService {
  /** The longest rule text. */
  public static final int MAX_RULE_CHARS = 1024;

  /** Tags per rule. */
  public static final int MAX_TAGS = 16;

  /** CheckToolCall arguments, UTF-8 bytes. */
  public static final int MAX_ARGUMENTS_BYTES = 64 * 1024;

  /**
   * What the pinned block may hold beyond its critical rules, UTF-8 bytes: high rules are cut to it
   * (the block says how many), critical rules never are.
   */
  public static final int MAX_HIGH_RULES_BYTES = 8 * 1024;

  /** Failures of one tool in one run that leave an observation. */
  public static final int REPEATED_FAILURES = 2;

  private static final String HEADER = "## Tool-scoped rules";
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The order the store lists rules in: priority, newest, id. */
  private static final Comparator<ToolRule> STORE_ORDER =
      Comparator.comparing(ToolRule::priority)
          .thenComparing(ToolRule::updateTime, Comparator.reverseOrder())
          .thenComparing(ToolRule::id);

  private final AccessPolicy access;
  private final ToolRuleStore control;
  private final EventBus events;
  private final Clock clock;
  private final TextRules text;
  private final Map<String, List<ToolRule>> byWorkspace = new ConcurrentHashMap<>();

  /** The store's version of each workspace's rules as last read, where it has versions. */
  private final Map<String, Long> versions = new ConcurrentHashMap<>();

  /**
   * A CheckToolCall verdict.
   *
   * @param allowed whether the call may run
   * @param rules the rule behind a denial, or the tool's pinned rules as advice when allowed
   * @param reason why, in words
   * @param warnings pinned rules this call may go against that CheckToolCall does not enforce: a
   *     prohibition it cannot check on the arguments (its object is not one it recognises, it has a
   *     condition, it names someone unnamed), a high prohibition the call hits, a critical rule it
   *     cannot read as a prohibition; the call is allowed, the agent should heed them
   */
  public record Verdict(
      boolean allowed, List<ToolRule> rules, String reason, List<Warning> warnings) {
    public Verdict {
      rules = List.copyOf(rules);
      requireNonNull(reason, "reason is null");
      warnings = List.copyOf(warnings);
    }

    public Verdict(boolean allowed, List<ToolRule> rules, String reason) {
      this(allowed, rules, reason, List.of());
    }
  }

  /** A pinned rule a call may go against, and why it is a warning rather than a denial. */
  public record Warning(ToolRule rule, String reason) {
    public Warning {
      requireNonNull(rule, "rule is null");
      requireNonNull(reason, "reason is null");
    }
  }

  /**
   * How CheckToolCall reads a rule, from its text (so a rule stored by an earlier version is read
   * as this one reads it): a prohibition with the objects it names and whether it may be enforced;
   * a text that is no prohibition is enforced by the objects it was stored with, if any.
   */
  private record Reading(boolean prohibition, boolean enforceable, List<String> objects) {}

  /** Texts read into {@link Reading}s; past this many the cache starts over. */
  private static final int READINGS_LIMIT = 4096;

  private final Map<ToolRule, Reading> readings = new ConcurrentHashMap<>();

  /** The pinned block: its markdown and the rules behind it. */
  public record Rendered(String markdown, List<ToolRule> rules) {}

  /**
   * @param text the text rules: the prohibitions of a message, the tools a noun means, the match of
   *     a call's arguments against a rule's objects
   */
  public ToolRuleService(
      AccessPolicy access, ToolRuleStore control, EventBus events, Clock clock, TextRules text) {
    this.access = requireNonNull(access, "access is null");
    this.control = requireNonNull(control, "control is null");
    this.events = requireNonNull(events, "events is null");
    this.clock = requireNonNull(clock, "clock is null");
    this.text = requireNonNull(text, "text is null");
  }

  // ---------------------------------------------------------------- the service's calls

  /**
   * Writes a rule: the same rule for the same tool again (same id, or same text) keeps its id.
   *
   * @param rule its id may be empty; priority and source default to normal and programmatic
   */
  public ToolRule put(Scope scope, ToolRule rule, RequestOptions options) {
    Instant now = clock.instant();
    return write(scope, rule, now, now, options);
  }

  /**
   * Writes an exported rule back as it was: its id, priority, source and times (an import); the
   * checks of {@link #put}.
   */
  public ToolRule restore(Scope scope, ToolRule rule, RequestOptions options) {
    checkRestore(scope, rule, options);
    return write(scope, rule, rule.createTime(), rule.updateTime(), options);
  }

  /** What {@link #restore} checks before it writes; returns the workspace. */
  public String checkRestore(Scope scope, ToolRule rule, RequestOptions options) {
    Ids.require("rule.id", rule.id());
    return check(scope, rule, options);
  }

  private String check(Scope scope, ToolRule rule, RequestOptions options) {
    String ws = access.workspace(scope, Access.WRITE, options);
    Ids.require("rule.tool_name", rule.toolName());
    if (!rule.id().isEmpty()) {
      Ids.require("rule.id", rule.id());
    }
    String text = rule.rule().strip();
    if (text.isEmpty()) {
      throw MemoryException.invalidArgument("rule.rule", "rule.rule is required");
    }
    if (text.length() > MAX_RULE_CHARS) {
      throw MemoryException.invalidArgument(
          "rule.rule", "rule.rule is over " + MAX_RULE_CHARS + " characters");
    }
    Limits.checkCount("rule.tags", rule.tags().size(), MAX_TAGS);
    Limits.checkTags(rule.tags());
    return ws;
  }

  private ToolRule write(
      Scope scope, ToolRule rule, Instant created, Instant updated, RequestOptions options) {
    String ws = check(scope, rule, options);
    String text = rule.rule().strip();
    ToolRule stored =
        control.putToolRule(
            ws,
            new ToolRule(
                rule.id().isEmpty() ? UUID.randomUUID().toString() : rule.id(),
                rule.toolName(),
                text,
                rule.priority(),
                rule.source(),
                Limits.checkTags(rule.tags()),
                created,
                updated,
                rule.objects().isEmpty() ? objectsOf(text) : rule.objects()));
    cached(ws, stored);
    return stored;
  }

  public ToolRule get(Scope scope, String toolName, String id, RequestOptions options) {
    String ws = access.workspace(scope, Access.READ, options);
    Ids.require("tool_name", toolName);
    Ids.require("id", id);
    return control
        .toolRule(ws, toolName, id)
        .orElseThrow(
            () ->
                MemoryException.notFound(
                    "no rule "
                        + Ids.quote(id)
                        + " of tool "
                        + Ids.quote(toolName)
                        + " in this workspace"));
  }

  /** The rules of {@code toolName} (all tools when empty): critical, high, normal; newest first. */
  public List<ToolRule> list(Scope scope, String toolName, RequestOptions options) {
    String ws = access.workspace(scope, Access.READ, options);
    if (!toolName.isEmpty()) {
      Ids.require("tool_name", toolName);
    }
    return control.toolRules(ws, toolName);
  }

  public boolean delete(Scope scope, String toolName, String id, RequestOptions options) {
    String ws = access.workspace(scope, Access.WRITE, options);
    Ids.require("tool_name", toolName);
    Ids.require("id", id);
    boolean deleted = control.deleteToolRule(ws, toolName, id);
    byWorkspace.computeIfPresent(
        ws,
        (w, rules) ->
            rules.stream()
                .filter(r -> !(r.toolName().equals(toolName) && r.id().equals(id)))
                .toList());
    return deleted;
  }

  /**
   * The pinned block: every critical and high rule of the workspace, the tools of {@code runTools}
   * first; no critical rule is ever cut, high rules are cut to {@link #MAX_HIGH_RULES_BYTES} with a
   * line saying how many were left out.
   */
  public Rendered render(Scope scope, List<String> runTools, RequestOptions options) {
    String ws = access.workspace(scope, Access.READ, options);
    return render(rules(ws), runTools);
  }

  /** Every rule of the workspace as snake_case JSON (an array). */
  public String export(Scope scope, RequestOptions options) {
    String ws = access.workspace(scope, Access.READ, options);
    ArrayNode out = JSON.createArrayNode();
    for (ToolRule r : control.toolRules(ws, "")) {
      ObjectNode n = out.addObject();
      n.put("id", r.id());
      n.put("tool_name", r.toolName());
      n.put("rule", r.rule());
      n.put("priority", r.priority().name().toLowerCase(Locale.ROOT));
      n.put("source", r.source().name().toLowerCase(Locale.ROOT));
      ArrayNode tags = n.putArray("tags");
      r.tags().forEach(tags::add);
      n.put("created_at", DateTimeFormatter.ISO_INSTANT.format(r.createTime()));
      n.put("updated_at", DateTimeFormatter.ISO_INSTANT.format(r.updateTime()));
    }
    try {
      return JSON.writeValueAsString(out);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write the rules as JSON", e);
    }
  }

  /**
   * May this tool call run? DENY when a critical rule of the tool that it can enforce matches the
   * arguments: a prohibition by its objects ("Don't use the shell to delete files." hits {@code rm
   * -rf x}, not {@code ls}), one naming no object by every call of its tool; every denial is kept
   * and emitted. Otherwise ALLOW, with the tool's pinned rules as advice and, as warnings, the
   * pinned rules the call may go against that are not enforced (see {@link Verdict#warnings}): a
   * rule whose object CheckToolCall does not recognise never denies every call.
   */
  public Verdict check(
      Scope scope, String toolName, String argumentsJson, String runId, RequestOptions options) {
    String ws = access.workspace(scope, Access.READ, options);
    Ids.require("tool_name", toolName);
    if (!runId.isEmpty()) {
      Ids.require("run_id", runId);
    }
    Limits.checkBytes("arguments_json", argumentsJson, MAX_ARGUMENTS_BYTES);
    List<ToolRule> ofTool = rules(ws).stream().filter(r -> r.toolName().equals(toolName)).toList();
    ToolArguments arguments = ToolCallArguments.parse(argumentsJson);
    for (ToolRule r : ofTool) {
      if (r.priority() != ToolRule.Priority.CRITICAL) {
        continue;
      }
      Reading reading = reading(r);
      if (!enforced(reading)) {
        continue;
      }
      Optional<String> hit = text.matchToolCall(r.toolName(), reading.objects(), arguments);
      if (hit.isPresent()) {
        Instant now = clock.instant();
        control.recordDenial(ws, new ToolDenial(r.id(), toolName, hit.get(), runId, now));
        events.publish(
            new RuntimeEvent(
                "toolrule.denied",
                now,
                runId,
                ws + ":tool-" + toolName,
                scope,
                Map.of(
                    "rule_id", r.id(),
                    "tool", toolName,
                    "matched", Limits.cutUtf8(hit.get(), 256),
                    "rule", Limits.cutUtf8(r.rule(), 1024))));
        return new Verdict(
            false,
            List.of(r),
            "denied by the critical rule "
                + r.id()
                + " of "
                + toolName
                + " (matched "
                + Ids.quote(hit.get())
                + "): "
                + r.rule());
      }
    }
    List<ToolRule> pinned =
        ofTool.stream().filter(r -> r.priority() != ToolRule.Priority.NORMAL).toList();
    List<Warning> warnings = new ArrayList<>();
    for (ToolRule r : pinned) {
      warning(r, toolName, arguments).ifPresent(warnings::add);
    }
    StringBuilder reason = new StringBuilder();
    if (pinned.isEmpty()) {
      reason.append("no rule of ").append(toolName).append(" applies");
    } else {
      reason
          .append("no critical rule of ")
          .append(toolName)
          .append(" that CheckToolCall enforces matches these arguments; ")
          .append(pinned.size())
          .append(" pinned rule(s) returned as advice");
    }
    if (!warnings.isEmpty()) {
      reason
          .append("; ")
          .append(warnings.size())
          .append(" warning(s): ")
          .append(warnings.get(0).reason());
      if (warnings.size() > 1) {
        reason.append(" (and ").append(warnings.size() - 1).append(" more)");
      }
    }
    return new Verdict(true, pinned, reason.toString(), warnings);
  }

  /** Whether CheckToolCall denies by a rule read so (when it is critical). */
  private static boolean enforced(Reading reading) {
    return reading.prohibition() ? reading.enforceable() : !reading.objects().isEmpty();
  }

  /** The warning a pinned rule gives this call, if any. */
  private Optional<Warning> warning(ToolRule r, String toolName, ToolArguments arguments) {
    Reading reading = reading(r);
    String named = "the " + r.priority().name().toLowerCase(Locale.ROOT) + " rule " + r.id();
    if (!reading.prohibition()) {
      if (r.priority() == ToolRule.Priority.CRITICAL && r.objects().isEmpty()) {
        return Optional.of(
            new Warning(
                r,
                named
                    + " of "
                    + toolName
                    + " is not a prohibition CheckToolCall can read, so it is not enforced: "
                    + r.rule()));
      }
      return Optional.empty();
    }
    if (r.priority() == ToolRule.Priority.CRITICAL && reading.enforceable()) {
      return Optional.empty(); // checked above, and not hit
    }
    if (reading.objects().isEmpty() && !reading.enforceable()) {
      return Optional.of(
          new Warning(
              r,
              named
                  + " of "
                  + toolName
                  + " forbids something CheckToolCall cannot recognise in a call (not enforced): "
                  + r.rule()));
    }
    Optional<String> hit = text.matchToolCall(r.toolName(), reading.objects(), arguments);
    if (hit.isEmpty()) {
      return Optional.empty();
    }
    String why =
        reading.enforceable()
            ? " (pinned, not enforced)"
            : " (not enforced: it is narrowed by a condition or words CheckToolCall cannot check)";
    return Optional.of(
        new Warning(
            r,
            "this call matches "
                + Ids.quote(hit.get())
                + " of "
                + named
                + " of "
                + toolName
                + why
                + ": "
                + r.rule()));
  }

  /** How CheckToolCall reads {@code r}, once per text and stored objects. */
  private Reading reading(ToolRule r) {
    Reading known = readings.get(r);
    if (known != null) {
      return known;
    }
    List<Prohibition> found = text.prohibitions(r.rule());
    Reading read =
        found.isEmpty()
            ? new Reading(false, false, r.objects())
            : new Reading(true, found.get(0).enforceable(), found.get(0).objects());
    if (readings.size() >= READINGS_LIMIT) {
      readings.clear();
    }
    readings.put(r, read);
    return read;
  }

  public ToolStats stats(Scope scope, String toolName, RequestOptions options) {
    String ws = access.workspace(scope, Access.READ, options);
    Ids.require("tool_name", toolName);
    return control.toolStats(ws, toolName);
  }

  // ---------------------------------------------------------------- the run lifecycle's hooks

  /** The body of BeginRun's tool_rules section for a run with no input: the pinned rules. */
  public String pinnedSection(Scope scope, List<String> runTools) {
    return pinnedSection(scope, runTools, "");
  }

  /**
   * The body of BeginRun's tool_rules section (the block without its header line): the pinned
   * rules, and the {@code normal} rules of the tools {@code input} names or clearly means ("fetch
   * the page with fetch_url", "email the report": {@code send_email}; see {@link
   * TextRules#toolsMeant}), after the pinned ones of their tool, within the high rules' budget.
   */
  public String pinnedSection(Scope scope, List<String> runTools, String input) {
    List<ToolRule> all = rules(scope.workspaceId());
    List<String> recalled = List.of();
    if (input != null && !input.isBlank()) {
      Set<String> normalTools = new LinkedHashSet<>();
      for (ToolRule r : all) {
        if (r.priority() == ToolRule.Priority.NORMAL) {
          normalTools.add(r.toolName());
        }
      }
      recalled = normalTools.isEmpty() ? List.of() : text.toolsMeant(input, normalTools);
    }
    String markdown = render(all, runTools, recalled).markdown();
    return markdown.isEmpty() ? "" : markdown.substring(HEADER.length()).strip();
  }

  /**
   * What EndRun learns about tools (callers make sure writes are allowed): the run's calls counted
   * into the stats; each prohibition of the user's input a critical rule on the matching tool; each
   * tool that failed {@value #REPEATED_FAILURES} or more times an observation.
   *
   * @param knownTools the tools the run named at BeginRun
   * @param capture whether rules are captured ({@code memory.toolRules.capture})
   * @return the rules captured
   */
  public List<ToolRule> endRun(
      Scope scope,
      String runId,
      String input,
      List<ToolCall> calls,
      List<String> knownTools,
      boolean capture) {
    String ws = scope.workspaceId();
    Instant now = clock.instant();
    if (!calls.isEmpty()) {
      control.recordToolCalls(ws, calls, now);
    }
    if (!capture) {
      return List.of();
    }
    Set<String> tools = new LinkedHashSet<>();
    calls.forEach(c -> tools.add(c.toolName()));
    tools.addAll(knownTools);
    List<ToolRule> captured = new ArrayList<>();
    for (Prohibition p : text.prohibitions(input)) {
      List<String> targets = text.toolsFor(p.noun(), tools);
      if (targets.isEmpty() && !calls.isEmpty()) {
        targets = List.of(calls.get(0).toolName());
      }
      for (String tool : targets) {
        captured.add(
            capture(
                ws,
                scope,
                runId,
                new ToolRule(
                    "",
                    tool,
                    Limits.cutUtf8(p.sentence(), MAX_RULE_CHARS),
                    // A conditional prohibition, or one aimed at nobody named, is pinned but not
                    // enforced: matching it to calls would deny what the user allowed.
                    p.enforceable() ? ToolRule.Priority.CRITICAL : ToolRule.Priority.HIGH,
                    ToolRule.Source.USER_EXPLICIT,
                    List.of("prohibition"),
                    now,
                    now,
                    p.objects())));
      }
    }
    Map<String, Map<String, Integer>> failures = new LinkedHashMap<>();
    for (ToolCall c : calls) {
      if (!c.ok()) {
        String category = c.errorCategory().isBlank() ? "error" : c.errorCategory().strip();
        failures
            .computeIfAbsent(c.toolName(), t -> new TreeMap<>())
            .merge(category, 1, Integer::sum);
      }
    }
    failures.forEach(
        (tool, byCategory) -> {
          int total = byCategory.values().stream().mapToInt(Integer::intValue).sum();
          if (total >= REPEATED_FAILURES) {
            captured.add(
                capture(
                    ws,
                    scope,
                    runId,
                    new ToolRule(
                        "",
                        tool,
                        "`"
                            + tool
                            + "` has failed repeatedly ("
                            + String.join(", ", byCategory.keySet())
                            + "): check its arguments and preconditions before calling it.",
                        ToolRule.Priority.NORMAL,
                        ToolRule.Source.POST_TURN,
                        List.of("failure"),
                        now,
                        now,
                        List.of())));
          }
        });
    return List.copyOf(captured);
  }

  private ToolRule capture(String ws, Scope scope, String runId, ToolRule rule) {
    ToolRule stored = control.putToolRule(ws, rule.id().isEmpty() ? withId(rule) : rule);
    cached(ws, stored);
    events.publish(
        new RuntimeEvent(
            "toolrule.captured",
            clock.instant(),
            runId,
            ws + ":tool-" + stored.toolName(),
            scope,
            Map.of(
                "rule_id", stored.id(),
                "tool", stored.toolName(),
                "priority", stored.priority().name().toLowerCase(Locale.ROOT))));
    return stored;
  }

  // ---------------------------------------------------------------- helpers

  private static ToolRule withId(ToolRule r) {
    return new ToolRule(
        UUID.randomUUID().toString(),
        r.toolName(),
        r.rule(),
        r.priority(),
        r.source(),
        r.tags(),
        r.createTime(),
        r.updateTime(),
        r.objects());
  }

  /** The objects a rule text names, when it reads as a prohibition. */
  private List<String> objectsOf(String rule) {
    List<Prohibition> found = text.prohibitions(rule);
    return found.isEmpty() ? List.of() : found.get(0).objects();
  }

  /**
   * Puts {@code stored} into the workspace's cached rules in place (a re-read of a workspace's
   * rules costs about a millisecond per thousand rules, and CheckToolCall sits in front of every
   * tool call).
   */
  private void cached(String ws, ToolRule stored) {
    byWorkspace.computeIfPresent(
        ws,
        (w, rules) -> {
          List<ToolRule> next = new ArrayList<>(rules.size() + 1);
          for (ToolRule r : rules) {
            if (!(r.toolName().equals(stored.toolName()) && r.id().equals(stored.id()))) {
              next.add(r);
            }
          }
          next.add(stored);
          next.sort(STORE_ORDER);
          return List.copyOf(next);
        });
  }

  /**
   * The workspace's rules, from memory once read; read again when the store's version of them moved
   * (another sidecar on the same database wrote one), which costs one key lookup per call.
   */
  private List<ToolRule> rules(String ws) {
    OptionalLong version = control.toolRulesVersion(ws);
    if (version.isPresent()) {
      Long seen = versions.get(ws);
      if (seen == null || seen != version.getAsLong()) {
        // The version is read before the rules, so the rules are at least that new.
        List<ToolRule> read = List.copyOf(control.toolRules(ws, ""));
        byWorkspace.put(ws, read);
        versions.put(ws, version.getAsLong());
        return read;
      }
    }
    return byWorkspace.computeIfAbsent(ws, w -> List.copyOf(control.toolRules(w, "")));
  }

  private static Rendered render(List<ToolRule> all, List<String> runTools) {
    return render(all, runTools, List.of());
  }

  /**
   * The block: critical and high rules, and the normal rules of {@code recalledTools}; the tools of
   * {@code runTools} first. High rules, then normal ones, are kept to {@link
   * #MAX_HIGH_RULES_BYTES}, with a line saying how many were left out; critical rules never are.
   */
  private static Rendered render(
      List<ToolRule> all, List<String> runTools, List<String> recalledTools) {
    List<ToolRule> sorted =
        all.stream()
            .filter(
                r ->
                    r.priority() != ToolRule.Priority.NORMAL
                        || recalledTools.contains(r.toolName()))
            .sorted(
                Comparator.comparing((ToolRule r) -> !runTools.contains(r.toolName()))
                    .thenComparing(r -> runTools.indexOf(r.toolName()))
                    .thenComparing(ToolRule::toolName)
                    .thenComparing(ToolRule::priority)
                    .thenComparing(ToolRule::updateTime, Comparator.reverseOrder())
                    .thenComparing(ToolRule::id))
            .toList();
    if (sorted.isEmpty()) {
      return new Rendered("", List.of());
    }
    int budget = MAX_HIGH_RULES_BYTES;
    Set<ToolRule> cut = new HashSet<>();
    int leftHigh = 0;
    int leftNormal = 0;
    for (ToolRule.Priority priority : List.of(ToolRule.Priority.HIGH, ToolRule.Priority.NORMAL)) {
      for (ToolRule r : sorted) {
        if (r.priority() != priority) {
          continue;
        }
        int cost = (int) Limits.utf8Length(r.rule()) + 20;
        if (cost > budget) {
          cut.add(r);
          if (priority == ToolRule.Priority.HIGH) {
            leftHigh++;
          } else {
            leftNormal++;
          }
          continue;
        }
        budget -= cost;
      }
    }
    List<ToolRule> shown = sorted.stream().filter(r -> !cut.contains(r)).toList();
    StringBuilder md = new StringBuilder(HEADER).append('\n');
    String tool = null;
    for (ToolRule r : shown) {
      if (!r.toolName().equals(tool)) {
        tool = r.toolName();
        md.append("\n### `").append(tool).append("`\n");
      }
      md.append("- **[")
          .append(r.priority().name().toLowerCase(Locale.ROOT))
          .append("]** ")
          .append(r.rule().replace("\n", " "))
          .append('\n');
    }
    if (leftHigh > 0) {
      md.append("\n(")
          .append(leftHigh)
          .append(" more high-priority rule")
          .append(leftHigh == 1 ? "" : "s")
          .append(" left out for space; ListToolRules shows them.)\n");
    }
    if (leftNormal > 0) {
      md.append("\n(")
          .append(leftNormal)
          .append(" more normal rule")
          .append(leftNormal == 1 ? "" : "s")
          .append(" of the tools this input is about left out for space; ListToolRules shows")
          .append(" them.)\n");
    }
    return new Rendered(md.toString().strip(), List.copyOf(shown));
  }
}
