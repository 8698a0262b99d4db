package dev.memsidecar.language.tool;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The commands a shell would run for one command line: what {@link ToolActions} looks at to tell
 * whether a call deletes files, installs packages, pushes a branch, ... Language-neutral: these are
 * the forms of POSIX shells (and a little of {@code cmd} and PowerShell), whatever language the
 * user speaks. Stateless and thread-safe.
 *
 * <h2>What is read</h2>
 *
 * <ul>
 *   <li>The line is cut into simple commands at {@code ; & && || | |&}, line ends, {@code ( )} and
 *       lone {@code { }}; quotes ({@code '...'}, {@code "..."}) and backslashes are read as a shell
 *       reads them, {@code #} starts a comment. Command substitutions ({@code $(...)}, backticks,
 *       also inside double quotes) and process substitutions ({@code <(...)}) are commands too.
 *   <li>Each command's words are taken after what only runs another command: {@code VAR=x}
 *       assignments, {@code sudo}, {@code doas}, {@code env}, {@code xargs}, {@code nohup}, {@code
 *       time}, {@code nice}, {@code timeout}, {@code exec}, {@code command}, {@code stdbuf}, {@code
 *       watch}, {@code strace}, {@code chroot}, {@code flock}, {@code setsid}, {@code npx}, {@code
 *       poetry run}, {@code docker exec}, {@code kubectl exec}, ... and their options; keywords
 *       ({@code if then do else !}).
 *   <li>A command that runs a script given as text is read into that script's commands: {@code bash
 *       -c '...'} (any shell, also {@code -lc}, {@code -ec}), {@code eval}, {@code su -c}, {@code
 *       ssh host '...'}, {@code cmd /c}, {@code powershell -Command}, {@code watch}, {@code find
 *       ... -exec ... ;}, a here-document fed to a shell, and {@code echo ... | sh}. {@code python
 *       -m pip} is {@code pip}.
 *   <li>Inline code ({@code python -c}, {@code node -e}, {@code perl -e}, {@code ruby -e}, {@code
 *       php -r}) is kept as {@link Command#code()}; when it starts a process ({@code os.system},
 *       {@code subprocess}, {@code execSync}, ...) each of its string literals is read as a command
 *       line too.
 *   <li>Output redirections ({@code >}, {@code >>}, {@code &>}, {@code >|}) give the files a
 *       command writes ({@link Command#writes()}), {@code /dev/null} and file descriptors aside.
 * </ul>
 *
 * <p>Limits: words are not expanded (variables, globs, aliases, functions); a script run from a
 * file is not read; {@code case} patterns and {@code for} lists read as words. A word that is only
 * an argument ({@code echo rm}, {@code grep rm}, {@code man rm}, a commit message) is never a
 * command.
 *
 * <p>One file of about 900 lines because it is one recursive reader: the lexer ({@code read}), the
 * pipeline step ({@code emit}) and the wrapper tables ({@code simple}, {@code unwrapped}) call one
 * another at every depth (a wrapper's script argument, {@code bash -c}, {@code ssh}, {@code find
 * -exec}, is read again from the top), and split apart they would pass the same depth and output
 * state across classes.
 */
public final class ShellCommands {
  /** The deepest nesting read ({@code bash -c "sh -c '...'"}); past it the text is ignored. */
  static final int MAX_DEPTH = 8;

  /** The most commands read from one line; past it the rest is ignored. */
  static final int MAX_COMMANDS = 512;

  /**
   * One simple command as it would run.
   *
   * @param words the program (as written: {@code /bin/rm}) then its arguments, wrappers dropped
   * @param code inline code the program runs ({@code python -c CODE}), or empty
   * @param writes the files its output redirections write
   * @param intoShell true when its output is piped into a shell ({@code curl ... | sh})
   */
  public record Command(List<String> words, String code, List<String> writes, boolean intoShell) {
    public Command {
      words = List.copyOf(requireNonNull(words, "words is null"));
      requireNonNull(code, "code is null");
      writes = List.copyOf(requireNonNull(writes, "writes is null"));
    }

    /** The program's name without its folder or {@code .exe}: {@code /usr/bin/rm} gives rm. */
    public String program() {
      return words.isEmpty() ? "" : programName(words.get(0));
    }

    /** The words after the program. */
    public List<String> args() {
      return words.isEmpty() ? List.of() : words.subList(1, words.size());
    }

    /** The first argument that is not an option, or empty: {@code git -p push} gives push. */
    public String sub() {
      for (String w : args()) {
        if (!isOption(w)) {
          return w;
        }
      }
      return "";
    }

    /** Whether an argument is {@code flag} or, long, {@code flag=...}. */
    public boolean has(String flag) {
      for (String w : args()) {
        if (w.equals(flag) || (flag.startsWith("--") && w.startsWith(flag + "="))) {
          return true;
        }
      }
      return false;
    }

    /** Whether a short option cluster holds {@code letter}: {@code -fu} holds f. */
    public boolean hasShort(char letter) {
      for (String w : args()) {
        if (w.length() > 1 && w.charAt(0) == '-' && w.charAt(1) != '-' && w.indexOf(letter) > 0) {
          return true;
        }
      }
      return false;
    }

    /** The words joined by spaces. */
    public String text() {
      return String.join(" ", words);
    }
  }

  private ShellCommands() {}

  /** The commands of a command line, in order. */
  public static List<Command> of(String line) {
    requireNonNull(line, "line is null");
    List<Command> out = new ArrayList<>();
    read(line, 0, out);
    return List.copyOf(out);
  }

  /** The commands of an argument vector ({@code ["bash","-c","rm x"]}): one command, unwrapped. */
  public static List<Command> ofArgv(List<String> argv) {
    requireNonNull(argv, "argv is null");
    List<Command> out = new ArrayList<>();
    simple(new ArrayList<>(argv), List.of(), "", false, 0, out);
    return List.copyOf(out);
  }

  /** {@code /usr/bin/rm} gives rm, {@code C:\x\del.exe} del. */
  public static String programName(String word) {
    String w = word;
    int slash = Math.max(w.lastIndexOf('/'), w.lastIndexOf('\\'));
    if (slash >= 0 && slash < w.length() - 1) {
      w = w.substring(slash + 1);
    }
    if (w.endsWith(".exe")) {
      w = w.substring(0, w.length() - 4);
    }
    return w;
  }

  static boolean isOption(String w) {
    return w.length() > 1 && w.charAt(0) == '-';
  }

  // ---------------------------------------------------------------- reading a line

  /** A simple command being read: its words, redirections and a here-document body. */
  private static final class Pending {
    final List<String> words = new ArrayList<>();
    final List<String> writes = new ArrayList<>();
    final StringBuilder heredoc = new StringBuilder();
    boolean pipedOut;
  }

  private static void read(String s, int depth, List<Command> out) {
    if (depth > MAX_DEPTH || out.size() >= MAX_COMMANDS) {
      return;
    }
    List<Pending> pipeline = new ArrayList<>();
    Pending cmd = new Pending();
    StringBuilder word = new StringBuilder();
    boolean inWord = false;
    List<String> heredocTags = new ArrayList<>();
    int n = s.length();
    int i = 0;
    while (i < n) {
      char c = s.charAt(i);
      if (c == '\\') {
        if (i + 1 < n && s.charAt(i + 1) == '\n') {
          i += 2; // a line continued
          continue;
        }
        if (i + 1 < n) {
          word.append(s.charAt(i + 1));
        }
        inWord = true;
        i += 2;
      } else if (c == '\'') {
        int close = s.indexOf('\'', i + 1);
        int end = close < 0 ? n : close;
        word.append(s, i + 1, end);
        inWord = true;
        i = end + 1;
      } else if (c == '"') {
        i = doubleQuoted(s, i + 1, word, depth, out);
        inWord = true;
      } else if (c == '`') {
        int close = s.indexOf('`', i + 1);
        int end = close < 0 ? n : close;
        read(s.substring(i + 1, end), depth + 1, out);
        word.append("$()");
        inWord = true;
        i = end + 1;
      } else if (c == '$' && i + 1 < n && s.charAt(i + 1) == '(') {
        int end = closing(s, i + 1);
        read(s.substring(i + 2, Math.max(i + 2, end)), depth + 1, out);
        word.append("$()");
        inWord = true;
        i = end + 1;
      } else if ((c == '<' || c == '>') && i + 1 < n && s.charAt(i + 1) == '(') {
        int end = closing(s, i + 1);
        read(s.substring(i + 2, Math.max(i + 2, end)), depth + 1, out);
        inWord = true;
        i = end + 1;
      } else if (c == '#' && !inWord) {
        while (i < n && s.charAt(i) != '\n') {
          i++;
        }
      } else if (c == '>' || c == '<' || (c == '&' && i + 1 < n && s.charAt(i + 1) == '>')) {
        // A file descriptor number right before it belongs to the redirection.
        if (inWord && isDigits(word)) {
          word.setLength(0);
          inWord = false;
        }
        flush(word, inWord, cmd.words);
        inWord = false;
        int j = i;
        while (j < n && "<>&|".indexOf(s.charAt(j)) >= 0 && j - i < 3) {
          j++;
        }
        String op = s.substring(i, j);
        while (j < n && (s.charAt(j) == ' ' || s.charAt(j) == '\t')) {
          j++;
        }
        StringBuilder target = new StringBuilder();
        j = targetWord(s, j, target);
        if (op.startsWith("<<") && !op.equals("<<<")) {
          String tag = target.toString();
          heredocTags.add(tag.startsWith("-") ? tag.substring(1) : tag); // <<-EOF
        } else if (op.contains(">") && !op.endsWith("&") && isFile(target.toString())) {
          cmd.writes.add(target.toString());
        }
        i = j;
      } else if (c == '\n' || c == ';' || c == '&' || c == '|' || c == '(' || c == ')') {
        flush(word, inWord, cmd.words);
        inWord = false;
        boolean pipe = c == '|' && !(i + 1 < n && s.charAt(i + 1) == '|');
        int j = i + 1;
        if (c == '|' && j < n && s.charAt(j) == '&') {
          j++; // |&
        } else if ((c == '&' || c == '|' || c == ';') && j < n && s.charAt(j) == c) {
          j++; // && || ;;
        }
        if (c == '\n' && !heredocTags.isEmpty()) {
          j = heredocBodies(s, j, heredocTags, cmd.heredoc);
          heredocTags.clear();
        }
        cmd.pipedOut = pipe;
        pipeline.add(cmd);
        if (!pipe) {
          emit(pipeline, depth, out);
          pipeline.clear();
        }
        cmd = new Pending();
        i = j;
      } else if (Character.isWhitespace(c)) {
        flush(word, inWord, cmd.words);
        inWord = false;
        i++;
      } else {
        word.append(c);
        inWord = true;
        i++;
      }
    }
    flush(word, inWord, cmd.words);
    pipeline.add(cmd);
    emit(pipeline, depth, out);
  }

  private static boolean isDigits(CharSequence w) {
    if (w.isEmpty()) {
      return false;
    }
    for (int k = 0; k < w.length(); k++) {
      if (!Character.isDigit(w.charAt(k))) {
        return false;
      }
    }
    return true;
  }

  /** A redirection target that is a file: not {@code /dev/null}, a descriptor or {@code -}. */
  private static boolean isFile(String target) {
    return !target.isEmpty()
        && !target.equals("-")
        && !isDigits(target)
        && !target.startsWith("&")
        && !target.equals("/dev/null")
        && !target.equals("/dev/stdout")
        && !target.equals("/dev/stderr")
        && !target.startsWith("/dev/fd/")
        && !target.equalsIgnoreCase("nul");
  }

  /** Reads one word (quotes dropped) from {@code j}; returns where it ends. */
  private static int targetWord(String s, int j, StringBuilder target) {
    int n = s.length();
    while (j < n) {
      char c = s.charAt(j);
      if (c == '\'' || c == '"') {
        int close = s.indexOf(c, j + 1);
        int end = close < 0 ? n : close;
        target.append(s, j + 1, end);
        j = end + 1;
      } else if (Character.isWhitespace(c) || ";&|()<>".indexOf(c) >= 0) {
        break;
      } else {
        target.append(c);
        j++;
      }
    }
    return j;
  }

  /** The here-document bodies after a line end at {@code j}, each to its tag's line. */
  private static int heredocBodies(String s, int j, List<String> tags, StringBuilder body) {
    int n = s.length();
    for (String tag : tags) {
      while (j < n) {
        int eol = s.indexOf('\n', j);
        int end = eol < 0 ? n : eol;
        String line = s.substring(j, end);
        j = eol < 0 ? n : eol + 1;
        if (line.strip().equals(tag)) {
          break;
        }
        body.append(line).append('\n');
      }
    }
    return j;
  }

  /** Reads a double-quoted string from {@code i} (after the quote); returns where it ends. */
  private static int doubleQuoted(
      String s, int i, StringBuilder word, int depth, List<Command> out) {
    int n = s.length();
    while (i < n) {
      char c = s.charAt(i);
      if (c == '"') {
        return i + 1;
      }
      if (c == '\\' && i + 1 < n && "\"\\$`\n".indexOf(s.charAt(i + 1)) >= 0) {
        word.append(s.charAt(i + 1));
        i += 2;
      } else if (c == '`') {
        int close = s.indexOf('`', i + 1);
        int end = close < 0 ? n : close;
        read(s.substring(i + 1, end), depth + 1, out);
        word.append(s, i, Math.min(n, end + 1));
        i = end + 1;
      } else if (c == '$' && i + 1 < n && s.charAt(i + 1) == '(') {
        int end = closing(s, i + 1);
        read(s.substring(i + 2, Math.max(i + 2, end)), depth + 1, out);
        word.append(s, i, Math.min(n, end + 1));
        i = end + 1;
      } else {
        word.append(c);
        i++;
      }
    }
    return n;
  }

  /** The index of the {@code )} that closes the {@code (} at {@code open}, or the end. */
  private static int closing(String s, int open) {
    int depth = 0;
    int n = s.length();
    for (int i = open; i < n; i++) {
      char c = s.charAt(i);
      if (c == '\\') {
        i++;
      } else if (c == '\'') {
        int close = s.indexOf('\'', i + 1);
        i = close < 0 ? n : close;
      } else if (c == '(') {
        depth++;
      } else if (c == ')') {
        depth--;
        if (depth == 0) {
          return i;
        }
      }
    }
    return n;
  }

  private static void flush(StringBuilder word, boolean inWord, List<String> words) {
    if (inWord) {
      words.add(word.toString());
    }
    word.setLength(0);
  }

  /** The commands of one pipeline; text piped into a bare shell is read as commands. */
  private static void emit(List<Pending> pipeline, int depth, List<Command> out) {
    boolean[] shellAfter = new boolean[pipeline.size()];
    for (int k = pipeline.size() - 2; k >= 0; k--) {
      shellAfter[k] = shellAfter[k + 1] || readsStdinAsScript(pipeline.get(k + 1).words);
    }
    for (int k = 0; k < pipeline.size(); k++) {
      Pending p = pipeline.get(k);
      if (p.words.isEmpty()) {
        continue;
      }
      boolean intoShell = shellAfter[k];
      simple(p.words, p.writes, p.heredoc.toString(), intoShell, depth, out);
      if (intoShell) {
        String program = programName(p.words.get(0));
        if (program.equals("echo") || program.equals("printf")) {
          List<String> args = new ArrayList<>(p.words.subList(1, p.words.size()));
          args.removeIf(ShellCommands::isOption);
          read(String.join(" ", args), depth + 1, out);
        }
      }
    }
  }

  /** A shell with no script and no {@code -c} (or with {@code -s}): it runs what it reads. */
  private static boolean readsStdinAsScript(List<String> words) {
    List<String> w = unwrapped(words);
    if (w.isEmpty() || !SHELLS.contains(programName(w.get(0)))) {
      return false;
    }
    List<String> args = w.subList(1, w.size());
    for (int k = 0; k < args.size(); k++) {
      String a = args.get(k);
      if (a.equals("-s") || a.equals("-")) {
        return true;
      }
      if (a.equals("-o") || a.equals("+o")) {
        k++;
      } else if (!isOption(a) || shortCluster(a, 'c') || a.equals("--command")) {
        return false; // a script file, or a script given with -c
      }
    }
    return true;
  }

  /** {@code -xc}: a cluster of short options holding {@code letter}. */
  private static boolean shortCluster(String a, char letter) {
    return a.length() > 1 && a.charAt(0) == '-' && a.charAt(1) != '-' && a.indexOf(letter) > 0;
  }

  // ---------------------------------------------------------------- one simple command

  private static final Set<String> SHELLS =
      Set.of("sh", "bash", "zsh", "dash", "ksh", "ash", "mksh", "fish", "csh", "tcsh");
  private static final Set<String> KEYWORDS =
      Set.of("if", "then", "else", "elif", "do", "while", "until", "!", "{", "}", "time", "fi");

  /**
   * Commands that run the command after their options: the options that take a value, and how many
   * words (a duration, a folder, a container) come between the options and the command.
   */
  private record Wrapper(Set<String> valued, int skip) {}

  private static final Map<String, Wrapper> WRAPPERS =
      Map.ofEntries(
          Map.entry(
              "sudo",
              wrapper(
                  "-u -g -h -p -C -D -r -t -U -T --user --group --host --prompt --chdir --role"
                      + " --type --other-user --close-from --command-timeout",
                  0)),
          Map.entry("doas", wrapper("-u -C", 0)),
          Map.entry("pkexec", wrapper("--user", 0)),
          Map.entry("runuser", wrapper("-u -g -G --user --group", 0)),
          Map.entry("nohup", wrapper("", 0)),
          Map.entry("time", wrapper("-f -o --format --output", 0)),
          Map.entry("nice", wrapper("-n --adjustment", 0)),
          Map.entry("ionice", wrapper("-c -n -p -P -u --class --classdata", 0)),
          Map.entry("stdbuf", wrapper("-i -o -e", 0)),
          Map.entry("timeout", wrapper("-s -k --signal --kill-after", 1)),
          Map.entry("env", wrapper("-u -C --unset --chdir", 0)),
          Map.entry("exec", wrapper("-a", 0)),
          Map.entry("builtin", wrapper("", 0)),
          Map.entry(
              "xargs",
              wrapper(
                  "-I -n -P -L -l -d -E -e -s -a --arg-file --delimiter --max-args --max-procs"
                      + " --max-lines --max-chars --process-slot-var --eof",
                  0)),
          Map.entry("strace", wrapper("-o -e -p -s -u -E -P -I -X -a -b", 0)),
          Map.entry("ltrace", wrapper("-o -e -p -s -u -n -a", 0)),
          Map.entry("chronic", wrapper("", 0)),
          Map.entry("unbuffer", wrapper("", 0)),
          Map.entry("caffeinate", wrapper("-t -w", 0)),
          Map.entry("torsocks", wrapper("-u -p -a -P", 0)),
          Map.entry("proxychains", wrapper("-f", 0)),
          Map.entry("proxychains4", wrapper("-f", 0)),
          Map.entry("setsid", wrapper("", 0)),
          Map.entry("fakeroot", wrapper("-l -s -i", 0)),
          Map.entry("chroot", wrapper("--userspec --groups", 1)),
          Map.entry("flock", wrapper("-w -E --timeout --conflict-exit-code", 1)),
          Map.entry("npx", wrapper("-p --package -c --call", 0)),
          Map.entry("pnpx", wrapper("-p --package", 0)),
          Map.entry("bunx", wrapper("-p --package", 0)),
          Map.entry("uvx", wrapper("--from --with --python", 0)),
          Map.entry("dotenv", wrapper("-e -v -c", 0)),
          Map.entry("with-contenv", wrapper("", 0)),
          Map.entry("catchsegv", wrapper("", 0)));

  /** Two-word wrappers: {@code poetry run cmd}. */
  private static final Set<String> RUNNERS =
      Set.of(
          "poetry run",
          "pipenv run",
          "uv run",
          "bundle exec",
          "pnpm exec",
          "pnpm dlx",
          "yarn dlx",
          "yarn exec",
          "npm exec",
          "direnv exec",
          "conda run",
          "mamba run",
          "pdm run",
          "hatch run",
          "rye run");

  private static Wrapper wrapper(String valued, int skip) {
    return new Wrapper(ToolNouns.words(valued), skip);
  }

  /** Interpreters and the options that give them code to run. */
  private static final Map<String, Set<String>> CODE_OPTIONS =
      Map.ofEntries(
          Map.entry("python", Set.of("-c")),
          Map.entry("python2", Set.of("-c")),
          Map.entry("python3", Set.of("-c")),
          Map.entry("pypy", Set.of("-c")),
          Map.entry("pypy3", Set.of("-c")),
          Map.entry("node", Set.of("-e", "--eval", "-p", "--print")),
          Map.entry("nodejs", Set.of("-e", "--eval", "-p", "--print")),
          Map.entry("deno", Set.of("eval")),
          Map.entry("bun", Set.of("-e", "--eval")),
          Map.entry("perl", Set.of("-e", "-E", "-pe", "-ne", "-pie", "-i", "-lne", "-lpe")),
          Map.entry("ruby", Set.of("-e")),
          Map.entry("php", Set.of("-r")),
          Map.entry("rscript", Set.of("-e")),
          Map.entry("osascript", Set.of("-e")));

  /** Calls in inline code that start a process: its string literals are then command lines. */
  private static final List<String> PROCESS_CALLS =
      List.of(
          "system(",
          "popen(",
          "subprocess",
          "spawn(",
          "spawnsync(",
          "exec(",
          "execsync(",
          "execfilesync(",
          "execfile(",
          "shell_exec(",
          "passthru(",
          "proc_open(",
          "%x(",
          "os.exec",
          "runtime.getruntime",
          "processbuilder",
          "do shell script",
          "qx(",
          "check_output(",
          "check_call(",
          "getoutput(");

  /** Reads one simple command, unwrapping what only runs another. */
  private static void simple(
      List<String> words,
      List<String> writes,
      String heredoc,
      boolean intoShell,
      int depth,
      List<Command> out) {
    if (depth > MAX_DEPTH || out.size() >= MAX_COMMANDS) {
      return;
    }
    List<String> w = unwrappedKeepingScripts(words, depth, out);
    if (w.isEmpty()) {
      return;
    }
    String program = programName(w.get(0));
    List<String> args = w.subList(1, w.size());
    if (program.equals("busybox") && !args.isEmpty()) {
      simple(new ArrayList<>(args), writes, heredoc, intoShell, depth + 1, out);
      return;
    }
    if (SHELLS.contains(program)) {
      List<String> rest = args;
      String script = shellScript(rest);
      if (script != null) {
        read(script, depth + 1, out);
      } else if (!heredoc.isEmpty() && scriptFile(rest) == null) {
        read(heredoc, depth + 1, out);
      }
      out.add(new Command(w, "", writes, intoShell));
      return;
    }
    switch (program) {
      case "eval" -> {
        read(String.join(" ", args), depth + 1, out);
        return;
      }
      case "su" -> {
        String script = valueOf(args, "-c", "--command");
        if (script != null) {
          read(script, depth + 1, out);
        }
      }
      case "ssh" -> {
        String remote = remoteCommand(args);
        if (!remote.isEmpty()) {
          read(remote, depth + 1, out);
        }
      }
      case "cmd" -> {
        for (int k = 0; k < args.size(); k++) {
          if (args.get(k).equals("/c") || args.get(k).equals("/k")) {
            read(String.join(" ", args.subList(k + 1, args.size())), depth + 1, out);
            break;
          }
        }
      }
      case "powershell", "pwsh" -> {
        for (int k = 0; k < args.size(); k++) {
          String a = args.get(k);
          if (a.equals("-c") || a.equals("-command") || a.equals("/c")) {
            read(String.join(" ", args.subList(k + 1, args.size())), depth + 1, out);
            break;
          }
        }
      }
      case "watch" -> {
        int k = 0;
        while (k < args.size() && isOption(args.get(k))) {
          String a = args.get(k);
          k += a.equals("-n") || a.equals("--interval") ? 2 : 1;
        }
        if (k < args.size()) {
          read(String.join(" ", args.subList(k, args.size())), depth + 1, out);
        }
        return;
      }
      case "find" -> findExec(args, depth, out);
      default -> {}
    }
    Set<String> codeOptions = CODE_OPTIONS.get(program);
    if (codeOptions == null && program.startsWith("python")) {
      codeOptions = CODE_OPTIONS.get("python");
    }
    String code = "";
    if (codeOptions != null) {
      for (int k = 0; k < args.size(); k++) {
        if (codeOptions.contains(args.get(k)) && k + 1 < args.size()) {
          code = args.get(k + 1);
          break;
        }
        if (args.get(k).equals("-m") && k + 1 < args.size()) {
          simple(
              new ArrayList<>(args.subList(k + 1, args.size())),
              writes,
              "",
              intoShell,
              depth + 1,
              out);
          break;
        }
        if (!isOption(args.get(k))) {
          break; // a script file: its code is not seen
        }
      }
      if (code.isEmpty() && !heredoc.isEmpty()) {
        code = heredoc;
      }
      if (!code.isEmpty()) {
        codeCommands(code, depth, out);
      }
    }
    out.add(new Command(w, code, writes, intoShell));
  }

  /** The script of {@code sh -c SCRIPT}, or null. */
  private static String shellScript(List<String> args) {
    boolean c = false;
    for (int k = 0; k < args.size(); k++) {
      String a = args.get(k);
      if (c && !isOption(a)) {
        return a;
      }
      if (a.equals("-o") || a.equals("+o") || a.equals("--rcfile") || a.equals("--init-file")) {
        k++;
      } else if (shortCluster(a, 'c')) {
        c = true;
      } else if (a.equals("--command")) {
        c = true;
      } else if (!isOption(a)) {
        return null;
      }
    }
    return null;
  }

  private static String scriptFile(List<String> args) {
    for (String a : args) {
      if (!isOption(a)) {
        return a;
      }
    }
    return null;
  }

  private static String valueOf(List<String> args, String shortOption, String longOption) {
    for (int k = 0; k < args.size(); k++) {
      String a = args.get(k);
      if ((a.equals(shortOption) || a.equals(longOption)) && k + 1 < args.size()) {
        return args.get(k + 1);
      }
      if (a.startsWith(longOption + "=")) {
        return a.substring(longOption.length() + 1);
      }
    }
    return null;
  }

  private static final Set<String> SSH_VALUED =
      Set.of(
          "-b", "-c", "-D", "-d", "-E", "-e", "-F", "-I", "-i", "-J", "-L", "-l", "-m", "-O", "-o",
          "-p", "-Q", "-R", "-S", "-W", "-w");

  /** What {@code ssh [options] host command...} runs on the host. */
  private static String remoteCommand(List<String> args) {
    int k = 0;
    while (k < args.size() && isOption(args.get(k))) {
      k += SSH_VALUED.contains(args.get(k)) ? 2 : 1;
    }
    k++; // the host
    return k < args.size() ? String.join(" ", args.subList(k, args.size())) : "";
  }

  /** {@code find ... -exec cmd {} ;}: the command run for each file. */
  private static void findExec(List<String> args, int depth, List<Command> out) {
    for (int k = 0; k < args.size(); k++) {
      String a = args.get(k);
      if (a.equals("-exec") || a.equals("-execdir") || a.equals("-ok") || a.equals("-okdir")) {
        int end = k + 1;
        while (end < args.size() && !args.get(end).equals(";") && !args.get(end).equals("+")) {
          end++;
        }
        if (end > k + 1) {
          simple(new ArrayList<>(args.subList(k + 1, end)), List.of(), "", false, depth + 1, out);
        }
        k = end;
      }
    }
  }

  /** Inline code that starts a process: each string literal is read as a command line. */
  private static void codeCommands(String code, int depth, List<Command> out) {
    String lower = code.toLowerCase(Locale.ROOT);
    boolean spawns = false;
    for (String call : PROCESS_CALLS) {
      spawns |= lower.contains(call);
    }
    if (!spawns) {
      return;
    }
    int n = code.length();
    for (int i = 0; i < n; i++) {
      char c = code.charAt(i);
      if (c == '\'' || c == '"' || c == '`') {
        int close = code.indexOf(c, i + 1);
        if (close < 0) {
          break;
        }
        read(code.substring(i + 1, close), depth + 1, out);
        i = close;
      }
    }
  }

  /** The words without the wrappers before the command (scripts of wrappers are read too). */
  private static List<String> unwrappedKeepingScripts(
      List<String> words, int depth, List<Command> out) {
    List<String> w = unwrapped(words);
    // env -S 'cmd args': the string is a command line.
    if (!words.isEmpty() && programName(words.get(0)).equals("env")) {
      String split = valueOf(words.subList(1, words.size()), "-S", "--split-string");
      if (split != null) {
        read(split, depth + 1, out);
      }
    }
    return w;
  }

  /** The words without assignments, keywords and wrappers before the command. */
  static List<String> unwrapped(List<String> words) {
    int k = 0;
    int guard = 0;
    while (k < words.size() && guard++ < 64) {
      String word = words.get(k);
      String program = programName(word);
      if (KEYWORDS.contains(word) || isAssignment(word)) {
        k++;
        continue;
      }
      if (program.equals("command") || program.equals("type") || program.equals("which")) {
        if (program.equals("command")
            && !(k + 1 < words.size()
                && (words.get(k + 1).equals("-v") || words.get(k + 1).equals("-V")))) {
          k++;
          while (k < words.size() && words.get(k).equals("-p")) {
            k++;
          }
          continue;
        }
        return words.subList(k, words.size()); // a look-up: nothing runs
      }
      if (k + 1 < words.size() && RUNNERS.contains(program + " " + words.get(k + 1))) {
        k += 2;
        if (program.equals("direnv")) {
          k++; // the folder
        }
        while (k < words.size() && isOption(words.get(k)) && !words.get(k).equals("--")) {
          k++;
        }
        if (k < words.size() && words.get(k).equals("--")) {
          k++;
        }
        continue;
      }
      if ((program.equals("docker") || program.equals("podman") || program.equals("kubectl"))
          && k + 1 < words.size()
          && words.get(k + 1).equals("exec")) {
        int dash = words.subList(k, words.size()).indexOf("--");
        if (program.equals("kubectl") && dash >= 0) {
          k += dash + 1;
          continue;
        }
        k += 2;
        while (k < words.size() && isOption(words.get(k))) {
          String o = words.get(k);
          boolean valued =
              Set.of("-e", "-u", "-w", "--env", "--user", "--workdir", "-c", "--container", "-n")
                  .contains(o);
          k += valued ? 2 : 1;
        }
        k++; // the container
        continue;
      }
      Wrapper wrapper = WRAPPERS.get(program);
      if (wrapper == null) {
        break;
      }
      k++;
      while (k < words.size()) {
        String o = words.get(k);
        if (o.equals("--")) {
          k++;
          break;
        }
        if (program.equals("env") && isAssignment(o)) {
          k++;
          continue;
        }
        if (!isOption(o)) {
          break;
        }
        // xargs -I {} (lower-cased to -i, whose replacement is otherwise attached: -i{}).
        boolean replacement =
            program.equals("xargs")
                && o.equals("-i")
                && k + 1 < words.size()
                && words.get(k + 1).chars().anyMatch(ch -> !Character.isLetterOrDigit(ch));
        k += wrapper.valued().contains(o) || replacement ? 2 : 1;
      }
      k += wrapper.skip();
    }
    return k >= words.size() ? List.of() : words.subList(k, words.size());
  }

  private static boolean isAssignment(String word) {
    int eq = word.indexOf('=');
    if (eq <= 0) {
      return false;
    }
    for (int i = 0; i < eq; i++) {
      char c = word.charAt(i);
      if (!(Character.isLetterOrDigit(c) || c == '_')) {
        return false;
      }
    }
    return !Character.isDigit(word.charAt(0));
  }
}
