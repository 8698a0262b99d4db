package dev.memsidecar.core.run;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.ExtractionRequest;
import dev.memsidecar.api.Ids;
import dev.memsidecar.api.MemoryCandidate;
import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.MemoryFile;
import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.ToolCall;
import dev.memsidecar.core.Access;
import dev.memsidecar.core.AccessPolicy;
import dev.memsidecar.core.Limits;
import dev.memsidecar.core.MemoryFiles;
import dev.memsidecar.core.MemoryHit;
import dev.memsidecar.core.MemoryWriter;
import dev.memsidecar.core.NamespaceResolver;
import dev.memsidecar.core.ProfileCatalog;
import dev.memsidecar.core.Recall;
import dev.memsidecar.core.RequestOptions;
import dev.memsidecar.core.Scope;
import dev.memsidecar.core.WriteDecision;
import dev.memsidecar.core.WriteGate;
import dev.memsidecar.core.config.RunConfig;
import dev.memsidecar.core.curated.CuratedMemory;
import dev.memsidecar.core.events.EventBus;
import dev.memsidecar.core.events.RuntimeEvent;
import dev.memsidecar.core.learning.RunLabels;
import dev.memsidecar.core.learning.RunReceipt;
import dev.memsidecar.core.sessions.MessageRole;
import dev.memsidecar.core.sessions.SessionHit;
import dev.memsidecar.core.sessions.SessionMessage;
import dev.memsidecar.core.sessions.SessionService;
import dev.memsidecar.core.skills.SkillService;
import dev.memsidecar.core.toolrules.ToolRule;
import dev.memsidecar.core.toolrules.ToolRuleService;
import dev.memsidecar.language.ReferenceTime;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * The agent's two calls. BeginRun freezes what the agent's system prompt needs for one run —
 * runtime context, pinned tool rules ({@link ToolRuleService}), recalled memories, memory files,
 * the curated MEMORY.md and USER.md ({@link CuratedMemory}) with their content hash, the published
 * skills that match the input ({@link SkillService}) — so the same run always gets the same
 * sections (prompt caches stay warm), also after a restart. EndRun turns what the run said into
 * memories: extract → route to a profile → the write path Remember shares ({@link MemoryWriter}:
 * low-value filter → write gate → dedupe or supersede → store), with a decision and a reason for
 * every candidate, kept in the audit and emitted as events, and a receipt of the run ({@link
 * RunReceipt}: tools, skills, tokens, decisions, its task) kept with its result; a retry of the
 * same run returns the first call's decisions and stores nothing twice. Every call goes through the
 * one access entry ({@link AccessPolicy}). Thread-safe.
 *
 * <p>One file on purpose, for now: BeginRun and EndRun share the frozen-snapshot protocol, the
 * reference time of a run and its event publishing; the parts that stand alone already live beside
 * it ({@link RecallBlend}, {@link RunWrites}, {@code Dedupe}, {@code Extractors}).
 */
public final class RunService {
  /** Section ids, in the order BeginRun returns them. */
  public static final String RUNTIME_CONTEXT = "runtime_context";

  public static final String TOOL_RULES = "tool_rules";
  public static final String RECALLED_MEMORY = "recalled_memory";
  public static final String SESSION_EVIDENCE = "session_evidence";
  public static final String MEMORY_FILES = "memory_files";
  public static final String CURATED = "curated";
  public static final String SKILLS = "skills";

  /** BeginRun input, UTF-8 bytes. */
  public static final int MAX_BEGIN_INPUT_BYTES = 32 * 1024;

  /** EndRun input and output, each, UTF-8 bytes. */
  public static final int MAX_END_TEXT_BYTES = 256 * 1024;

  /** Tool names one BeginRun may list. */
  public static final int MAX_TOOLS = 64;

  /** Tool calls one EndRun may report. */
  public static final int MAX_TOOL_CALLS = 256;

  /** A reported tool call's error category (a name such as "timeout"), characters. */
  public static final int MAX_ERROR_CATEGORY_CHARS = 64;

