package dev.memsidecar.language;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Splits a turn into sentences: after {@code . ! ?} (and their runs) followed by a space, after
 * {@code 。！？；}, and at line breaks. Code spans, quoted text, URLs and e-mail addresses are never
 * split ({@link ProtectedSpans}), nor the abbreviations of any language ({@code e.g.}, {@code Dr.}:
 * {@link Language#abbreviations}) or a capital initial ({@code J. Smith}). A fenced code block is
 * one sentence of its lines joined with {@code "; "}. The one sentence splitter of the module, for
 * text in any language. Stateless and thread-safe.
 */
public final class Sentences {
  private Sentences() {}

  private static final Pattern FENCE =
      Pattern.compile("```[\\w-]*\\n(.*?)(?:\\n)?```", Pattern.DOTALL);

  /** A word ending in an abbreviation's dot, or in a capital initial's. */
  private static final Pattern ABBREVIATION = abbreviations();

  private static Pattern abbreviations() {
    String words =
        Languages.all().stream()
            .flatMap(l -> l.abbreviations().stream())
            .map(Pattern::quote)
            .collect(Collectors.joining("|"));
    String initial = "\\b(?-i:\\p{Lu})";
    return Pattern.compile(
        "(?i)(?:" + (words.isEmpty() ? "" : "\\b(?:" + words + ")|") + initial + ")\\.$");
  }

  /** The sentences of {@code text}, stripped, none empty. */
  public static List<String> split(String text) {
    List<String> saved = new ArrayList<>();
    String masked = maskFences(text, saved);
    masked = ProtectedSpans.mask(masked, saved);
    List<String> out = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    int n = masked.length();
    for (int i = 0; i < n; i++) {
      char c = masked.charAt(i);
      if (c == '\n') {
        emit(current, out, saved);
        continue;
      }
      current.append(c);
      if (c == '。' || c == '！' || c == '？' || c == '；' || c == '…' && isCjkBefore(masked, i)) {
        while (i + 1 < n && isClosing(masked.charAt(i + 1))) {
          current.append(masked.charAt(++i));
        }
        emit(current, out, saved);
      } else if (c == '.' || c == '!' || c == '?') {
        while (i + 1 < n
            && (".!?".indexOf(masked.charAt(i + 1)) >= 0 || isClosing(masked.charAt(i + 1)))) {
          current.append(masked.charAt(++i));
        }
        boolean boundary = i + 1 >= n || Character.isWhitespace(masked.charAt(i + 1));
        if (boundary && !(c == '.' && isAbbreviation(current))) {
          emit(current, out, saved);
        }
      }
    }
    emit(current, out, saved);
    return out;
  }

  /** Whether the text ends in an abbreviation's dot ("e.g.", "Dr."): looks at its last word. */
  private static boolean isAbbreviation(StringBuilder current) {
    int i = current.length();
    while (i > 0 && !Character.isWhitespace(current.charAt(i - 1))) {
      i--;
    }
    return ABBREVIATION.matcher(current.substring(i)).find();
  }

  private static boolean isCjkBefore(String s, int i) {
    return i > 0 && Scripts.isCjk(s.codePointBefore(i));
  }

  private static boolean isClosing(char c) {
    return c == '"' || c == '\'' || c == ')' || c == '”' || c == '’' || c == '）' || c == '」';
  }

  private static void emit(StringBuilder current, List<String> out, List<String> saved) {
    String s = ProtectedSpans.unmask(current.toString(), saved).strip();
    current.setLength(0);
    if (!s.isEmpty()) {
      out.add(s);
    }
  }

  private static String maskFences(String text, List<String> saved) {
    Matcher m = FENCE.matcher(text);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      List<String> lines = new ArrayList<>();
      for (String line : m.group(1).split("\n")) {
        String l = line.strip();
        if (l.startsWith("$ ")) {
          l = l.substring(2).strip();
        }
        if (!l.isEmpty() && !l.startsWith("#")) {
          lines.add("`" + l.replace("`", "") + "`");
        }
      }
      saved.add(String.join("; ", lines));
      m.appendReplacement(out, "\n\uE000" + (saved.size() - 1) + "\uE001\n");
    }
    m.appendTail(out);
    return out.toString();
  }
}
