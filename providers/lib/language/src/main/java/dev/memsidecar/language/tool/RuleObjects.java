package dev.memsidecar.language.tool;

import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * What a rule's object is (an e-mail address, a host, a path, ...) and its normal form, shared by
 * the prohibition finder ({@link dev.memsidecar.language.prohibition.Prohibitions}, which writes
 * objects) and {@link ToolCallMatcher} (which reads them). Language-neutral: the forms are those of
 * addresses, paths, commands and names, whatever language the rule was said in. Stateless and
 * thread-safe.
 */
public final class RuleObjects {
  /** The kinds of object, each matched its own way (see {@link ToolCallMatcher}). */
  public enum Kind {
    EMAIL,
    HOST,
    PATH,
    FILE,
    COMMAND,
    CHANNEL,
    HANDLE,
    NAME,
    /** An act ({@code action:delete-files}): a key of {@link ToolActions#ACTIONS}. */
    ACTION
  }

  /**
   * An object classified.
   *
   * @param kind what it is
   * @param value its normal form: an address without {@code +tag}; a host without scheme and {@code
   *     www.}, with {@code /path} when it named one; a path with {@code /} separators and no
   *     trailing slash; a command, a channel ({@code #general}), a handle ({@code @bob}) or a name
   *     lower-cased with single spaces
   */
  public record Classified(Kind kind, String value) {}

  /** File name extensions: {@code config.yaml} is a file, not a host. */
  public static final Set<String> FILE_EXT =
      words(
          "txt md pdf doc docx xls xlsx ppt pptx csv tsv json yaml yml xml toml ini cfg conf env"
              + " log sql sh bash zsh py js ts jsx tsx java kt go rs rb php c h cpp hpp cs swift"
              + " html htm css scss png jpg jpeg gif svg zip tar gz tgz bz2 xz 7z rar jar war pem"
              + " key crt cer p12 pfx db sqlite bak lock properties gradle tf tfvars ipynb mdx rst"
              + " keystore kdbx");

  /** Programs whose name starts a command object ("never run rm -rf", "`git push --force`"). */
  public static final Set<String> PROGRAMS =
      words(
          "rm rmdir git gh sudo su chmod chown dd mkfs fdisk shutdown reboot halt poweroff kill"
              + " killall pkill kubectl helm docker terraform ansible aws gcloud az curl wget ssh"
              + " scp rsync npm npx yarn pnpm pip pip3 brew apt apt-get yum dnf psql mysql mongo"
              + " mongosh redis-cli truncate shred mv cp make mvn gradle cargo python python3 node"
              + " eval crontab iptables systemctl launchctl diskutil heroku vercel firebase");

  private static final Map<String, Kind> PREFIXES =
      Map.ofEntries(
          Map.entry("email", Kind.EMAIL),
          Map.entry("host", Kind.HOST),
          Map.entry("url", Kind.HOST),
          Map.entry("path", Kind.PATH),
          Map.entry("file", Kind.FILE),
          Map.entry("command", Kind.COMMAND),
          Map.entry("cmd", Kind.COMMAND),
          Map.entry("channel", Kind.CHANNEL),
          Map.entry("handle", Kind.HANDLE),
          Map.entry("name", Kind.NAME),
          Map.entry("action", Kind.ACTION));

  private RuleObjects() {}

  /** The words of a space-separated list, as a set. */
  private static Set<String> words(String list) {
    return Set.of(list.split(" "));
  }

