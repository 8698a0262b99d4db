package dev.memsidecar.language.prohibition;

import dev.memsidecar.language.Scripts;
import dev.memsidecar.language.tool.RuleObjects;
import dev.memsidecar.language.tool.ToolActions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;

/**
 * Collects the objects of one prohibition from {@code s[from, to)} of a sentence: what every
 * language finds the same way (backticked code, e-mail addresses, URLs, paths, channels, handles,
 * hosts, file names, capitalised names) and what a language's rules add ({@link #addName}, {@link
 * #addCommand}, {@link #addTarget}). Each character is claimed by one object at most. Made by
 * {@link Prohibitions#objects}; for one prohibition on one thread.
 */
public final class ObjectScan {
  private static final String STOP_CHARS = "\"'<>()[]{}`，。；：！？、“”‘’";

  private final Prohibitions finder;
  private final String s;
  private final int from;
  private final int to;
  private final boolean[] used;
  private final List<String[]> found = new ArrayList<>(); // {order, value}
  private String implied = "";
  private int impliedOrder = Integer.MAX_VALUE;
  private boolean ranCommand;

  ObjectScan(Prohibitions finder, String s, int from, int to) {
    this.finder = finder;
    this.s = s;
    this.from = from;
    this.to = to;
    this.used = new boolean[s.length()];
  }

  /** The sentence scanned. */
  public String text() {
    return s;
  }

  /** Where the scanned span starts in {@link #text()}. */
  public int from() {
    return from;
  }

  /** Where the scanned span ends (exclusive). */
  public int to() {
    return to;
  }

  private void add(int order, RuleObjects.Kind kind, String value) {
    if (value.isBlank()) {
      return;
    }
    String stored =
        RuleObjects.classify(value).kind() == kind
            ? value
            : kind.name().toLowerCase(Locale.ROOT) + ":" + value;
    found.add(new String[] {String.valueOf(order), stored});
    if (implied.isEmpty() || order < impliedOrder) {
      String noun =
          switch (kind) {
            case EMAIL -> "email";
            case PATH, FILE -> "file";
            case COMMAND -> "shell";
            case CHANNEL, HANDLE -> "message";
            case HOST -> value.contains("/") ? "browser" : "";
            case NAME -> "";
            case ACTION -> ToolActions.of(value).map(ToolActions.Action::noun).orElse("");
          };
      if (!noun.isEmpty()) {
        implied = noun;
        impliedOrder = order;
      }
    }
  }

  /** True when a command was found after run/execute/use, or in backticks after such a verb. */
  public boolean ranCommand() {
    return ranCommand;
  }

  /** The noun the first object implies: an address email, a path a file, a command the shell. */
  public String impliedNoun() {
    return implied;
  }

  /** Claims {@code [a, b)} for an object found there. */
  public void use(int a, int b) {
    for (int i = Math.max(a, 0); i < Math.min(b, used.length); i++) {
      used[i] = true;
    }
  }

  /** Whether no object claimed a character of {@code [a, b)} yet. */
  public boolean free(int a, int b) {
    for (int i = a; i < b; i++) {
      if (used[i]) {
        return false;
      }
    }
    return true;
  }

  /** The objects found, most precise kind first, each once. */
  public List<String> list() {
    found.sort(Comparator.comparingInt(a -> Integer.parseInt(a[0])));
    LinkedHashSet<String> out = new LinkedHashSet<>();
    for (String[] f : found) {
      out.add(f[1]);
    }
    return List.copyOf(out);
  }

  /** Whether a name is among the objects already. */
  public boolean hasName() {
    return found.stream().anyMatch(f -> f[0].equals(String.valueOf(order(RuleObjects.Kind.NAME))));
  }

  /** Adds a person's name the language's rules found ("张三", a recipient in lower case). */
  public void addName(String name, int a, int b) {
    add(order(RuleObjects.Kind.NAME), RuleObjects.Kind.NAME, name);
    use(a, b);
  }

  /** Adds a command the language's rules found after a verb that runs it ("run rm -rf /"). */
  public void addCommand(String command, int a, int b) {
    add(order(RuleObjects.Kind.COMMAND), RuleObjects.Kind.COMMAND, command);
    use(a, b);
    ranCommand = true;
  }

