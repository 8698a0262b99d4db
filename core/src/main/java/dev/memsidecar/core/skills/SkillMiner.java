package dev.memsidecar.core.skills;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.Embedder;
import dev.memsidecar.api.ListQuery;
import dev.memsidecar.api.MemoryKind;
import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.Page;
import dev.memsidecar.core.Access;
import dev.memsidecar.core.AccessPolicy;
import dev.memsidecar.core.Limits;
import dev.memsidecar.core.MemoryHit;
import dev.memsidecar.core.Recall;
import dev.memsidecar.core.RequestOptions;
import dev.memsidecar.core.Scope;
import dev.memsidecar.core.events.EventBus;
import dev.memsidecar.core.events.RuntimeEvent;
import dev.memsidecar.core.learning.LearningService;
import dev.memsidecar.core.learning.LearningStore;
import dev.memsidecar.core.learning.RunReceipt;
import dev.memsidecar.core.learning.Task;
import dev.memsidecar.core.learning.TaskKey;
import dev.memsidecar.core.learning.TaskState;
import dev.memsidecar.core.sessions.MessageRole;
import dev.memsidecar.core.sessions.SessionKey;
import dev.memsidecar.core.sessions.SessionMessage;
import dev.memsidecar.toolkit.HashEmbedder;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;

/**
 * Finds skill candidates (both seeds' "skill learning"): the same procedure taught in several
 * sessions, however it was worded, and tasks the user accepted. It only ever proposes: a candidate
 * is a control-plane object in {@link CandidateStatus#REVIEW_REQUIRED} with one pending approval
 * and a draft SKILL.md from the {@link SkillSynthesizer}, never a memory record and never a skill
 * until a reviewer approves it and it is published ({@link SkillService}).
 *
 * <p>Two ways in:
 *
 * <ul>
 *   <li>{@link #mine}, the one entry of a mining pass (the maintenance daemon's {@code skills}
 *       target): per workspace, the active procedural memories of its workspace profiles (the
 *       newest {@value #MAX_RECORDS}, of the newest {@value #MAX_SCANNED} records of each profile)
 *       are grouped by meaning — two memories say the same procedure when the cosine of their
 *       vectors (the configured embedder's) is at least {@link #sameProcedure()} — and a group
 *       taught in at least {@value #MIN_SESSIONS} sessions (the distinct sessions of the runs in
 *       its memories' source refs; each other source, such as a Remember, counts as one) becomes a
 *       candidate; then accepted tasks that no candidate holds yet (at most {@value #MAX_TASKS}) go
 *       the task way.
 *   <li>{@link #accepted}, called by {@link LearningService} when a verdict makes a task accepted:
 *       the task (all its runs, its final accepted run, the tools they called, what the final run
 *       was asked and answered) with the procedural memories that match it — among the {@value
 *       #NEIGHBOURS} best of a recall with the task's words, those whose cosine to the task is at
 *       least {@link #linked()} or that one of its runs taught, and the memories saying the same
 *       procedure as those — becomes a candidate.
 * </ul>
 *
 * Evidence that a candidate already holds (the same memory, the same task), or evidence saying the
 * same procedure as a candidate's representative, goes to that candidate: a candidate still under
 * review gets the new evidence and a new draft (its name stays), a decided one the evidence only. A
 * candidate that was rejected keeps its evidence from ever being proposed again: what shares
 * evidence with it, or says its procedure, is added to it and proposes nothing. So mining is
 * idempotent: the same evidence mined twice changes nothing.
 *
 * <p>Cosine thresholds depend on the embedder: {@code hash} shares words, a semantic model meaning,
 * and their cosines live on different scales (measured on paraphrased procedures: 0.62 to 0.79 with
 * {@code hash}, 0.87 to 0.91 with {@code bge-small-en}; unrelated procedures at most 0.26 and
 * 0.54). Thread-safe: passes over one workspace take turns.
 */
public final class SkillMiner implements LearningService.AcceptanceListener {
  /** Distinct sessions (or other sources) a procedure must be taught in to be proposed alone. */
  public static final int MIN_SESSIONS = 3;

  /** Procedural memories of a workspace one pass groups at most (the newest). */
  public static final int MAX_RECORDS = 1000;

  /** Records of one profile a pass reads at most, newest first, looking for procedures. */
  public static final int MAX_SCANNED = 10_000;

