package dev.memsidecar.core.run;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.ExtractionRequest;
import dev.memsidecar.api.GateScores;
import dev.memsidecar.api.MemoryCandidate;
import dev.memsidecar.api.MemoryKind;
import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.core.Access;
import dev.memsidecar.core.AccessPolicy;
import dev.memsidecar.core.Limits;
import dev.memsidecar.core.MemoryWriter;
import dev.memsidecar.core.NamespaceResolver;
import dev.memsidecar.core.ProfileCatalog;
import dev.memsidecar.core.ProfileCatalog.ActiveProfile;
import dev.memsidecar.core.RequestOptions;
import dev.memsidecar.core.Scope;
import dev.memsidecar.core.WriteCandidate;
import dev.memsidecar.core.WriteDecision;
import dev.memsidecar.core.WriteGate;
import dev.memsidecar.core.config.ScopeKind;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;

/**
 * EndRun's write path, after extraction: each candidate is routed to a record profile the scope
 * reaches ({@link #routes}: the profile it names, else one of its owner's scope kind that keeps its
 * kind, ...), scored by the {@link WriteGate} on its clamped scores, made into a record whose id
 * derives from the run (a retry replaces it), and handed to the {@link MemoryWriter} that Remember
 * shares (low-value filter, gate verdict, dedupe or supersede, store). Thread-safe.
 */
final class RunWrites {
  private final ProfileCatalog profiles;
  private final AccessPolicy access;
  private final NamespaceResolver namespaces;
  private final WriteGate gate;
  private final MemoryWriter writer;

  RunWrites(
      ProfileCatalog profiles,
      AccessPolicy access,
      NamespaceResolver namespaces,
      WriteGate gate,
      MemoryWriter writer) {
    this.profiles = requireNonNull(profiles, "profiles is null");
    this.access = requireNonNull(access, "access is null");
    this.namespaces = requireNonNull(namespaces, "namespaces is null");
    this.gate = requireNonNull(gate, "gate is null");
    this.writer = requireNonNull(writer, "writer is null");
  }

  /**
   * One candidate's fate, decided by the {@link MemoryWriter}.
   *
   * @param notWritten why nothing may be written, or null when writes are allowed
   */
  WriteDecision decide(
      Scope scope,
      String runId,
      int index,
      MemoryCandidate c,
      List<Route> routes,
      String notWritten,
      RequestOptions options,
      Instant now) {
    Route route = route(c, routes);
    WriteGate.Verdict verdict = gate.evaluate(clamped(c.scores()), c.explicit());
    WriteCandidate.Destination destination =
        notWritten != null
            ? new WriteCandidate.Destination.WritesRefused(
                route == null ? "" : route.profile().provider(), notWritten)
            : route == null
                ? new WriteCandidate.Destination.NoProfile(
                    "no profile keeps "
                        + c.kind().name().toLowerCase(Locale.ROOT)
                        + " memories of the "
                        + c.owner().name().toLowerCase(Locale.ROOT)
                        + " for this scope")
                : new WriteCandidate.Destination.Profile(
                    access.resolve(scope, route.profile().id(), Access.WRITE, options));
    WriteCandidate.Origin origin = new WriteCandidate.Origin.Run(runId);
    MemoryRecord candidate =
        record(
            route == null
                ? Namespace.of(scope.workspaceId() + ":unrouted")
                : namespaces.resolve(scope, route.profile().spec()),
            route == null ? "" : route.profile().id(),
            origin,
            index,
            c,
            verdict,
            now);
    return writer.write(
        new WriteCandidate(scope, origin, candidate, verdict, false, destination, now));
  }

