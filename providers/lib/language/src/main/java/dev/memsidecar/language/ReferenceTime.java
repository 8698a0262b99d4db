package dev.memsidecar.language;

import static java.util.Objects.requireNonNull;

import java.text.ParsePosition;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.TemporalQuery;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * When a run's conversation took place: the time relative dates ("yesterday", "last week", "上周")
 * are read on and the run's messages are stamped with. It is, in order:
 *
 * <ol>
 *   <li>the request's metadata {@code session_date} (else {@code date}, else {@code time}) when it
 *       names a date ({@link #parse});
 *   <li>else a timestamp leading the input, alone in brackets, with or without a label: {@code [8
 *       May 2023]}, {@code [2023-05-08 13:56]}, {@code [session date: 1:56 pm on 8 May, 2023]},
 *       {@code 【日期：2023年5月8日】}, on its own line or before the text; or a first line {@code Session
 *       date: 8 May 2023};
 *   <li>else {@code now}.
 * </ol>
 *
 * A leading timestamp is removed from the input whichever source wins: it is never content. The
 * forms read ({@link #parse}): ISO-8601 (instant, offset or local date-time, date), {@code
 * 2023-05-08 13:56}, {@code 2023/5/8}, {@code 2023年5月8日 下午1点56分}, {@code 8 May 2023}, {@code 8th of
 * May, 2023}, {@code May 8, 2023}, {@code Monday, May 8, 2023 1:56 PM}, {@code 1:56 pm on 8 May,
 * 2023}, {@code 8 May 2023 13:56 UTC}, RFC 1123 ({@code Mon, 8 May 2023 13:56:00 GMT}), {@code
 * 5/8/2023} (month first unless the first number is over 12), {@code 8.5.2023} (day first), and
 * Unix epoch seconds or milliseconds. A time without a zone or offset is read in the run's zone; a
 * date without a time is the start of that day. Month names are English.
 *
 * @param instant the reference time
 * @param zone the zone it is read in (the run's)
 * @param input the input without its leading timestamp (the input itself when it has none)
 * @param source where the reference time came from
 */
public record ReferenceTime(Instant instant, ZoneId zone, String input, Source source) {

  /** Where a reference time came from. */
  public enum Source {
    /** The request's metadata ({@link #METADATA_KEYS}). */
    METADATA,
    /** A timestamp leading the input. */
    INPUT,
    /** Neither: the time the run ended. */
    NOW
  }

  /** The metadata key of a run's session date. */
  public static final String SESSION_DATE = "session_date";

  /** The metadata keys read for a session date, in order. */
  public static final List<String> METADATA_KEYS = List.of(SESSION_DATE, "date", "time");

  /** The longest text read as a timestamp. */
  private static final int MAX_TIMESTAMP_CHARS = 80;

  public ReferenceTime {
    requireNonNull(instant, "instant is null");
    requireNonNull(zone, "zone is null");
    requireNonNull(input, "input is null");
    requireNonNull(source, "source is null");
  }

  /**
   * The reference time of a run (see the class description).
   *
   * @param metadata the request's metadata; may be null
   * @param input the run's input; may be null (then empty)
   * @param now when the run ended, the fallback
   * @param zone the run's time zone: a time without zone or offset is read in it
   */
  public static ReferenceTime of(
      Map<String, String> metadata, String input, Instant now, ZoneId zone) {
    requireNonNull(now, "now is null");
    requireNonNull(zone, "zone is null");
    String text = input == null ? "" : input;
    Instant fromMetadata = null;
    if (metadata != null) {
      for (String key : METADATA_KEYS) {
        Optional<ZonedDateTime> t = parse(metadata.get(key), zone);
        if (t.isPresent()) {
          fromMetadata = t.get().toInstant();
          break;
        }
      }
    }
    Prefix prefix = prefix(text, zone);
    String rest = prefix == null ? text : text.substring(prefix.end());
    if (fromMetadata != null) {
      return new ReferenceTime(fromMetadata, zone, rest, Source.METADATA);
    }
    if (prefix != null) {
      return new ReferenceTime(prefix.time().toInstant(), zone, rest, Source.INPUT);
    }
    return new ReferenceTime(now, zone, text, Source.NOW);
  }

  /** The local date of the reference time in its zone. */
  public LocalDate date() {
    return instant.atZone(zone).toLocalDate();
  }

  /** Whether the reference time is the conversation's own (metadata or input), not {@code now}. */
  public boolean dated() {
    return source != Source.NOW;
  }

  /**
   * {@code metadata} with {@value #SESSION_DATE} set to this reference time (ISO-8601 with its
   * offset) when it was read from the input's timestamp, so that whoever reads the metadata and the
   * input without its timestamp still knows the session's date; {@code metadata} itself otherwise.
   * Never modifies {@code metadata}.
   */
  public Map<String, String> withSessionDate(Map<String, String> metadata) {
    Map<String, String> m = metadata == null ? Map.of() : metadata;
    if (source != Source.INPUT) {
      return m;
    }
    Map<String, String> out = new HashMap<>(m);
    out.put(SESSION_DATE, DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(instant.atZone(zone)));
    return Map.copyOf(out);
  }

  // ---------------------------------------------------------------------------------------------
  // Parsing

  private static final String MONTHS =
      "january|february|march|april|may|june|july|august|september|october|november|december"
          + "|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec";
  private static final String WEEKDAYS =
      "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
          + "|mon|tues|tue|wed|thurs|thur|thu|fri|sat|sun";

  private static final Pattern EPOCH = Pattern.compile("\\d{10}|\\d{13}");
  private static final Pattern ISO_WITH_SPACE = Pattern.compile("^\\d{4}-\\d{2}-\\d{2} \\d");
  private static final Pattern YEAR_MONTH_DAY =
      Pattern.compile(
          "(?<!\\d)(\\d{4})\\s*[-/.年]\\s*(\\d{1,2})\\s*[-/.月]\\s*(\\d{1,2})(?!\\d)[日号]?");
  private static final Pattern DAY_MONTH_YEAR =
      Pattern.compile(
          "(?i)(?<!\\d)(\\d{1,2})(?:st|nd|rd|th)?[\\s-]*(?:of\\s+)?("
              + MONTHS
              + ")\\b\\.?,?[\\s-]*(\\d{4})(?!\\d)");
  private static final Pattern MONTH_DAY_YEAR =
      Pattern.compile(
          "(?i)\\b(" + MONTHS + ")\\b\\.?\\s*(\\d{1,2})(?:st|nd|rd|th)?\\b,?\\s*(\\d{4})(?!\\d)");
  private static final Pattern NUMERIC_DATE =
      Pattern.compile("(?<![\\d./-])(\\d{1,2})([/.-])(\\d{1,2})\\2(\\d{4})(?!\\d)");

  private static final String PART_OF_DAY = "(上午|下午|晚上|早上|中午|凌晨|傍晚|夜里|早晨)";
  private static final Pattern CLOCK =
      Pattern.compile(
          "(?i)(?:"
              + PART_OF_DAY
              + "\\s*)?(?<![\\d:.])(\\d{1,2}):(\\d{2})(?::(\\d{2})(?:[.,]\\d{1,9})?)?"
              + "(?:\\s*([ap])\\.?\\s?m\\b\\.?)?");
  private static final Pattern HOUR_AM_PM =
      Pattern.compile("(?i)(?<![\\d:.])(\\d{1,2})\\s*([ap])\\.?\\s?m\\b\\.?");
  private static final Pattern CHINESE_CLOCK =
      Pattern.compile(
          "(?:" + PART_OF_DAY + "\\s*)?(\\d{1,2})\\s*[点點时時](?:\\s*(\\d{1,2})\\s*分?|(半))?");
  private static final Pattern OFFSET =
      Pattern.compile(
          "^\\s*(?:(Z)\\b|(?i:(?:utc|gmt))(?:\\s*([+-]\\d{1,2})(?::?(\\d{2}))?)?\\b"
              + "|([+-]\\d{2})(?::?(\\d{2}))?(?!\\d))");
  private static final Pattern ZONE_ID = Pattern.compile("\\b[A-Z][A-Za-z_]+/[A-Z][A-Za-z_]+\\b");

  /** What may stand beside a date and a time in a timestamp: weekdays, "on", "at", punctuation. */
  private static final Pattern FILLER =
      Pattern.compile(
          "(?i)\\b(?:"
              + WEEKDAYS
              + "|on|at|the|of|t)\\b\\.?|(?:星期|周|礼拜)[一二三四五六日天]|[\\s,.;:@()\\[\\]/–—-]+");

  /**
   * The date and time {@code text} names, in {@code zone} unless it gives its own offset, or empty
   * when it names no date (or is null). A date may stand inside longer text ("1:56 pm on 8 May,
   * 2023"); see the class description for the forms read.
   */
  public static Optional<ZonedDateTime> parse(String text, ZoneId zone) {
    requireNonNull(zone, "zone is null");
    if (text == null) {
      return Optional.empty();
    }
    String s = normalize(text);
    if (s.isEmpty()) {
      return Optional.empty();
    }
    ZonedDateTime exact = exact(s, zone);
    if (exact != null) {
      return Optional.of(exact);
    }
    Found f = find(s, zone);
    return f == null ? Optional.empty() : Optional.of(f.time());
  }

  /**
   * Like {@link #parse}, but only when the text is a timestamp and nothing more: a date, maybe a
   * time, a weekday, an offset, "on", "at", punctuation.
   */
  static Optional<ZonedDateTime> parseTimestamp(String text, ZoneId zone) {
    String s = normalize(text);
    if (s.isEmpty() || s.length() > MAX_TIMESTAMP_CHARS) {
      return Optional.empty();
    }
    ZonedDateTime exact = exact(s, zone);
    if (exact != null) {
      return Optional.of(exact);
    }
    Found f = find(s, zone);
    if (f == null || !FILLER.matcher(f.rest()).replaceAll("").isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(f.time());
  }

  private static String normalize(String text) {
    return text.replace('\u00a0', ' ').replace('：', ':').replace('，', ',').strip();
  }

  /** The whole text as one of the exact forms: epoch, ISO-8601, RFC 1123; else null. */
  private static ZonedDateTime exact(String s, ZoneId zone) {
    if (EPOCH.matcher(s).matches()) {
      long n = Long.parseLong(s);
      Instant i = s.length() == 13 ? Instant.ofEpochMilli(n) : Instant.ofEpochSecond(n);
      return i.atZone(zone);
    }
    String iso = ISO_WITH_SPACE.matcher(s).find() ? s.replaceFirst(" ", "T") : s;
    Instant instant = parsed(DateTimeFormatter.ISO_INSTANT, iso, Instant::from);
    if (instant != null) {
      return instant.atZone(zone);
    }
    OffsetDateTime offset =
        parsed(DateTimeFormatter.ISO_OFFSET_DATE_TIME, iso, OffsetDateTime::from);
    if (offset != null) {
      return offset.toZonedDateTime();
    }
    ZonedDateTime zoned = parsed(DateTimeFormatter.ISO_ZONED_DATE_TIME, iso, ZonedDateTime::from);
    if (zoned != null) {
      return zoned;
    }
    LocalDateTime local = parsed(DateTimeFormatter.ISO_LOCAL_DATE_TIME, iso, LocalDateTime::from);
    if (local != null) {
      return local.atZone(zone);
    }
    LocalDate date = parsed(DateTimeFormatter.ISO_LOCAL_DATE, iso, LocalDate::from);
    if (date != null) {
      return date.atStartOfDay(zone);
    }
    return parsed(DateTimeFormatter.RFC_1123_DATE_TIME, s, ZonedDateTime::from);
  }

  /**
   * What {@code format} reads from the whole of {@code text}, or null. Most texts are none of the
   * exact forms, and EndRun reads one per run: a miss is found without an exception thrown (six of
   * them a run, each filling in a stack trace, before).
   */
  private static <T> T parsed(DateTimeFormatter format, String text, TemporalQuery<T> query) {
    ParsePosition at = new ParsePosition(0);
    if (format.parseUnresolved(text, at) == null
        || at.getErrorIndex() >= 0
        || at.getIndex() < text.length()) {
      return null;
    }
    try {
      return format.parse(text, query);
    } catch (DateTimeException e) {
      return null; // read, but not a valid date (31 February)
    }
  }

  /** A date found in free text, with the time and offset beside it, and what was left. */
  private record Found(ZonedDateTime time, String rest) {}

  private static Found find(String s, ZoneId zone) {
    char[] work = s.toCharArray();
    LocalDate date = findDate(s, work);
    if (date == null) {
      return null;
    }
    String afterDate = new String(work);
    LocalTime time = null;
    ZoneId offset = null;
    for (Pattern p : List.of(CLOCK, HOUR_AM_PM, CHINESE_CLOCK)) {
      Matcher m = p.matcher(afterDate);
      if (m.find()) {
        time = time(p, m);
        if (time != null) {
          blank(work, m.start(), m.end());
          Matcher o = OFFSET.matcher(afterDate).region(m.end(), afterDate.length());
          if (o.lookingAt()) {
            offset = offset(o);
            if (offset != null) {
              blank(work, o.start(), o.end());
            }
          }
          break;
        }
      }
    }
    String rest = new String(work);
    Matcher z = ZONE_ID.matcher(rest);
    if (offset == null && z.find()) {
      try {
        offset = ZoneId.of(z.group());
        blank(work, z.start(), z.end());
      } catch (DateTimeException e) {
        // not a zone: left in the text
      }
    }
    ZonedDateTime at =
        ZonedDateTime.of(
            date, time == null ? LocalTime.MIDNIGHT : time, offset != null ? offset : zone);
    return new Found(at, new String(work));
  }

  private static LocalDate findDate(String s, char[] work) {
    Matcher m = YEAR_MONTH_DAY.matcher(s);
    if (m.find()) {
      return date(work, m, m.group(1), m.group(2), m.group(3));
    }
    m = DAY_MONTH_YEAR.matcher(s);
    if (m.find()) {
      return date(work, m, m.group(3), String.valueOf(month(m.group(2))), m.group(1));
    }
    m = MONTH_DAY_YEAR.matcher(s);
    if (m.find()) {
      return date(work, m, m.group(3), String.valueOf(month(m.group(1))), m.group(2));
    }
    m = NUMERIC_DATE.matcher(s);
    if (m.find()) {
      int a = Integer.parseInt(m.group(1));
      int b = Integer.parseInt(m.group(3));
      // 5/8/2023 is May 8 (the month first, as in the US) unless 13/8/2023; 8.5.2023 is 8 May.
      boolean dayFirst = m.group(2).equals(".") ? b <= 12 : a > 12;
      String day = String.valueOf(dayFirst ? a : b);
      String month = String.valueOf(dayFirst ? b : a);
      return date(work, m, m.group(4), month, day);
    }
    return null;
  }

  private static LocalDate date(char[] work, Matcher m, String y, String mo, String d) {
    try {
      LocalDate date = LocalDate.of(Integer.parseInt(y), Integer.parseInt(mo), Integer.parseInt(d));
      blank(work, m.start(), m.end());
      return date;
    } catch (DateTimeException | NumberFormatException e) {
      return null;
    }
  }

  private static LocalTime time(Pattern p, Matcher m) {
    int hour;
    int minute = 0;
    int second = 0;
    String part = null;
    String amPm = null;
    if (p == CLOCK) {
      part = m.group(1);
      hour = Integer.parseInt(m.group(2));
      minute = Integer.parseInt(m.group(3));
      second = m.group(4) == null ? 0 : Integer.parseInt(m.group(4));
      amPm = m.group(5);
    } else if (p == HOUR_AM_PM) {
      hour = Integer.parseInt(m.group(1));
      amPm = m.group(2);
    } else {
      part = m.group(1);
      hour = Integer.parseInt(m.group(2));
      minute = m.group(4) != null ? 30 : m.group(3) == null ? 0 : Integer.parseInt(m.group(3));
    }
    if (amPm != null) {
      if (hour < 1 || hour > 12) {
        return null;
      }
      boolean pm = amPm.equalsIgnoreCase("p");
      hour = hour % 12 + (pm ? 12 : 0);
    } else if (part != null && hour < 12) {
      hour +=
          switch (part) {
            case "下午", "晚上", "傍晚", "夜里" -> 12;
            case "中午" -> hour < 11 ? 12 : 0;
            default -> 0;
          };
    }
    if (hour > 23 || minute > 59 || second > 59) {
      return null;
    }
    return LocalTime.of(hour, minute, second);
  }

  private static ZoneId offset(Matcher o) {
    try {
      if (o.group(1) != null) {
        return ZoneOffset.UTC;
      }
      if (o.group(4) != null) {
        return ZoneOffset.of(o.group(4) + ":" + (o.group(5) == null ? "00" : o.group(5)));
      }
      if (o.group(2) != null) {
        String h = o.group(2);
        String sign = h.substring(0, 1);
        String digits = h.substring(1);
        return ZoneOffset.of(
            sign
                + (digits.length() == 1 ? "0" + digits : digits)
                + ":"
                + (o.group(3) == null ? "00" : o.group(3)));
      }
      return ZoneOffset.UTC; // "UTC", "GMT"
    } catch (DateTimeException e) {
      return null;
    }
  }

  /** 1..12 for an English month name or its first three letters (any case); December otherwise. */
  public static int month(String name) {
    return switch (name.toLowerCase(Locale.ROOT).substring(0, 3)) {
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

  private static void blank(char[] work, int start, int end) {
    for (int i = start; i < end; i++) {
      work[i] = ' ';
    }
  }

  // ---------------------------------------------------------------------------------------------
  // The input's leading timestamp

  /** Where the leading timestamp of an input ends, and the time it names. */
  private record Prefix(int end, ZonedDateTime time) {}

  /** The patterns of a leading timestamp, built on first use (they read every language). */
  private static final class Prefixes {
    /** The labels of a timestamp: "session date", "date", "time", "日期", of every language. */
    static final String LABELS =
        Languages.all().stream()
            .map(l -> l.extraction().transcript().headerLabels())
            .filter(l -> !l.isEmpty())
            .collect(Collectors.joining("|"));

    static final Pattern BRACKETED =
        Pattern.compile(
            "^\\s*[\\[【]\\s*(?:(?i:"
                + LABELS
                + ")\\s*[:：=]\\s*)?([^\\[\\]【】\\n]{4,"
                + MAX_TIMESTAMP_CHARS
                + "}?)\\s*[\\]】][ \\t]*(?:[-–—:：][ \\t]*)?");
    static final Pattern LABELLED_LINE =
        Pattern.compile(
            "^\\s*(?i:"
                + LABELS
                + ")\\s*[:：]\\s*([^\\n]{4,"
                + MAX_TIMESTAMP_CHARS
                + "}?)[ \\t]*\\n");
  }

  private static Prefix prefix(String input, ZoneId zone) {
    for (Pattern p : List.of(Prefixes.BRACKETED, Prefixes.LABELLED_LINE)) {
      Matcher m = p.matcher(input);
      if (m.lookingAt()) {
        Optional<ZonedDateTime> t = parseTimestamp(m.group(1), zone);
        if (t.isPresent()) {
          int end = m.end();
          while (end < input.length() && Character.isWhitespace(input.charAt(end))) {
            end++;
          }
          return new Prefix(end, t.get());
        }
      }
    }
    return null;
  }
}
