package dev.memsidecar.core;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.Embedder;
import dev.memsidecar.api.Ids;
import dev.memsidecar.api.ListQuery;
import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.MemoryKind;
import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.MemoryStatus;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.api.Page;
import dev.memsidecar.api.ScoredRecord;
import dev.memsidecar.api.SearchQuery;
import dev.memsidecar.api.Validity;
import dev.memsidecar.core.ProfileCatalog.ActiveProfile;
import dev.memsidecar.core.config.EngineConfig;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * What the sidecar's services call: Remember, Search, Get, List, Forget and status, with every
 * check in front of the stores — ids and sizes ({@link Limits}), namespaces ({@link
 * NamespaceResolver}), flags ({@link AccessPolicy}) and the {@link WriteGate}. Thread-safe.
 */
public final class MemoryEngine implements AutoCloseable {
  /** Profile used when a request names none. */
  public static final String DEFAULT_PROFILE = "workspace";
  /** How long a short-term memory is recalled. */
  public static final Duration SHORT_TERM_TTL = Duration.ofDays(7);

  private static final int SUMMARY_CHARS = 160;

  private final ProfileCatalog profiles;
  private final ProviderRegistry providers;
  private final Embedder embedder;
  private final NamespaceResolver namespaces;
  private final AccessPolicy access;
  private final WriteGate gate;
  private final Clock clock;
  private final MemoryFiles files;
  private final Object[] requestLocks = new Object[64];

  @Inject
  public MemoryEngine(
      ProfileCatalog profiles,
      ProviderRegistry providers,
      Embedder embedder,
      NamespaceResolver namespaces,
      AccessPolicy access,
      WriteGate gate,
      Clock clock,
      MemoryFiles files) {
    this.profiles = requireNonNull(profiles, "profiles is null");
    this.providers = requireNonNull(providers, "providers is null");
    this.embedder = requireNonNull(embedder, "embedder is null");
    this.namespaces = requireNonNull(namespaces, "namespaces is null");
    this.access = requireNonNull(access, "access is null");
    this.gate = requireNonNull(gate, "gate is null");
    this.clock = requireNonNull(clock, "clock is null");
    this.files = requireNonNull(files, "files is null");
    for (int i = 0; i < requestLocks.length; i++) {
      requestLocks[i] = new Object();
    }
  }

  /**
   * Stores an explicit memory. The gate floors it at 8.0; a {@code requestId} already seen in this
   * scope and profile returns the first call's memory instead of storing again.
   */
  public WriteDecision remember(RememberInput in) {
    ActiveProfile profile = profiles.get(orDefault(in.profile()));
    Namespace ns = namespaces.resolve(in.scope(), profile.spec());
    String content = in.content();
    if (content.isBlank()) {
      throw MemoryException.invalidArgument("content", "content is required");
    }
    checkBytes("content", in.content(), Limits.MAX_CONTENT_BYTES);
    checkBytes("context", in.context(), Limits.MAX_CONTEXT_BYTES);
    List<String> tags = checkTags(in.tags());
    checkMetadata(in.metadata());
    String id = in.requestId().isEmpty() ? UUID.randomUUID().toString() : idFor(ns, in.requestId());
    access.checkWrite(profile.spec(), in.metadata());
    WriteGate.Verdict verdict = gate.evaluate(in.scores(), true);

    Instant now = clock.instant();
    Validity validity = in.validity() == null ? Validity.LONG_TERM : in.validity();
    MemoryRecord candidate =
        MemoryRecord.builder()
            .id(id)
            .namespace(ns)
            .profile(profile.id())
            .kind(in.kind() == null ? MemoryKind.SEMANTIC : in.kind())
            .content(content)
            .summary(summarize(content))
            .context(in.context())
            .confidence(1.0f)
            .tags(tags)
            .metadata(in.metadata())
            .times(now)
            .gateScore(verdict.score())
            .sourceRefs(List.of(in.requestId().isEmpty() ? "remember" : "remember:" + in.requestId()))
            .validity(validity)
            .expireTime(validity == Validity.SHORT_TERM ? now.plus(SHORT_TERM_TTL) : null)
            .build();
    if (!verdict.admitted()) {
      return decision(WriteDecision.Outcome.REJECTED, profile, candidate, verdict);
    }
    if (in.requestId().isEmpty()) {
      profile.store().put(candidate);
      return decision(WriteDecision.Outcome.STORED, profile, candidate, verdict);
    }
    synchronized (requestLocks[Math.floorMod(id.hashCode(), requestLocks.length)]) {
      Optional<MemoryRecord> earlier = profile.store().get(ns, id);
      if (earlier.isPresent()) {
        MemoryRecord first = earlier.get();
        return new WriteDecision(
            WriteDecision.Outcome.STORED,
            new StoredMemory(first, profile.provider()),
            first.gateScore(),
            verdict.scores(),
            "already stored by request_id '" + in.requestId() + "'");
      }
      profile.store().put(candidate);
      return decision(WriteDecision.Outcome.STORED, profile, candidate, verdict);
    }
  }