  /**
   * Adds an act the language's rules found ("to delete files": {@code delete-files}, a key of
   * {@link ToolActions#ACTIONS}), kept as {@code action:<key>}; {@code [a, b)} may be empty.
   */
  public void addAction(String key, int a, int b) {
    if (ToolActions.of(key).isEmpty()) {
      throw new IllegalArgumentException("no act " + key);
    }
    add(order(RuleObjects.Kind.ACTION), RuleObjects.Kind.ACTION, key);
    use(a, b);
  }

  /** Whether an act is among the objects already. */
  public boolean hasAction() {
    return found.stream().anyMatch(f -> f[1].startsWith("action:"));
  }

  /** `...` spans. */
  public void code() {
    for (int i = s.indexOf('`', from); i >= 0 && i < to; ) {
      int close = s.indexOf('`', i + 1);
      if (close < 0 || close >= to) {
        break;
      }
      String content = s.substring(i + 1, close).strip().toLowerCase(Locale.ROOT);
      if (!content.isEmpty()) {
        RuleObjects.Classified c = RuleObjects.classify(content);
        add(order(c.kind()), c.kind(), c.value());
        ranCommand |= c.kind() == RuleObjects.Kind.COMMAND && afterRunVerb(i);
      }
      use(i, close + 1);
      i = s.indexOf('`', close + 1);
    }
  }

  private boolean afterRunVerb(int i) {
    int e = i;
    while (e > 0 && Character.isWhitespace(s.charAt(e - 1))) {
      e--;
    }
    int b = e;
    while (b > 0 && Character.isLetter(s.charAt(b - 1))) {
      b--;
    }
    String word = s.substring(b, e).toLowerCase(Locale.ROOT);
    return b == e || finder.isRunVerb(word);
  }

  /** Addresses, URLs, paths, channels, handles, hosts and file names. */
  public void scan() {
    emails();
    urls();
    paths();
    tags();
    hosts();
  }

  private static boolean localChar(char c) {
    return RuleObjects.isAsciiLetterOrDigit(c) || "._%+-".indexOf(c) >= 0;
  }

  private void emails() {
    for (int at = s.indexOf('@', from); at >= 0 && at < to; at = s.indexOf('@', at + 1)) {
      if (used[at]) {
        continue;
      }
      int a = at;
      while (a > from && localChar(s.charAt(a - 1))) {
        a--;
      }
      while (a < at && s.charAt(a) == '.') {
        a++;
      }
      int b = at + 1;
      while (b < to
          && (RuleObjects.isAsciiLetterOrDigit(s.charAt(b))
              || s.charAt(b) == '.'
              || s.charAt(b) == '-')) {
        b++;
      }
      while (b > at + 1 && (s.charAt(b - 1) == '.' || s.charAt(b - 1) == '-')) {
        b--;
      }
      if (a < at && RuleObjects.isHost(s.substring(at + 1, b))) {
        add(
            order(RuleObjects.Kind.EMAIL),
            RuleObjects.Kind.EMAIL,
            RuleObjects.email(s.substring(a, b)));
        use(a, b);
      }
    }
  }

  private int urlEnd(int i) {
    int j = i;
    while (j < to
        && !Character.isWhitespace(s.charAt(j))
        && !Scripts.isHan(s.charAt(j))
        && STOP_CHARS.indexOf(s.charAt(j)) < 0) {
      j++;
    }
    while (j > i && ".,;:!?".indexOf(s.charAt(j - 1)) >= 0) {
      j--;
    }
    return j;
  }

  private void urls() {
    for (int i = from; i < to; i++) {
      if (used[i] || !(boundary(i))) {
        continue;
      }
      int scheme = -1;
      if (Character.isLetter(s.charAt(i))) {
        int k = i;
        while (k < to && (Character.isLetterOrDigit(s.charAt(k)) || s.charAt(k) == '+')) {
          k++;
        }
        if (s.startsWith("://", k)) {
          scheme = k;
        }
      }
      boolean www = s.regionMatches(true, i, "www.", 0, 4);
      if (scheme < 0 && !www) {
        continue;
      }
      int j = urlEnd(i);
      String url = s.substring(i, j).toLowerCase(Locale.ROOT);
      if (url.startsWith("file://")) {
        String path = RuleObjects.path(url.substring("file://".length()));
        add(order(RuleObjects.Kind.PATH), RuleObjects.Kind.PATH, path);
      } else {
        String host = RuleObjects.hostAndPath(url);
        int slash = host.indexOf('/');
        if (RuleObjects.isHost(slash < 0 ? host : host.substring(0, slash))) {
          add(order(RuleObjects.Kind.HOST), RuleObjects.Kind.HOST, host);
        }
      }
      use(i, j);
      i = j;
    }
  }

