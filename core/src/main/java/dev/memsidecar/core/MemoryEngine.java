package dev.memsidecar.core;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.Embedder;
import dev.memsidecar.api.Ids;
import dev.memsidecar.api.ListQuery;
import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.MemoryKind;
import dev.memsidecar.api.MemoryProvider;
import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.MemoryStatus;
import dev.memsidecar.api.MemoryStore;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.api.Page;
import dev.memsidecar.api.PendingVectors;
import dev.memsidecar.api.ScoredRecord;
import dev.memsidecar.api.Validity;
import dev.memsidecar.core.events.EventBus;
import dev.memsidecar.core.learning.LearningService;
import dev.memsidecar.core.maintenance.MaintenanceService;
import dev.memsidecar.core.run.BeginRunInput;
import dev.memsidecar.core.run.DecisionEntry;
import dev.memsidecar.core.run.DecisionQuery;
import dev.memsidecar.core.run.EndRunInput;
import dev.memsidecar.core.run.EndRunResult;
import dev.memsidecar.core.run.RunService;
import dev.memsidecar.core.run.RunSnapshot;
import dev.memsidecar.core.sessions.SessionService;
import dev.memsidecar.core.skills.SkillService;
import dev.memsidecar.core.toolrules.ToolRuleService;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.function.Consumer;

/**
 * What the sidecar's services call: Remember, Search, Get, List, Forget and status. Every call
 * first checks its input against the bounds ({@link Limits}), then goes through the one access
 * entry ({@link AccessPolicy#resolve}: profile, namespace, flags, read-only) before any store sees
 * it; Remember takes the write path EndRun takes ({@link MemoryWriter}). Thread-safe.
 */
public final class MemoryEngine implements AutoCloseable {
  /** Profile used when a request names none. */
  public static final String DEFAULT_PROFILE = AccessPolicy.DEFAULT_PROFILE;

  /** Records an export reads from a store at a time. */
  private static final int EXPORT_PAGE = 500;

  private final ProfileCatalog profiles;
  private final NamedServices<MemoryProvider> providers;
  private final Embedder embedder;
  private final AccessPolicy access;
  private final WriteGate gate;
  private final MemoryWriter writer;
  private final Clock clock;
  private final MemoryFiles files;
  private final Plugins plugins;
  private final Recall recall;
  private final RunService runs;
  private final ToolRuleService toolRules;
  private final LearningService learning;
  private final SkillService skills;
  private final MaintenanceService maintenance;
  private final CallActivity calls;

  @Inject
  public MemoryEngine(
      ProfileCatalog profiles,
      NamedServices<MemoryProvider> providers,
      Embedder embedder,
      AccessPolicy access,
      WriteGate gate,
      MemoryWriter writer,
      Clock clock,
      MemoryFiles files,
      Plugins plugins,
      Recall recall,
      RunService runs,
      ToolRuleService toolRules,
      LearningService learning,
      SkillService skills,
      MaintenanceService maintenance,
      CallActivity calls) {
    this.profiles = requireNonNull(profiles, "profiles is null");
    this.providers = requireNonNull(providers, "providers is null");
    this.embedder = requireNonNull(embedder, "embedder is null");
    this.access = requireNonNull(access, "access is null");
    this.gate = requireNonNull(gate, "gate is null");
    this.writer = requireNonNull(writer, "writer is null");
    this.clock = requireNonNull(clock, "clock is null");
    this.files = requireNonNull(files, "files is null");
    this.plugins = requireNonNull(plugins, "plugins is null");
    this.recall = requireNonNull(recall, "recall is null");
    this.runs = requireNonNull(runs, "runs is null");
    this.toolRules = requireNonNull(toolRules, "toolRules is null");
    this.learning = requireNonNull(learning, "learning is null");
    this.skills = requireNonNull(skills, "skills is null");
    this.maintenance = requireNonNull(maintenance, "maintenance is null");
    this.calls = requireNonNull(calls, "calls is null");
  }