  /** A reported tool call's error message, UTF-8 bytes (the stats keep its first 1,024 chars). */
  public static final int MAX_ERROR_MESSAGE_BYTES = 32 * 1024;

  /** Of each memory file, at most this much goes into the memory_files section. */
  public static final int MAX_FILE_SECTION_BYTES = 8 * 1024;

  /** Of all memory files together, at most this much. */
  public static final int MAX_FILES_SECTION_BYTES = 24 * 1024;

  /** Request metadata key naming the time zone of the runtime context and of relative dates. */
  public static final String TIMEZONE = "timezone";

  /** EndRun metadata key: the user's display name (the name of the input message, facts). */
  public static final String USER_NAME = "user_name";

  /** EndRun metadata key: the display name of the agent (the name of the output message). */
  public static final String AGENT_NAME = "agent_name";

  private static final DateTimeFormatter LOCAL =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss, EEEE", Locale.ENGLISH);

  private final ProfileCatalog profiles;
  private final AccessPolicy access;
  private final NamespaceResolver namespaces;
  private final RecallBlend blender;
  private final RunStore control;
  private final EventBus events;
  private final Extractors extractors;
  private final ToolRuleService toolRules;
  private final WriteGate gate;
  private final MemoryWriter writer;
  private final SessionService sessions;
  private final Clock clock;
  private final RunConfig config;
  private final CuratedMemory curated;
  private final SkillService skills;
  private final RunWrites writes;
  private final Object[] runLocks = stripes(64);

  public RunService(
      ProfileCatalog profiles,
      AccessPolicy access,
      NamespaceResolver namespaces,
      Recall recall,
      RunStore control,
      EventBus events,
      Extractors extractors,
      ToolRuleService toolRules,
      WriteGate gate,
      MemoryWriter writer,
      SessionService sessions,
      Clock clock,
      RunConfig config,
      CuratedMemory curated,
      SkillService skills) {
    this.profiles = requireNonNull(profiles, "profiles is null");
    this.access = requireNonNull(access, "access is null");
    this.namespaces = requireNonNull(namespaces, "namespaces is null");
    this.control = requireNonNull(control, "control is null");
    this.events = requireNonNull(events, "events is null");
    this.extractors = requireNonNull(extractors, "extractors is null");
    this.toolRules = requireNonNull(toolRules, "toolRules is null");
    this.gate = requireNonNull(gate, "gate is null");
    this.writer = requireNonNull(writer, "writer is null");
    this.sessions = requireNonNull(sessions, "sessions is null");
    this.blender = new RecallBlend(recall, sessions, access);
    this.writes = new RunWrites(profiles, access, namespaces, gate, writer);
    this.clock = requireNonNull(clock, "clock is null");
    this.config = requireNonNull(config, "config is null");
    this.curated = requireNonNull(curated, "curated is null");
    this.skills = requireNonNull(skills, "skills is null");
  }

  /** How runs behave (TTLs, extractor). */
  public RunConfig config() {
    return config;
  }

  /** The name of the extractor EndRun uses. */
  public String extractor() {
    return extractors.name();
  }

  /** The audit and the run results. */
  public RunStore control() {
    return control;
  }

  /** The sessions runs append to and recall evidence from. */
  public SessionService sessions() {
    return sessions;
  }

  /** The events of runs and writes. */
  public EventBus events() {
    return events;
  }

  // ---------------------------------------------------------------- BeginRun

