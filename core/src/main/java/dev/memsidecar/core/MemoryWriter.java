package dev.memsidecar.core;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.Embedder;
import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.MemoryStore;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.api.ScoredRecord;
import dev.memsidecar.api.SearchQuery;
import dev.memsidecar.api.Validity;
import dev.memsidecar.core.WriteCandidate.Destination;
import dev.memsidecar.core.WriteCandidate.Origin;
import dev.memsidecar.core.events.EventBus;
import dev.memsidecar.core.events.RuntimeEvent;
import dev.memsidecar.core.run.Dedupe;
import dev.memsidecar.core.run.RunStore;
import dev.memsidecar.language.TextRules;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The one write path of memory records: Remember and EndRun hand it each candidate ({@link
 * WriteCandidate}) and it decides, in this order:
 *
 * <ol>
 *   <li>the first reason to reject it, if any: writes refused for the whole call ({@link
 *       Destination.WritesRefused}), then the low-value filter ({@link TextRules#lowValueReason};
 *       not for a {@link WriteCandidate#verbatim() verbatim} candidate), then no profile to keep it
 *       ({@link Destination.NoProfile}), then the write gate's verdict; a rejected candidate is
 *       written nowhere;
 *   <li>under the lock of its namespace: a record that already has the candidate's id is an earlier
 *       attempt of the same call (see {@link Origin}); otherwise the {@value #NEIGHBOURS} records
 *       of the namespace that best match the candidate ({@link #NEIGHBOURS}, any kind) are compared
 *       with it ({@link Dedupe#match}): a duplicate merges into the existing record (outcome
 *       MERGED, the existing record's id; {@link Dedupe#merge} with the origin's source ref), a new
 *       value is stored and supersedes the old record ({@link Dedupe#supersede}, event {@code
 *       memory.superseded}), anything else is stored as a new record.
 * </ol>
 *
 * The neighbours of a candidate (a Remember's text or a run's fact) are searched by its words alone
 * (its content as text, a zero query vector): {@link Dedupe} decides by words anyway, a fact
 * restated shares them, and a write waits for the model only in a store that embeds when it puts
 * (langmem-sqlite, the default, makes vectors behind the write, so a Remember is acknowledged at
 * the store's pace, not the model's).
 *
 * <p>Remember writes with {@link #writeAndAudit}: the decision is audited and emitted at once.
 * EndRun writes with {@link #write} and audits the run's decisions in one transaction with its
 * result, then emits them with {@link #publish}.
 *
 * <p>Thread-safe: candidates of one namespace are decided one at a time (64 lock stripes by
 * namespace), each seeing every earlier decision, so two concurrent writes of one fact leave one
 * record. A run's facts are also written under that lock; a Remember's records are written after
 * it, so that concurrent Remembers share a commit (see {@link #decideThenWrite}). With several
 * sidecars on one database, a run's facts are also decided one at a time across all of them ({@link
 * RunStore#underSharedLock}, after {@link MemoryStore#refresh}), and so are maintenance's changes;
 * a Remember is not, so that Remembers from many sidecars into one namespace are not limited to one
 * database commit at a time.
 */
public final class MemoryWriter {
  /** How many records of its namespace a candidate is compared with. */
  public static final int NEIGHBOURS = 8;

  /** The longest summary: the first line of the content, cut with "...". */
  public static final int SUMMARY_CHARS = 160;

  private final RunStore audit;
  private final EventBus events;
  private final Embedder embedder;
  private final Clock clock;
  private final TextRules text;
  private final Duration shortTermTtl;
  private final ReentrantLock[] namespaceLocks = new ReentrantLock[64];
  // Guarded by the namespace's lock (see decideThenWrite).
  private final Map<Namespace, Map<String, Unwritten>> unwritten = new ConcurrentHashMap<>();

  /**
   * @param audit where the decisions of {@link #writeAndAudit} are kept
   * @param events where decisions and supersessions are emitted
   * @param embedder the engine's embedder (the neighbour search's zero vector has its dimensions)
   * @param text the low-value rules of every language the build reads
   * @param shortTermTtl how long a short-term memory is recalled
   */
  public MemoryWriter(
      RunStore audit,
      EventBus events,
      Embedder embedder,
      Clock clock,
      TextRules text,
      Duration shortTermTtl) {
    this.audit = requireNonNull(audit, "audit is null");
    this.events = requireNonNull(events, "events is null");
    this.embedder = requireNonNull(embedder, "embedder is null");
    this.clock = requireNonNull(clock, "clock is null");
    this.text = requireNonNull(text, "text is null");
    this.shortTermTtl = requireNonNull(shortTermTtl, "shortTermTtl is null");
    for (int i = 0; i < namespaceLocks.length; i++) {
      namespaceLocks[i] = new ReentrantLock();
    }
  }

  /**
   * The record a candidate becomes, with what every write path sets the same way: its summary (the
   * first line of the content, at most {@value #SUMMARY_CHARS} characters), create and update time
   * {@code now}, the gate score, the origin's source ref, the validity and, for a short-term
   * memory, its expire time. The caller sets kind, context, confidence, tags and metadata.
   */
  public MemoryRecord.Builder draft(
      String id,
      Namespace namespace,
      String profileId,
      Origin origin,
      String content,
      Validity validity,
      WriteGate.Verdict verdict,
      Instant now) {
    return MemoryRecord.builder()
        .id(id)
        .namespace(namespace)
        .profile(profileId)
        .content(content)
        .summary(summarize(content))
        .times(now)
        .gateScore(verdict.score())
        .sourceRefs(List.of(origin.sourceRef()))
        .validity(validity)
        .expireTime(validity == Validity.SHORT_TERM ? now.plus(shortTermTtl) : null);
  }

  /**
   * Decides and writes one candidate of a run (see the class description); the caller audits and
   * emits the decision with the run's.
   */
  public WriteDecision write(WriteCandidate c) {
    return decide(c).decision();
  }

  /**
   * Decides and writes one candidate (see the class description), then keeps the decision in the
   * audit and emits it. A retry of a Remember's request id returns the first call's outcome and
   * memory and is neither audited nor emitted again.
   */
  public WriteDecision writeAndAudit(WriteCandidate c) {
    Written w = decide(c);
    if (!w.retry()) {
      audit.recordDecisions(c.scope(), c.origin().runId(), List.of(w.decision()), clock.instant());
      publish(c.scope(), c.origin().runId(), w.decision());
    }
    return w.decision();
  }

  /**
   * Emits a decision as {@code memory.stored}, {@code memory.merged} or {@code memory.rejected}.
   */
  public void publish(Scope scope, String runId, WriteDecision d) {
    MemoryRecord r = d.memory().record();
    String type =
        switch (d.outcome()) {
          case STORED -> "memory.stored";
          case MERGED -> "memory.merged";
          case REJECTED -> "memory.rejected";
        };
    publish(
        type,
        runId,
        d.outcome() == WriteDecision.Outcome.REJECTED ? "" : r.namespace().value(),
        scope,
        Map.of(
            "memory_id", r.id(),
            "profile", r.profile(),
            "kind", r.kind().name().toLowerCase(Locale.ROOT),
            "gate_score", String.format(Locale.ROOT, "%.1f", d.gateScore()),
            "reason", Limits.cutUtf8(d.reason(), 1024),
            "rejected_by", d.rejectedBy().name().toLowerCase(Locale.ROOT)));
  }

  /** A decision, and whether it repeats one a Remember with the same request id made before. */
  private record Written(WriteDecision decision, boolean retry) {}

  /**
   * What a decision writes: the records to put, in order, and what to emit once they are. Made
   * under the namespace's lock; {@code earlier} are the unwritten puts of other Remembers that it
   * builds on, whose puts must return before this one's do.
   */
  private record Plan(
      Written written, List<MemoryRecord> puts, Runnable announce, List<Unwritten> earlier) {
    Plan(Written written, List<MemoryRecord> puts) {
      this(written, puts, () -> {}, List.of());
    }

    Plan after(List<Unwritten> earlier) {
      return new Plan(written, puts, announce, earlier);
    }
  }

  /**
   * A record a Remember decided to put, from its decision until its put returned (or failed). Kept
   * by namespace and id in {@link #unwritten}, which is read and changed only under the namespace's
   * lock; {@code done} completes without it.
   */
  private record Unwritten(MemoryRecord record, CompletableFuture<Void> done) {}

  private Written decide(WriteCandidate c) {
    Refusal refusal = refusal(c);
    if (refusal != null) {
      return new Written(
          new WriteDecision(
              WriteDecision.Outcome.REJECTED,
              new StoredMemory(c.record(), c.destination().provider()),
              c.verdict().score(),
              c.verdict().scores(),
              refusal.reason(),
              refusal.by()),
          false);
    }
    AccessPolicy.Target target = ((Destination.Profile) c.destination()).target();
    boolean randomId = c.origin() instanceof Origin.Remember r && r.requestId().isEmpty();
    if (c.verbatim()) {
      return decideThenWrite(c, target, randomId);
    }
    // A run's facts: one at a time across every sidecar, each seeing all the others' facts, so
    // that two sidecars extracting one fact at once leave one record and a correction supersedes
    // once.
    return underNamespaceLock(
        target.namespace(),
        () -> {
          target.store().refresh(target.namespace());
          return carryOut(target, plan(c, target, randomId));
        });
  }

  /**
   * A Remember: decided under this process's lock of the namespace, written after it. Concurrent
   * Remembers of one namespace thus put their records together (a store such as langmem-sqlite
   * commits them in one transaction) instead of one commit at a time, while each decision still
   * sees every earlier one: the records decided but not yet written take part in the next decisions
   * as if they were, and a put of a record waits for the earlier unwritten puts of that record. Two
   * sidecars on one database that are told the same text at the same moment may both store it
   * (maintenance merges them later); serializing every Remember of a namespace across sidecars
   * would cap their throughput at one database commit at a time.
   */
  private Written decideThenWrite(WriteCandidate c, AccessPolicy.Target target, boolean randomId) {
    Namespace ns = target.namespace();
    Plan plan;
    List<Unwritten> mine;
    ReentrantLock lock = lock(ns);
    lock.lock();
    try {
      plan = plan(c, target, randomId);
      Map<String, Unwritten> pending = unwritten.computeIfAbsent(ns, n -> new LinkedHashMap<>());
      List<Unwritten> earlier = new ArrayList<>();
      Set<String> ids = new LinkedHashSet<>();
      plan.puts().forEach(r -> ids.add(r.id()));
      ids.add(plan.written().decision().memory().record().id());
      for (String id : ids) {
        Unwritten u = pending.get(id);
        if (u != null) {
          earlier.add(u);
        }
      }
      plan = plan.after(earlier);
      mine = new ArrayList<>(plan.puts().size());
      for (MemoryRecord r : plan.puts()) {
        Unwritten u = new Unwritten(r, new CompletableFuture<>());
        pending.put(r.id(), u);
        mine.add(u);
      }
      if (pending.isEmpty()) {
        unwritten.remove(ns);
      }
    } finally {
      lock.unlock();
    }
    try {
      return carryOut(target, plan);
    } finally {
      if (!mine.isEmpty()) {
        mine.forEach(u -> u.done().complete(null));
        lock.lock();
        try {
          // A later put of the same record may have replaced and removed an entry of mine.
          Map<String, Unwritten> pending = unwritten.get(ns);
          if (pending != null) {
            mine.forEach(u -> pending.remove(u.record().id(), u));
            if (pending.isEmpty()) {
              unwritten.remove(ns);
            }
          }
        } finally {
          lock.unlock();
        }
      }
    }
  }

  /** Waits for the earlier puts a plan builds on, puts its records, then emits its events. */
  private static Written carryOut(AccessPolicy.Target target, Plan plan) {
    plan.earlier().forEach(u -> u.done().join());
    for (MemoryRecord r : plan.puts()) {
      target.store().put(r);
    }
    plan.announce().run();
    return plan.written();
  }

  /** Under the namespace's lock: an earlier attempt, a merge, a supersede or a new record. */
  private Plan plan(WriteCandidate c, AccessPolicy.Target target, boolean randomId) {
    Optional<MemoryRecord> mine =
        randomId ? Optional.empty() : unwrittenOrStored(target, c.record().id());
    if (mine.isPresent()) {
      return new Plan(earlierAttempt(c, target, mine.get()), List.of());
    }
    List<MemoryRecord> neighbours = neighbours(c, target);
    if (c.origin() instanceof Origin.Remember r && !r.requestId().isEmpty()) {
      for (MemoryRecord n : neighbours) {
        if (n.sourceRefs().contains(r.sourceRef())) {
          // The first call of this request merged into n.
          return new Plan(
              new Written(
                  new WriteDecision(
                      WriteDecision.Outcome.MERGED,
                      new StoredMemory(n, target.provider()),
                      c.verdict().score(),
                      c.verdict().scores(),
                      "already merged into " + n.id() + " by request_id '" + r.requestId() + "'"),
                  true),
              List.of());
        }
      }
    }
    return store(c, target, Dedupe.match(c.record().content(), c.record().kind(), neighbours));
  }

  /**
   * The record of this id as the next write sees it: decided and its put not returned yet, or as
   * stored (once a put returned, the store holds the truth, also when the put failed).
   */
  private Optional<MemoryRecord> unwrittenOrStored(AccessPolicy.Target target, String id) {
    Map<String, Unwritten> pending = unwritten.get(target.namespace());
    Unwritten u = pending == null ? null : pending.get(id);
    return u != null && !u.done().isDone()
        ? Optional.of(u.record())
        : target.store().get(target.namespace(), id);
  }

  /** Why the pipeline rejects {@code c} before the store, or {@code null} when it does not. */
  private Refusal refusal(WriteCandidate c) {
    if (c.destination() instanceof Destination.WritesRefused refused) {
      return new Refusal(WriteDecision.Rejection.DISABLED, refused.reason());
    }
    if (!c.verbatim()) {
      Optional<String> lowValue = text.lowValueReason(c.record().content());
      if (lowValue.isPresent()) {
        return new Refusal(WriteDecision.Rejection.LOW_VALUE, lowValue.get());
      }
    }
    if (c.destination() instanceof Destination.NoProfile nowhere) {
      return new Refusal(WriteDecision.Rejection.NO_PROFILE, nowhere.reason());
    }
    return c.verdict().admitted()
        ? null
        : new Refusal(WriteDecision.Rejection.GATE, c.verdict().reason());
  }

  private record Refusal(WriteDecision.Rejection by, String reason) {}

  /**
   * The record with the candidate's id exists: a Remember's retry returns it as the first call did,
   * a run's earlier attempt stored it without recording its result.
   */
  private static Written earlierAttempt(
      WriteCandidate c, AccessPolicy.Target target, MemoryRecord first) {
    if (c.origin() instanceof Origin.Remember r) {
      return new Written(
          new WriteDecision(
              WriteDecision.Outcome.STORED,
              new StoredMemory(first, target.provider()),
              first.gateScore(),
              c.verdict().scores(),
              "already stored by request_id '" + r.requestId() + "'"),
          true);
    }
    return made(WriteDecision.Outcome.STORED, target.provider(), first, c, c.verdict().reason());
  }

  /**
   * The records of the candidate's namespace that share the most words with it, as stored, with the
   * unwritten records of other Remembers in place of their stored versions and after them.
   */
  private List<MemoryRecord> neighbours(WriteCandidate c, AccessPolicy.Target target) {
    // Read before the store: a put that returns meanwhile is seen in one or the other.
    List<MemoryRecord> notYetWritten = notYetWritten(target.namespace());
    float[] wordsOnly = new float[embedder.dimensions()];
    MemoryRecord candidate = c.record();
    List<MemoryRecord> stored =
        target
            .store()
            .search(
                target.namespace(),
                new SearchQuery(
                    candidate.content(), wordsOnly, NEIGHBOURS, Set.of(), List.of(), 0f, c.time()))
            .stream()
            .map(ScoredRecord::record)
            .toList();
    if (notYetWritten.isEmpty()) {
      return stored;
    }
    Map<String, MemoryRecord> byId = new LinkedHashMap<>();
    stored.forEach(r -> byId.put(r.id(), r));
    notYetWritten.forEach(r -> byId.put(r.id(), r));
    return List.copyOf(byId.values());
  }

  /** The records of a namespace whose puts have been decided and have not returned yet. */
  private List<MemoryRecord> notYetWritten(Namespace namespace) {
    Map<String, Unwritten> pending = unwritten.get(namespace);
    return pending == null
        ? List.of()
        : pending.values().stream().filter(u -> !u.done().isDone()).map(Unwritten::record).toList();
  }

  /** Merges, supersedes or stores, as the match says. */
  private Plan store(WriteCandidate c, AccessPolicy.Target target, Optional<Dedupe.Match> match) {
    MemoryRecord candidate = c.record();
    String provider = target.provider();
    if (match.isPresent() && match.get().relation() == Dedupe.Relation.DUPLICATE) {
      MemoryRecord existing = match.get().existing();
      MemoryRecord merged = Dedupe.merge(existing, candidate, c.origin().sourceRef(), c.time());
      return new Plan(
          made(
              WriteDecision.Outcome.MERGED,
              provider,
              merged,
              c,
              "merged into " + merged.id() + ": " + match.get().reason()),
          merged == existing ? List.of() : List.of(merged));
    }
    if (match.isPresent()) {
      MemoryRecord old = match.get().existing();
      MemoryRecord successor = Dedupe.markSuccessor(candidate, old.id());
      return new Plan(
          made(
              WriteDecision.Outcome.STORED,
              provider,
              successor,
              c,
              c.verdict().reason() + "; supersedes " + old.id() + ": " + match.get().reason()),
          List.of(successor, Dedupe.supersede(old, successor.id(), c.time())),
          () ->
              publish(
                  "memory.superseded",
                  c.origin().runId(),
                  target.namespace().value(),
                  c.scope(),
                  Map.of(
                      "memory_id", old.id(),
                      "successor_id", successor.id(),
                      "reason", match.get().reason())),
          List.of());
    }
    return new Plan(
        made(WriteDecision.Outcome.STORED, provider, candidate, c, c.verdict().reason()),
        List.of(candidate));
  }

  private static Written made(
      WriteDecision.Outcome outcome,
      String provider,
      MemoryRecord record,
      WriteCandidate c,
      String reason) {
    return new Written(
        new WriteDecision(
            outcome,
            new StoredMemory(record, provider),
            c.verdict().score(),
            c.verdict().scores(),
            reason),
        false);
  }

  /**
   * Runs {@code work} holding the lock under which writes to {@code namespace} are decided and
   * written, so that it sees no write half done and none starts before it ends: this process's
   * lock, and the one every sidecar on a shared database takes ({@link RunStore#underSharedLock}).
   * Background maintenance changes records this way, as EndRun writes a run's facts; {@code work}
   * should be short (a few store calls), as every write to the namespace waits for it. It starts
   * once the Remembers decided before it have written their records.
   */
  public <T> T underNamespaceLock(Namespace namespace, java.util.function.Supplier<T> work) {
    requireNonNull(namespace, "namespace is null");
    requireNonNull(work, "work is null");
    ReentrantLock lock = lock(namespace);
    lock.lock();
    try {
      Map<String, Unwritten> pending = unwritten.get(namespace);
      if (pending != null) {
        // Their puts need no lock to finish; only their bookkeeping afterwards waits for this.
        List.copyOf(pending.values()).forEach(u -> u.done().join());
      }
      return audit.underSharedLock("memory writes " + namespace.value(), work);
    } finally {
      lock.unlock();
    }
  }

  /**
   * The lock of a namespace's writes. Not a monitor: threads waiting for it park rather than spin
   * (a monitor's spinning took 6% of a 2-core machine under 4 Remembering clients).
   */
  private ReentrantLock lock(Namespace namespace) {
    return namespaceLocks[Math.floorMod(namespace.hashCode(), namespaceLocks.length)];
  }

  private void publish(
      String type, String runId, String namespace, Scope scope, Map<String, String> attributes) {
    events.publish(new RuntimeEvent(type, clock.instant(), runId, namespace, scope, attributes));
  }

  private static String summarize(String content) {
    String line = content.lines().findFirst().orElse("").strip();
    return line.length() <= SUMMARY_CHARS ? line : line.substring(0, SUMMARY_CHARS - 3) + "...";
  }
}