  /**
   * Classifies {@code object}. An explicit {@code kind:} prefix ({@code email:}, {@code host:},
   * {@code url:}, {@code path:}, {@code file:}, {@code command:}/{@code cmd:}, {@code channel:},
   * {@code handle:}, {@code name:}, {@code action:}) decides the kind (an act is only ever written
   * so: {@code action:delete-files}); otherwise the form does: {@code scheme://} a host (a {@code
   * file://} URL a path), {@code #x} a channel, {@code @x} a handle, {@code a@b.c} an address,
   * {@code /x}, {@code ~/x}, {@code C:\x} a path, {@code x/y} a host with a path when {@code x}
   * looks like a host and a relative file otherwise, {@code x.yaml} (a known extension) a file,
   * {@code a.b.c} a host, a known program or anything with a {@code -flag} a command, the rest a
   * name.
   */
  public static Classified classify(String object) {
    String o = object.strip().toLowerCase(Locale.ROOT);
    int colon = o.indexOf(':');
    if (colon > 1 && !o.startsWith("//", colon + 1)) {
      Kind forced = PREFIXES.get(o.substring(0, colon));
      if (forced != null) {
        return normalise(forced, o.substring(colon + 1).strip());
      }
    }
    int scheme = o.indexOf("://");
    if (scheme > 0 && isWord(o.substring(0, scheme))) {
      if (o.startsWith("file://")) {
        return new Classified(Kind.PATH, path(o.substring("file://".length())));
      }
      return new Classified(Kind.HOST, hostAndPath(o));
    }
    if (o.startsWith("#")) {
      return new Classified(Kind.CHANNEL, o);
    }
    if (o.startsWith("@")) {
      return new Classified(Kind.HANDLE, o);
    }
    if (isEmail(o)) {
      return new Classified(Kind.EMAIL, email(o));
    }
    if (isAbsolutePath(o)) {
      return new Classified(Kind.PATH, path(o));
    }
    boolean spaced = o.chars().anyMatch(Character::isWhitespace);
    if (!spaced) {
      if (o.startsWith("./")) {
        return new Classified(Kind.FILE, path(o.substring(2)));
      }
      int slash = o.indexOf('/');
      if (slash < 0) {
        slash = o.indexOf('\\');
      }
      if (slash > 0) {
        return isHost(o.substring(0, slash))
            ? new Classified(Kind.HOST, hostAndPath(o))
            : new Classified(Kind.FILE, path(o));
      }
      int dot = o.lastIndexOf('.');
      if (dot > 0 && FILE_EXT.contains(o.substring(dot + 1))) {
        return new Classified(Kind.FILE, o);
      }
      if (isHost(o)) {
        return new Classified(Kind.HOST, hostAndPath(o));
      }
      if (PROGRAMS.contains(o)) {
        return new Classified(Kind.COMMAND, o);
      }
      return new Classified(Kind.NAME, o);
    }
    String[] tokens = o.split("\\s+");
    boolean flagged = false;
    for (String t : tokens) {
      flagged |= t.length() > 1 && t.startsWith("-");
    }
    if (PROGRAMS.contains(tokens[0]) || flagged) {
      return new Classified(Kind.COMMAND, String.join(" ", tokens));
    }
    return new Classified(Kind.NAME, String.join(" ", tokens));
  }

  private static Classified normalise(Kind kind, String value) {
    return switch (kind) {
      case EMAIL -> new Classified(kind, email(value));
      case HOST -> new Classified(kind, hostAndPath(value));
      case PATH, FILE -> new Classified(kind, path(value));
      case CHANNEL -> new Classified(kind, value.startsWith("#") ? value : "#" + value);
      case HANDLE -> new Classified(kind, value.startsWith("@") ? value : "@" + value);
      case COMMAND, NAME -> new Classified(kind, String.join(" ", value.split("\\s+")));
      case ACTION -> new Classified(kind, value);
    };
  }