  /**
   * Writes an explicit memory through the write path EndRun shares ({@link MemoryWriter}): the gate
   * floors it at 8.0; it is the client's own words, so the low-value filter does not see it; a
   * repeated or paraphrased fact merges into the existing record of its namespace (MERGED, that
   * record's id) and a new value for a stored subject supersedes the old record. A {@code
   * requestId} already seen in this scope and profile returns the first call's outcome and memory
   * and changes nothing.
   */
  public WriteDecision remember(RememberInput in, RequestOptions options) {
    String content = in.content();
    if (content.isBlank()) {
      throw MemoryException.invalidArgument("content", "content is required");
    }
    Limits.checkBytes("content", content, Limits.MAX_CONTENT_BYTES);
    Limits.checkBytes("context", in.context(), Limits.MAX_CONTEXT_BYTES);
    List<String> tags = Limits.checkTags(in.tags());
    Limits.checkMetadata(in.metadata());
    if (!in.requestId().isEmpty()) {
      Ids.require("request_id", in.requestId());
    }
    WriteGate.Verdict verdict = gate.evaluate(in.scores(), true);
    AccessPolicy.Target target = access.resolve(in.scope(), in.profile(), Access.WRITE, options);
    Namespace ns = target.namespace();
    String id = in.requestId().isEmpty() ? UUID.randomUUID().toString() : idFor(ns, in.requestId());
    WriteCandidate.Origin origin = new WriteCandidate.Origin.Remember(in.requestId());
    Instant now = clock.instant();
    MemoryRecord candidate =
        writer
            .draft(
                id,
                ns,
                target.profileId(),
                origin,
                content,
                in.validity() == null ? Validity.LONG_TERM : in.validity(),
                verdict,
                now)
            .kind(in.kind() == null ? MemoryKind.SEMANTIC : in.kind())
            .context(in.context())
            .confidence(1.0f)
            .tags(tags)
            .metadata(in.metadata())
            .build();
    return writer.writeAndAudit(
        new WriteCandidate(
            in.scope(),
            origin,
            candidate,
            verdict,
            true,
            new WriteCandidate.Destination.Profile(target),
            now));
  }

  /**
   * Recalls the memories that best match the query across the requested (or every readable)
   * profile, best first ({@link ScoredRecord#BEST_FIRST} across profiles: every store scores on the
   * one scale {@link ScoredRecord} states). Profiles whose flag or enabled bit forbids recall
   * contribute nothing. Stops between profiles when the caller has gone.
   */
  public List<MemoryHit> search(SearchInput in, RequestOptions options) {
    if (in.query().isBlank()) {
      throw MemoryException.invalidArgument("query", "query is required");
    }
    Limits.checkBytes("query", in.query(), Limits.MAX_QUERY_BYTES);
    int topK = Limits.topK(in.topK());
    if (!(in.minScore() >= 0 && in.minScore() <= 1)) {
      throw MemoryException.invalidArgument(
          "min_score", "min_score must be 0..1: " + in.minScore());
    }
    Limits.checkTags(in.tags());
    Limits.checkCount("profiles", in.profiles().size(), Limits.MAX_PROFILES);
    return recall.search(
        in.scope(), in.query(), in.profiles(), topK, in.kinds(), in.tags(), in.minScore(), options);
  }

  /** The record {@code id} of {@code profile} in the caller's scope, whatever its status. */
  public StoredMemory get(Scope scope, String profileId, String id, RequestOptions options) {
    Ids.require("id", id);
    AccessPolicy.Target target = access.resolve(scope, profileId, Access.READ, options);
    return new StoredMemory(find(target, id), target.provider());
  }

  /** One page of a profile's memories in the caller's scope, newest first. */
  public MemoryPage list(ListInput in, RequestOptions options) {
    int size = Limits.pageSize(in.pageSize());
    AccessPolicy.Target target = access.resolve(in.scope(), in.profile(), Access.READ, options);
    String requestKey =
        target.profileId() + "\n" + target.namespace() + "\n" + in.includeInactive();
    String cursor = PageTokens.decode(requestKey, in.pageToken());
    Page page =
        target.store().list(target.namespace(), new ListQuery(size, cursor, in.includeInactive()));
    List<StoredMemory> memories =
        page.records().stream().map(r -> new StoredMemory(r, target.provider())).toList();
    return new MemoryPage(memories, PageTokens.encode(requestKey, page.nextCursor()));
  }

