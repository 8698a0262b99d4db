package dev.memsidecar.language.dedupe;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.language.Terms;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The canonical tokens of a text: what names one thing exactly, whatever the wording around it and
 * whatever language that wording is in:
 *
 * <ul>
 *   <li>command lines: a backticked span, or a line of a fenced block, with a space or one of
 *       {@code / : = . _ @ -} in it (a lone word such as {@code `pytest`} is not one); a line that
 *       is a command of a known CLI ({@code npm npx yarn pnpm bun mvn gradle ./gradlew make kubectl
 *       helm docker git pip uv python cargo go java node bash sh curl terraform ...}); a known CLI
 *       inside a sentence when an argument that looks like one follows ({@code check:rules}, {@code
 *       -n}, {@code ./x}, {@code a.py}), or {@code npm|yarn|pnpm|bun run <script>}. Whitespace
 *       collapsed, trailing punctuation dropped, lower-cased;
 *   <li>ALL_CAPS identifiers with an underscore or a digit, 3+ characters ({@code
 *       EASYNET_USER_MEMORY_9137}), kept as written; an assignment also gives {@code NAME=value},
 *       so {@code LOG_LEVEL=debug} and {@code LOG_LEVEL=info} differ;
 *   <li>URLs ({@code http(s)://...}) and e-mail addresses, lower-cased.
 * </ul>
 *
 * <p>Two memories that share a canonical token are about one thing ({@link MemoryComparison}); a
 * candidate with one is never a fragment (the low-value filter). Stateless and thread-safe.
 */
public final class CanonicalTokens {
  private static final Set<String> CLIS =
      Set.of(
          ("npm npx yarn pnpm bun deno node mvn ./mvnw mvnw gradle ./gradlew gradlew make kubectl"
                  + " helm docker docker-compose podman git gh pip pip3 uv poetry python python3"
                  + " cargo rustup go java dotnet bash sh zsh curl wget terraform ansible psql")
              .split(" "));

  private static final Set<String> SCRIPT_RUNNERS = Set.of("npm", "yarn", "pnpm", "bun");

  private static final Pattern BACKTICKS =
      Pattern.compile(
          "(?m)^[ \\t]*```[^\\n`]*+\\n(.*?)(?:^[ \\t]*```|\\z)|`([^`\\n]++)`", Pattern.DOTALL);
  private static final Pattern URL =
      Pattern.compile("(?i)\\bhttps?://[^\\s<>\"'`\\u3000-\\u303F\\uFF00-\\uFFEF]+");
  private static final Pattern EMAIL =
      Pattern.compile(
          "(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]++@[A-Za-z0-9-]++(?:\\.[A-Za-z0-9-]++){0,8}"
              + "(?<=\\.[A-Za-z]{2,63})");
  private static final Pattern ARG = Pattern.compile("[A-Za-z0-9:/._=@+%~,*-]+");
  private static final Pattern WORD = Pattern.compile("[a-z][a-z0-9-]*");
  private static final String TRAILING = ".,;:!?)]}'\"";
  static final Pattern SPACES = Pattern.compile("\\s+");

  private CanonicalTokens() {}

  /** A canonical token and where it is in the text. */
  record Span(int start, int end, String token) {}

  /**
   * The canonical tokens of {@code text}, in order of appearance, without duplicates: commands,
   * ALL_CAPS identifiers, URLs and e-mail addresses (see the class description).
   */
  public static Set<String> of(String text) {
    requireNonNull(text, "text is null");
    Set<String> out = new LinkedHashSet<>();
    for (Span s : spans(text)) {
      out.add(s.token());
    }
    return out;
  }

  static List<Span> spans(String text) {
    List<Span> out = new ArrayList<>();
    char[] plain = text.toCharArray();
    Matcher m = BACKTICKS.matcher(text);
    while (text.indexOf('`') >= 0 && m.find()) {
      if (m.group(1) != null) {
        int offset = m.start(1);
        for (String line : m.group(1).split("\n", -1)) {
          String token = spanToken(line);
          if (token != null) {
            out.add(new Span(offset, offset + line.length(), token));
          }
          offset += line.length() + 1;
        }
      } else {
        String token = spanToken(m.group(2));
        if (token != null) {
          out.add(new Span(m.start(), m.end(), token));
        }
      }
      blank(plain, m.start(), m.end());
    }
    char[] noLinks = text.toCharArray();
    m = URL.matcher(text);
    boolean links = text.contains("://");
    while (links && m.find()) {
      String url = trimTrailing(m.group());
      out.add(new Span(m.start(), m.start() + url.length(), url.toLowerCase(Locale.ROOT)));
      blank(noLinks, m.start(), m.end());
    }
    String noUrls = new String(noLinks);
    m = EMAIL.matcher(noUrls);
    while (noUrls.indexOf('@') >= 0 && m.find()) {
      out.add(new Span(m.start(), m.end(), m.group().toLowerCase(Locale.ROOT)));
      blank(noLinks, m.start(), m.end());
    }
    String linkless = new String(noLinks);
    for (int[] w : wordRuns(linkless)) {
      String caps = linkless.substring(w[0], w[1]);
      if (isCapsToken(caps)) {
        out.add(new Span(w[0], w[1], caps));
        // An assignment names a setting and its value: LOG_LEVEL=debug is not LOG_LEVEL=info.
        if (w[1] + 1 < linkless.length() && linkless.charAt(w[1]) == '=') {
          int end = w[1] + 1;
          while (end < linkless.length() && !Character.isWhitespace(linkless.charAt(end))) {
            end++;
          }
          String value = trimTrailing(linkless.substring(w[1] + 1, end));
          if (!value.isEmpty()) {
            out.add(new Span(w[0], w[1] + 1 + value.length(), caps + "=" + value));
          }
        }
      }
    }
    commands(new String(plain), out);
    out.sort((a, b) -> Integer.compare(a.start(), b.start()));
    return out;
  }

  /** Start and end of each run of letters, digits and underscores. */
  static List<int[]> wordRuns(String s) {
    List<int[]> out = new ArrayList<>();
    int i = 0;
    while (i < s.length()) {
      while (i < s.length() && !isWordChar(s.charAt(i))) {
        i++;
      }
      int start = i;
      while (i < s.length() && isWordChar(s.charAt(i))) {
        i++;
      }
      if (i > start) {
        out.add(new int[] {start, i});
      }
    }
    return out;
  }

  private static boolean isWordChar(char c) {
    return c == '_' || Character.isLetterOrDigit(c);
  }

  private static boolean isVisibleAscii(char c) {
    return c >= 0x21 && c <= 0x7E;
  }

  static boolean isCapsToken(String s) {
    if (s.length() < 3 || s.charAt(0) < 'A' || s.charAt(0) > 'Z' || s.endsWith("_")) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (!(c >= 'A' && c <= 'Z') && !(c >= '0' && c <= '9') && c != '_') {
        return false;
      }
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '_' || (c >= '0' && c <= '9')) {
        return true;
      }
    }
    return false;
  }

  /** The token a backticked span or fenced line stands for, or null when it is not one. */
  private static String spanToken(String raw) {
    String s = raw.strip();
    if (s.startsWith("$ ") || s.startsWith("> ")) {
      s = s.substring(2).strip();
    }
    s = trimTrailing(SPACES.matcher(s).replaceAll(" "));
    if (s.isEmpty() || s.startsWith("#") || s.startsWith("//")) {
      return null;
    }
    if (isCapsToken(s)) {
      return s;
    }
    boolean letter = false;
    boolean shaped = false;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      letter |= Character.isLetter(c);
      shaped |= c == ' ' || "/:=._@-".indexOf(c) >= 0;
    }
    return letter && shaped && s.length() >= 3 ? s.toLowerCase(Locale.ROOT) : null;
  }

  /** Known-CLI command lines outside backticks: whole lines and in-sentence commands. */
  private static void commands(String plain, List<Span> out) {
    int lineStart = 0;
    while (lineStart <= plain.length()) {
      int lineEnd = plain.indexOf('\n', lineStart);
      if (lineEnd < 0) {
        lineEnd = plain.length();
      }
      String line = plain.substring(lineStart, lineEnd);
      List<int[]> runs = new ArrayList<>();
      for (int k = 0; k < line.length(); ) {
        while (k < line.length() && !isVisibleAscii(line.charAt(k))) {
          k++;
        }
        int start = k;
        while (k < line.length() && isVisibleAscii(line.charAt(k))) {
          k++;
        }
        if (k > start) {
          runs.add(new int[] {start, k});
        }
      }
      for (int i = 0; i < runs.size(); i++) {
        String cli = tokenAt(line, runs.get(i));
        if (cli.startsWith("(")) {
          cli = cli.substring(1);
        }
        if (!CLIS.contains(cli)) {
          continue;
        }
        String before = line.substring(0, runs.get(i)[0]).strip();
        boolean atLineStart = before.isEmpty() || before.equals("$") || before.equals(">");
        List<String> parts = new ArrayList<>();
        parts.add(cli);
        boolean arg = cli.contains("/");
        int j = i + 1;
        int end = runs.get(i)[1];
        boolean stop = false;
        while (j < runs.size() && !stop) {
          String raw = tokenAt(line, runs.get(j));
          String t = trimTrailing(raw);
          if (t.isEmpty()) {
            break;
          }
          stop = !t.equals(raw);
          String prev = parts.get(parts.size() - 1);
          boolean argLike = ARG.matcher(t).matches() && hasShape(t);
          boolean flagValue =
              prev.startsWith("-") && WORD.matcher(t).matches() && !Terms.isStopword(t);
          boolean word = j - i <= 2 && WORD.matcher(t).matches() && !Terms.isStopword(t);
          boolean script =
              parts.size() == 2
                  && SCRIPT_RUNNERS.contains(cli)
                  && parts.get(1).equals("run")
                  && WORD.matcher(t.replace(':', '-')).matches();
          if (argLike || script) {
            arg = true;
          } else if (!flagValue && !word) {
            break;
          }
          parts.add(t);
          end = runs.get(j)[0] + t.length();
          j++;
        }
        boolean wholeLine = atLineStart && j == runs.size() && parts.size() >= 2;
        if (parts.size() >= 2 && (arg || wholeLine)) {
          String token = String.join(" ", parts).toLowerCase(Locale.ROOT);
          out.add(new Span(lineStart + runs.get(i)[0], lineStart + end, token));
          i = j - 1;
        }
      }
      lineStart = lineEnd + 1;
    }
  }

  private static String tokenAt(String line, int[] run) {
    return line.substring(run[0], run[1]);
  }

  private static boolean hasShape(String t) {
    for (int i = 0; i < t.length(); i++) {
      if (":/._=@+%~*-".indexOf(t.charAt(i)) >= 0) {
        return true;
      }
    }
    return false;
  }

  static String trimTrailing(String s) {
    int end = s.length();
    while (end > 0 && TRAILING.indexOf(s.charAt(end - 1)) >= 0) {
      if (s.charAt(end - 1) == ')' && s.lastIndexOf('(', end - 1) >= 0) {
        break;
      }
      end--;
    }
    return s.substring(0, end);
  }

  static void blank(char[] chars, int start, int end) {
    for (int i = start; i < end; i++) {
      if (chars[i] != '\n') {
        chars[i] = ' ';
      }
    }
  }
}
