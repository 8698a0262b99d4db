package dev.memsidecar.core.config;

import static java.util.Objects.requireNonNull;

import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.BitSet;
import java.util.List;
import java.util.Locale;

/**
 * A cron expression of the five classic fields, {@code minute hour day-of-month month day-of-week},
 * as crontab(5) reads them: each field is {@code *}, a number, a range {@code a-b}, a list {@code
 * a,b,c} of those, each optionally with a step ({@code * /15}, {@code 0-30/10}, written without the
 * space); months may be named {@code jan}..{@code dec} and days {@code sun}..{@code sat} (any case;
 * day 0 and 7 are both Sunday). When both day fields are restricted (neither is {@code *}), a day
 * matches if either does, as in Vixie cron. Seconds, years and Quartz's {@code ? L W #} are not
 * read. Immutable and thread-safe.
 */
public final class CronExpression {
  private static final List<String> MONTHS =
      List.of("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec");
  private static final List<String> DAYS = List.of("sun", "mon", "tue", "wed", "thu", "fri", "sat");

  /** Far enough to find any date a valid expression names (Feb 29 comes every 4 or 8 years). */
  private static final int MAX_YEARS = 9;

  private final String text;
  private final BitSet minutes;
  private final BitSet hours;
  private final BitSet daysOfMonth;
  private final BitSet months;
  private final BitSet daysOfWeek;
  private final boolean anyDayOfMonth;
  private final boolean anyDayOfWeek;

  private CronExpression(String text, String[] f) {
    this.text = text;
    minutes = field("minute", f[0], 0, 59, List.of());
    hours = field("hour", f[1], 0, 23, List.of());
    daysOfMonth = field("day of month", f[2], 1, 31, List.of());
    months = field("month", f[3], 1, 12, MONTHS);
    BitSet dow = field("day of week", f[4], 0, 7, DAYS);
    if (dow.get(7)) {
      dow.set(0);
      dow.clear(7);
    }
    daysOfWeek = dow;
    anyDayOfMonth = f[2].equals("*");
    anyDayOfWeek = f[4].equals("*");
  }

  /**
   * Parses {@code text}.
   *
   * @throws IllegalArgumentException saying which field is wrong and why
   */
  public static CronExpression parse(String text) {
    requireNonNull(text, "text is null");
    String[] fields = text.strip().split("\\s+");
    if (fields.length != 5) {
      throw new IllegalArgumentException(
          "a cron expression has five fields (minute hour day-of-month month day-of-week), got "
              + (text.isBlank() ? 0 : fields.length));
    }
    CronExpression cron = new CronExpression(text.strip(), fields);
    if (cron.next(Instant.EPOCH, ZoneId.of("UTC")) == null) {
      throw new IllegalArgumentException("'" + text.strip() + "' names no date that exists");
    }
    return cron;
  }

  /**
   * The first minute strictly after {@code after} that the expression names, in {@code zone}; null
   * when there is none within {@value #MAX_YEARS} years (an impossible date such as Feb 30).
   */
  public Instant next(Instant after, ZoneId zone) {
    LocalDateTime t =
        LocalDateTime.ofInstant(after, zone).truncatedTo(ChronoUnit.MINUTES).plusMinutes(1);
    LocalDateTime end = t.plusYears(MAX_YEARS);
    while (t.isBefore(end)) {
      if (!months.get(t.getMonthValue())) {
        t = t.withDayOfMonth(1).toLocalDate().plusMonths(1).atStartOfDay();
        continue;
      }
      if (!dayMatches(t.toLocalDate())) {
        t = t.toLocalDate().plusDays(1).atStartOfDay();
        continue;
      }
      if (!hours.get(t.getHour())) {
        t = t.truncatedTo(ChronoUnit.HOURS).plusHours(1);
        continue;
      }
      if (!minutes.get(t.getMinute())) {
        t = t.plusMinutes(1);
        continue;
      }
      // A local time skipped by a DST gap moves forward; the instant is still after 'after'.
      return ZonedDateTime.of(t, zone).toInstant();
    }
    return null;
  }

  private boolean dayMatches(LocalDate d) {
    boolean dom = daysOfMonth.get(d.getDayOfMonth());
    boolean dow =
        daysOfWeek.get(d.getDayOfWeek() == DayOfWeek.SUNDAY ? 0 : d.getDayOfWeek().getValue());
    if (anyDayOfMonth || anyDayOfWeek) {
      return dom && dow;
    }
    return dom || dow;
  }

  private static BitSet field(String name, String text, int min, int max, List<String> names) {
    BitSet out = new BitSet(max + 1);
    for (String part : text.split(",", -1)) {
      int step = 1;
      String range = part;
      int slash = part.indexOf('/');
      if (slash >= 0) {
        range = part.substring(0, slash);
        step = number(name, part.substring(slash + 1), 1, max - min + 1, List.of());
      }
      int from;
      int to;
      if (range.equals("*")) {
        from = min;
        to = max;
      } else {
        int dash = range.indexOf('-');
        if (dash > 0) {
          from = number(name, range.substring(0, dash), min, max, names);
          to = number(name, range.substring(dash + 1), min, max, names);
          if (to < from) {
            throw new IllegalArgumentException(
                "the " + name + " range '" + range + "' ends before it starts");
          }
        } else {
          from = number(name, range, min, max, names);
          to = slash >= 0 ? max : from;
        }
      }
      for (int v = from; v <= to; v += step) {
        out.set(v);
      }
    }
    return out;
  }

  private static int number(String name, String text, int min, int max, List<String> names) {
    int named = names.indexOf(text.toLowerCase(Locale.ROOT));
    if (named >= 0) {
      return named + (names.size() == 12 ? 1 : 0);
    }
    try {
      int v = Integer.parseInt(text);
      if (v >= min && v <= max) {
        return v;
      }
    } catch (NumberFormatException e) {
      // Reported below.
    }
    throw new IllegalArgumentException(
        "the " + name + " field takes " + min + ".." + max + ", got '" + text + "'");
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof CronExpression c && c.text.equals(text);
  }

  @Override
  public int hashCode() {
    return text.hashCode();
  }

  /** The expression as written (stripped). */
  @Override
  public String toString() {
    return text;
  }
}