  /**
   * Every record of every records profile the scope reaches (its ids sent, the profile enabled,
   * LangMem.read on), superseded and forgotten ones too: profile by profile, newest first within
   * one (an export).
   */
  public void exportRecords(Scope scope, RequestOptions options, Consumer<StoredMemory> out) {
    for (AccessPolicy.Target t : access.readable(scope, List.of(), Access.RECALL, options)) {
      String cursor = null;
      do {
        options.checkNotCancelled();
        Page page = t.store().list(t.namespace(), new ListQuery(EXPORT_PAGE, cursor, true));
        page.records().forEach(r -> out.accept(new StoredMemory(r, t.provider())));
        cursor = page.nextCursor();
      } while (cursor != null);
    }
  }

  /**
   * Writes an exported record back into {@code profileId} of the caller's scope as it was: its id,
   * times, status, scores and supersede links (an import: no gate, no dedupe); a record of the same
   * id there is replaced. PERMISSION_DENIED as for any write.
   */
  public StoredMemory restore(
      Scope scope, String profileId, MemoryRecord record, RequestOptions options) {
    AccessPolicy.Target target = checkRestore(scope, profileId, record, options);
    MemoryRecord placed =
        record.toBuilder().namespace(target.namespace()).profile(target.profileId()).build();
    target.store().put(placed);
    return new StoredMemory(placed, target.provider());
  }

  /** What {@link #restore} checks before it writes; returns where the record goes. */
  public AccessPolicy.Target checkRestore(
      Scope scope, String profileId, MemoryRecord record, RequestOptions options) {
    AccessPolicy.Target target = access.resolve(scope, profileId, Access.WRITE, options);
    Ids.require("memory.id", record.id());
    if (record.content().isBlank()) {
      throw MemoryException.invalidArgument("memory.content", "memory.content is required");
    }
    Limits.checkBytes("memory.content", record.content(), Limits.MAX_CONTENT_BYTES);
    Limits.checkBytes("context", record.context(), Limits.MAX_CONTEXT_BYTES);
    Limits.checkTags(record.tags());
    Limits.checkMetadata(record.metadata());
    return target;
  }

  /**
   * Marks a memory forgotten: search stops finding it, listing hides it unless inactive records are
   * asked for. Returns true once it is forgotten (also when it already was).
   */
  public boolean forget(Scope scope, String profileId, String id, RequestOptions options) {
    Ids.require("id", id);
    AccessPolicy.Target target = access.resolve(scope, profileId, Access.WRITE, options);
    MemoryRecord record = find(target, id);
    if (record.status() != MemoryStatus.FORGOTTEN) {
      target
          .store()
          .put(
              record.toBuilder()
                  .status(MemoryStatus.FORGOTTEN)
                  .updateTime(clock.instant())
                  .build());
    }
    return true;
  }

  /** BeginRun: the frozen prompt sections of a run (see {@link RunService#beginRun}). */
  public RunSnapshot beginRun(BeginRunInput in, RequestOptions options) {
    return runs.beginRun(in, options);
  }

  /** EndRun: what the run taught, extracted, gated, deduplicated, stored and audited. */
  public EndRunResult endRun(EndRunInput in, RequestOptions options) {
    return runs.endRun(in, options);
  }

  /** A page of the write-decision audit; {@code nextPageToken} is empty at the end. */
  public record DecisionPage(List<DecisionEntry> entries, String nextPageToken) {}

  /**
   * One page of the write-decision audit, oldest first: the decisions of the scope's workspace,
   * narrowed to each other id it gives, to {@code runId} and {@code outcome} when given.
   *
   * @param outcome only this outcome, or null for all
   * @param pageSize 0 means the default; capped like ListMemories
   */
  public DecisionPage writeDecisions(
      Scope scope, String runId, WriteDecision.Outcome outcome, int pageSize, String pageToken) {
    NamespaceResolver.requireIds(scope);
    if (!runId.isEmpty()) {
      Ids.require("run_id", runId);
    }
    int size = Limits.pageSize(pageSize);
    String requestKey = "decisions\n" + scope + "\n" + runId + "\n" + outcome;
    String cursor = PageTokens.decode(requestKey, pageToken);
    long after;
    try {
      after = cursor == null ? 0 : Long.parseLong(cursor);
    } catch (NumberFormatException e) {
      throw MemoryException.invalidArgument("page_token", "page_token is malformed");
    }
    List<DecisionEntry> entries =
        runs.control().decisions(new DecisionQuery(scope, runId, outcome, size + 1, after));
    if (entries.size() <= size) {
      return new DecisionPage(entries, "");
    }
    List<DecisionEntry> page = List.copyOf(entries.subList(0, size));
    return new DecisionPage(
        page, PageTokens.encode(requestKey, String.valueOf(page.get(size - 1).sequence())));
  }

