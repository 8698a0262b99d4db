package dev.memsidecar.language.extraction;

import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The date of a session, read from a header or from metadata: an ISO instant or date-time, {@code
 * 2023-05-08}, {@code 2023/5/8}, {@code 2023年5月8日}, {@code 8 May 2023}, {@code 8 May, 2023}, {@code
 * May 8, 2023}, also inside longer text such as {@code 1:56 pm on 8 May, 2023}. Month names are
 * English, the form session headers are written in whatever the language of the turns. Stateless
 * and thread-safe.
 */
public final class SessionDates {
  private SessionDates() {}

  /**
   * The month names and abbreviations {@link #month} reads, as a regular expression alternation.
   */
  public static final String MONTHS =
      "january|february|march|april|may|june|july|august|september|october|november|december"
          + "|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec";

  private static final Pattern ISO_DATE =
      Pattern.compile("(\\d{4})\\s*[-/.年]\\s*(\\d{1,2})\\s*[-/.月]\\s*(\\d{1,2})");
  private static final Pattern DAY_MONTH_YEAR =
      Pattern.compile(
          "(?i)\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+(?:of\\s+)?(" + MONTHS + ")\\.?,?\\s+(\\d{4})\\b");
  private static final Pattern MONTH_DAY_YEAR =
      Pattern.compile("(?i)\\b(" + MONTHS + ")\\.?\\s+(\\d{1,2})(?:st|nd|rd|th)?,?\\s+(\\d{4})\\b");

  /**
   * The date {@code text} names, in {@code zone} (an instant or a date-time with an offset is
   * converted to it), or null when it names none or is null.
   */
  public static LocalDate parse(String text, ZoneId zone) {
    if (text == null) {
      return null;
    }
    String s = text.strip();
    if (s.isEmpty()) {
      return null;
    }
    try {
      return Instant.parse(s).atZone(zone).toLocalDate();
    } catch (DateTimeParseException e) {
      // not an instant
    }
    try {
      return OffsetDateTime.parse(s).atZoneSameInstant(zone).toLocalDate();
    } catch (DateTimeParseException e) {
      // not an offset date-time
    }
    try {
      return LocalDateTime.parse(s).toLocalDate();
    } catch (DateTimeParseException e) {
      // not a local date-time
    }
    Matcher m = ISO_DATE.matcher(s);
    if (m.find()) {
      return date(m.group(1), m.group(2), m.group(3));
    }
    m = DAY_MONTH_YEAR.matcher(s);
    if (m.find()) {
      return date(m.group(3), String.valueOf(month(m.group(2))), m.group(1));
    }
    m = MONTH_DAY_YEAR.matcher(s);
    if (m.find()) {
      return date(m.group(3), String.valueOf(month(m.group(1))), m.group(2));
    }
    return null;
  }

  private static LocalDate date(String y, String mo, String d) {
    try {
      return LocalDate.of(Integer.parseInt(y), Integer.parseInt(mo), Integer.parseInt(d));
    } catch (RuntimeException e) {
      return null;
    }
  }

  /** 1..12 for a month name or abbreviation of {@link #MONTHS} (any case). */
  public static int month(String name) {
    String n = name.toLowerCase(Locale.ROOT);
    return switch (n.substring(0, 3)) {
      case "jan" -> 1;
      case "feb" -> 2;
      case "mar" -> 3;
      case "apr" -> 4;
      case "may" -> 5;
      case "jun" -> 6;
      case "jul" -> 7;
      case "aug" -> 8;
      case "sep" -> 9;
      case "oct" -> 10;
      case "nov" -> 11;
      default -> 12;
    };
  }

  /** The local date of {@code now} in {@code zone}, for a session without a date. */
  public static LocalDate today(Instant now, ZoneId zone) {
    return ZonedDateTime.ofInstant(now, zone).toLocalDate();
  }
}
