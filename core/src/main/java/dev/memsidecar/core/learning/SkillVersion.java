package dev.memsidecar.core.learning;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.Ids;
import dev.memsidecar.api.MemoryException;
import java.util.Comparator;

/**
 * One version of a skill, as a run names it: {@code name} or {@code name@version}, each an id
 * ({@link Ids#ID}).
 *
 * @param name the skill, e.g. {@code pdf-report}
 * @param version its version, e.g. {@code 1.2.0}; empty when the run named the skill alone (an
 *     unversioned use is counted apart from every version)
 */
public record SkillVersion(String name, String version) {
  /** By name, then version: the order skill effects are listed and locked in. */
  public static final Comparator<SkillVersion> BY_NAME =
      Comparator.comparing(SkillVersion::name).thenComparing(SkillVersion::version);

  public SkillVersion {
    requireNonNull(name, "name is null");
    version = version == null ? "" : version;
  }

  /**
   * The skill version {@code entry} names ({@code name} or {@code name@version}); INVALID_ARGUMENT
   * naming {@code field} when it is neither.
   */
  public static SkillVersion parse(String field, String entry) {
    int at = entry.indexOf('@');
    String name = at < 0 ? entry : entry.substring(0, at);
    String version = at < 0 ? "" : entry.substring(at + 1);
    if (!Ids.isValid(name) || (at >= 0 && !Ids.isValid(version))) {
      throw MemoryException.invalidArgument(
          field,
          field
              + " entry "
              + Ids.quote(entry)
              + " must be name or name@version, each matching "
              + Ids.ID.pattern());
    }
    return new SkillVersion(name, version);
  }

  /** {@code name@version}, or {@code name} when unversioned. */
  @Override
  public String toString() {
    return version.isEmpty() ? name : name + "@" + version;
  }
}
