package dev.memsidecar.language.extraction;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The command lines in a sentence, in any language: a code span that reads as a command ({@code
 * `npm run check:rules`}, {@code `./gradlew build`}), or a known tool followed by a subcommand, a
 * flag or a path ({@code mvn -pl core test}, {@code kubectl rollout restart deploy/api}). A tool's
 * name followed by prose is no command ("a poetry reading where ..."): a command's arguments end at
 * a word of prose in any language ({@link SharedLexicon#proseWords}). Stateless and thread-safe.
 */
public final class CommandLines {
  private CommandLines() {}

  private static final String TOOLS =
      "npm|npx|yarn|pnpm|bun|deno|mvn|\\./mvnw|mvnw|gradle|\\./gradlew|gradlew|kubectl|helm|docker|"
          + "docker-compose|podman|git|gh|pip|pip3|pipx|uv|poetry|pytest|tox|cargo|rustup|javac|curl|"
          + "wget|ssh|scp|rsync|terraform|tofu|ansible|ansible-playbook|sudo|systemctl|journalctl|"
          + "apt|apt-get|yum|dnf|brew|bazel|dotnet|rake|bundle|rails|psql|mysql|redis-cli|mongosh|aws|"
          + "gcloud|az|sbt|composer|nvm|sdk|flutter|xcodebuild|adb|openssl|jq|ffmpeg|vagrant|"
          + "minikube|k3d|skaffold|argocd|istioctl|eksctl|pulumi|firebase|vercel|netlify|heroku|"
          + "wrangler|supabase|prisma|alembic|flyway|liquibase|buf|protoc|grpcurl|jest|vitest|"
          + "cypress|playwright|eslint|prettier|ruff|flake8|mypy|pre-commit|rustc|gcc|nix|"
          + "python|python3|node|java|go|make|bash|sh|ls|cd|cat|grep|rg|find|chmod|mkdir|rm|cp|mv|"
          + "tar|export|source|task";

  /** Tools that are also everyday words: a command needs a flag, path or known subcommand. */
  private static final Set<String> WEAK_TOOLS =
      WordSets.of(
          """
          python python3 node java go make bash sh ls cd cat grep find rm cp mv tar export source
          just task kind git sudo helm bundle rails jest buf sdk az apt brew nix gh uv
          """);

  private static final Set<String> SUBCOMMANDS =
      WordSets.of(
          """
          run install ci test build deploy start exec apply get describe logs rollout push pull
          commit checkout clone compose up down ps clean package verify lint format check serve
          dev migrate init plan status add rebase merge fetch restart stop login create delete
          update upgrade sync tag release publish bump mod vet tidy fmt clippy bench doc uninstall
          config set port-forward scale port diff show log stash reset switch branch remote
          cherry-pick revert bisect worktree audit outdated link pack rollback destroy validate
          import upload download cp rm sh bash version help -m -c manage.py
          """);
  private static final Pattern TOOL_START = Pattern.compile("(?<![\\w./-])(" + TOOLS + ")(?=\\s)");
  private static final Pattern ARG = Pattern.compile("[\\w./:=@,+~%{}\\[\\]\"'<>*$-]+");
  private static final Pattern CODE_SPAN = Pattern.compile("`([^`\\n]+)`");

  /** The command lines of {@code sentence}, verbatim, in order; empty when none. */
  public static List<String> of(String sentence) {
    List<String> out = new ArrayList<>();
    Matcher code = CODE_SPAN.matcher(sentence);
    while (code.find()) {
      String c = code.group(1).strip();
      if (looksLikeCommand(c, true)) {
        out.add(c);
      }
    }
    if (!out.isEmpty()) {
      return List.copyOf(out);
    }
    String plain = sentence.replaceAll("[，。；！？]", " ");
    Matcher m = TOOL_START.matcher(plain);
    int from = 0;
    while (m.find(from)) {
      String tool = m.group(1);
      int end = m.end();
      List<String> args = new ArrayList<>();
      int plainWords = 0;
      Matcher a = ARG.matcher(plain);
      int pos = end;
      while (pos < plain.length()) {
        while (pos < plain.length() && plain.charAt(pos) == ' ') {
          pos++;
        }
        if (pos >= plain.length() || !a.find(pos) || a.start() != pos) {
          break;
        }
        String arg = a.group();
        String bare = arg.replaceAll("[.,;:!?)]+$", "");
        String lower = bare.toLowerCase(Locale.ROOT);
        if (bare.isEmpty() || AnyLanguage.isProseWord(lower)) {
          break;
        }
        boolean flagValue = !args.isEmpty() && args.get(args.size() - 1).startsWith("-");
        if (!args.isEmpty() && !isTechnicalArg(bare) && !flagValue) {
          // After the subcommand a plain word is an argument ("get pods", "push origin main")
          // only while few and not prose: "kubectl port-forward over exposing debug ports" stops
          // at "over", "... exposing debug ports" at "exposing".
          boolean prose = lower.length() > 5 && (lower.endsWith("ing") || lower.endsWith("ly"));
          if (++plainWords > 3 || prose) {
            break;
          }
        }
        args.add(bare);
        pos = a.end();
        if (!bare.equals(arg)) {
          break;
        }
      }
      String command = tool + (args.isEmpty() ? "" : " " + String.join(" ", args));
      if (!args.isEmpty() && looksLikeCommand(command, false)) {
        out.add(command);
      }
      from = Math.max(end, pos);
      if (from >= plain.length()) {
        break;
      }
    }
    return List.copyOf(out);
  }

  private static final Pattern FLAG_OR_PATH =
      Pattern.compile(
          "(?:^|\\s)(?:--?[a-zA-Z][\\w-]*|\\.{0,2}/[\\w./-]+|[\\w-]+:[\\w:-]+|[\\w-]+=\\S+|[\\w-]+/[\\w./-]+|\\S+\\.(?:py|js|ts|sh|jar|yaml|yml|json|toml|xml|sql|java|go|rs))(?=\\s|$)");

  /** Whether {@code text} reads as a shell command line. */
  public static boolean looksLikeCommand(String text, boolean quoted) {
    String[] parts = text.strip().split("\\s+");
    if (parts.length == 0 || parts[0].isEmpty()) {
      return false;
    }
    String first = parts[0].startsWith("$") ? parts[0].substring(1) : parts[0];
    boolean tool = TOOL_START.matcher(first + " ").lookingAt();
    boolean flagOrPath = FLAG_OR_PATH.matcher(text).find();
    if (quoted) {
      return tool || (parts.length >= 2 && flagOrPath) || first.startsWith("./");
    }
    if (!tool || parts.length < 2) {
      return false;
    }
    boolean sub = SUBCOMMANDS.contains(parts[1].toLowerCase(Locale.ROOT));
    if (WEAK_TOOLS.contains(first)) {
      // Everyday words ("just get", "make sure", "go run"): a flag or a path, or git's subcommands.
      return flagOrPath || (sub && first.equals("git"));
    }
    // A tool's name followed by prose is no command ("a poetry reading where ...").
    return sub || flagOrPath || Arrays.stream(parts).skip(1).anyMatch(CommandLines::isTechnicalArg);
  }

  private static final Pattern TECHNICAL_ARG = Pattern.compile("^-|[/.:=@_$~*{}\\[\\]<>\"'\\d]");

  /** An argument no sentence would hold: a flag, a path, a host, a number, a quoted string. */
  private static boolean isTechnicalArg(String arg) {
    return TECHNICAL_ARG.matcher(arg).find();
  }

  /**
   * {@code text} with each of {@code commands} (found in it) wrapped in backticks, once, so that
   * rewriting never touches it.
   */
  public static String quote(String text, List<String> commands) {
    String out = text;
    for (String c : commands) {
      if (!out.contains("`" + c + "`") && !out.contains("`" + c)) {
        int at = out.indexOf(c);
        if (at >= 0) {
          out = out.substring(0, at) + "`" + c + "`" + out.substring(at + c.length());
        }
      }
    }
    return out;
  }
}
