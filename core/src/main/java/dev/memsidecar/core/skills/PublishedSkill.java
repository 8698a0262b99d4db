package dev.memsidecar.core.skills;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.core.learning.SkillVersion;
import dev.memsidecar.core.learning.Task;
import java.time.Instant;
import java.util.List;

/**
 * One published version of a workspace's skill: {@code skills/<name>/SKILL.md} as PublishSkill
 * wrote it.
 *
 * @param name the skill
 * @param version 1 for its first publish, then 2, ...; runs name it as {@code name@version}
 * @param description the SKILL.md front matter's description
 * @param candidateId the candidate it was published from
 * @param etag the etag of the file as published
 * @param publishTime when it was published
 */
public record PublishedSkill(
    String name,
    int version,
    String description,
    String candidateId,
    String etag,
    Instant publishTime) {
  public PublishedSkill {
    requireNonNull(name, "name is null");
    requireNonNull(description, "description is null");
    requireNonNull(candidateId, "candidateId is null");
    requireNonNull(etag, "etag is null");
    requireNonNull(publishTime, "publishTime is null");
    if (version < 1) {
      throw new IllegalArgumentException("version must be at least 1: " + version);
    }
  }

  /** How runs name this version in {@code metadata["skills"]}. */
  public SkillVersion skillVersion() {
    return new SkillVersion(name, String.valueOf(version));
  }

  /** The files API path of every version's file: {@code /skills/<name>/SKILL.md}. */
  public String path() {
    return SkillFiles.pathOf(name);
  }

  /**
   * A skill as ListSkills shows it: its latest version, the file's etag now, and the effects of
   * every version published, newest first.
   *
   * @param latest the latest version
   * @param etag the etag of the file as it is now (a person may have edited it)
   * @param effects per published version, newest first
   */
  public record Listed(PublishedSkill latest, String etag, List<Task.SkillEffect> effects) {
    public Listed {
      requireNonNull(latest, "latest is null");
      requireNonNull(etag, "etag is null");
      effects = List.copyOf(effects);
    }
  }
}
