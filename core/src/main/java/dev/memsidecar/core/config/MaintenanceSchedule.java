package dev.memsidecar.core.config;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;

/**
 * When maintenance runs ({@code memory.maintenance.schedule}): {@link Periodic} every {@code
 * interval}, or at the minutes a {@link Cron} expression names.
 */
public sealed interface MaintenanceSchedule {
  /** The default interval of {@code schedule: periodic}. */
  Duration DEFAULT_INTERVAL = Duration.ofHours(1);

  /** The shortest interval accepted (for tests). */
  Duration MIN_INTERVAL = Duration.ofSeconds(1);

  /** The name of the periodic schedule in the configuration. */
  String PERIODIC = "periodic";

  /**
   * When the next pass is due.
   *
   * @param lastStart when the last pass started, or null when none ever ran
   * @param now the current time
   * @param zone the zone a cron expression is read in
   */
  Instant next(Instant lastStart, Instant now, ZoneId zone);

  /**
   * Every {@code interval} from the start of the last pass (so a restart keeps the rhythm), and
   * {@code interval} after start-up when no pass ever ran; a pass that is overdue runs at once.
   */
  record Periodic(Duration interval) implements MaintenanceSchedule {
    public Periodic {
      requireNonNull(interval, "interval is null");
      if (interval.compareTo(MIN_INTERVAL) < 0) {
        throw new IllegalArgumentException(
            "interval must be at least " + MIN_INTERVAL.toSeconds() + "s: " + interval);
      }
    }

    @Override
    public Instant next(Instant lastStart, Instant now, ZoneId zone) {
      Instant due = (lastStart == null ? now : lastStart).plus(interval);
      return due.isBefore(now) ? now : due;
    }

    @Override
    public String toString() {
      return PERIODIC + " every " + interval;
    }
  }

  /** At the minutes {@code expression} names, in the sidecar's time zone. */
  record Cron(CronExpression expression) implements MaintenanceSchedule {
    public Cron {
      requireNonNull(expression, "expression is null");
    }

    @Override
    public Instant next(Instant lastStart, Instant now, ZoneId zone) {
      return expression.next(now, zone);
    }

    @Override
    public String toString() {
      return "cron '" + expression + "'";
    }
  }

  /**
   * The schedule {@code schedule} names: {@value #PERIODIC} (every {@code interval}, {@link
   * #DEFAULT_INTERVAL} when null) or a five-field cron expression ({@link CronExpression}).
   *
   * @throws IllegalArgumentException saying what is wrong, e.g. an unknown name
   */
  static MaintenanceSchedule of(String schedule, Duration interval) {
    requireNonNull(schedule, "schedule is null");
    if (schedule.strip().equals(PERIODIC)) {
      return new Periodic(interval == null ? DEFAULT_INTERVAL : interval);
    }
    if (interval != null) {
      throw new IllegalArgumentException(
          "an interval goes with schedule '" + PERIODIC + "' only, not with '" + schedule + "'");
    }
    if (schedule.strip().split("\\s+").length < 5) {
      throw new IllegalArgumentException(
          "unknown schedule '"
              + schedule
              + "'; a schedule is '"
              + PERIODIC
              + "' (with an interval such as 30m) or a cron expression of five fields such as"
              + " '0 3 * * *'");
    }
    return new Cron(CronExpression.parse(schedule));
  }
}
