package dev.memsidecar.core.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class TestMaintenanceSchedule {
  private static final ZoneId UTC = ZoneOffset.UTC;

  @Test
  void periodicRunsAnIntervalAfterTheLastStartOrAtOnceWhenOverdue() {
    MaintenanceSchedule s = MaintenanceSchedule.of("periodic", Duration.ofMinutes(30));
    Instant now = Instant.parse("2026-05-01T10:00:00Z");
    assertEquals(now.plusSeconds(1800), s.next(null, now, UTC), "first pass one interval in");
    assertEquals(
        Instant.parse("2026-05-01T10:20:00Z"),
        s.next(Instant.parse("2026-05-01T09:50:00Z"), now, UTC),
        "a restart keeps the rhythm of the last start");
    assertEquals(now, s.next(Instant.parse("2026-05-01T08:00:00Z"), now, UTC), "overdue: now");
    assertEquals(
        Duration.ofHours(1),
        ((MaintenanceSchedule.Periodic) MaintenanceSchedule.of("periodic", null)).interval(),
        "default interval");
  }

  @Test
  void aCronExpressionNamesTheMinutesItRunsAt() {
    MaintenanceSchedule s = MaintenanceSchedule.of("30 3 * * *", null);
    assertInstanceOf(MaintenanceSchedule.Cron.class, s);
    assertEquals(
        Instant.parse("2026-05-02T03:30:00Z"),
        s.next(null, Instant.parse("2026-05-01T03:30:00Z"), UTC),
        "strictly after now");
    CronExpression weekdays = CronExpression.parse("*/15 9-17 * * mon-fri");
    assertEquals(
        Instant.parse("2026-05-04T09:00:00Z"),
        weekdays.next(Instant.parse("2026-05-01T17:50:00Z"), UTC),
        "Friday evening -> Monday 09:00");
    CronExpression either = CronExpression.parse("0 0 13 * fri");
    assertEquals(
        Instant.parse("2026-05-08T00:00:00Z"),
        either.next(Instant.parse("2026-05-02T00:00:00Z"), UTC),
        "with both day fields set, either matches (Friday 8 May before the 13th)");
    assertEquals(
        Instant.parse("2028-02-29T12:00:00Z"),
        CronExpression.parse("0 12 29 feb *").next(Instant.parse("2026-03-01T00:00:00Z"), UTC),
        "Feb 29 is found years ahead");
    assertEquals(
        Instant.parse("2026-05-03T00:00:00Z"),
        CronExpression.parse("0 0 * * 7").next(Instant.parse("2026-05-02T12:00:00Z"), UTC),
        "7 is Sunday");
  }

  @Test
  void anUnknownScheduleOrABadCronExpressionSaysWhatIsWrong() {
    IllegalArgumentException unknown =
        assertThrows(IllegalArgumentException.class, () -> MaintenanceSchedule.of("nightly", null));
    assertTrue(unknown.getMessage().contains("unknown schedule 'nightly'"), unknown.getMessage());
    IllegalArgumentException minute =
        assertThrows(
            IllegalArgumentException.class, () -> MaintenanceSchedule.of("61 * * * *", null));
    assertTrue(minute.getMessage().contains("minute field takes 0..59"), minute.getMessage());
    IllegalArgumentException never =
        assertThrows(IllegalArgumentException.class, () -> CronExpression.parse("0 0 30 feb *"));
    assertTrue(never.getMessage().contains("names no date"), never.getMessage());
    IllegalArgumentException interval =
        assertThrows(
            IllegalArgumentException.class,
            () -> MaintenanceSchedule.of("0 3 * * *", Duration.ofMinutes(5)));
    assertTrue(interval.getMessage().contains("interval"), interval.getMessage());
    assertThrows(
        IllegalArgumentException.class,
        () -> MaintenanceSchedule.of("periodic", Duration.ofMillis(500)),
        "shorter than a second");
  }
}