  /** The record a candidate becomes; its id is derived from the run, so a retry replaces it. */
  private MemoryRecord record(
      Namespace namespace,
      String profileId,
      WriteCandidate.Origin origin,
      int index,
      MemoryCandidate c,
      WriteGate.Verdict verdict,
      Instant now) {
    String content = Limits.cutUtf8(c.content().strip(), Limits.MAX_CONTENT_BYTES);
    String id =
        UUID.nameUUIDFromBytes(
                (namespace + "\n" + origin.sourceRef() + "\n" + index + "\n" + content)
                    .getBytes(StandardCharsets.UTF_8))
            .toString();
    Map<String, String> metadata = new LinkedHashMap<>();
    metadata.put("run_id", origin.runId());
    if (!c.reason().isEmpty()) {
      metadata.put("extracted_by", Limits.cutUtf8(c.reason(), Limits.MAX_METADATA_VALUE_CHARS));
    }
    return writer
        .draft(id, namespace, profileId, origin, content, c.validity(), verdict, now)
        .kind(c.kind())
        .context(Limits.cutUtf8(c.evidence(), Limits.MAX_CONTEXT_BYTES))
        .confidence(c.explicit() ? 1.0f : 0.8f)
        .tags(tags(c.tags()))
        .metadata(metadata)
        .build();
  }

  /** A profile EndRun may write to for a scope, and what it keeps. */
  record Route(ActiveProfile profile, ExtractionRequest.ProfileGuide guide) {}

  /** The enabled record profiles the scope reaches, in configuration order. */
  List<Route> routes(Scope scope) {
    List<Route> out = new ArrayList<>();
    for (ActiveProfile p : profiles.all()) {
      if (!p.spec().enabled() || !p.hasRecords() || !namespaces.hasIdFor(scope, p.spec())) {
        continue;
      }
      Map<MemoryKind, String> prompts = new EnumMap<>(MemoryKind.class);
      p.spec()
          .prompts()
          .forEach(
              (kind, prompt) -> {
                for (MemoryKind k : MemoryKind.values()) {
                  if (k.name().equalsIgnoreCase(kind)) {
                    prompts.put(k, prompt);
                  }
                }
              });
      out.add(
          new Route(
              p,
              new ExtractionRequest.ProfileGuide(
                  p.id(), owner(p.spec().scopeKind()), p.spec().description(), prompts)));
    }
    return out;
  }

  /**
   * Where a candidate lands: the profile it names, else the first profile of its owner's scope kind
   * that keeps its kind, else the first workspace profile that does, else the first that does; null
   * when none does.
   */
  private static Route route(MemoryCandidate c, List<Route> routes) {
    if (!c.profile().isEmpty()) {
      for (Route r : routes) {
        if (r.profile().id().equals(c.profile()) && r.guide().keeps(c.kind())) {
          return r;
        }
      }
    }
    for (MemoryCandidate.Owner owner : List.of(c.owner(), MemoryCandidate.Owner.WORKSPACE)) {
      for (Route r : routes) {
        if (r.guide().owner() == owner && r.guide().keeps(c.kind())) {
          return r;
        }
      }
    }
    for (Route r : routes) {
      if (r.guide().keeps(c.kind())) {
        return r;
      }
    }
    return null;
  }

  private static MemoryCandidate.Owner owner(ScopeKind kind) {
    return switch (kind) {
      case WORKSPACE -> MemoryCandidate.Owner.WORKSPACE;
      case USER -> MemoryCandidate.Owner.USER;
      case AGENT -> MemoryCandidate.Owner.AGENT;
      case SESSION -> MemoryCandidate.Owner.SESSION;
    };
  }

  /** An extractor's scores held to 0..10, so a sloppy extractor cannot fail the run. */
  private static GateScores clamped(GateScores s) {
    return new GateScores(
        clamp(s.importance()),
        clamp(s.novelty()),
        clamp(s.relevance()),
        clamp(s.credibility()),
        clamp(s.granularity()),
        clamp(s.timeliness()));
  }

  private static float clamp(float x) {
    return Float.isNaN(x) ? 0f : Math.max(0f, Math.min(10f, x));
  }

  /** An extractor's tags that fit the record bounds, stripped and without duplicates. */
  private static List<String> tags(List<String> tags) {
    return tags.stream()
        .map(String::strip)
        .filter(t -> !t.isEmpty() && t.length() <= Limits.MAX_TAG_CHARS)
        .distinct()
        .limit(Limits.MAX_TAGS)
        .toList();
  }
}