  /** {@code local@domain}: one {@code @}, something before it, a dot after it, no space. */
  public static boolean isEmail(String s) {
    int at = s.indexOf('@');
    if (at <= 0 || at != s.lastIndexOf('@')) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      if (Character.isWhitespace(s.charAt(i))) {
        return false;
      }
    }
    return isHost(s.substring(at + 1));
  }

  /** An address lower-cased, without a {@code +tag} in its local part. */
  public static String email(String address) {
    String a = address.toLowerCase(Locale.ROOT);
    int at = a.lastIndexOf('@');
    if (at < 0) {
      return a;
    }
    String local = a.substring(0, at);
    int plus = local.indexOf('+');
    if (plus > 0) {
      local = local.substring(0, plus);
    }
    return local + a.substring(at);
  }

  /** {@code /x}, {@code ~}, {@code ~/x}, {@code C:\x} or {@code C:/x}. */
  public static boolean isAbsolutePath(String s) {
    if (s.startsWith("/") || s.equals("~") || s.startsWith("~/") || s.startsWith("~\\")) {
      return true;
    }
    return s.length() >= 3
        && Character.isLetter(s.charAt(0))
        && s.charAt(1) == ':'
        && (s.charAt(2) == '\\' || s.charAt(2) == '/');
  }

  /**
   * A path in normal form: lower-cased, {@code \} as {@code /}, runs of {@code /} as one, {@code
   * /./} as {@code /}, no trailing {@code /} (but {@code /} itself stays).
   */
  public static String path(String p) {
    StringBuilder out = new StringBuilder(p.length());
    String s = p.toLowerCase(Locale.ROOT);
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i) == '\\' ? '/' : s.charAt(i);
      if (c == '/' && !out.isEmpty() && out.charAt(out.length() - 1) == '/') {
        continue;
      }
      if (c == '/'
          && out.length() >= 2
          && out.charAt(out.length() - 1) == '.'
          && out.charAt(out.length() - 2) == '/') {
        out.setLength(out.length() - 1);
        continue;
      }
      out.append(c);
    }
    while (out.length() > 1 && out.charAt(out.length() - 1) == '/') {
      out.setLength(out.length() - 1);
    }
    return out.toString();
  }

  /**
   * A URL or host as {@code host[/path]}: lower-cased, without scheme, user info, {@code www.},
   * port, query, fragment and trailing {@code /}.
   */
  public static String hostAndPath(String url) {
    String u = url.toLowerCase(Locale.ROOT).replace('\\', '/');
    int scheme = u.indexOf("://");
    if (scheme >= 0) {
      u = u.substring(scheme + 3);
    }
    int cut = u.length();
    for (char c : new char[] {'?', '#'}) {
      int i = u.indexOf(c);
      if (i >= 0 && i < cut) {
        cut = i;
      }
    }
    u = u.substring(0, cut);
    int slash = u.indexOf('/');
    String host = slash < 0 ? u : u.substring(0, slash);
    String rest = slash < 0 ? "" : u.substring(slash);
    int at = host.lastIndexOf('@');
    if (at >= 0) {
      host = host.substring(at + 1);
    }
    int port = host.indexOf(':');
    if (port >= 0) {
      host = host.substring(0, port);
    }
    if (host.startsWith("www.")) {
      host = host.substring(4);
    }
    while (rest.endsWith("/")) {
      rest = rest.substring(0, rest.length() - 1);
    }
    return host + rest;
  }

  /**
   * Dotted labels of letters, digits and hyphens, the last one of two letters or more ({@code
   * prod.db.acme.test}), or four numbers up to 255 (an IPv4 address).
   */
  public static boolean isHost(String s) {
    if (s.isEmpty() || s.startsWith(".") || s.endsWith(".")) {
      return false;
    }
    String[] labels = s.split("\\.", -1);
    if (labels.length < 2) {
      return false;
    }
    boolean numeric = true;
    for (String label : labels) {
      if (label.isEmpty() || label.startsWith("-") || label.endsWith("-")) {
        return false;
      }
      for (int i = 0; i < label.length(); i++) {
        char c = label.charAt(i);
        if (!(isAsciiLetterOrDigit(c) || c == '-')) {
          return false;
        }
        numeric &= c >= '0' && c <= '9';
      }
    }
    if (numeric) {
      if (labels.length != 4) {
        return false;
      }
      for (String label : labels) {
        if (label.length() > 3 || Integer.parseInt(label) > 255) {
          return false;
        }
      }
      return true;
    }
    String tld = labels[labels.length - 1];
    if (tld.length() < 2) {
      return false;
    }
    for (int i = 0; i < tld.length(); i++) {
      if (!Character.isLetter(tld.charAt(i))) {
        return false;
      }
    }
    return true;
  }

  /** True for an IPv4 address. */
  public static boolean isIp(String host) {
    return isHost(host) && Character.isDigit(host.charAt(host.length() - 1));
  }

  public static boolean isAsciiLetterOrDigit(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  }

  private static boolean isWord(String s) {
    if (s.isEmpty()) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (!(isAsciiLetterOrDigit(c) || c == '+' || c == '-' || c == '.')) {
        return false;
      }
    }
    return true;
  }
}
