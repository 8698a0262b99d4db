package dev.memsidecar.core.maintenance;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;

/**
 * One run of one maintenance target, as kept and reported.
 *
 * @param target the target's name
 * @param ok whether it completed
 * @param counts what it did, by name (also when it failed: what it had done until then)
 * @param error why it failed; empty when ok
 * @param startTime when it started
 * @param endTime when it ended
 * @param trigger {@value #SCHEDULE} or {@value #REQUEST}
 */
public record TargetRun(
    String target,
    boolean ok,
    Map<String, Long> counts,
    String error,
    Instant startTime,
    Instant endTime,
    String trigger) {
  /** A run the schedule started. */
  public static final String SCHEDULE = "schedule";

  /** A run {@code AdminService.RunMaintenance} asked for. */
  public static final String REQUEST = "request";

  public TargetRun {
    requireNonNull(target, "target is null");
    counts =
        counts == null ? Map.of() : java.util.Collections.unmodifiableMap(new TreeMap<>(counts));
    error = error == null ? "" : error;
    requireNonNull(startTime, "startTime is null");
    requireNonNull(endTime, "endTime is null");
    requireNonNull(trigger, "trigger is null");
  }
}