  /**
   * Recalls the memories that best match the query across the requested (or every readable)
   * profile, best first. Profiles whose flag or enabled bit forbids recall contribute nothing.
   */
  public List<MemoryHit> search(SearchInput in) {
    Ids.require("scope.workspace_id", in.scope().workspaceId());
    if (in.query().isBlank()) {
      throw MemoryException.invalidArgument("query", "query is required");
    }
    checkBytes("query", in.query(), Limits.MAX_QUERY_BYTES);
    int topK = topK(in.topK());
    if (!(in.minScore() >= 0 && in.minScore() <= 1)) {
      throw MemoryException.invalidArgument("min_score", "min_score must be 0..1: " + in.minScore());
    }
    // Without named profiles, profiles whose scope id the caller did not send are skipped; a
    // named profile, or an id that was sent, must resolve (a malformed id fails closed).
    List<ActiveProfile> targets =
        in.profiles().isEmpty()
            ? profiles.all().stream().filter(p -> namespaces.hasIdFor(in.scope(), p.spec())).toList()
            : in.profiles().stream().distinct().map(profiles::get).toList();
    Map<ActiveProfile, Namespace> readable = new LinkedHashMap<>();
    for (ActiveProfile p : targets) {
      Namespace ns = namespaces.resolve(in.scope(), p.spec());
      if (access.mayRecall(p.spec())) {
        readable.put(p, ns);
      }
    }
    if (readable.isEmpty()) {
      return List.of();
    }
    SearchQuery query =
        new SearchQuery(
            in.query(),
            embedder.embed(in.query()),
            topK,
            in.kinds(),
            in.tags(),
            in.minScore(),
            clock.instant());
    List<MemoryHit> hits = new ArrayList<>();
    readable.forEach(
        (p, ns) -> {
          for (ScoredRecord hit : p.store().search(ns, query)) {
            hits.add(new MemoryHit(new StoredMemory(hit.record(), p.provider()), hit.score()));
          }
        });
    hits.sort(
        Comparator.comparingDouble((MemoryHit h) -> -h.score())
            .thenComparing(h -> h.memory().record().updateTime(), Comparator.reverseOrder())
            .thenComparing(h -> h.memory().record().id()));
    return List.copyOf(hits.subList(0, Math.min(topK, hits.size())));
  }

  /** The record {@code id} of {@code profile} in the caller's scope, whatever its status. */
  public StoredMemory get(Scope scope, String profileId, String id) {
    ActiveProfile profile = profiles.get(orDefault(profileId));
    Namespace ns = namespaces.resolve(scope, profile.spec());
    Ids.require("id", id);
    access.checkRead(profile.spec());
    return new StoredMemory(find(profile, ns, id), profile.provider());
  }

  /** One page of a profile's memories in the caller's scope, newest first. */
  public MemoryPage list(ListInput in) {
    ActiveProfile profile = profiles.get(orDefault(in.profile()));
    Namespace ns = namespaces.resolve(in.scope(), profile.spec());
    if (in.pageSize() < 0) {
      throw MemoryException.invalidArgument(
          "page_size", "page_size must not be negative: " + in.pageSize());
    }
    int size = in.pageSize() == 0 ? Limits.DEFAULT_PAGE_SIZE : Math.min(in.pageSize(), Limits.MAX_PAGE_SIZE);
    String requestKey = profile.id() + "\n" + ns + "\n" + in.includeInactive();
    String cursor = PageTokens.decode(requestKey, in.pageToken());
    access.checkRead(profile.spec());
    Page page = profile.store().list(ns, new ListQuery(size, cursor, in.includeInactive()));
    List<StoredMemory> memories =
        page.records().stream().map(r -> new StoredMemory(r, profile.provider())).toList();
    return new MemoryPage(memories, PageTokens.encode(requestKey, page.nextCursor()));
  }

  /**
   * Marks a memory forgotten: search stops finding it, listing hides it unless inactive records are
   * asked for. Returns true once it is forgotten (also when it already was).
   */
  public boolean forget(Scope scope, String profileId, String id) {
    ActiveProfile profile = profiles.get(orDefault(profileId));
    Namespace ns = namespaces.resolve(scope, profile.spec());
    Ids.require("id", id);
    access.checkWrite(profile.spec(), Map.of());
    MemoryRecord record = find(profile, ns, id);
    if (record.status() != MemoryStatus.FORGOTTEN) {
      profile
          .store()
          .put(record.toBuilder().status(MemoryStatus.FORGOTTEN).updateTime(clock.instant()).build());
    }
    return true;
  }

