package dev.memsidecar.language.extraction;

import java.time.DayOfWeek;
import java.time.LocalDate;
import java.time.temporal.TemporalAdjusters;

/**
 * Weeks and weekends as relative date phrases read them: a week starts on Monday, a weekend is a
 * Saturday and the Sunday after it. Stateless and thread-safe.
 */
public final class Weeks {
  private Weeks() {}

  /** The Monday of {@code day}'s week. */
  public static LocalDate monday(LocalDate day) {
    return day.with(TemporalAdjusters.previousOrSame(DayOfWeek.MONDAY));
  }

  /**
   * The Saturday of "last weekend": the latest weekend that ended before {@code day}'s week (or
   * before {@code day} on a weekend).
   */
  public static LocalDate lastWeekendStart(LocalDate day) {
    LocalDate sat = day.with(TemporalAdjusters.previous(DayOfWeek.SATURDAY));
    if (day.getDayOfWeek() == DayOfWeek.SUNDAY) {
      sat = sat.minusWeeks(1);
    }
    return sat;
  }

  /** The Saturday of "this weekend": the weekend {@code day} is in, or the next one. */
  public static LocalDate thisWeekendStart(LocalDate day) {
    if (day.getDayOfWeek() == DayOfWeek.SUNDAY) {
      return day.minusDays(1);
    }
    return day.with(TemporalAdjusters.nextOrSame(DayOfWeek.SATURDAY));
  }
}
