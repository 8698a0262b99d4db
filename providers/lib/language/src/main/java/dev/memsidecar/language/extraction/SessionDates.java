package dev.memsidecar.language.extraction;

import dev.memsidecar.language.ReferenceTime;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZonedDateTime;

/**
 * The date of a session, read from a header or from metadata by {@link ReferenceTime#parse}: an ISO
 * instant or date-time, {@code 2023-05-08}, {@code 2023/5/8}, {@code 2023年5月8日}, {@code 8 May
 * 2023}, {@code May 8, 2023}, also inside longer text such as {@code 1:56 pm on 8 May, 2023}. Month
 * names are English, the form session headers are written in whatever the language of the turns.
 * Stateless and thread-safe.
 */
public final class SessionDates {
  private SessionDates() {}

  /**
   * The month names and abbreviations {@link #month} reads, as a regular expression alternation.
   */
  public static final String MONTHS =
      "january|february|march|april|may|june|july|august|september|october|november|december"
          + "|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec";

  /**
   * The date {@code text} names, in {@code zone} (an instant or a date-time with an offset is
   * converted to it), or null when it names none or is null. The forms are {@link
   * ReferenceTime#parse}'s.
   */
  public static LocalDate parse(String text, ZoneId zone) {
    return ReferenceTime.parse(text, zone)
        .map(t -> t.withZoneSameInstant(zone).toLocalDate())
        .orElse(null);
  }

  /** 1..12 for a month name or abbreviation of {@link #MONTHS} (any case). */
  public static int month(String name) {
    return ReferenceTime.month(name);
  }

  /** The local date of {@code now} in {@code zone}, for a session without a date. */
  public static LocalDate today(Instant now, ZoneId zone) {
    return ZonedDateTime.ofInstant(now, zone).toLocalDate();
  }
}
