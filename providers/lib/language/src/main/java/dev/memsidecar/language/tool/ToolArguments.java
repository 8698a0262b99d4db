package dev.memsidecar.language.tool;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The arguments of one tool call, read once and matched against many rules' objects ({@link
 * ToolCallMatcher}). Built from the call's JSON value as already parsed ({@link #of}: this module
 * has no JSON parser) or, when the arguments were not one well-formed JSON value, from the raw text
 * ({@link #malformed}).
 *
 * <p>What is looked at: every string, number and boolean value, and every object key, lower-cased
 * ({@link Locale#ROOT}), each with the name of the field it sits in (array elements take the
 * array's field); an array of two strings or more also gives its elements joined by spaces (so
 * {@code ["git","push","--force"]} reads as a command). The value of a field named subject, body,
 * text, content, message, html, description, summary, title, notes, comment, caption, prompt (or
 * ending in body, _text, content, message) is free text, where a name does not count (see {@link
 * ToolCallMatcher}). These field names are the conventions of tool schemas, not words of a language
 * the user speaks. For acts ({@link ToolActions}) the values are also read as command lines ({@link
 * ShellCommands}; an array of strings as one argument vector), statements, code (fields code,
 * script, source, ...) and operations (one-word values of fields command, action, op, ...).
 *
 * <p>Not safe for use by several threads at once: it computes what it needs on first use.
 */
public final class ToolArguments {
  private static final Set<String> FREE_TEXT_KEYS =
      Set.of(
          ("subject body text content message msg html description summary title notes note "
                  + "comment comments caption prompt markdown snippet plaintext plain_text")
              .split(" "));
  private static final String[] FREE_TEXT_SUFFIXES = {"body", "_text", "content", "message"};

  /**
   * One value (or key) of the arguments, lower-cased, with the field it sits in; {@code name} for a
   * key; {@code element} for an element of an array; {@code argv} the words of an array of strings
   * (its joined leaf), else null.
   */
  record Leaf(
      String key,
      String text,
      boolean freeText,
      boolean joined,
      boolean name,
      boolean element,
      List<String> argv) {
    Leaf(String key, String text, boolean freeText, boolean joined) {
      this(key, text, freeText, joined, false, false, null);
    }
  }

  /** Fields whose value may be one command word ({@code {"command":"ls"}}). */
  private static final Set<String> COMMAND_KEYS =
      Set.of(
          "",
          "command",
          "cmd",
          "commands",
          "script",
          "shell",
          "run",
          "exec",
          "line",
          "input",
          "args",
          "argv",
          "arguments",
          "program",
          "code");

  /** Fields whose value is code of a programming language. */
  private static final Set<String> CODE_KEYS =
      Set.of("code", "script", "source", "src", "program", "python", "js", "javascript", "cell");

  final List<Leaf> leaves;
  private final boolean malformed;
  private Set<String> emails;
  private String[] pathTexts;
  private List<String[]> commands;
  private List<ShellCommands.Command> shellCommands;
  private Set<String> operations;

  private ToolArguments(List<Leaf> leaves, boolean malformed) {
    this.leaves = leaves;
    this.malformed = malformed;
  }

  /** No arguments (a blank {@code arguments_json}): only a rule without objects matches. */
  public static ToolArguments none() {
    return new ToolArguments(List.of(), false);
  }

  /**
   * The arguments of a well-formed JSON value, given in the usual Java form of one: a {@code
   * Map<String, ?>} for an object (in document order), a {@code List<?>} for an array, a {@link
   * String}, {@link Number} or {@link Boolean}, or null for JSON null (which gives no leaf).
   *
   * @throws IllegalArgumentException if {@code json} holds anything else
   */
  public static ToolArguments of(Object json) {
    List<Leaf> leaves = new ArrayList<>();
    walk(json, "", leaves);
    return new ToolArguments(List.copyOf(leaves), false);
  }

  /**
   * Arguments that were not one well-formed JSON value: the whole raw text is one leaf, matched
   * like any other, and {@link #malformed()} says so. Malformed arguments never skip a check.
   */
  public static ToolArguments malformed(String raw) {
    return new ToolArguments(
        List.of(new Leaf("", raw.toLowerCase(Locale.ROOT), false, false)), true);
  }

  /**
   * True when the arguments were not one well-formed JSON value (they were then matched as one raw
   * string).
   */
  public boolean malformed() {
    return malformed;
  }

  private static void walk(Object node, String key, List<Leaf> out) {
    walk(node, key, false, out);
  }

  private static void walk(Object node, String key, boolean inArray, List<Leaf> out) {
    if (node instanceof Map<?, ?> object) {
      for (Map.Entry<?, ?> field : object.entrySet()) {
        String name = String.valueOf(field.getKey()).toLowerCase(Locale.ROOT);
        out.add(new Leaf("", name, false, false, true, false, null));
        walk(field.getValue(), name, out);
      }
    } else if (node instanceof List<?> array) {
      boolean allText = array.size() >= 2;
      for (Object element : array) {
        walk(element, key, true, out);
        allText &= element instanceof String;
      }
      if (allText) {
        StringBuilder joined = new StringBuilder();
        List<String> argv = new ArrayList<>();
        for (Object element : array) {
          if (!joined.isEmpty()) {
            joined.append(' ');
          }
          joined.append((String) element);
          argv.add(((String) element).toLowerCase(Locale.ROOT));
        }
        out.add(
            new Leaf(
                key,
                joined.toString().toLowerCase(Locale.ROOT),
                false,
                true,
                false,
                false,
                List.copyOf(argv)));
      }
    } else if (node instanceof String text) {
      out.add(
          new Leaf(
              key, text.toLowerCase(Locale.ROOT), isFreeText(key), false, false, inArray, null));
    } else if (node instanceof Number || node instanceof Boolean) {
      out.add(new Leaf(key, String.valueOf(node).toLowerCase(Locale.ROOT), false, false));
    } else if (node != null) {
      throw new IllegalArgumentException(
          "not a JSON value in Java form: " + node.getClass().getName());
    }
  }

  private static boolean isFreeText(String key) {
    if (FREE_TEXT_KEYS.contains(key)) {
      return true;
    }
    for (String suffix : FREE_TEXT_SUFFIXES) {
      if (key.endsWith(suffix)) {
        return true;
      }
    }
    return false;
  }

  /** One value as text (a command a rule's other objects are matched in): one leaf. */
  static ToolArguments ofText(String text) {
    return new ToolArguments(List.of(new Leaf("", text, false, false)), false);
  }

  // ---------------------------------------------------------------- what the objects look for

  /**
   * The commands the values would run as command lines ({@link ShellCommands}): every value that is
   * not free text or a key and holds a space (one word only in a command-like field such as {@code
   * command}), each array of strings as one argument vector, and the commands inline code starts in
   * a code field.
   */
  List<ShellCommands.Command> shellCommands() {
    if (shellCommands == null) {
      List<ShellCommands.Command> found = new ArrayList<>();
      for (Leaf leaf : leaves) {
        if (leaf.freeText() || leaf.name()) {
          continue;
        }
        if (leaf.argv() != null) {
          found.addAll(ShellCommands.ofArgv(leaf.argv()));
        } else if (!leaf.joined()
            && ((COMMAND_KEYS.contains(leaf.key()) && !leaf.element()) || hasSpace(leaf.text()))) {
          found.addAll(ShellCommands.of(leaf.text()));
        }
      }
      shellCommands = found;
    }
    return shellCommands;
  }

  /** The values of code fields ({@code code}, {@code script}, ...), as written (lower-cased). */
  List<String> codeTexts() {
    List<String> out = new ArrayList<>();
    for (Leaf leaf : leaves) {
      if (!leaf.name() && !leaf.joined() && CODE_KEYS.contains(leaf.key())) {
        out.add(leaf.text());
      }
    }
    return out;
  }

  /** The values that are neither free text nor keys: where statements are looked for. */
  List<String> valueTexts() {
    List<String> out = new ArrayList<>();
    for (Leaf leaf : leaves) {
      if (!leaf.freeText() && !leaf.name() && !leaf.joined()) {
        out.add(leaf.text());
      }
    }
    return out;
  }

  /**
   * The one-word values of operation fields ({@code {"op":"delete"}}: delete); see {@link
   * ToolActions#OPERATION_KEYS}.
   */
  Set<String> operations() {
    if (operations == null) {
      Set<String> found = new HashSet<>();
      for (Leaf leaf : leaves) {
        String t = leaf.text().strip();
        if (!leaf.name()
            && !leaf.joined()
            && ToolActions.OPERATION_KEYS.contains(leaf.key())
            && !t.isEmpty()
            && !hasSpace(t)) {
          found.add(t);
        }
      }
      operations = found;
    }
    return operations;
  }

  private static boolean hasSpace(String t) {
    for (int i = 0; i < t.length(); i++) {
      if (Character.isWhitespace(t.charAt(i))) {
        return true;
      }
    }
    return false;
  }

  Set<String> emails() {
    if (emails == null) {
      Set<String> found = new HashSet<>();
      for (Leaf leaf : leaves) {
        if (!leaf.joined()) {
          addEmails(leaf.text(), found);
        }
      }
      emails = found;
    }
    return emails;
  }

  String pathText(int i) {
    if (pathTexts == null) {
      pathTexts = new String[leaves.size()];
    }
    if (pathTexts[i] == null) {
      String text = leaves.get(i).text();
      pathTexts[i] =
          text.indexOf('\\') < 0 && !text.contains("//") && !text.contains("/./")
              ? text
              : RuleObjects.path(text);
    }
    return pathTexts[i];
  }

  List<String[]> commands() {
    if (commands == null) {
      List<String[]> found = new ArrayList<>();
      for (Leaf leaf : leaves) {
        addCommands(leaf.text(), found);
      }
      commands = found;
    }
    return commands;
  }

  /** A character of an address's local part as people write them (not all RFC 5322 allows). */
  private static boolean isLocalChar(char c) {
    return RuleObjects.isAsciiLetterOrDigit(c) || "._%+-'".indexOf(c) >= 0;
  }

  static boolean isHostChar(char c) {
    return RuleObjects.isAsciiLetterOrDigit(c) || c == '-';
  }

  private static void addEmails(String text, Set<String> out) {
    for (int at = text.indexOf('@'); at >= 0; at = text.indexOf('@', at + 1)) {
      int start = at;
      while (start > 0 && isLocalChar(text.charAt(start - 1))) {
        start--;
      }
      while (start < at && (text.charAt(start) == '.' || text.charAt(start) == '\'')) {
        start++;
      }
      int end = at + 1;
      while (end < text.length() && (isHostChar(text.charAt(end)) || text.charAt(end) == '.')) {
        end++;
      }
      while (end > at + 1 && (text.charAt(end - 1) == '.' || text.charAt(end - 1) == '-')) {
        end--;
      }
      if (start < at && end > at + 1 && RuleObjects.isHost(text.substring(at + 1, end))) {
        out.add(RuleObjects.email(text.substring(start, end)));
      }
    }
  }

  private static void addCommands(String text, List<String[]> out) {
    List<String> words = new ArrayList<>();
    StringBuilder word = new StringBuilder();
    for (int i = 0; i <= text.length(); i++) {
      char c = i < text.length() ? text.charAt(i) : '\n';
      if (";|&\n\r()`{}".indexOf(c) >= 0) {
        flushWord(word, words);
        if (!words.isEmpty()) {
          out.add(words.toArray(String[]::new));
          words.clear();
        }
      } else if (Character.isWhitespace(c)) {
        flushWord(word, words);
      } else if (c != '"' && c != '\'') {
        word.append(c);
      }
    }
  }

  static void flushWord(StringBuilder word, List<String> words) {
    if (!word.isEmpty()) {
      words.add(word.toString());
      word.setLength(0);
    }
  }
}
