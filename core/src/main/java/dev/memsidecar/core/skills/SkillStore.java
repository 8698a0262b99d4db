package dev.memsidecar.core.skills;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.core.learning.SkillVersion;
import dev.memsidecar.core.learning.Task;
import dev.memsidecar.core.learning.TaskKey;
import dev.memsidecar.core.sessions.SessionKey;
import dev.memsidecar.core.sessions.SessionMessage;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Where skill candidates, their evidence and approvals, and published skill versions are kept (the
 * seed's {@code skill_candidates} and {@code skill_candidate_evidence}), and what mining reads of
 * runs and sessions. The control store implements it ({@code core.control}, which this package does
 * not see). Every write is durable when its method returns. Everything is per workspace.
 * Thread-safe.
 */
public interface SkillStore {

  // ---------------------------------------------------------------- what mining reads

  /** The workspaces that have run receipts, by id, at most {@code limit}. */
  List<String> learningWorkspaces(int limit);

  /**
   * For runs of a workspace, the session each ran in, as {@code <user>/<session>}; runs without a
   * receipt are left out (a run id used in several scopes: any one of them).
   */
  Map<String, String> sessionsOfRuns(String workspaceId, Collection<String> runIds);

  /** The visible messages of those runs in one session, oldest first, at most {@code limit}. */
  List<SessionMessage> runMessages(SessionKey session, Collection<String> runIds, int limit);

  /**
   * Accepted tasks of a workspace that no candidate holds as evidence, most recently accepted
   * first, at most {@code limit}.
   */
  List<TaskKey> acceptedTasksWithoutCandidate(String workspaceId, int limit);

  // ---------------------------------------------------------------- candidates

  /** The candidates of a workspace that hold any of {@code subjects} ({@link #subjects}). */
  List<SkillCandidate> candidatesHolding(String workspaceId, Collection<String> subjects);

  Optional<SkillCandidate> candidate(String workspaceId, String candidateId);

  /** One page of a workspace's candidates, most recently updated first. */
  List<SkillCandidate> candidates(CandidateQuery query);

  /**
   * A page of candidates.
   *
   * @param status only this status, or null for all
   * @param after the last candidate of the previous page, or null for the first page
   */
  record CandidateQuery(String workspaceId, CandidateStatus status, int limit, Cursor after) {
    public CandidateQuery {
      requireNonNull(workspaceId, "workspaceId is null");
    }
  }

  /** A place in the listing order: update time, then candidate id, both descending. */
  record Cursor(Instant updateTime, String candidateId) {
    public Cursor {
      requireNonNull(updateTime, "updateTime is null");
      requireNonNull(candidateId, "candidateId is null");
    }
  }

  /** Inserts a new candidate, its approval and its evidence, in one transaction. */
  void insertCandidate(SkillCandidate candidate);

  /**
   * Replaces a candidate (its row, its approval, its evidence) if its status is still {@code
   * expected}, in one transaction; false, changing nothing, when it is not (or it is gone).
   */
  boolean updateCandidate(SkillCandidate candidate, CandidateStatus expected);

  // ---------------------------------------------------------------- published skills

  /** The latest published version of a skill, 0 when it has none. */
  int latestVersion(String workspaceId, String name);

  /**
   * Keeps a published version and its candidate as it is after publishing, in one transaction, if
   * the candidate's status is still {@code expected} and the version is not taken; false, changing
   * nothing, otherwise.
   */
  boolean recordPublish(
      String workspaceId,
      PublishedSkill version,
      SkillCandidate candidate,
      CandidateStatus expected);

  /**
   * The latest version of each published skill of a workspace, by name.
   *
   * @param afterName only names after this one (the previous page's last), or empty
   * @param onlyName only this skill, or empty for all
   */
  List<PublishedSkill> skills(String workspaceId, String afterName, String onlyName, int limit);

  /** Every published version of a skill, newest first. */
  List<PublishedSkill> versions(String workspaceId, String name);

  /**
   * The effects of skill versions in a workspace ({@link Task.SkillEffect}), in the order asked; a
   * version no decided task used has none counted.
   */
  List<Task.SkillEffect> effects(String workspaceId, List<SkillVersion> versions);

  /** {@code subjects} of the evidence, for {@link #candidatesHolding}. */
  static List<String> subjects(Collection<CandidateEvidence> evidence) {
    return evidence.stream().map(CandidateEvidence::subject).distinct().toList();
  }

  /** Sessions keyed as evidence names them. */
  static String sessionRef(String userId, String sessionId) {
    return userId + "/" + sessionId;
  }
}
