package dev.memsidecar.core.toolrules;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.util.List;

/**
 * A rule about one tool that the agent must follow (OpenHuman's {@code ToolMemoryRule}): "never
 * email Sarah" on {@code send_email}. Critical and high rules are pinned into every BeginRun,
 * normal ones when the run's input is about their tool; critical prohibitions are also enforced by
 * CheckToolCall through their objects ("Don't use the shell to delete files." denies {@code rm},
 * not {@code ls}), and a pinned rule it cannot enforce comes back as a warning.
 *
 * @param id stable: writing the same rule for the same tool again reuses it
 * @param toolName the tool it applies to, e.g. {@code send_email}
 * @param rule the guidance in words
 * @param priority critical, high or normal
 * @param source who made it
 * @param tags free labels, e.g. {@code safety}
 * @param createTime when it was first written
 * @param updateTime when it last changed
 * @param objects what a prohibition names, kept as matchers for CheckToolCall (e-mail addresses,
 *     names, paths, hosts, commands, acts such as {@code action:delete-files}), lower-cased; empty
 *     for advice. CheckToolCall reads a rule whose text is a prohibition from its text (so rules
 *     written by an earlier version are read as this one reads them); these objects count for a
 *     text that is no prohibition
 */
public record ToolRule(
    String id,
    String toolName,
    String rule,
    Priority priority,
    Source source,
    List<String> tags,
    Instant createTime,
    Instant updateTime,
    List<String> objects) {

  /** How a rule reaches the agent; in this order (critical first). */
  public enum Priority {
    /** Pinned in every BeginRun and never cut; enforced by CheckToolCall when it can be. */
    CRITICAL,
    /** Pinned below critical; cut last when the section is capped (the section says so). */
    HIGH,
    /** Not pinned: in BeginRun when the run's input is about its tool; ListToolRules shows it. */
    NORMAL
  }

  /** Who made a rule. */
  public enum Source {
    USER_EXPLICIT,
    POST_TURN,
    PROGRAMMATIC
  }

  public ToolRule {
    requireNonNull(id, "id is null");
    requireNonNull(toolName, "toolName is null");
    requireNonNull(rule, "rule is null");
    requireNonNull(priority, "priority is null");
    requireNonNull(source, "source is null");
    tags = tags == null ? List.of() : List.copyOf(tags);
    requireNonNull(createTime, "createTime is null");
    requireNonNull(updateTime, "updateTime is null");
    objects = objects == null ? List.of() : List.copyOf(objects);
  }
}