  private boolean boundary(int i) {
    if (i == 0) {
      return true;
    }
    char c = s.charAt(i - 1);
    return Character.isWhitespace(c) || Scripts.isHan(c) || "\"'(<[=:,;“‘（「`".indexOf(c) >= 0;
  }

  private void paths() {
    for (int i = from; i < to; i++) {
      if (used[i] || !boundary(i)) {
        continue;
      }
      char c = s.charAt(i);
      boolean start =
          c == '/'
              || (c == '~' && i + 1 < to && (s.charAt(i + 1) == '/' || s.charAt(i + 1) == '\\'))
              || (Character.isLetter(c)
                  && c < 128
                  && i + 2 < to
                  && s.charAt(i + 1) == ':'
                  && (s.charAt(i + 2) == '\\' || s.charAt(i + 2) == '/'))
              || s.startsWith("./", i)
              || s.startsWith("../", i);
      if (!start) {
        continue;
      }
      int j = urlEnd(i);
      String raw = s.substring(i, j);
      if (raw.length() < 2 || raw.equals("~/") || !free(i, j)) {
        i = Math.max(i, j - 1);
        continue;
      }
      String path = RuleObjects.path(raw);
      RuleObjects.Kind kind =
          RuleObjects.isAbsolutePath(path) ? RuleObjects.Kind.PATH : RuleObjects.Kind.FILE;
      add(order(kind), kind, path);
      use(i, j);
      i = j;
    }
  }

  private void tags() {
    for (int i = from; i < to; i++) {
      char c = s.charAt(i);
      if (used[i] || (c != '#' && c != '@') || !boundary(i)) {
        continue;
      }
      int j = i + 1;
      while (j < to
          && (Character.isLetterOrDigit(s.charAt(j)) || "_-.".indexOf(s.charAt(j)) >= 0)
          && !Scripts.isHan(s.charAt(j))) {
        j++;
      }
      while (j > i + 1 && ".-".indexOf(s.charAt(j - 1)) >= 0) {
        j--;
      }
      String tag = s.substring(i, j).toLowerCase(Locale.ROOT);
      if (tag.length() < 2 || tag.substring(1).chars().allMatch(Character::isDigit)) {
        continue;
      }
      RuleObjects.Kind kind = c == '#' ? RuleObjects.Kind.CHANNEL : RuleObjects.Kind.HANDLE;
      add(order(kind), kind, tag);
      use(i, j);
      i = j;
    }
  }

  private void hosts() {
    for (int i = from; i < to; i++) {
      if (used[i] || !RuleObjects.isAsciiLetterOrDigit(s.charAt(i))) {
        continue;
      }
      if (i > 0) {
        char b = s.charAt(i - 1);
        if (RuleObjects.isAsciiLetterOrDigit(b) || "._-@/\\:~#".indexOf(b) >= 0) {
          continue;
        }
      }
      int j = i;
      while (j < to
          && (RuleObjects.isAsciiLetterOrDigit(s.charAt(j)) || ".-_".indexOf(s.charAt(j)) >= 0)
          && !used[j]) {
        j++;
      }
      int k = j;
      while (k > i && ".-_".indexOf(s.charAt(k - 1)) >= 0) {
        k--;
      }
      String word = s.substring(i, k).toLowerCase(Locale.ROOT);
      if (word.indexOf('.') < 0 || (j < to && (s.charAt(j) == '@'))) {
        i = j;
        continue;
      }
      int dot = word.lastIndexOf('.');
      if (RuleObjects.FILE_EXT.contains(word.substring(dot + 1)) && dot > 0) {
        add(order(RuleObjects.Kind.FILE), RuleObjects.Kind.FILE, word);
        use(i, k);
      } else if (RuleObjects.isHost(word)) {
        int end = k;
        if (k == j && j < to && s.charAt(j) == '/') {
          end = urlEnd(j);
        }
        add(
            order(RuleObjects.Kind.HOST),
            RuleObjects.Kind.HOST,
            RuleObjects.hostAndPath(s.substring(i, end)));
        use(i, end);
        j = end;
      }
      i = j;
    }
  }