  /** The most scopes {@link #scopesSeen} returns. */
  public static final int MAX_SCOPES_SEEN = 1000;

  /**
   * The workspace, user and agent ids that left a trace in the control plane (write decisions,
   * runs, sessions, tool rules), sorted; at most {@code limit} (1..{@value #MAX_SCOPES_SEEN}).
   * Memories written straight into a provider's files leave none.
   */
  public List<Scope> scopesSeen(int limit) {
    if (limit < 1 || limit > MAX_SCOPES_SEEN) {
      throw new IllegalArgumentException("limit " + limit + " is outside 1.." + MAX_SCOPES_SEEN);
    }
    return runs.control().scopesSeen(limit);
  }

  /** The calls a server admits, which it tells the engine of (see {@link CallActivity}). */
  public CallActivity calls() {
    return calls;
  }

  /** The tool-scoped rules: put, list, render, check calls, stats. */
  public ToolRuleService toolRules() {
    return toolRules;
  }

  /** The sessions: every message of every run, searchable. */
  public SessionService sessions() {
    return runs.sessions();
  }

  /** Run receipts, tasks and their acceptance, skill effects. */
  public LearningService learning() {
    return learning;
  }

  /**
   * Skill learning: candidates, review, publishing, published skills; its miner is the maintenance
   * daemon's {@code skills} target ({@link SkillService#miner()}).
   */
  public SkillService skills() {
    return skills;
  }

  /** Background maintenance: its targets, schedule and last runs; RunMaintenance. */
  public MaintenanceService maintenance() {
    return maintenance;
  }

  /** The runtime events of this engine, for watchers. */
  public EventBus events() {
    return runs.events();
  }

  /** The memory files (deepagentsMem path) of the same profiles. */
  public MemoryFiles files() {
    return files;
  }

  /**
   * The records of profile {@code profileId} acknowledged whose vectors are still being made (none
   * for a disabled profile); NOT_FOUND for an unknown profile.
   */
  public PendingVectors pendingVectors(String profileId) {
    MemoryStore store = profiles.get(profileId).store();
    return store == null ? PendingVectors.NONE : store.pendingVectors();
  }

  /** Providers, profiles and flags, for GetStatus. */
  public EngineStatus status() {
    List<EngineStatus.ProfileStatus> list =
        profiles.all().stream()
            .map(
                p ->
                    new EngineStatus.ProfileStatus(
                        p.id(),
                        p.spec().scopeKind().id(),
                        p.provider(),
                        p.spec().enabled(),
                        p.shownSettings(),
                        pendingVectors(p.id())))
            .toList();
    List<EngineStatus.ProviderStatus> found =
        providers.all().stream()
            .map(
                e ->
                    new EngineStatus.ProviderStatus(
                        e.name(),
                        e.aliases().stream().sorted().toList(),
                        e.service().capabilities().stream()
                            .map(c -> c.name().toLowerCase(Locale.ROOT))
                            .sorted()
                            .toList(),
                        e.source(),
                        e.service().details()))
            .toList();
    return new EngineStatus(
        found,
        list,
        access.flags(),
        embedder.name(),
        embedder.dimensions(),
        plugins.names(),
        runs.extractor(),
        runs.sessions().vectorsPending());
  }

  /**
   * Stops maintenance, ends every watch, closes every store and the control store, then the
   * plugins' loaders.
   */
  @Override
  public void close() {
    try {
      maintenance.close();
      runs.events().close();
      runs.sessions().close();
      profiles.close();
      runs.control().close();
    } finally {
      plugins.close();
    }
  }

  private static MemoryRecord find(AccessPolicy.Target target, String id) {
    return target
        .store()
        .get(target.namespace(), id)
        .orElseThrow(
            () ->
                MemoryException.notFound(
                    "no memory '"
                        + id
                        + "' in profile '"
                        + target.profileId()
                        + "' for this scope"));
  }

  /** Same namespace and request id, same record id: retries replace rather than duplicate. */
  private static String idFor(Namespace ns, String requestId) {
    return UUID.nameUUIDFromBytes((ns + "\n" + requestId).getBytes(StandardCharsets.UTF_8))
        .toString();
  }
}
