package dev.memsidecar.language.tool;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.language.Scripts;
import dev.memsidecar.language.tool.ToolArguments.Leaf;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Does a tool call hit a rule's objects? The matching behind CheckToolCall: after "Never email
 * Sarah at sarah@example.com." (objects {@code sarah@example.com} and {@code sarah} on {@code
 * send_email}), a call {@code {"to":"sarah@example.com"}} matches and {@code
 * {"to":"bob@example.com"}} does not. Language-neutral: objects are addresses, paths, commands and
 * names, whatever language the rule was said in. Thread-safe; it keeps a bounded cache of compiled
 * objects (at most {@value #CACHE_LIMIT} object lists).
 *
 * <h2>What is looked at</h2>
 *
 * The call's arguments as {@link ToolArguments} read them: every value and key, lower-cased, with
 * the field it sits in. <b>Malformed or non-JSON arguments are not an error and never skip the
 * check:</b> the whole raw string is then one leaf, matched like any other. A rule without objects
 * matches every call of its tool whatever the arguments (it returns the tool name). Which rules
 * apply (the called tool's, critical ones) is the caller's choice.
 *
 * <h2>How each object matches (case-insensitive throughout)</h2>
 *
 * <ul>
 *   <li><b>E-mail address</b> ({@code sarah@example.com}): equal to an address found anywhere in a
 *       leaf, also inside {@code "Sarah <SARAH@example.com>"}, {@code mailto:} or a list of
 *       recipients; a {@code +tag} is ignored on both sides ({@code sarah+x@example.com} is {@code
 *       sarah@example.com}). {@code xsarah@example.com} and {@code sarah@example.com.au} do not
 *       match.
 *   <li><b>Name</b> ({@code sarah}, {@code bob smith}, {@code 张三}): its words as whole words, in
 *       order, in a leaf that is not free text (see below): {@code "Sarah Connor"}, {@code "Sarah
 *       <s@x.io>"} and the local part {@code sarah.connor@x.io} match; {@code sarahjane@x.io},
 *       {@code "Sarahs"} and a domain ({@code bob@sarah.com}) do not. Free text is the value of a
 *       field named subject, body, text, content, message, html, description, summary, title,
 *       notes, comment, caption, prompt (or ending in body, _text, content, message): "Bob, Sarah
 *       says hi" in the body of a mail to Bob names Sarah but is not a mail to her, and a denial
 *       there would block a legitimate call. A name in Han script matches as a substring of any
 *       such leaf ({@code 张三} also in {@code 张三丰}).
 *   <li><b>Path</b> ({@code /etc/passwd}, {@code ~/.ssh}, {@code C:\secrets}): that path or
 *       anything under it, in any leaf, also inside a command ({@code "cat /etc/passwd"}) or a
 *       {@code file://} URL; {@code \} counts as {@code /} and runs of {@code /} as one. {@code
 *       /etc/passwd-} and {@code /etc/passwd.bak} are other files and do not match. {@code ~/x}
 *       also matches {@code $HOME/x}, {@code /home/<user>/x}, {@code /Users/<user>/x} and {@code
 *       /root/x}. The root {@code /} alone matches only a {@code /} standing alone. A relative file
 *       ({@code config.yaml}, {@code src/secrets}) matches it as a whole path or as the tail of one
 *       ({@code /app/config.yaml}), not {@code myconfig.yaml}.
 *   <li><b>Host</b> ({@code prod.db.acme.test}, {@code example.com}, an IPv4 address): that host or
 *       a sub-domain of it, alone or in a URL, an address ({@code user@host}) or a command; {@code
 *       notexample.com} and {@code example.com.evil.io} do not match. A host with a path ({@code
 *       example.com/admin}, from a URL) matches URLs on that host under that path.
 *   <li><b>Command</b> ({@code rm -rf}, {@code git push --force}): in any leaf cut into commands at
 *       {@code ; | & ( ) `} and line ends and into words at spaces (quotes dropped), its first word
 *       is a word of a command (or ends one: {@code /bin/rm}), its other plain words follow in
 *       order with only flags between them, and each of its flags appears after the first word:
 *       {@code --force} as itself or {@code --force=...}, short flags letter by letter ({@code -rf}
 *       is satisfied by {@code -fr}, {@code -r -f} or {@code -Rf}); {@code -f}/{@code --force} and
 *       {@code -r}/{@code --recursive} stand for each other. So {@code rm -rf /} matches {@code
 *       "sudo rm -r -f /"} but not {@code "rm -rf /tmp/x"}, and {@code git push --force} matches
 *       {@code "cd x && git push origin main --force"} but not {@code "git log --grep push"}.
 *   <li><b>Channel</b> ({@code #general}) and <b>handle</b> ({@code @bob}): as written, or as the
 *       whole value of a field whose name says channel, room, conversation, to, target, destination
 *       or recipient ({@code {"channel":"general"}}).
 *   <li><b>Act</b> ({@code action:delete-files}, {@code action:drop-tables}, ...; see {@link
 *       ToolActions}): the call does it, by a command in any position of a command line, a
 *       statement, inline code, an operation field or the tool's own name. A rule with an act hits
 *       only such calls: after "Don't use the shell to delete files." {@code rm -rf build} is hit,
 *       {@code ls -la} and {@code git status} are not. Its other objects must then be met where the
 *       act is done ("delete files in /tmp": {@code rm -rf /tmp/x}, not {@code ls /tmp} nor {@code
 *       rm build}; "push to main": {@code git push origin main}, not {@code git checkout main}). An
 *       unknown act hits nothing. What is returned is the act, the other object if any, and where
 *       it was seen: {@code action:delete-files (rm -rf /tmp/x)}.
 * </ul>
 *
 * <h2>What it cannot catch</h2>
 *
 * A recipient said another way ("my manager", "her", "the team", an address the user never wrote);
 * an address, path or command built at run time or hidden in the arguments (base64, URL or percent
 * encoding such as {@code sarah%40example.com}, string concatenation, shell variables, globs,
 * aliases, {@code /etc/../etc/passwd}, Unicode look-alike letters); a command spelled another way
 * ({@code git push origin +main} for a force push, {@code rm -d} for {@code rmdir}) or with options
 * between its words ({@code git -C repo push}); a name only in free text; and, above all, another
 * tool that does the same thing: a rule on {@code send_email} says nothing about {@code gmail_send}
 * or a shell running {@code sendmail}. The matcher is a guard rail for the agent's honest mistakes,
 * not a sandbox.
 *
 * <h2>Cost</h2>
 *
 * The arguments are read once per call (the caller parses the JSON); each object is compiled once
 * (cached by its text) and matched with {@code indexOf} scans and set look-ups, no regular
 * expressions. See {@code ToolCallMatcherBench} (core test sources) for figures.
 */
public final class ToolCallMatcher {
  private static final String[] RECIPIENT_KEY_PARTS = {
    "channel", "room", "conversation", "target", "destination", "recipient"
  };

  /** The most object lists kept compiled; past it the cache starts over. */
  public static final int CACHE_LIMIT = 4096;

  private final Map<List<String>, Compiled[]> cache = new ConcurrentHashMap<>();

  /** A matcher with an empty cache. */
  public ToolCallMatcher() {}

  /**
   * The first of {@code objects} (in their order, as spelled there) that the arguments hit, or
   * {@code toolName} when there is no object (a rule naming none covers every call of its tool), or
   * empty when the call hits none of them. With an act among the objects, the call must do the act
   * (and, when there are other objects, hit one where it does it); the answer is then the act, that
   * object, and the command or value that did it in brackets.
   *
   * @param toolName the rule's tool
   * @param objects the rule's objects, as a prohibition wrote them ({@link
   *     dev.memsidecar.language.prohibition.Prohibition#objects()}) or a caller gave them
   */
  public Optional<String> match(String toolName, List<String> objects, ToolArguments arguments) {
    requireNonNull(toolName, "toolName is null");
    requireNonNull(objects, "objects is null");
    requireNonNull(arguments, "arguments is null");
    if (objects.isEmpty()) {
      return Optional.of(toolName);
    }
    Compiled[] compiled = compile(objects);
    boolean acts = false;
    for (Compiled c : compiled) {
      acts |= c instanceof ActionObject;
    }
    if (!acts) {
      for (Compiled c : compiled) {
        if (c != null && c.matches(arguments)) {
          return Optional.of(c.object());
        }
      }
      return Optional.empty();
    }
    // An act, and the other objects where it is done: "delete files in /tmp" is rm under /tmp.
    boolean others = false;
    for (Compiled c : compiled) {
      others |= c != null && !(c instanceof ActionObject);
    }
    for (Compiled c : compiled) {
      if (!(c instanceof ActionObject act)) {
        continue;
      }
      for (ActionObject.Hit hit : act.hits(toolName, arguments)) {
        if (!others) {
          return Optional.of(act.object() + " (" + hit.evidence() + ")");
        }
        for (Compiled o : compiled) {
          if (o != null && !(o instanceof ActionObject) && o.matches(hit.where())) {
            return Optional.of(act.object() + " " + o.object() + " (" + hit.evidence() + ")");
          }
        }
      }
    }
    return Optional.empty();
  }

  private Compiled[] compile(List<String> objects) {
    Compiled[] compiled = cache.get(objects);
    if (compiled == null) {
      compiled = new Compiled[objects.size()];
      for (int i = 0; i < compiled.length; i++) {
        compiled[i] = Compiled.of(objects.get(i));
      }
      if (cache.size() >= CACHE_LIMIT) {
        cache.clear();
      }
      cache.put(List.copyOf(objects), compiled);
    }
    return compiled;
  }

  private static boolean isRecipientKey(String key) {
    if (key.equals("to") || key.endsWith("_to") || key.startsWith("to_")) {
      return true;
    }
    for (String part : RECIPIENT_KEY_PARTS) {
      if (key.contains(part)) {
        return true;
      }
    }
    return false;
  }

  private static boolean isTagChar(char c) {
    return Character.isLetterOrDigit(c) || "._%+-#@".indexOf(c) >= 0;
  }

  private static boolean isHostChar(char c) {
    return ToolArguments.isHostChar(c);
  }

  // ---------------------------------------------------------------- compiled objects

  /** One object compiled for matching. */
  private sealed interface Compiled {
    String object();

    boolean matches(ToolArguments arguments);

    static Compiled of(String object) {
      RuleObjects.Classified c = RuleObjects.classify(object);
      String value = c.value();
      if (value.isEmpty()) {
        return null;
      }
      return switch (c.kind()) {
        case EMAIL -> new EmailObject(object, value);
        case HOST -> {
          int slash = value.indexOf('/');
          String host = slash < 0 ? value : value.substring(0, slash);
          String path = slash < 0 ? "" : value.substring(slash);
          yield new HostObject(object, host, path, RuleObjects.isIp(host));
        }
        case PATH -> new PathObject(object, value, false);
        case FILE -> new PathObject(object, value, true);
        case COMMAND -> CommandObject.of(object, value);
        case CHANNEL, HANDLE -> new TagObject(object, value);
        case NAME -> new NameObject(object, words(value), Scripts.hasHan(value) ? value : null);
        case ACTION -> ToolActions.of(value).map(a -> new ActionObject(object, a)).orElse(null);
      };
    }
  }

  private record EmailObject(String object, String address) implements Compiled {
    @Override
    public boolean matches(ToolArguments arguments) {
      return arguments.emails().contains(address);
    }
  }

  private record HostObject(String object, String host, String path, boolean ip)
      implements Compiled {
    @Override
    public boolean matches(ToolArguments arguments) {
      for (Leaf leaf : arguments.leaves) {
        if (!leaf.joined() && containsHost(leaf.text())) {
          return true;
        }
      }
      return false;
    }

    private boolean containsHost(String t) {
      for (int i = t.indexOf(host); i >= 0; i = t.indexOf(host, i + 1)) {
        if (i > 0) {
          char before = t.charAt(i - 1);
          if (isHostChar(before) || (ip && before == '.')) {
            continue;
          }
        }
        int end = i + host.length();
        if (end < t.length()) {
          char after = t.charAt(end);
          if (isHostChar(after)
              || (after == '.' && end + 1 < t.length() && isHostChar(t.charAt(end + 1)))) {
            continue;
          }
        }
        if (path.isEmpty()) {
          return true;
        }
        int p = end;
        if (p < t.length() && t.charAt(p) == ':') {
          p++;
          while (p < t.length() && Character.isDigit(t.charAt(p))) {
            p++;
          }
        }
        if (t.startsWith(path, p)) {
          int q = p + path.length();
          if (q == t.length() || !isPathNameChar(t.charAt(q))) {
            return true;
          }
        }
      }
      return false;
    }
  }

  private static boolean isPathNameChar(char c) {
    return Character.isLetterOrDigit(c) || c == '.' || c == '_' || c == '-' || c == '~';
  }

  private record PathObject(String object, String path, boolean relative) implements Compiled {
    @Override
    public boolean matches(ToolArguments arguments) {
      for (int i = 0; i < arguments.leaves.size(); i++) {
        if (!arguments.leaves.get(i).joined() && containsPath(arguments.pathText(i))) {
          return true;
        }
      }
      return false;
    }

    private boolean containsPath(String t) {
      if (path.equals("/")) {
        return standsAlone(t, "/", false);
      }
      if (standsAlone(t, path, relative)) {
        return true;
      }
      return path.startsWith("~/") && underHome(t, path.substring(1));
    }

    /** {@code p} in {@code t}, not inside a longer name; followed by its end or {@code /...}. */
    private static boolean standsAlone(String t, String p, boolean slashBefore) {
      for (int i = t.indexOf(p); i >= 0; i = t.indexOf(p, i + 1)) {
        if (i > 0) {
          char before = t.charAt(i - 1);
          if (isPathNameChar(before) || (before == '/' && !slashBefore)) {
            continue;
          }
        }
        int end = i + p.length();
        if (end < t.length()) {
          char after = t.charAt(end);
          if (isPathNameChar(after) || (p.equals("/") && after == '/')) {
            continue;
          }
        }
        return true;
      }
      return false;
    }

    /** {@code rest} ({@code /.ssh}) under $HOME, /home/user, /users/user or /root. */
    private static boolean underHome(String t, String rest) {
      for (int i = t.indexOf(rest); i > 0; i = t.indexOf(rest, i + 1)) {
        int end = i + rest.length();
        if (end < t.length() && isPathNameChar(t.charAt(end))) {
          continue;
        }
        String before = t.substring(0, i);
        for (String home : new String[] {"$home", "${home}", "%userprofile%", "/root"}) {
          if (before.endsWith(home) && boundary(before, before.length() - home.length())) {
            return true;
          }
        }
        int slash = before.lastIndexOf('/');
        if (slash >= 0 && slash < before.length() - 1) {
          String head = before.substring(0, slash);
          for (String home : new String[] {"/home", "/users"}) {
            if (head.endsWith(home) && boundary(head, head.length() - home.length())) {
              return true;
            }
          }
        }
      }
      return false;
    }

    private static boolean boundary(String t, int i) {
      return i == 0 || !(isPathNameChar(t.charAt(i - 1)) || t.charAt(i - 1) == '/');
    }
  }

  private record CommandObject(String object, String[] words, String[] longFlags, String shortFlags)
      implements Compiled {
    static CommandObject of(String object, String value) {
      List<String> words = new ArrayList<>();
      List<String> longFlags = new ArrayList<>();
      StringBuilder shortFlags = new StringBuilder();
      for (String token : value.replace("\"", "").replace("'", "").split("\\s+")) {
        if (token.startsWith("--") && token.length() > 2) {
          longFlags.add(token);
        } else if (token.startsWith("-") && token.length() > 1) {
          shortFlags.append(token, 1, token.length());
        } else if (!token.isEmpty()) {
          words.add(token);
        }
      }
      if (words.isEmpty()) {
        words.add(value);
      }
      return new CommandObject(
          object,
          words.toArray(String[]::new),
          longFlags.toArray(String[]::new),
          shortFlags.toString());
    }

    @Override
    public boolean matches(ToolArguments arguments) {
      for (String[] command : arguments.commands()) {
        if (matches(command)) {
          return true;
        }
      }
      return false;
    }

    private boolean matches(String[] c) {
      for (int i = 0; i < c.length; i++) {
        if (!(c[i].equals(words[0]) || c[i].endsWith("/" + words[0]))) {
          continue;
        }
        int j = i + 1;
        boolean ok = true;
        for (int k = 1; k < words.length && ok; k++) {
          while (j < c.length && c[j].startsWith("-") && c[j].length() > 1) {
            j++;
          }
          ok = j < c.length && c[j].equals(words[k]);
          j++;
        }
        if (ok && flagsPresent(c, i + 1)) {
          return true;
        }
      }
      return false;
    }

    private boolean flagsPresent(String[] c, int from) {
      StringBuilder letters = new StringBuilder();
      Set<String> longs = new HashSet<>();
      for (int m = from; m < c.length; m++) {
        String t = c[m];
        if (t.startsWith("--") && t.length() > 2) {
          int eq = t.indexOf('=');
          String flag = eq < 0 ? t : t.substring(0, eq);
          longs.add(flag);
          if (flag.equals("--force")) {
            letters.append('f');
          } else if (flag.equals("--recursive")) {
            letters.append('r');
          }
        } else if (t.startsWith("-") && t.length() > 1) {
          letters.append(t, 1, t.length());
        }
      }
      for (String flag : longFlags) {
        boolean present =
            longs.contains(flag)
                || (flag.equals("--force") && letters.indexOf("f") >= 0)
                || (flag.equals("--recursive") && letters.indexOf("r") >= 0);
        if (!present) {
          return false;
        }
      }
      for (int k = 0; k < shortFlags.length(); k++) {
        if (letters.indexOf(String.valueOf(shortFlags.charAt(k))) < 0) {
          return false;
        }
      }
      return true;
    }
  }

  /** An act ({@link ToolActions}): matched through {@link #hit}, never alone. */
  private record ActionObject(String object, ToolActions.Action action) implements Compiled {
    /** Where the act was seen ({@code evidence}) and what the other objects are matched in. */
    record Hit(String evidence, ToolArguments where) {}

    private static final int EVIDENCE_CHARS = 120;

    /** Never alone: an act is matched with the called tool ({@link #hit}). */
    @Override
    public boolean matches(ToolArguments arguments) {
      return false;
    }

    /** Every place of the call that does the act, in order (most calls have none or one). */
    List<Hit> hits(String toolName, ToolArguments arguments) {
      List<Hit> out = new ArrayList<>();
      for (ShellCommands.Command c : arguments.shellCommands()) {
        if (action.command().test(c) || codeDoes(c.code())) {
          String text = c.text();
          out.add(new Hit(cut(text), ToolArguments.ofText(text)));
        }
      }
      for (String code : arguments.codeTexts()) {
        if (codeDoes(code)) {
          out.add(new Hit(cut(code), arguments));
        }
      }
      if (action.text() != null) {
        for (String value : arguments.valueTexts()) {
          if (action.text().test(value)) {
            out.add(new Hit(cut(value), ToolArguments.ofText(value)));
          }
        }
      }
      Set<String> operations = arguments.operations();
      for (String op : operations) {
        if (action.operations().contains(op)) {
          out.add(new Hit(op, arguments));
        }
      }
      // The tool's name says it does the act, unless a field names another operation.
      if (action.toolParts().test(ToolNouns.parts(toolName))
          && operations.stream().noneMatch(ToolActions::isOperation)) {
        out.add(new Hit(toolName, arguments));
      }
      return out;
    }

    private boolean codeDoes(String code) {
      if (code.isEmpty()) {
        return false;
      }
      for (String call : action.code()) {
        if (code.contains(call)) {
          return true;
        }
      }
      return false;
    }

    private static String cut(String text) {
      String t = text.strip().replace('\n', ' ');
      return t.length() <= EVIDENCE_CHARS ? t : t.substring(0, EVIDENCE_CHARS) + "...";
    }
  }

  private record TagObject(String object, String tag) implements Compiled {
    @Override
    public boolean matches(ToolArguments arguments) {
      String bare = tag.substring(1);
      for (Leaf leaf : arguments.leaves) {
        if (leaf.joined()) {
          continue;
        }
        String t = leaf.text();
        if (isRecipientKey(leaf.key()) && t.strip().equals(bare)) {
          return true;
        }
        for (int i = t.indexOf(tag); i >= 0; i = t.indexOf(tag, i + 1)) {
          if (i > 0 && isTagChar(t.charAt(i - 1))) {
            continue;
          }
          int end = i + tag.length();
          if (end < t.length()) {
            char after = t.charAt(end);
            if (Character.isLetterOrDigit(after)
                || after == '_'
                || after == '-'
                || (after == '.'
                    && end + 1 < t.length()
                    && Character.isLetterOrDigit(t.charAt(end + 1)))) {
              continue;
            }
          }
          return true;
        }
      }
      return false;
    }
  }

  private record NameObject(String object, String[] words, String han) implements Compiled {
    @Override
    public boolean matches(ToolArguments arguments) {
      if (words.length == 0 && han == null) {
        return false;
      }
      for (Leaf leaf : arguments.leaves) {
        if (leaf.freeText() || leaf.joined()) {
          continue;
        }
        if (han != null ? leaf.text().contains(han) : containsWords(leaf.text())) {
          return true;
        }
      }
      return false;
    }

    private boolean containsWords(String t) {
      String first = words[0];
      for (int i = t.indexOf(first); i >= 0; i = t.indexOf(first, i + 1)) {
        if ((i > 0 && Character.isLetterOrDigit(t.charAt(i - 1))) || inEmailDomain(t, i)) {
          continue;
        }
        int p = i + first.length();
        boolean ok = true;
        for (int k = 1; k < words.length && ok; k++) {
          int q = p;
          while (q < t.length() && !Character.isLetterOrDigit(t.charAt(q)) && t.charAt(q) != '@') {
            q++;
          }
          ok = q > p && t.startsWith(words[k], q);
          p = q + words[k].length();
        }
        if (ok && (p >= t.length() || !Character.isLetterOrDigit(t.charAt(p)))) {
          return true;
        }
      }
      return false;
    }

    private static boolean inEmailDomain(String t, int i) {
      int j = i - 1;
      while (j >= 0 && (isHostChar(t.charAt(j)) || t.charAt(j) == '.')) {
        j--;
      }
      return j >= 0 && t.charAt(j) == '@';
    }
  }

  private static String[] words(String name) {
    List<String> out = new ArrayList<>();
    StringBuilder word = new StringBuilder();
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (Character.isLetterOrDigit(c)) {
        word.append(c);
      } else {
        ToolArguments.flushWord(word, out);
      }
    }
    ToolArguments.flushWord(word, out);
    return out.toArray(String[]::new);
  }
}
