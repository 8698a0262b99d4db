package dev.memsidecar.core.skills;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.Embedder;
import dev.memsidecar.api.Ids;
import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.MemoryFile;
import dev.memsidecar.core.Access;
import dev.memsidecar.core.AccessPolicy;
import dev.memsidecar.core.Limits;
import dev.memsidecar.core.PageTokens;
import dev.memsidecar.core.RequestOptions;
import dev.memsidecar.core.Scope;
import dev.memsidecar.core.curated.WorkspaceFiles;
import dev.memsidecar.core.events.EventBus;
import dev.memsidecar.core.events.RuntimeEvent;
import dev.memsidecar.core.learning.SkillVersion;
import dev.memsidecar.core.learning.Task;
import dev.memsidecar.language.Terms;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Skill candidates and published skills of a workspace, as clients see them: list candidates,
 * review one (approve, keeping its draft or the reviewer's edit; reject, with a reason), publish an
 * approved one as {@code skills/<name>/SKILL.md} (version 1, then 2, ...), list the published
 * skills with the effects of each version (the success rates of {@code core.learning}), and find
 * the ones that match a run's input for BeginRun. Candidates come from the {@link SkillMiner}.
 *
 * <p>Candidates and skills belong to a workspace: any scope of the workspace sees them (its other
 * ids narrow nothing), no scope of another workspace does. They answer to no memory flag, only to
 * the request: a read-only request may list but not review or publish (PERMISSION_DENIED), as tool
 * rules do. Thread-safe; publishing one name takes turns within this process, which is the only one
 * on its data directory.
 */
public final class SkillService {
  /** A page of candidates by default, and at most: they carry drafts and evidence. */
  public static final int DEFAULT_CANDIDATE_PAGE = 20;

  public static final int MAX_CANDIDATE_PAGE = 50;

  /** A reject's reason, at most this many characters. */
  public static final int MAX_REASON_CHARS = 1024;

  /** Published skills BeginRun's skills section lists at most. */
  public static final int MAX_MATCHED = 5;

  /** Published skills of a workspace BeginRun compares with its input at most. */
  static final int MAX_COMPARED = 200;

  private final SkillStore store;
  private final WorkspaceFiles files;
  private final AccessPolicy access;
  private final Embedder embedder;
  private final SkillMiner miner;
  private final EventBus events;
  private final Clock clock;
  private final Object[] publishLocks = new Object[64];
  private final Map<String, float[]> vectors =
      new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, float[]> eldest) {
          return size() > 1024;
        }
      };

  public SkillService(
      SkillStore store,
      WorkspaceFiles files,
      AccessPolicy access,
      Embedder embedder,
      SkillMiner miner,
      EventBus events,
      Clock clock) {
    this.store = requireNonNull(store, "store is null");
    this.files = requireNonNull(files, "files is null");
    this.access = requireNonNull(access, "access is null");
    this.embedder = requireNonNull(embedder, "embedder is null");
    this.miner = requireNonNull(miner, "miner is null");
    this.events = requireNonNull(events, "events is null");
    this.clock = requireNonNull(clock, "clock is null");
    for (int i = 0; i < publishLocks.length; i++) {
      publishLocks[i] = new Object();
    }
  }

  /** The miner that proposes the candidates (the maintenance daemon's {@code skills} target). */
  public SkillMiner miner() {
    return miner;
  }

  // ---------------------------------------------------------------- candidates

  /** A page of candidates and the token of the next (empty on the last). */
  public record CandidatePage(List<SkillCandidate> candidates, String nextPageToken) {
    public CandidatePage {
      candidates = List.copyOf(candidates);
    }
  }

  /**
   * One page of the workspace's candidates, most recently updated first, {@value
   * #DEFAULT_CANDIDATE_PAGE} by default and at most {@value #MAX_CANDIDATE_PAGE}.
   *
   * @param status only this status, or null for all
   */
  public CandidatePage candidates(
      Scope scope, CandidateStatus status, int pageSize, String pageToken) {
    String ws = access.workspace(scope, Access.READ, RequestOptions.DEFAULT);
    int size =
        pageSize == 0
            ? DEFAULT_CANDIDATE_PAGE
            : Math.min(Limits.pageSize(pageSize), MAX_CANDIDATE_PAGE);
    String requestKey = "skill candidates\n" + ws + "\n" + status;
    String cursor = PageTokens.decode(requestKey, pageToken);
    SkillStore.Cursor after = null;
    if (cursor != null) {
      int nl = cursor.indexOf('\n');
      try {
        after =
            new SkillStore.Cursor(Instant.parse(cursor.substring(0, nl)), cursor.substring(nl + 1));
      } catch (DateTimeParseException | IndexOutOfBoundsException e) {
        throw MemoryException.invalidArgument("page_token", "page_token is malformed");
      }
    }
    List<SkillCandidate> found =
        store.candidates(new SkillStore.CandidateQuery(ws, status, size + 1, after));
    List<SkillCandidate> page = found.subList(0, Math.min(size, found.size()));
    String next = null;
    if (found.size() > size) {
      SkillCandidate last = page.get(page.size() - 1);
      next = last.updateTime() + "\n" + last.candidateId();
    }
    return new CandidatePage(page, PageTokens.encode(requestKey, next));
  }

  /**
   * A reviewer's decision. APPROVE (from REVIEW_REQUIRED, or again on an APPROVED or PUBLISHED
   * candidate) keeps the draft, or replaces it with {@code draft} when that is not empty (its front
   * matter must give a name, an id, and a description); REJECT (from REVIEW_REQUIRED or APPROVED)
   * needs a reason. The same decision again on a decided candidate, without a new draft, changes
   * nothing; a rejected candidate stays rejected, a published one cannot be rejected
   * (FAILED_PRECONDITION).
   *
   * @param decision the decision, or null when the request gave none (INVALID_ARGUMENT)
   * @return the candidate as it is now
   */
  public SkillCandidate review(
      Scope scope,
      String candidateId,
      ReviewDecision decision,
      String reason,
      String draft,
      RequestOptions options) {
    String ws = access.workspace(scope, Access.WRITE, options);
    Ids.require("candidate_id", candidateId);
    if (decision == null) {
      throw MemoryException.invalidArgument("decision", "decision is required: APPROVE or REJECT");
    }
    if (reason.length() > MAX_REASON_CHARS) {
      throw MemoryException.invalidArgument(
          "reason", "reason is over " + MAX_REASON_CHARS + " characters");
    }
    SkillMarkdown edited = null;
    if (decision == ReviewDecision.REJECT) {
      if (reason.isBlank()) {
        throw MemoryException.invalidArgument(
            "reason", "reason is required to reject: say why the candidate is no skill");
      }
      if (!draft.isEmpty()) {
        throw MemoryException.invalidArgument("draft", "draft is for APPROVE, not REJECT");
      }
    } else if (!draft.isEmpty()) {
      Limits.checkBytes("draft", draft, SkillMarkdown.MAX_BYTES);
      edited = SkillMarkdown.parse("draft", draft);
    }
    SkillCandidate c = find(ws, candidateId);
    CandidateStatus from = c.status();
    Instant now = clock.instant();
    SkillCandidate next;
    if (decision == ReviewDecision.APPROVE) {
      if (from == CandidateStatus.REJECTED) {
        throw MemoryException.failedPrecondition(
            "candidate " + Ids.quote(candidateId) + " was rejected; a rejected candidate stays so");
      }
      if (from != CandidateStatus.REVIEW_REQUIRED && edited == null) {
        return c;
      }
      next =
          new SkillCandidate(
              c.candidateId(),
              ws,
              edited == null ? c.name() : edited.name(),
              edited == null ? c.description() : edited.description(),
              from == CandidateStatus.REVIEW_REQUIRED ? CandidateStatus.APPROVED : from,
              edited == null ? c.draft() : draft,
              edited == null ? c.synthesizer() : SkillCandidate.REVIEWER,
              c.evidence(),
              from == CandidateStatus.REVIEW_REQUIRED
                  ? c.approval().decided(Approval.State.APPROVED, reason.strip(), now)
                  : c.approval(),
              c.published(),
              c.createTime(),
              now);
    } else {
      if (from == CandidateStatus.REJECTED) {
        return c;
      }
      if (from == CandidateStatus.PUBLISHED) {
        throw MemoryException.failedPrecondition(
            "candidate "
                + Ids.quote(candidateId)
                + " is published as skill "
                + Ids.quote(c.name())
                + "; a published candidate cannot be rejected");
      }
      next =
          new SkillCandidate(
              c.candidateId(),
              ws,
              c.name(),
              c.description(),
              CandidateStatus.REJECTED,
              c.draft(),
              c.synthesizer(),
              c.evidence(),
              c.approval().decided(Approval.State.REJECTED, reason.strip(), now),
              c.published(),
              c.createTime(),
              now);
    }
    if (!store.updateCandidate(next, from)) {
      throw MemoryException.aborted(
          "candidate " + Ids.quote(candidateId) + " changed while it was reviewed; retry");
    }
    Map<String, String> attributes = new LinkedHashMap<>();
    attributes.put("candidate_id", candidateId);
    attributes.put("decision", decision.name().toLowerCase(Locale.ROOT));
    attributes.put("status", next.status().name().toLowerCase(Locale.ROOT));
    publish("skill.candidate.reviewed", scope, attributes);
    return next;
  }

  // ---------------------------------------------------------------- publishing

  /** What PublishSkill wrote: the version and the file. */
  public record Published(PublishedSkill skill, MemoryFile file) {}

  /**
   * Publishes an approved (or already published) candidate's draft as the next version of skill
   * {@code <name>} (the draft's name): {@code skills/<name>/SKILL.md} of the workspace, its front
   * matter gaining {@code version}. {@code etag}, when given, must be the file's current etag
   * (ABORTED otherwise). The file is written durably before the version is recorded.
   */
  public Published publish(Scope scope, String candidateId, String etag, RequestOptions options) {
    String ws = access.workspace(scope, Access.WRITE, options);
    Ids.require("candidate_id", candidateId);
    if (etag.length() > 64) {
      throw MemoryException.invalidArgument("etag", "etag is over 64 characters");
    }
    SkillCandidate c = find(ws, candidateId);
    if (c.status() == CandidateStatus.REVIEW_REQUIRED || c.status() == CandidateStatus.REJECTED) {
      throw MemoryException.failedPrecondition(
          "candidate "
              + Ids.quote(candidateId)
              + " is "
              + c.status().name().toLowerCase(Locale.ROOT)
              + ": only an approved candidate is published (ReviewSkillCandidate APPROVE)");
    }
    SkillMarkdown draft = SkillMarkdown.parse("draft", c.draft());
    String name = draft.name();
    synchronized (publishLocks[Math.floorMod((ws + "\n" + name).hashCode(), publishLocks.length)]) {
      int version = store.latestVersion(ws, name) + 1;
      Path file = files.skillFile(ws, name);
      MemoryFile written = files.write(file, draft.withVersion(version), etag);
      Instant now = clock.instant();
      PublishedSkill skill =
          new PublishedSkill(name, version, draft.description(), candidateId, written.etag(), now);
      SkillCandidate after =
          new SkillCandidate(
              c.candidateId(),
              ws,
              c.name(),
              c.description(),
              CandidateStatus.PUBLISHED,
              c.draft(),
              c.synthesizer(),
              c.evidence(),
              c.approval(),
              skill.skillVersion(),
              c.createTime(),
              now);
      if (!store.recordPublish(ws, skill, after, c.status())) {
        throw MemoryException.aborted(
            "candidate "
                + Ids.quote(candidateId)
                + " or skill "
                + Ids.quote(name)
                + " changed while it was published; retry");
      }
      Map<String, String> attributes = new LinkedHashMap<>();
      attributes.put("candidate_id", candidateId);
      attributes.put("name", name);
      attributes.put("version", String.valueOf(version));
      attributes.put("etag", written.etag());
      publish("skill.published", scope, attributes);
      return new Published(skill, written);
    }
  }

  // ---------------------------------------------------------------- published skills

  /** A page of skills and the token of the next (empty on the last). */
  public record SkillPage(List<PublishedSkill.Listed> skills, String nextPageToken) {
    public SkillPage {
      skills = List.copyOf(skills);
    }
  }

  /**
   * One page of the workspace's published skills, by name: each one's latest version, its file's
   * etag now, and the effects of every version published, newest first.
   *
   * @param name only this skill, or empty for all
   */
  public SkillPage skills(Scope scope, String name, int pageSize, String pageToken) {
    String ws = access.workspace(scope, Access.READ, RequestOptions.DEFAULT);
    if (!name.isEmpty()) {
      Ids.require("name", name);
    }
    int size = Limits.pageSize(pageSize);
    String requestKey = "skills\n" + ws + "\n" + name;
    String cursor = PageTokens.decode(requestKey, pageToken);
    List<PublishedSkill> found = store.skills(ws, cursor == null ? "" : cursor, name, size + 1);
    List<PublishedSkill> page = found.subList(0, Math.min(size, found.size()));
    List<PublishedSkill.Listed> out = new ArrayList<>();
    for (PublishedSkill s : page) {
      List<SkillVersion> versions =
          store.versions(ws, s.name()).stream().map(PublishedSkill::skillVersion).toList();
      List<Task.SkillEffect> effects = store.effects(ws, versions);
      out.add(
          new PublishedSkill.Listed(s, files.read(files.skillFile(ws, s.name())).etag(), effects));
    }
    String next = found.size() > size ? page.get(page.size() - 1).name() : null;
    return new SkillPage(out, PageTokens.encode(requestKey, next));
  }

  /**
   * The published skills of the scope's workspace that match a run's input, best first, at most
   * {@value #MAX_MATCHED}: those whose name and description are close to it in meaning (the cosine
   * the miner links a task to a procedure with, {@link SkillMiner#linked()}), or whose name's words
   * all occur in it. The scope's ids must be checked.
   */
  public List<PublishedSkill> matching(Scope scope, String input) {
    if (input.isBlank()) {
      return List.of();
    }
    List<PublishedSkill> skills = store.skills(scope.workspaceId(), "", "", MAX_COMPARED);
    if (skills.isEmpty()) {
      return List.of();
    }
    float[] query = embedder.embed(input);
    Set<String> inputWords = new HashSet<>(Terms.keywords(input));
    List<Map.Entry<PublishedSkill, Double>> scored = new ArrayList<>();
    for (PublishedSkill s : skills) {
      String text = s.name().replace('-', ' ').replace('_', ' ') + ". " + s.description();
      double cos = Embedder.cosine(query, vectorOf(text));
      List<String> nameWords = Terms.keywords(s.name().replace('-', ' ').replace('_', ' '));
      boolean named = !nameWords.isEmpty() && inputWords.containsAll(nameWords);
      if (named || cos >= miner.linked()) {
        scored.add(Map.entry(s, named ? 1 + cos : cos));
      }
    }
    scored.sort(
        Comparator.comparing((Map.Entry<PublishedSkill, Double> e) -> -e.getValue())
            .thenComparing(e -> e.getKey().name()));
    return scored.stream().limit(MAX_MATCHED).map(Map.Entry::getKey).toList();
  }

  /** The published skill's file as the files API reads it; NOT_FOUND when it has none. */
  public MemoryFile file(Scope scope, String name) {
    Path file = files.skillFile(scope.workspaceId(), name);
    if (!files.exists(file)) {
      throw MemoryException.notFound(
          "no published skill " + Ids.quote(name) + " in this workspace (PublishSkill makes one)");
    }
    return files.read(file);
  }

  private float[] vectorOf(String text) {
    synchronized (vectors) {
      float[] v = vectors.get(text);
      if (v != null) {
        return v;
      }
    }
    float[] v = embedder.embed(text);
    synchronized (vectors) {
      vectors.put(text, v);
    }
    return v;
  }

  private SkillCandidate find(String ws, String candidateId) {
    return store
        .candidate(ws, candidateId)
        .orElseThrow(
            () ->
                MemoryException.notFound(
                    "no skill candidate " + Ids.quote(candidateId) + " in this workspace"));
  }

  private void publish(String type, Scope scope, Map<String, String> attributes) {
    events.publish(new RuntimeEvent(type, clock.instant(), "", "", scope, attributes));
  }
}