  /** Accepted tasks without a candidate one pass of a workspace goes through at most. */
  public static final int MAX_TASKS = 100;

  /** Workspaces a pass over all of them visits at most. */
  public static final int MAX_WORKSPACES = 1000;

  /** Memories recalled for an accepted task. */
  static final int NEIGHBOURS = 16;

  /** Runs of a task its evidence names at most (the newest, and its final run). */
  static final int MAX_TASK_RUNS = 50;

  /** Evidence one candidate holds at most (its subjects are what keeps a rejected one back). */
  static final int MAX_EVIDENCE = 1000;

  /** Of a memory's content, or of what a task was asked and answered, evidence quotes this much. */
  static final int MAX_EVIDENCE_TEXT_CHARS = 500;

  /** Candidates a new group is compared with, most recently updated first. */
  static final int MAX_COMPARED = 200;

  /** Texts whose vectors are kept between passes. */
  static final int VECTOR_CACHE = 4096;

  /** Same procedure, by cosine: with the lexical {@code hash} embedder, and with a semantic one. */
  static final double SAME_LEXICAL = 0.5;

  static final double SAME_SEMANTIC = 0.8;

  /** A task matches a procedure, by cosine. */
  static final double LINKED_LEXICAL = 0.35;

  static final double LINKED_SEMANTIC = 0.72;

  private static final System.Logger LOG = System.getLogger(SkillMiner.class.getName());

