package dev.memsidecar.language.extraction;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.language.ReferenceTime;
import java.time.LocalDate;
import java.time.YearMonth;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The day or month a text names, for a search that leans to what was said then: a day in any form
 * {@link ReferenceTime#parse} reads ("on October 13, 2023", "13 October 2023", "2023-10-13",
 * "2023年10月13日"), else a month and its year ("in July 2023", "July, 2023", "2023-07", "2023年7月"). A
 * year alone is not a period here: questions that name one ("in 2023") most often ask about events
 * across it, not about what was said in it. Relative phrases ("last week") are not read. Immutable.
 *
 * @param from the first day of the period
 * @param until the day after its last day
 */
public record NamedPeriod(LocalDate from, LocalDate until) {
  public NamedPeriod {
    requireNonNull(from, "from is null");
    requireNonNull(until, "until is null");
    if (!from.isBefore(until)) {
      throw new IllegalArgumentException("empty period: " + from + " until " + until);
    }
  }

  private static final Pattern MONTH_YEAR =
      Pattern.compile("(?i)\\b(" + SessionDates.MONTHS + ")\\b\\.?,?\\s*(\\d{4})(?![\\d:])");
  private static final Pattern YEAR_MONTH =
      Pattern.compile("(?<![\\d-])(\\d{4})(?:\\s*年\\s*(\\d{1,2})\\s*月|-(\\d{2}))(?![\\d-])");

  /** The period {@code text} names, or empty when it names no day or month (or is null). */
  public static Optional<NamedPeriod> in(String text) {
    if (text == null || text.isBlank()) {
      return Optional.empty();
    }
    // The zone only matters for instants with an offset; a named day is read as written.
    Optional<ZonedDateTime> day = ReferenceTime.parse(text, ZoneId.of("UTC"));
    if (day.isPresent()) {
      LocalDate d = day.get().toLocalDate();
      return Optional.of(new NamedPeriod(d, d.plusDays(1)));
    }
    Matcher m = MONTH_YEAR.matcher(text);
    if (m.find()) {
      return month(Integer.parseInt(m.group(2)), SessionDates.month(m.group(1)));
    }
    m = YEAR_MONTH.matcher(text);
    if (m.find()) {
      String month = m.group(2) != null ? m.group(2) : m.group(3);
      return month(Integer.parseInt(m.group(1)), Integer.parseInt(month));
    }
    return Optional.empty();
  }

  private static Optional<NamedPeriod> month(int year, int month) {
    if (month < 1 || month > 12) {
      return Optional.empty();
    }
    YearMonth ym = YearMonth.of(year, month);
    return Optional.of(new NamedPeriod(ym.atDay(1), ym.plusMonths(1).atDay(1)));
  }
}
