package dev.memsidecar.core.config;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.List;

/**
 * {@code memory.maintenance}: the background maintenance of both memory paths and of the sidecar's
 * own tables, with one schedule and one shared prompt for every target.
 *
 * @param enabled whether the schedule runs it ({@code AdminService.RunMaintenance} runs it anyway)
 * @param schedule when it runs
 * @param prompt what consolidation keeps and drops, shared by every target
 * @param targets the targets the schedule runs, by name; empty runs every registered target
 * @param records what the {@code langmem} target keeps ({@code memory.maintenance.langmem})
 * @param housekeeping what the {@code housekeeping} target keeps ({@code
 *     memory.maintenance.housekeeping})
 */
public record Maintenance(
    boolean enabled,
    MaintenanceSchedule schedule,
    String prompt,
    List<String> targets,
    RecordRetention records,
    Housekeeping housekeeping) {

  public static final String DEFAULT_PROMPT =
      "durable preferences, workspace facts, reusable procedures, prior corrections, stale"
          + " duplicates, and contradicted memories";

  public static final Maintenance DEFAULT =
      new Maintenance(
          true,
          new MaintenanceSchedule.Periodic(MaintenanceSchedule.DEFAULT_INTERVAL),
          DEFAULT_PROMPT,
          List.of(),
          RecordRetention.DEFAULT,
          Housekeeping.DEFAULT);

  public Maintenance {
    requireNonNull(schedule, "schedule is null");
    prompt = prompt == null ? "" : prompt;
    targets = targets == null ? List.of() : List.copyOf(targets);
    requireNonNull(records, "records is null");
    requireNonNull(housekeeping, "housekeeping is null");
  }

  /**
   * What the {@code langmem} target keeps per namespace. PromptX's numbers are the defaults: its
   * cleanup drops what scores in its low tier (it refuses to store below 5), and its memory folder
   * holds at most 10 MB.
   *
   * @param cleanupThreshold an active record whose re-score falls below this is dropped (0..10;
   *     default {@value #DEFAULT_CLEANUP_THRESHOLD})
   * @param maxAge records no longer recalled (superseded, forgotten, dropped) are deleted this long
   *     after their last change; zero keeps them (default 30 days)
   * @param maxCount the most records a namespace keeps, any status; 0 for no limit (the default)
   * @param maxBytes the most bytes of content, summary and context a namespace keeps; 0 for no
   *     limit (default 10 MiB)
   */
  public record RecordRetention(
      double cleanupThreshold, Duration maxAge, long maxCount, long maxBytes) {
    public static final double DEFAULT_CLEANUP_THRESHOLD = 5.0;
    public static final Duration DEFAULT_MAX_AGE = Duration.ofDays(30);
    public static final long DEFAULT_MAX_BYTES = 10L << 20;
    public static final RecordRetention DEFAULT =
        new RecordRetention(DEFAULT_CLEANUP_THRESHOLD, DEFAULT_MAX_AGE, 0, DEFAULT_MAX_BYTES);

    public RecordRetention {
      if (!(cleanupThreshold >= 0 && cleanupThreshold <= 10)) {
        throw new IllegalArgumentException("cleanupThreshold must be 0..10: " + cleanupThreshold);
      }
      requireNonNull(maxAge, "maxAge is null");
      if (maxAge.isNegative() || maxCount < 0 || maxBytes < 0) {
        throw new IllegalArgumentException("retention limits must not be negative");
      }
    }
  }

  /**
   * What the {@code housekeeping} target keeps of the write-decision audit.
   *
   * @param auditMaxAge decisions older than this are deleted; zero keeps them (default 30 days,
   *     PromptX's "score records are kept at most 30 days")
   * @param auditMaxBytes the most bytes of decisions (as stored) the audit keeps, oldest deleted
   *     first; 0 for no limit (default 64 MiB)
   */
  public record Housekeeping(Duration auditMaxAge, long auditMaxBytes) {
    public static final Duration DEFAULT_AUDIT_MAX_AGE = Duration.ofDays(30);
    public static final long DEFAULT_AUDIT_MAX_BYTES = 64L << 20;
    public static final Housekeeping DEFAULT =
        new Housekeeping(DEFAULT_AUDIT_MAX_AGE, DEFAULT_AUDIT_MAX_BYTES);

    public Housekeeping {
      requireNonNull(auditMaxAge, "auditMaxAge is null");
      if (auditMaxAge.isNegative() || auditMaxBytes < 0) {
        throw new IllegalArgumentException("audit limits must not be negative");
      }
    }
  }
}