  /**
   * The frozen prompt sections of a run: the stored snapshot when this scope already began this run
   * and it has not expired, else a new one, stored durably before it is returned.
   */
  public RunSnapshot beginRun(BeginRunInput in, RequestOptions options) {
    NamespaceResolver.requireIds(in.scope());
    String runId = runId(in.runId());
    Limits.checkBytes("input", in.input(), MAX_BEGIN_INPUT_BYTES);
    Limits.checkCount("tools", in.tools().size(), MAX_TOOLS);
    for (String tool : in.tools()) {
      Ids.require("tools", tool);
    }
    int topK = Limits.topK(in.topK());
    Limits.checkMetadata(in.metadata());
    ZoneId zone = zone(in.metadata());
    Instant now = clock.instant();

    String q = in.input().isBlank() ? "" : query(in.input());
    if (!q.isEmpty()) {
      // The model embeds the query while the snapshot (a replayed run returns it) and the
      // sections that need no vector are read.
      blender.prefetch(q);
    }
    Optional<RunSnapshot> frozen = control.snapshot(in.scope(), runId, now);
    if (frozen.isPresent()) {
      publish(
          "run.begin",
          runId,
          "",
          in.scope(),
          Map.of("snapshot_id", frozen.get().snapshotId(), "replayed", "true"));
      return frozen.get();
    }
    List<String> paths = new ArrayList<>();
    String files = memoryFiles(in.scope(), options, paths);
    String rules = toolRules.pinnedSection(in.scope(), in.tools(), in.input());
    CuratedMemory.Frozen frozenCurated = curated.freeze(in.scope());
    List<RunSnapshot.SkillRef> matched =
        skills.matching(in.scope(), q).stream()
            .map(
                s ->
                    new RunSnapshot.SkillRef(
                        s.name(), String.valueOf(s.version()), s.description(), s.path()))
            .toList();
    RecallBlend.Blend blend =
        q.isEmpty()
            ? RecallBlend.Blend.NONE
            : blender.blend(in.scope(), q, topK, options, frozenCurated.lines());
    List<MemoryHit> recalled = blend.recalled();
    List<RunSnapshot.Section> sections =
        List.of(
            new RunSnapshot.Section(RUNTIME_CONTEXT, "Runtime context", runtimeContext(now, zone)),
            new RunSnapshot.Section(TOOL_RULES, "Tool-scoped rules", rules),
            new RunSnapshot.Section(
                RECALLED_MEMORY,
                "Relevant long-term memory",
                recalledBody(recalled, blend.quotes(), zone)),
            new RunSnapshot.Section(
                SESSION_EVIDENCE,
                "Relevant past conversation",
                RecallBlend.evidenceBody(blend.evidence(), zone)),
            new RunSnapshot.Section(MEMORY_FILES, "Memory files", files),
            new RunSnapshot.Section(CURATED, "Curated memory", frozenCurated.body()),
            new RunSnapshot.Section(SKILLS, "Skills", skillsBody(matched)));
    RunSnapshot snapshot =
        new RunSnapshot(
            runId,
            UUID.randomUUID().toString(),
            now,
            now.plus(config.snapshotTtl()),
            sections,
            recalled,
            paths,
            in.tools(),
            blend.evidence(),
            frozenCurated.hash(),
            matched);
    RunSnapshot kept = control.saveSnapshot(in.scope(), snapshot, now);
    publish(
        "run.begin",
        runId,
        "",
        in.scope(),
        Map.of(
            "snapshot_id", kept.snapshotId(),
            "replayed", String.valueOf(kept != snapshot),
            "recalled", String.valueOf(kept.recalled().size()),
            "evidence", String.valueOf(kept.evidence().size())));
    return kept;
  }

  /** UTC time, local time and zone: what the model cannot know by itself. */
  static String runtimeContext(Instant now, ZoneId zone) {
    ZonedDateTime local = now.atZone(zone);
    return "- UTC time: "
        + DateTimeFormatter.ISO_INSTANT.format(now.truncatedTo(ChronoUnit.SECONDS))
        + "\n- Local time: "
        + LOCAL.format(local.truncatedTo(ChronoUnit.SECONDS))
        + "\n- Time zone: "
        + zone.getId()
        + " (UTC"
        + (local.getOffset().getTotalSeconds() == 0 ? "" : local.getOffset().getId())
        + ")";
  }

  /** One line per skill: its name and description, nothing of its file. */
  static String skillsBody(List<RunSnapshot.SkillRef> matched) {
    StringBuilder out = new StringBuilder();
    for (RunSnapshot.SkillRef s : matched) {
      out.append("- **")
          .append(s.name())
          .append("**: ")
          .append(s.description().strip().replace("\n", " "))
          .append('\n');
    }
    return out.toString().strip();
  }