  /**
   * Capitalised words from {@code nameFrom}, adjacent ones joined ("Bob Smith"). Unless the
   * prohibition is about contacting someone ({@code contact}), only a possessive ("Bob's files") or
   * a run after to/with/from/for/at/about/by/of/cc is taken: "don't use Markdown" names no one.
   */
  public void names(int nameFrom, boolean contact) {
    List<String> group = new ArrayList<>();
    int groupStart = -1;
    int lastEnd = -1;
    boolean possessive = false;
    int i = Math.max(nameFrom, from);
    while (i < to) {
      char c = s.charAt(i);
      if (!Character.isLetter(c) || Scripts.isHan(c) || used[i]) {
        i++;
        continue;
      }
      int j = i;
      while (j < to) {
        char d = s.charAt(j);
        if (Character.isLetter(d) && !Scripts.isHan(d) && !used[j]) {
          j++;
        } else if ((d == '\'' || d == '’' || d == '-')
            && j + 1 < to
            && Character.isLetter(s.charAt(j + 1))
            && !Scripts.isHan(s.charAt(j + 1))) {
          j++;
        } else {
          break;
        }
      }
      String word = s.substring(i, j);
      boolean owner = word.endsWith("'s") || word.endsWith("’s");
      if (owner) {
        word = word.substring(0, word.length() - 2);
      }
      String lower = word.toLowerCase(Locale.ROOT).replace('’', '\'');
      boolean isName =
          word.length() >= 2
              && Character.isUpperCase(word.charAt(0))
              && !word.chars().filter(Character::isLetter).allMatch(Character::isUpperCase)
              && (i == 0 || !Character.isLetterOrDigit(s.charAt(i - 1)))
              && !(j < to && (Character.isDigit(s.charAt(j)) || s.charAt(j) == '_'))
              && !finder.excludesName(lower);
      boolean adjacent =
          !group.isEmpty() && !possessive && lastEnd == i - 1 && s.charAt(i - 1) == ' ';
      if (!isName || !adjacent) {
        flushName(group, groupStart, possessive, contact);
        groupStart = i;
      }
      if (isName) {
        group.add(lower);
        lastEnd = i + word.length() + (owner ? 2 : 0);
        possessive = owner;
      }
      i = j;
    }
    flushName(group, groupStart, possessive, contact);
  }

  private String previousWord(int i) {
    int e = i;
    while (e > 0 && s.charAt(e - 1) == ' ') {
      e--;
    }
    int b = e;
    while (b > 0 && Character.isLetter(s.charAt(b - 1))) {
      b--;
    }
    return s.substring(b, e).toLowerCase(Locale.ROOT);
  }

  /**
   * Adds a run of capitalised words as one name when the prohibition is about contacting someone,
   * or the run is possessive ("Bob's files") or follows to/with/from/for/... .
   */
  private void flushName(List<String> group, int start, boolean possessive, boolean contact) {
    if (!group.isEmpty() && (contact || possessive || finder.precedesName(previousWord(start)))) {
      add(order(RuleObjects.Kind.NAME), RuleObjects.Kind.NAME, String.join(" ", group));
    }
    group.clear();
  }

  /**
   * Adds the branch or environment of a push or deploy ("to main", 到 staging) found at {@code [a,
   * b)}, unless it is no such word (see {@link ProhibitionRules#excludesTarget}) or taken.
   */
  public void addTarget(String target, int a, int b) {
    if (target.isEmpty()
        || !target.matches("[a-z0-9][a-z0-9._/-]*")
        || finder.excludesTarget(target)
        || !free(a, b)) {
      return;
    }
    add(order(RuleObjects.Kind.NAME) + 1, RuleObjects.Kind.NAME, target);
    use(a, b);
  }

  private static int order(RuleObjects.Kind kind) {
    return switch (kind) {
      case EMAIL -> 0;
      case HOST -> 1;
      case PATH -> 2;
      case FILE -> 3;
      case COMMAND -> 4;
      case CHANNEL -> 5;
      case HANDLE -> 6;
      case NAME -> 7;
      case ACTION -> 9;
    };
  }
}