  /** The memory files (deepagentsMem path) of the same profiles. */
  public MemoryFiles files() {
    return files;
  }

  /** Providers, profiles and flags, for GetStatus. */
  public EngineStatus status() {
    List<EngineStatus.ProfileStatus> list =
        profiles.all().stream()
            .map(
                p ->
                    new EngineStatus.ProfileStatus(
                        p.id(), p.spec().scopeKind().id(), p.provider(), p.spec().enabled()))
            .toList();
    List<EngineStatus.ProviderStatus> found =
        providers.all().stream()
            .map(
                p ->
                    new EngineStatus.ProviderStatus(
                        p.name(),
                        p.aliases().stream().sorted().toList(),
                        p.capabilities().stream()
                            .map(c -> c.name().toLowerCase(Locale.ROOT))
                            .sorted()
                            .toList(),
                        providers.sourceOf(p.name()),
                        p.details()))
            .toList();
    return new EngineStatus(found, list, access.flags(), embedder.name(), providers.plugins());
  }

  @Override
  public void close() {
    profiles.close();
  }

  /** Builds an engine from configuration, without Guice (tests, tools). */
  public static MemoryEngine create(EngineConfig config, ClassLoader providerLoader) {
    return new CoreModule(config, providerLoader).engine();
  }

  private MemoryRecord find(ActiveProfile profile, Namespace ns, String id) {
    return profile
        .store()
        .get(ns, id)
        .orElseThrow(
            () ->
                MemoryException.notFound(
                    "no memory '" + id + "' in profile '" + profile.id() + "' for this scope"));
  }

  private static WriteDecision decision(
      WriteDecision.Outcome outcome,
      ActiveProfile profile,
      MemoryRecord record,
      WriteGate.Verdict verdict) {
    return new WriteDecision(
        outcome,
        new StoredMemory(record, profile.provider()),
        verdict.score(),
        verdict.scores(),
        verdict.reason());
  }

  /** Same namespace and request id, same record id: retries replace rather than duplicate. */
  private static String idFor(Namespace ns, String requestId) {
    Ids.require("request_id", requestId);
    return UUID.nameUUIDFromBytes((ns + "\n" + requestId).getBytes(StandardCharsets.UTF_8))
        .toString();
  }

  private static String orDefault(String profile) {
    return profile.isEmpty() ? DEFAULT_PROFILE : profile;
  }

  private static int topK(int topK) {
    if (topK < 0 || topK > Limits.MAX_TOP_K) {
      throw MemoryException.invalidArgument(
          "top_k", "top_k must be 0.." + Limits.MAX_TOP_K + ": " + topK);
    }
    return topK == 0 ? Limits.DEFAULT_TOP_K : topK;
  }

  private static void checkBytes(String field, String value, int max) {
    int bytes = value.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > max) {
      throw MemoryException.resourceExhausted(
          field, field + " is " + bytes + " bytes; the limit is " + max + " bytes (UTF-8)");
    }
  }

  private static List<String> checkTags(List<String> tags) {
    if (tags.size() > Limits.MAX_TAGS) {
      throw MemoryException.invalidArgument(
          "tags", "at most " + Limits.MAX_TAGS + " tags; got " + tags.size());
    }
    LinkedHashSet<String> out = new LinkedHashSet<>();
    for (String tag : tags) {
      String t = tag.strip();
      if (t.isEmpty() || t.length() > Limits.MAX_TAG_CHARS) {
        throw MemoryException.invalidArgument(
            "tags", "each tag must be 1.." + Limits.MAX_TAG_CHARS + " characters: '" + tag + "'");
      }
      out.add(t);
    }
    return List.copyOf(out);
  }

  private static void checkMetadata(Map<String, String> metadata) {
    if (metadata.size() > Limits.MAX_METADATA_ENTRIES) {
      throw MemoryException.invalidArgument(
          "metadata",
          "at most " + Limits.MAX_METADATA_ENTRIES + " metadata entries; got " + metadata.size());
    }
    metadata.forEach(
        (k, v) -> {
          if (k.isEmpty() || k.length() > Limits.MAX_METADATA_KEY_CHARS) {
            throw MemoryException.invalidArgument(
                "metadata", "metadata keys must be 1.." + Limits.MAX_METADATA_KEY_CHARS + " characters");
          }
          if (v.length() > Limits.MAX_METADATA_VALUE_CHARS) {
            throw MemoryException.invalidArgument(
                "metadata",
                "metadata['" + k + "'] exceeds " + Limits.MAX_METADATA_VALUE_CHARS + " characters");
          }
        });
  }

  private static String summarize(String content) {
    String line = content.lines().findFirst().orElse("").strip();
    return line.length() <= SUMMARY_CHARS ? line : line.substring(0, SUMMARY_CHARS - 3) + "...";
  }
}