  /**
   * One line per memory, saying its profile and kind, then the turn it was extracted from when that
   * turn ranked too ({@code quotes}, by index: {@link RecallBlend.Blend#quotes}), as an evidence
   * line shows it.
   */
  static String recalledBody(List<MemoryHit> hits, Map<Integer, SessionHit> quotes, ZoneId zone) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < hits.size(); i++) {
      MemoryRecord r = hits.get(i).memory().record();
      out.append("- [")
          .append(r.profile())
          .append(", ")
          .append(r.kind().name().toLowerCase(Locale.ROOT))
          .append("] ")
          .append(r.content().strip().replace("\n", " "));
      SessionHit quote = quotes.get(i);
      if (quote != null) {
        out.append(" (from ").append(RecallBlend.evidenceLine(quote, zone)).append(')');
      }
      out.append('\n');
    }
    return out.toString().strip();
  }

  /**
   * The readable memory files: every path into {@code paths}, the non-empty contents into the
   * section, each cut to {@link #MAX_FILE_SECTION_BYTES} and all to {@link
   * #MAX_FILES_SECTION_BYTES}, with a marker saying what was cut.
   */
  private String memoryFiles(Scope scope, RequestOptions options, List<String> paths) {
    StringBuilder out = new StringBuilder();
    int budget = MAX_FILES_SECTION_BYTES;
    for (AccessPolicy.Target t : access.readable(scope, List.of(), Access.FILES_READ, options)) {
      options.checkNotCancelled();
      String path = MemoryFiles.pathOf(t.profileId());
      paths.add(path);
      MemoryFile file = t.store().readFile(t.namespace());
      String content = file.content().strip();
      if (content.isEmpty()) {
        continue;
      }
      int size = (int) Limits.utf8Length(content);
      int room = Math.min(MAX_FILE_SECTION_BYTES, budget);
      String shown = Limits.cutUtf8(content, room);
      budget -= (int) Limits.utf8Length(shown);
      out.append("### ").append(path).append('\n').append(shown).append('\n');
      if (shown.length() < content.length()) {
        out.append("[... ")
            .append(size - (int) Limits.utf8Length(shown))
            .append(" more bytes of ")
            .append(path)
            .append(" not shown; read the file for the rest]\n");
      }
      out.append('\n');
    }
    return out.toString().strip();
  }

  // ---------------------------------------------------------------- EndRun

  /**
   * What the run taught, extracted, filtered, gated, deduplicated and stored; a decision for every
   * candidate. When writes are off (LangMem.write, a read-only request) nothing is written anywhere
   * and every decision says so.
   */
  public EndRunResult endRun(EndRunInput in, RequestOptions options) {
    NamespaceResolver.requireIds(in.scope());
    String runId = runId(in.runId());
    Limits.checkBytes("input", in.input(), MAX_END_TEXT_BYTES);
    Limits.checkBytes("output", in.output(), MAX_END_TEXT_BYTES);
    Limits.checkCount("tool_calls", in.toolCalls().size(), MAX_TOOL_CALLS);
    for (ToolCall call : in.toolCalls()) {
      Ids.require("tool_calls.tool_name", call.toolName());
      if (call.errorCategory().length() > MAX_ERROR_CATEGORY_CHARS) {
        throw MemoryException.invalidArgument(
            "tool_calls.error_category",
            "tool_calls.error_category is over "
                + MAX_ERROR_CATEGORY_CHARS
                + " characters: "
                + Ids.quote(call.errorCategory()));
      }
      Limits.checkBytes("tool_calls.error_message", call.errorMessage(), MAX_ERROR_MESSAGE_BYTES);
    }
    Limits.checkMetadata(in.metadata());
    ZoneId zone = zone(in.metadata());
    RunLabels labels = RunLabels.of(in.metadata());
    checkUsage(in.usage());

    synchronized (runLocks[Math.floorMod((in.scope() + runId).hashCode(), runLocks.length)]) {
      Optional<EndRunResult> earlier = control.endRun(in.scope(), runId);
      if (earlier.isPresent()) {
        return earlier.get();
      }
      Instant now = clock.instant();
      ReferenceTime reference = ReferenceTime.of(in.metadata(), in.input(), now, zone);
      String notWritten = access.recordWriteRefusal(options);
      Optional<RunSnapshot> snapshot = control.snapshot(in.scope(), runId, now);
      if (notWritten == null) {
        // Evidence first, whatever the gate decides below; a retry appends nothing twice.
        sessions.appendRun(
            in.scope(),
            runMessages(
                in,
                reference.input(),
                runId,
                snapshot.map(RunSnapshot::snapshotId).orElse(""),
                reference.instant()));
      }
      List<RunWrites.Route> routes = writes.routes(in.scope());
      Extractors.Extraction extraction =
          extractors.extract(
              new ExtractionRequest(
                  runId,
                  reference.input(),
                  in.output(),
                  in.toolCalls(),
                  reference.withSessionDate(in.metadata()),
                  routes.stream().map(RunWrites.Route::guide).toList(),
                  reference.instant(),
                  zone));
      if (extraction.failure() != null) {
        publish(
            "memory.extraction.failed",
            runId,
            "",
            in.scope(),
            Map.of(
                "extractor", extractors.name(),
                "fallback", Extractors.FALLBACK,
                "reason", Limits.cutUtf8(extraction.failure(), 1024)));
      }
      List<WriteDecision> decisions = new ArrayList<>();
      List<MemoryCandidate> candidates = extraction.candidates();
      for (int i = 0; i < candidates.size(); i++) {
        options.checkNotCancelled();
        decisions.add(
            writes.decide(
                in.scope(), runId, i, candidates.get(i), routes, notWritten, options, now));
      }
      List<ToolRule> captured =
          notWritten != null
              ? List.of()
              : toolRules.endRun(
                  in.scope(),
                  runId,
                  in.input(),
                  in.toolCalls(),
                  snapshot.map(RunSnapshot::tools).orElse(List.of()),
                  config.captureToolRules());
      EndRunResult result = new EndRunResult(runId, now, notWritten == null, decisions, captured);
      if (notWritten == null) {
        // The receipt is the record of a run that wrote: a read-only run leaves none, as it
        // appends nothing to its session.
        RunReceipt receipt =
            new RunReceipt(
                runId,
                in.scope(),
                sessionOf(in.scope()),
                labels.taskId(),
                RunReceipt.ToolUse.of(in.toolCalls()),
                labels.skills(),
                in.usage(),
                snapshot.map(RunSnapshot::createTime).orElse(now),
                now,
                RunReceipt.WriteCounts.of(decisions),
                snapshot.map(RunSnapshot::snapshotId).orElse(""),
                captured.size());
        result = control.saveEndRun(in.scope(), result, receipt);
        for (WriteDecision d : result.decisions()) {
          writer.publish(in.scope(), runId, d);
        }
      }
      publish(
          "memory.plugin.completed",
          runId,
          "",
          in.scope(),
          Map.of(
              "extractor", extraction.extractor(),
              "candidates", String.valueOf(decisions.size()),
              "written", String.valueOf(result.written())));
      publish("run.end", runId, "", in.scope(), counts(result));
      return result;
    }
  }

  /**
   * The messages of a run, as its session keeps them: the input without its leading timestamp (the
   * user's, named by {@code metadata.user_name}), one tool message per reported call, the output
   * (the agent's, named by {@code metadata.agent_name}), all at the run's reference time. Their ids
   * derive from the run, so a retried EndRun appends nothing twice.
   */
  private static List<SessionMessage> runMessages(
      EndRunInput in, String input, String runId, String snapshotId, Instant time) {
    List<Part> parts = new ArrayList<>();
    if (!input.isBlank()) {
      parts.add(new Part(MessageRole.USER, name(in.metadata(), USER_NAME), input, null));
    }
    for (ToolCall call : in.toolCalls()) {
      parts.add(
          new Part(
              MessageRole.TOOL,
              "",
              call.errorMessage(),
              new SessionMessage.ToolOutcome(
                  call.toolName(), "", call.ok(), call.errorCategory())));
    }
    if (!in.output().isBlank()) {
      parts.add(
          new Part(MessageRole.ASSISTANT, name(in.metadata(), AGENT_NAME), in.output(), null));
    }
    List<SessionMessage> out = new ArrayList<>(parts.size());
    for (int i = 0; i < parts.size(); i++) {
      Part p = parts.get(i);
      String id =
          UUID.nameUUIDFromBytes(
                  (in.scope() + "\n" + runId + "\n" + i).getBytes(StandardCharsets.UTF_8))
              .toString();
      out.add(
          new SessionMessage(
              id,
              "",
              0,
              p.role(),
              p.name(),
              p.content(),
              null,
              p.toolResult(),
              time,
              true,
              0,
              0,
              snapshotId,
              runId,
              Map.of()));
    }
    return out;
  }

  /** The session EndRun appends a run of {@code scope} to. */
  private static String sessionOf(Scope scope) {
    return scope.sessionId().isEmpty() ? SessionService.DEFAULT_SESSION : scope.sessionId();
  }

  /** INVALID_ARGUMENT naming the field when a token count is negative. */
  private static void checkUsage(RunReceipt.Usage usage) {
    if (usage == null) {
      return;
    }
    if (usage.inputTokens() < 0) {
      throw MemoryException.invalidArgument(
          "usage.input_tokens", "usage.input_tokens must not be negative: " + usage.inputTokens());
    }
    if (usage.outputTokens() < 0) {
      throw MemoryException.invalidArgument(
          "usage.output_tokens",
          "usage.output_tokens must not be negative: " + usage.outputTokens());
    }
  }

  /** What a run's message says, before it is named and dated. */
  private record Part(
      MessageRole role, String name, String content, SessionMessage.ToolOutcome toolResult) {}

  /** A display name from request metadata, stripped and cut to a message's bound. */
  private static String name(Map<String, String> metadata, String key) {
    String name = metadata.getOrDefault(key, "").strip();
    return name.length() <= SessionService.MAX_NAME_CHARS
        ? name
        : name.substring(0, SessionService.MAX_NAME_CHARS);
  }

  private static Map<String, String> counts(EndRunResult result) {
    Map<String, String> out = new LinkedHashMap<>();
    out.put("written", String.valueOf(result.written()));
    for (WriteDecision.Outcome o : WriteDecision.Outcome.values()) {
      out.put(
          o.name().toLowerCase(Locale.ROOT),
          String.valueOf(result.decisions().stream().filter(d -> d.outcome() == o).count()));
    }
    return out;
  }

  private void publish(
      String type, String runId, String namespace, Scope scope, Map<String, String> attributes) {
    events.publish(new RuntimeEvent(type, clock.instant(), runId, namespace, scope, attributes));
  }

  // ---------------------------------------------------------------- helpers

  private static String runId(String given) {
    return given.isEmpty() ? UUID.randomUUID().toString() : Ids.require("run_id", given);
  }

  /** The time zone a request asks for ({@code metadata.timezone}), else the sidecar's. */
  static ZoneId zone(Map<String, String> metadata) {
    String name = metadata.get(TIMEZONE);
    if (name == null || name.isBlank()) {
      return ZoneId.systemDefault();
    }
    try {
      return ZoneId.of(name.strip());
    } catch (DateTimeException e) {
      throw MemoryException.invalidArgument(
          "metadata.timezone",
          "metadata.timezone "
              + Ids.quote(name)
              + " is not an IANA time zone such as Europe/Paris");
    }
  }

  /** The recall query of a run's input: all of it, or its end when it is long. */
  private static String query(String input) {
    String q = input.strip();
    return (int) Limits.utf8Length(q) <= Limits.MAX_QUERY_BYTES
        ? q
        : tail(q, Limits.MAX_QUERY_BYTES / 4);
  }

  private static String tail(String s, int chars) {
    int from = s.length() - chars;
    if (from > 0 && Character.isLowSurrogate(s.charAt(from))) {
      from++;
    }
    return s.substring(Math.max(0, from));
  }

  private static Object[] stripes(int n) {
    Object[] out = new Object[n];
    for (int i = 0; i < n; i++) {
      out[i] = new Object();
    }
    return out;
  }
}
