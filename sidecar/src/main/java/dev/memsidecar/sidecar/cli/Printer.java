package dev.memsidecar.sidecar.cli;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageOrBuilder;
import com.google.protobuf.Timestamp;
import com.google.protobuf.util.JsonFormat;
import java.io.PrintWriter;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * What a client command prints: tables for people (columns padded, long text cut to fit a line), or
 * with {@code --json} each message as one line of JSON in the contract's JSON mapping (field names
 * in lowerCamelCase, enums by name), for scripts.
 */
final class Printer {
  /** Widest a text column gets in a table before it is cut with an ellipsis. */
  static final int TEXT_WIDTH = 72;

  private static final JsonFormat.Printer JSON =
      JsonFormat.printer().omittingInsignificantWhitespace();
  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm", Locale.ROOT).withZone(ZoneId.systemDefault());

  private final PrintWriter out;
  private final boolean json;

  Printer(PrintWriter out, boolean json) {
    this.out = out;
    this.json = json;
  }

  boolean json() {
    return json;
  }

  /** One message as a JSON line. */
  void json(MessageOrBuilder message) {
    try {
      out.println(JSON.print(message));
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("cannot print " + message.getClass().getSimpleName(), e);
    }
    out.flush();
  }

  void line(String text) {
    out.println(text);
    out.flush();
  }

  /** {@code items} as JSON lines, or as a table of {@code header} and a row per item. */
  <T extends MessageOrBuilder> void list(
      List<T> items, List<String> header, Function<T, List<String>> row) {
    if (json) {
      items.forEach(this::json);
    } else {
      table(header, items.stream().map(row).toList());
    }
  }

  /** A table: a header row, then the rows, each column as wide as its widest cell. */
  void table(List<String> header, List<List<String>> rows) {
    if (rows.isEmpty()) {
      line("(none)");
      return;
    }
    List<List<String>> all = new ArrayList<>();
    all.add(header);
    all.addAll(rows);
    int[] width = new int[header.size()];
    for (List<String> row : all) {
      for (int c = 0; c < row.size(); c++) {
        width[c] = Math.max(width[c], row.get(c).length());
      }
    }
    for (List<String> row : all) {
      StringBuilder b = new StringBuilder();
      for (int c = 0; c < row.size(); c++) {
        String cell = row.get(c);
        b.append(cell);
        if (c < row.size() - 1) {
          b.append(" ".repeat(width[c] - cell.length() + 2));
        }
      }
      out.println(b.toString().stripTrailing());
    }
    out.flush();
  }

  /** {@code text} on one line, cut to {@link #TEXT_WIDTH} characters. */
  static String cut(String text) {
    String one = text.strip().replaceAll("\\s+", " ");
    return one.length() <= TEXT_WIDTH ? one : one.substring(0, TEXT_WIDTH - 1) + "…";
  }

  static String time(Timestamp t) {
    if (t.getSeconds() == 0 && t.getNanos() == 0) {
      return "-";
    }
    return TIME.format(Instant.ofEpochSecond(t.getSeconds(), t.getNanos()));
  }

  static String score(float s) {
    return String.format(Locale.ROOT, "%.3f", s);
  }

  /** An enum's name without its type prefix, lower case: MEMORY_KIND_SEMANTIC reads "semantic". */
  static String name(Enum<?> value, String prefix) {
    String n = value.name();
    return (n.startsWith(prefix) ? n.substring(prefix.length()) : n).toLowerCase(Locale.ROOT);
  }
}
