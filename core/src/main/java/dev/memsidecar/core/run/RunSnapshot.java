package dev.memsidecar.core.run;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.core.MemoryHit;
import dev.memsidecar.core.sessions.SessionHit;
import java.time.Instant;
import java.util.List;

/**
 * What BeginRun returned for one run, frozen: the same run (scope and run id) gets it again, byte
 * for byte, until {@code expireTime}, even after a restart.
 *
 * @param runId the run
 * @param snapshotId names this snapshot; a new one after expiry
 * @param createTime when it was made
 * @param expireTime when it stops being served
 * @param sections the prompt sections, in order
 * @param recalled the memories behind the recalled_memory section
 * @param memoryFilePaths the memory files behind the memory_files section
 * @param tools the tools the run said it may call (their rules come first; EndRun's capture binds
 *     prohibitions to them)
 * @param evidence the session messages behind the session_evidence section (none in snapshots made
 *     before sessions existed)
 * @param curatedHash the content hash of the curated section (empty in snapshots made before it
 *     existed)
 * @param skills the published skills behind the skills section (none in snapshots made before it
 *     existed)
 */
public record RunSnapshot(
    String runId,
    String snapshotId,
    Instant createTime,
    Instant expireTime,
    List<Section> sections,
    List<MemoryHit> recalled,
    List<String> memoryFilePaths,
    List<String> tools,
    List<SessionHit> evidence,
    String curatedHash,
    List<SkillRef> skills) {

  /** One prompt section: markdown ready to paste into a system prompt. */
  public record Section(String id, String title, String body) {
    public Section {
      requireNonNull(id, "id is null");
      requireNonNull(title, "title is null");
      requireNonNull(body, "body is null");
    }
  }

  /**
   * A published skill as the skills section lists it.
   *
   * @param name the skill
   * @param version its latest version when the run began
   * @param description its description
   * @param path its file, {@code /skills/<name>/SKILL.md}
   */
  public record SkillRef(String name, String version, String description, String path) {
    public SkillRef {
      requireNonNull(name, "name is null");
      requireNonNull(version, "version is null");
      requireNonNull(description, "description is null");
      requireNonNull(path, "path is null");
    }
  }

  /** A snapshot without a curated section or skills. */
  public RunSnapshot(
      String runId,
      String snapshotId,
      Instant createTime,
      Instant expireTime,
      List<Section> sections,
      List<MemoryHit> recalled,
      List<String> memoryFilePaths,
      List<String> tools,
      List<SessionHit> evidence) {
    this(
        runId,
        snapshotId,
        createTime,
        expireTime,
        sections,
        recalled,
        memoryFilePaths,
        tools,
        evidence,
        "",
        List.of());
  }

  public RunSnapshot {
    requireNonNull(runId, "runId is null");
    requireNonNull(snapshotId, "snapshotId is null");
    requireNonNull(createTime, "createTime is null");
    requireNonNull(expireTime, "expireTime is null");
    sections = List.copyOf(sections);
    recalled = List.copyOf(recalled);
    memoryFilePaths = List.copyOf(memoryFilePaths);
    tools = tools == null ? List.of() : List.copyOf(tools);
    evidence = evidence == null ? List.of() : List.copyOf(evidence);
    curatedHash = curatedHash == null ? "" : curatedHash;
    skills = skills == null ? List.of() : List.copyOf(skills);
  }
}