  private final SkillStore store;
  private final LearningStore learning;
  private final AccessPolicy access;
  private final Recall recall;
  private final Embedder embedder;
  private final SkillSynthesizer synthesizer;
  private final EventBus events;
  private final Clock clock;
  private final Object[] locks = new Object[64];
  private final Map<String, float[]> vectors =
      new LinkedHashMap<>(256, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, float[]> eldest) {
          return size() > VECTOR_CACHE;
        }
      };

  /**
   * What one pass did.
   *
   * @param workspaces workspaces mined
   * @param records procedural memories grouped
   * @param groups groups of them taught in enough sessions
   * @param tasks accepted tasks gone through
   * @param proposed new candidates
   * @param updated candidates that gained evidence
   * @param unchanged groups and tasks that candidates held already
   * @param suppressed groups and tasks kept back by a rejected candidate
   */
  public record Counts(
      int workspaces,
      int records,
      int groups,
      int tasks,
      int proposed,
      int updated,
      int unchanged,
      int suppressed) {
    public static final Counts ZERO = new Counts(0, 0, 0, 0, 0, 0, 0, 0);

    Counts plus(Counts o) {
      return new Counts(
          workspaces + o.workspaces,
          records + o.records,
          groups + o.groups,
          tasks + o.tasks,
          proposed + o.proposed,
          updated + o.updated,
          unchanged + o.unchanged,
          suppressed + o.suppressed);
    }

    /** The counts by name, for an event's attributes. */
    public Map<String, String> asMap() {
      Map<String, String> out = new LinkedHashMap<>();
      out.put("workspaces", String.valueOf(workspaces));
      out.put("records", String.valueOf(records));
      out.put("groups", String.valueOf(groups));
      out.put("tasks", String.valueOf(tasks));
      out.put("proposed", String.valueOf(proposed));
      out.put("updated", String.valueOf(updated));
      out.put("unchanged", String.valueOf(unchanged));
      out.put("suppressed", String.valueOf(suppressed));
      return out;
    }
  }

  private enum Outcome {
    PROPOSED,
    UPDATED,
    UNCHANGED,
    SUPPRESSED
  }

  public SkillMiner(
      SkillStore store,
      LearningStore learning,
      AccessPolicy access,
      Recall recall,
      Embedder embedder,
      SkillSynthesizer synthesizer,
      EventBus events,
      Clock clock) {
    this.store = requireNonNull(store, "store is null");
    this.learning = requireNonNull(learning, "learning is null");
    this.access = requireNonNull(access, "access is null");
    this.recall = requireNonNull(recall, "recall is null");
    this.embedder = requireNonNull(embedder, "embedder is null");
    this.synthesizer = requireNonNull(synthesizer, "synthesizer is null");
    this.events = requireNonNull(events, "events is null");
    this.clock = requireNonNull(clock, "clock is null");
    for (int i = 0; i < locks.length; i++) {
      locks[i] = new Object();
    }
  }

  /** The cosine at which two memories say the same procedure, for the configured embedder. */
  public double sameProcedure() {
    return lexical() ? SAME_LEXICAL : SAME_SEMANTIC;
  }

  /** The cosine at which a task (or a run's input) matches a procedure. */
  public double linked() {
    return lexical() ? LINKED_LEXICAL : LINKED_SEMANTIC;
  }

  private boolean lexical() {
    return HashEmbedder.NAME.equals(embedder.name());
  }

  /**
   * One mining pass: the workspaces named, or every workspace with runs (at most {@value
   * #MAX_WORKSPACES}) when none is. Stops between workspaces when the thread is interrupted. A
   * workspace that fails is logged and skipped; the others are mined.
   *
   * @return what the pass did, summed over the workspaces
   */
  public Counts mine(Collection<String> workspaceIds) {
    List<String> workspaces =
        workspaceIds.isEmpty()
            ? store.learningWorkspaces(MAX_WORKSPACES)
            : List.copyOf(new TreeSet<>(workspaceIds));
    Counts total = Counts.ZERO;
    for (String ws : workspaces) {
      if (Thread.currentThread().isInterrupted()) {
        break;
      }
      try {
        total = total.plus(mineWorkspace(ws));
      } catch (RuntimeException e) {
        LOG.log(
            System.Logger.Level.WARNING, () -> "skill mining of workspace " + ws + " failed", e);
      }
    }
    return total;
  }

  /** The task way, for a task a verdict has just accepted. */
  @Override
  public void accepted(TaskKey task) {
    mineTask(task);
  }

  // ---------------------------------------------------------------- the memory way

  private Counts mineWorkspace(String workspaceId) {
    Instant now = clock.instant();
    List<MemoryRecord> records = procedures(workspaceId, now);
    List<float[]> vs = vectorsOf(records.stream().map(MemoryRecord::content).toList());
    double same = sameProcedure();
    int[] parent = new int[records.size()];
    for (int i = 0; i < parent.length; i++) {
      parent[i] = i;
    }
    for (int i = 0; i < records.size(); i++) {
      for (int j = i + 1; j < records.size(); j++) {
        if (Embedder.cosine(vs.get(i), vs.get(j)) >= same) {
          parent[root(parent, i)] = root(parent, j);
        }
      }
    }
    Map<Integer, List<MemoryRecord>> groups = new LinkedHashMap<>();
    for (int i = 0; i < records.size(); i++) {
      groups.computeIfAbsent(root(parent, i), k -> new ArrayList<>()).add(records.get(i));
    }
    Set<String> runs = new HashSet<>();
    records.forEach(r -> runs.addAll(runsOf(r)));
    Map<String, String> sessions = store.sessionsOfRuns(workspaceId, runs);
    int stable = 0;
    Counts counts = new Counts(1, records.size(), 0, 0, 0, 0, 0, 0);
    for (List<MemoryRecord> group : groups.values()) {
      Set<String> taught = new HashSet<>();
      for (MemoryRecord r : group) {
        for (String ref : r.sourceRefs()) {
          String run = ref.startsWith("run:") ? ref.substring(4) : null;
          taught.add(run == null ? "ref:" + ref : sessions.getOrDefault(run, "run:" + run));
        }
      }
      if (taught.size() < MIN_SESSIONS) {
        continue;
      }
      stable++;
      List<CandidateEvidence> evidence = new ArrayList<>();
      group.stream()
          .sorted(Comparator.comparing(MemoryRecord::createTime).thenComparing(MemoryRecord::id))
          .forEach(r -> evidence.add(memoryEvidence(r, sessions)));
      counts = count(counts, upsert(workspaceId, evidence));
    }
    counts =
        new Counts(
            counts.workspaces,
            counts.records,
            stable,
            counts.tasks,
            counts.proposed,
            counts.updated,
            counts.unchanged,
            counts.suppressed);
    for (TaskKey task : store.acceptedTasksWithoutCandidate(workspaceId, MAX_TASKS)) {
      counts = counts.plus(mineTask(task));
    }
    return counts;
  }

  /** The newest active procedural memories of the workspace's own profiles. */
  private List<MemoryRecord> procedures(String workspaceId, Instant now) {
    List<MemoryRecord> out = new ArrayList<>();
    for (AccessPolicy.Target t :
        access.readable(
            Scope.workspace(workspaceId), List.of(), Access.RECALL, RequestOptions.DEFAULT)) {
      String cursor = null;
      int scanned = 0;
      do {
        Page page = t.store().list(t.namespace(), new ListQuery(500, cursor, false));
        for (MemoryRecord r : page.records()) {
          if (r.kind() == MemoryKind.PROCEDURAL
              && r.isRecallable(now)
              && !r.content().isBlank()
              && out.size() < MAX_RECORDS) {
            out.add(r);
          }
        }
        scanned += page.records().size();
        cursor = page.nextCursor();
      } while (cursor != null && scanned < MAX_SCANNED && out.size() < MAX_RECORDS);
    }
    return out;
  }

  private static int root(int[] parent, int i) {
    while (parent[i] != i) {
      parent[i] = parent[parent[i]];
      i = parent[i];
    }
    return i;
  }

  // ---------------------------------------------------------------- the task way

  /** The candidate of an accepted task and the memories that match it. */
  Counts mineTask(TaskKey key) {
    Task task = learning.task(key, 1).orElse(null);
    if (task == null || task.state() != TaskState.ACCEPTED) {
      return Counts.ZERO;
    }
    Scope scope = new Scope(key.workspaceId(), key.userId(), "", "");
    List<RunReceipt> receipts = new ArrayList<>();
    for (LearningStore.ListedRun r :
        learning.runs(
            new LearningStore.RunQuery(scope, key.taskId(), MAX_TASK_RUNS, Long.MAX_VALUE))) {
      receipts.add(r.receipt());
    }
    String finalRunId = task.finalRunId();
    if (!finalRunId.isEmpty() && receipts.stream().noneMatch(r -> r.runId().equals(finalRunId))) {
      learning.run(scope, finalRunId).ifPresent(receipts::add);
    }
    receipts.sort(Comparator.comparing(RunReceipt::endTime).thenComparing(RunReceipt::runId));
    if (receipts.isEmpty()) {
      return Counts.ZERO;
    }
    Map<String, Said> said = said(key, receipts);
    RunReceipt last =
        receipts.stream()
            .filter(r -> r.runId().equals(finalRunId))
            .findFirst()
            .orElse(receipts.get(receipts.size() - 1));
    Said finalRun = said.getOrDefault(last.runId(), Said.NOTHING);
    StringBuilder words =
        new StringBuilder(finalRun.asked()).append('\n').append(finalRun.answered());
    for (RunReceipt r : receipts) {
      if (r != last) {
        words.append('\n').append(said.getOrDefault(r.runId(), Said.NOTHING).asked());
      }
    }
    String query = Limits.cutUtf8(words.toString().strip(), Limits.MAX_QUERY_BYTES);
    Set<String> tools = new LinkedHashSet<>();
    receipts.forEach(r -> r.tools().forEach(t -> tools.add(t.toolName())));
    Set<String> sessions = new TreeSet<>();
    receipts.forEach(r -> sessions.add(SkillStore.sessionRef(key.userId(), r.sessionId())));
    List<String> runIds = receipts.stream().map(RunReceipt::runId).distinct().toList();
    CandidateEvidence taskEvidence =
        CandidateEvidence.task(
            key.userId(),
            key.taskId(),
            finalRunId,
            runIds,
            List.copyOf(sessions),
            List.copyOf(tools),
            OfflineSynthesizer.taskText(
                cut(finalRun.asked(), MAX_EVIDENCE_TEXT_CHARS / 2),
                cut(finalRun.answered(), MAX_EVIDENCE_TEXT_CHARS / 2)),
            task.acceptanceTime() == null ? task.updateTime() : task.acceptanceTime());

    List<CandidateEvidence> evidence = new ArrayList<>(procedures(scope, query, runIds));
    evidence.add(taskEvidence);
    Counts counts = new Counts(0, 0, 0, 1, 0, 0, 0, 0);
    return count(counts, upsert(key.workspaceId(), evidence));
  }

  /** What a run was asked (its user messages) and answered (its assistant messages). */
  private record Said(String asked, String answered) {
    static final Said NOTHING = new Said("", "");
  }

  private Map<String, Said> said(TaskKey key, List<RunReceipt> receipts) {
    Map<String, List<String>> bySession = new LinkedHashMap<>();
    receipts.forEach(
        r -> bySession.computeIfAbsent(r.sessionId(), s -> new ArrayList<>()).add(r.runId()));
    Map<String, StringBuilder[]> texts = new HashMap<>();
    bySession.forEach(
        (session, runs) -> {
          for (SessionMessage m :
              store.runMessages(
                  new SessionKey(key.workspaceId(), key.userId(), session), runs, 400)) {
            StringBuilder[] t =
                texts.computeIfAbsent(
                    m.runId(), r -> new StringBuilder[] {new StringBuilder(), new StringBuilder()});
            if (m.role() == MessageRole.USER) {
              t[0].append(t[0].isEmpty() ? "" : "\n").append(m.content().strip());
            } else if (m.role() == MessageRole.ASSISTANT) {
              t[1].append(t[1].isEmpty() ? "" : "\n").append(m.content().strip());
            }
          }
        });
    Map<String, Said> out = new HashMap<>();
    texts.forEach((run, t) -> out.put(run, new Said(t[0].toString(), t[1].toString())));
    return out;
  }

  /**
   * The procedural memories the scope recalls for a task: those the task matches or one of its runs
   * taught, and those saying the same procedure as one of them.
   */
  private List<CandidateEvidence> procedures(Scope scope, String query, List<String> taskRuns) {
    if (query.isBlank()) {
      return List.of();
    }
    List<MemoryHit> hits =
        recall.search(
            scope,
            query,
            List.of(),
            NEIGHBOURS,
            Set.of(MemoryKind.PROCEDURAL),
            List.of(),
            0f,
            RequestOptions.DEFAULT);
    if (hits.isEmpty()) {
      return List.of();
    }
    List<MemoryRecord> found = hits.stream().map(h -> h.memory().record()).toList();
    float[] task = vectorOf(query);
    List<float[]> vs = vectorsOf(found.stream().map(MemoryRecord::content).toList());
    boolean[] in = new boolean[found.size()];
    Set<String> taught = new HashSet<>();
    taskRuns.forEach(r -> taught.add("run:" + r));
    for (int i = 0; i < found.size(); i++) {
      in[i] =
          Embedder.cosine(task, vs.get(i)) >= linked()
              || found.get(i).sourceRefs().stream().anyMatch(taught::contains);
    }
    for (boolean grew = true; grew; ) {
      grew = false;
      for (int i = 0; i < found.size(); i++) {
        for (int j = 0; j < found.size() && !in[i]; j++) {
          if (in[j] && Embedder.cosine(vs.get(i), vs.get(j)) >= sameProcedure()) {
            in[i] = true;
            grew = true;
          }
        }
      }
    }
    List<MemoryRecord> kept = new ArrayList<>();
    for (int i = 0; i < found.size(); i++) {
      if (in[i]) {
        kept.add(found.get(i));
      }
    }
    Set<String> runs = new HashSet<>();
    kept.forEach(r -> runs.addAll(runsOf(r)));
    Map<String, String> sessions = store.sessionsOfRuns(scope.workspaceId(), runs);
    return kept.stream()
        .sorted(Comparator.comparing(MemoryRecord::createTime).thenComparing(MemoryRecord::id))
        .map(r -> memoryEvidence(r, sessions))
        .toList();
  }

  // ---------------------------------------------------------------- candidates

  /**
   * Proposes a candidate of {@code found}, or adds it to the candidate that holds any of it (or
   * says its procedure); nothing when that candidate was rejected but to remember the evidence.
   */
  private Outcome upsert(String workspaceId, List<CandidateEvidence> found) {
    synchronized (locks[Math.floorMod(workspaceId.hashCode(), locks.length)]) {
      Instant now = clock.instant();
      List<SkillCandidate> holding =
          new ArrayList<>(store.candidatesHolding(workspaceId, SkillStore.subjects(found)));
      if (holding.isEmpty()) {
        similar(workspaceId, found).ifPresent(holding::add);
      }
      if (!holding.isEmpty()) {
        holding.sort(
            Comparator.comparing((SkillCandidate c) -> c.status() != CandidateStatus.REJECTED)
                .thenComparing(SkillCandidate::createTime)
                .thenComparing(SkillCandidate::candidateId));
        SkillCandidate c = holding.get(0);
        List<CandidateEvidence> merged = merge(c.evidence(), found);
        if (merged.equals(c.evidence())) {
          return c.status() == CandidateStatus.REJECTED ? Outcome.SUPPRESSED : Outcome.UNCHANGED;
        }
        SkillCandidate next;
        if (c.status() == CandidateStatus.REVIEW_REQUIRED) {
          SkillSynthesizer.Draft draft = synthesizer.draft(workspaceId, c.name(), merged);
          next =
              new SkillCandidate(
                  c.candidateId(),
                  workspaceId,
                  c.name(),
                  draft.description(),
                  c.status(),
                  draft.markdown(),
                  draft.synthesizer(),
                  merged,
                  c.approval(),
                  c.published(),
                  c.createTime(),
                  now);
        } else {
          // A decided candidate keeps its draft; a rejected one keeps even its time, and the
          // evidence it gains is kept back with it.
          next =
              new SkillCandidate(
                  c.candidateId(),
                  workspaceId,
                  c.name(),
                  c.description(),
                  c.status(),
                  c.draft(),
                  c.synthesizer(),
                  merged,
                  c.approval(),
                  c.published(),
                  c.createTime(),
                  c.status() == CandidateStatus.REJECTED ? c.updateTime() : now);
        }
        if (!store.updateCandidate(next, c.status())) {
          return Outcome.UNCHANGED; // a reviewer decided meanwhile; the next pass adds it
        }
        if (c.status() == CandidateStatus.REJECTED) {
          return Outcome.SUPPRESSED;
        }
        publish("skill.candidate.updated", next);
        return Outcome.UPDATED;
      }
      String name = uniqueName(workspaceId, OfflineSynthesizer.nameFor(found));
      SkillSynthesizer.Draft draft = synthesizer.draft(workspaceId, name, found);
      SkillCandidate c =
          new SkillCandidate(
              UUID.randomUUID().toString(),
              workspaceId,
              name,
              draft.description(),
              CandidateStatus.REVIEW_REQUIRED,
              draft.markdown(),
              draft.synthesizer(),
              cap(found),
              Approval.pending(UUID.randomUUID().toString(), now),
              null,
              now,
              now);
      store.insertCandidate(c);
      publish("skill.candidate.proposed", c);
      return Outcome.PROPOSED;
    }
  }

  /** A candidate whose representative says the same procedure as the group's, if any. */
  private java.util.Optional<SkillCandidate> similar(
      String workspaceId, List<CandidateEvidence> found) {
    List<SkillCandidate> recent =
        store.candidates(new SkillStore.CandidateQuery(workspaceId, null, MAX_COMPARED, null));
    if (recent.isEmpty()) {
      return java.util.Optional.empty();
    }
    float[] group = vectorOf(words(OfflineSynthesizer.representative(found)));
    SkillCandidate best = null;
    double bestCosine = sameProcedure();
    for (SkillCandidate c : recent) {
      if (c.evidence().isEmpty()) {
        continue;
      }
      double cos =
          Embedder.cosine(group, vectorOf(words(OfflineSynthesizer.representative(c.evidence()))));
      if (cos >= bestCosine) {
        best = c;
        bestCosine = cos;
      }
    }
    return java.util.Optional.ofNullable(best);
  }

  /** The words a piece of evidence is compared by: a memory's content, a task's question. */
  private static String words(CandidateEvidence e) {
    if (e.kind() == CandidateEvidence.Kind.MEMORY) {
      return e.text();
    }
    return e.text().replaceFirst("^Asked: ", "").replaceFirst("\nAnswered: ", "\n");
  }

  /** {@code name}, or {@code name-2}, {@code name-3}, ... when a candidate or skill has it. */
  private String uniqueName(String workspaceId, String name) {
    Set<String> taken = new HashSet<>();
    store
        .candidates(new SkillStore.CandidateQuery(workspaceId, null, Limits.MAX_PAGE_SIZE, null))
        .forEach(c -> taken.add(c.name()));
    store.skills(workspaceId, "", "", Limits.MAX_PAGE_SIZE).forEach(s -> taken.add(s.name()));
    String base = name.length() > 58 ? name.substring(0, 58) : name;
    String out = base;
    for (int i = 2; taken.contains(out); i++) {
      out = base + "-" + i;
    }
    return out;
  }

  /** The evidence of both, by subject, the new replacing the old; memories first. */
  private static List<CandidateEvidence> merge(
      List<CandidateEvidence> held, List<CandidateEvidence> found) {
    Map<String, CandidateEvidence> bySubject = new LinkedHashMap<>();
    held.forEach(e -> bySubject.put(e.subject(), e));
    found.forEach(e -> bySubject.put(e.subject(), e));
    List<CandidateEvidence> out = new ArrayList<>();
    bySubject.values().stream()
        .filter(e -> e.kind() == CandidateEvidence.Kind.MEMORY)
        .forEach(out::add);
    bySubject.values().stream()
        .filter(e -> e.kind() == CandidateEvidence.Kind.TASK)
        .forEach(out::add);
    return cap(out);
  }

  private static List<CandidateEvidence> cap(List<CandidateEvidence> evidence) {
    return evidence.size() <= MAX_EVIDENCE
        ? List.copyOf(evidence)
        : List.copyOf(evidence.subList(0, MAX_EVIDENCE));
  }

  private static CandidateEvidence memoryEvidence(MemoryRecord r, Map<String, String> sessions) {
    List<String> runs = runsOf(r);
    Set<String> in = new TreeSet<>();
    runs.forEach(
        run -> {
          String s = sessions.get(run);
          if (s != null) {
            in.add(s);
          }
        });
    return CandidateEvidence.memory(
        r.profile(),
        r.id(),
        runs,
        List.copyOf(in),
        cut(r.content().strip(), MAX_EVIDENCE_TEXT_CHARS),
        r.createTime());
  }

  /** {@code s}, or its first {@code chars} characters and "...". */
  private static String cut(String s, int chars) {
    String one = s.replaceAll("\\s+", " ").strip();
    return one.length() <= chars ? one : one.substring(0, chars - 3).strip() + "...";
  }

  /** The runs in a record's source refs, in order. */
  private static List<String> runsOf(MemoryRecord r) {
    List<String> out = new ArrayList<>();
    for (String ref : r.sourceRefs()) {
      if (ref.startsWith("run:") && !out.contains(ref.substring(4))) {
        out.add(ref.substring(4));
      }
    }
    return out;
  }

  private static Counts count(Counts c, Outcome o) {
    return new Counts(
        c.workspaces,
        c.records,
        c.groups,
        c.tasks,
        c.proposed + (o == Outcome.PROPOSED ? 1 : 0),
        c.updated + (o == Outcome.UPDATED ? 1 : 0),
        c.unchanged + (o == Outcome.UNCHANGED ? 1 : 0),
        c.suppressed + (o == Outcome.SUPPRESSED ? 1 : 0));
  }

  private void publish(String type, SkillCandidate c) {
    Map<String, String> attributes = new LinkedHashMap<>();
    attributes.put("candidate_id", c.candidateId());
    attributes.put("name", c.name());
    attributes.put("status", c.status().name().toLowerCase(java.util.Locale.ROOT));
    attributes.put("sessions", String.valueOf(c.sessionCount()));
    attributes.put("tasks", String.valueOf(c.taskCount()));
    events.publish(
        new RuntimeEvent(
            type, clock.instant(), "", "", Scope.workspace(c.workspaceId()), attributes));
  }

  // ---------------------------------------------------------------- vectors

  private float[] vectorOf(String text) {
    return vectorsOf(List.of(text)).get(0);
  }

  /** The vectors of {@code texts}, from the cache or made in one batch. */
  private List<float[]> vectorsOf(List<String> texts) {
    List<float[]> out = new ArrayList<>(texts.size());
    List<String> missing = new ArrayList<>();
    synchronized (vectors) {
      for (String t : texts) {
        float[] v = vectors.get(t);
        out.add(v);
        if (v == null && !missing.contains(t)) {
          missing.add(t);
        }
      }
    }
    if (missing.isEmpty()) {
      return out;
    }
    List<float[]> made = embedder.embedAll(missing);
    Map<String, float[]> byText = new HashMap<>();
    for (int i = 0; i < missing.size(); i++) {
      byText.put(missing.get(i), made.get(i));
    }
    synchronized (vectors) {
      vectors.putAll(byText);
    }
    for (int i = 0; i < out.size(); i++) {
      if (out.get(i) == null) {
        out.set(i, byText.get(texts.get(i)));
      }
    }
    return out;
  }
}
