package dev.memsidecar.language.tool;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.language.tool.ShellCommands.Command;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The acts a prohibition can forbid beside a tool ("don't use the shell <b>to delete files</b>",
 * "never <b>drop tables</b>", 不要<b>安装软件包</b>), and how a tool call is seen to do one. A rule keeps
 * its act as an object {@code action:<key>} ({@link RuleObjects.Kind#ACTION}); {@link
 * ToolCallMatcher} then denies only the calls that do it: after "Don't use the shell to delete
 * files." a {@code bash} call running {@code rm -rf build} is denied and {@code ls -la} or {@code
 * git status} are not. Language-neutral: the words that name an act are each language's (see {@code
 * ProhibitionRules}); the commands, statements and tool names that do it are the same in every
 * language. Immutable and thread-safe.
 *
 * <h2>How a call does an act</h2>
 *
 * Any of these, in the call's arguments (as {@link ToolArguments} reads them):
 *
 * <ul>
 *   <li>a command of a command line (or of an array of words), as {@link ShellCommands} reads it:
 *       in any position ({@code cd x && rm a}, {@code sudo rm}, {@code xargs rm}, {@code bash -c
 *       "rm x"}, {@code find . -delete}); a word that is only an argument ({@code echo rm}, {@code
 *       grep rm}, a commit message) is not;
 *   <li>for data, a statement anywhere in a value that is not free text ({@code DROP TABLE}, {@code
 *       DELETE FROM}, also as an argument of {@code psql -c} or {@code echo}: a statement is text
 *       for an interpreter wherever it stands);
 *   <li>inline code that calls a known API ({@code shutil.rmtree}, {@code fs.unlinkSync});
 *   <li>a value that is one word in an operation field ({@code command}, {@code action}, {@code
 *       op}, {@code operation}, {@code mode}, {@code method}, {@code verb}, {@code subcommand}):
 *       {@code {"op":"delete"}};
 *   <li>the tool itself, when its name says it does the act ({@code delete_file}, {@code git_push},
 *       {@code npm_install}) and no operation field says otherwise.
 * </ul>
 *
 * <table>
 *   <caption>The acts</caption>
 *   <tr><th>key</th><th>commands (and more)</th></tr>
 *   <tr><td>delete-files</td><td>rm, rmdir, unlink, shred, srm, wipe, trash, trash-put, rimraf,
 *       del, erase, rd, remove-item, truncate; find -delete; git rm, git clean; rsync --delete*;
 *       svn/hg rm; gio trash; aws s3 rm, gsutil rm, rclone delete/purge; os.remove, shutil.rmtree,
 *       fs.unlinkSync, unlink(...)</td></tr>
 *   <tr><td>write-files</td><td>an output redirection to a file ({@code > f}, {@code >> f}), tee,
 *       touch, cp, ln, patch, truncate, dd of=, sed -i, perl -i, awk -i inplace</td></tr>
 *   <tr><td>move-files</td><td>mv, move, move-item, rename, git mv</td></tr>
 *   <tr><td>drop-tables</td><td>DROP TABLE/DATABASE/SCHEMA/INDEX/VIEW/COLLECTION, TRUNCATE, DROP
 *       COLUMN, dropdb, FLUSHALL/FLUSHDB, .drop(), .dropDatabase(), db:drop, db:reset</td></tr>
 *   <tr><td>delete-rows</td><td>DELETE FROM, .deleteMany(), .deleteOne(), TRUNCATE</td></tr>
 *   <tr><td>install-packages</td><td>apt/apt-get/yum/dnf/zypper/brew/port/snap/flatpak/choco/
 *       winget/scoop install, apk add, pacman -S, pip/pip3/pipx install, uv add, uv pip install,
 *       poetry add, pipenv install, conda install, npm/pnpm install|i|add|ci, yarn (add), bun add,
 *       gem install, bundle add, cargo install|add, go install|get, composer require, dotnet add
 *       package, dpkg -i, rpm -i, curl ... | sh</td></tr>
 *   <tr><td>push</td><td>git push (and, for a tool named git, a {@code push} command)</td></tr>
 *   <tr><td>force-push</td><td>git push -f, --force, --force-with-lease, +refspec</td></tr>
 *   <tr><td>commit</td><td>git commit, hg commit, svn commit</td></tr>
 *   <tr><td>merge</td><td>git merge, gh pr merge, glab mr merge</td></tr>
 *   <tr><td>deploy</td><td>kubectl apply/create/replace/rollout/set/scale/patch, helm
 *       install/upgrade/rollback, terraform/tofu apply/destroy, pulumi up, vercel, netlify deploy,
 *       fly deploy, firebase deploy, cdk deploy, sls deploy, eb deploy, ansible-playbook, and a
 *       command whose first words name deploy ({@code make deploy}, {@code npm run deploy}, {@code
 *       ./deploy.sh}, {@code gcloud app deploy})</td></tr>
 *   <tr><td>send-email</td><td>mail, mailx, sendmail, mutt, neomutt, swaks, msmtp, ssmtp, curl
 *       smtp://</td></tr>
 *   <tr><td>reboot</td><td>reboot, shutdown, halt, poweroff, systemctl reboot/poweroff/halt,
 *       init 0/6, restart-computer, stop-computer</td></tr>
 *   <tr><td>kill-processes</td><td>kill, killall, pkill, taskkill, stop-process, xkill</td></tr>
 *   <tr><td>change-permissions</td><td>chmod, chown, chgrp, setfacl, icacls, takeown,
 *       chattr</td></tr>
 *   <tr><td>download</td><td>curl, wget, aria2c, axel, invoke-webrequest, iwr, http/https
 *       (HTTPie)</td></tr>
 *   <tr><td>format-disk</td><td>mkfs*, mke2fs, fdisk, sfdisk, gdisk, parted, wipefs, diskutil
 *       erase*, format, dd of=/dev/...</td></tr>
 * </table>
 *
 * <p>Limits: what a program does when run from a script file, a {@code Makefile} target or a
 * package script is not seen (only {@code deploy} reads a target's name); nor a command built at
 * run time (variables, {@code base64 -d | sh}); nor another tool's way of doing the act beyond
 * these names. A guard rail for an agent's honest mistakes, not a sandbox.
 */
public final class ToolActions {
  /**
   * One act.
   *
   * @param key its name, as an object keeps it ({@code action:delete-files})
   * @param noun the canonical tool noun of the tools that do it when a prohibition names no tool
   *     ("never drop tables": the database)
   * @param whole true when every call of a tool of {@code noun} does it (a {@code delete} tool
   *     deletes, a {@code send_email} sends): a prohibition about such a tool needs no act object
   * @param command whether a command does it
   * @param text whether a value that is not free text holds it (statements), or null
   * @param code API calls in inline code that do it (lower-case), or none
   * @param operations one-word values of an operation field that do it ({@code delete})
   * @param toolParts whether a tool's name (its parts) says it does it
   */
  public record Action(
      String key,
      String noun,
      boolean whole,
      Predicate<Command> command,
      Predicate<String> text,
      List<String> code,
      Set<String> operations,
      Predicate<List<String>> toolParts) {
    public Action {
      requireNonNull(key, "key is null");
      requireNonNull(noun, "noun is null");
      requireNonNull(command, "command is null");
      code = List.copyOf(code);
      operations = Set.copyOf(operations);
      requireNonNull(toolParts, "toolParts is null");
    }
  }

  /** Every act by its key, in a fixed order. */
  public static final Map<String, Action> ACTIONS;

  /** Fields whose one-word value names an operation: {@code {"op":"delete"}}. */
  static final Set<String> OPERATION_KEYS =
      Set.of(
          "command",
          "cmd",
          "action",
          "op",
          "operation",
          "mode",
          "method",
          "verb",
          "subcommand",
          "sub_command",
          "task");

  private static final Set<String> FILE_PARTS =
      Set.of("file", "files", "fs", "filesystem", "dir", "directory", "folder", "path", "disk");
  private static final Set<String> DELETE_PARTS =
      Set.of("delete", "remove", "rm", "unlink", "trash", "erase", "del", "purge", "rmdir");

  private static final Map<String, Action> BUILDING = new LinkedHashMap<>();

  static {
    add(
        "delete-files",
        "delete",
        true,
        c ->
            is(c, "rm rmdir unlink shred srm wipe trash trash-put trash-rm rimraf del erase rd")
                || is(c, "remove-item ri rmtree truncate")
                || (is(c, "find") && c.has("-delete"))
                || sub(c, "git", "rm clean")
                || sub(c, "svn", "delete del remove rm")
                || sub(c, "hg", "remove rm purge")
                || sub(c, "gio", "trash remove")
                || sub(c, "rclone", "delete purge deletefile rmdir rmdirs")
                || sub(c, "gsutil", "rm")
                || (is(c, "aws")
                    && c.args().size() > 1
                    && c.args().get(0).equals("s3")
                    && Set.of("rm", "rb").contains(c.args().get(1)))
                || (is(c, "rsync") && anyArgStarts(c, "--delete", "--remove-source-files")),
        null,
        List.of(
            "os.remove(",
            "os.unlink(",
            "os.rmdir(",
            "os.removedirs(",
            "shutil.rmtree(",
            ".unlink(",
            ".rmdir(",
            "send2trash",
            "unlinksync(",
            "rmsync(",
            "rmdirsync(",
            "fs.rm(",
            "fs.unlink(",
            "fs.rmdir(",
            "fs.promises.rm",
            "unlink ",
            "unlink(",
            "rmtree",
            "fileutils.rm",
            "file.delete(",
            "files.delete(",
            "deno.remove("),
        "delete remove rm unlink trash erase del purge rmdir delete_file remove_file",
        parts ->
            parts.stream().anyMatch(DELETE_PARTS::contains)
                && (parts.size() == 1 || parts.stream().anyMatch(FILE_PARTS::contains)));
    add(
        "write-files",
        "file",
        false,
        c ->
            !c.writes().isEmpty()
                || is(c, "tee touch cp ln patch truncate copy copy-item set-content add-content")
                || (is(c, "dd") && anyArgStarts(c, "of="))
                || (is(c, "sed") && (c.hasShort('i') || anyArgStarts(c, "--in-place")))
                || (is(c, "perl") && c.hasShort('i'))
                || (is(c, "awk", "gawk") && c.args().contains("inplace")),
        null,
        List.of(),
        "write edit create update save overwrite append insert str_replace replace patch modify"
            + " put multiedit",
        parts ->
            parts.stream()
                    .anyMatch(
                        Set.of(
                                "write",
                                "edit",
                                "multiedit",
                                "create",
                                "save",
                                "append",
                                "patch",
                                "overwrite",
                                "put")
                            ::contains)
                && parts.stream().noneMatch(ToolNouns.READ_PARTS::contains));
    add(
        "move-files",
        "file",
        false,
        c ->
            is(c, "mv move move-item mi rename ren")
                || sub(c, "git", "mv")
                || sub(c, "svn", "move mv rename")
                || (is(c, "rsync") && anyArgStarts(c, "--remove-source-files")),
        null,
        List.of("os.rename(", "shutil.move(", "renamesync(", "fs.rename("),
        "move rename mv",
        parts -> parts.contains("move") || parts.contains("rename") || parts.contains("mv"));
    add(
        "drop-tables",
        "database",
        false,
        c ->
            is(c, "dropdb")
                || (is(c, "redis-cli") && anyArg(c, "flushall", "flushdb"))
                || anyArg(c, "db:drop", "db:reset", "db:schema:load"),
        ToolActions::dropsTables,
        List.of(),
        "drop drop_table drop_database truncate flushall flushdb",
        parts -> parts.contains("drop") || parts.contains("truncate"));
    add(
        "delete-rows",
        "database",
        false,
        c -> false,
        ToolActions::deletesRows,
        List.of(),
        "delete delete_rows delete_many truncate",
        parts ->
            parts.stream().anyMatch(DELETE_PARTS::contains)
                && parts.stream()
                    .anyMatch(
                        Set.of("row", "rows", "record", "records", "document", "documents")
                            ::contains));
    add(
        "install-packages",
        "shell",
        false,
        ToolActions::installs,
        null,
        List.of("pip.main(", "pip install", "npm install"),
        "install add",
        parts -> parts.contains("install"));
    add(
        "push",
        "git",
        false,
        c -> sub(c, "git", "push") || sub(c, "hg", "push") || sub(c, "push", ""),
        null,
        List.of(),
        "push git_push",
        parts -> parts.contains("push"));
    add(
        "force-push",
        "git",
        false,
        c ->
            (sub(c, "git", "push") || is(c, "push"))
                && (c.hasShort('f')
                    || c.has("--force")
                    || c.has("--force-with-lease")
                    || c.has("--force-if-includes")
                    || c.args().stream().anyMatch(a -> a.startsWith("+"))),
        null,
        List.of(),
        "force_push force-push forcepush",
        parts -> parts.contains("force") && parts.contains("push"));
    add(
        "commit",
        "git",
        false,
        c ->
            sub(c, "git", "commit")
                || sub(c, "hg", "commit ci")
                || sub(c, "svn", "commit ci")
                || sub(c, "commit", ""),
        null,
        List.of(),
        "commit",
        parts -> parts.contains("commit"));
    add(
        "merge",
        "git",
        false,
        c ->
            sub(c, "git", "merge")
                || (is(c, "gh", "glab") && c.args().contains("merge"))
                || sub(c, "merge", ""),
        null,
        List.of(),
        "merge",
        parts -> parts.contains("merge"));
    add(
        "deploy",
        "deploy",
        true,
        ToolActions::deploys,
        null,
        List.of(),
        "deploy release rollout",
        parts ->
            parts.stream()
                .anyMatch(
                    p -> p.startsWith("deploy") || p.equals("release") || p.equals("rollout")));
    add(
        "send-email",
        "email",
        true,
        c ->
            is(c, "mail mailx sendmail mutt neomutt swaks msmtp ssmtp send-mailmessage")
                || (is(c, "curl") && anyArgStarts(c, "smtp://", "smtps://")),
        null,
        List.of("smtplib", "sendmail(", "send_mail(", "nodemailer"),
        "send send_email send_mail",
        parts ->
            parts.stream().anyMatch(p -> p.equals("email") || p.equals("mail"))
                && parts.stream().noneMatch(ToolNouns.READ_PARTS::contains));
    add(
        "reboot",
        "shell",
        false,
        c ->
            is(c, "reboot shutdown halt poweroff restart-computer stop-computer")
                || sub(c, "systemctl", "reboot poweroff halt kexec")
                || (is(c, "init", "telinit") && anyArg(c, "0", "6")),
        null,
        List.of(),
        "reboot shutdown poweroff",
        parts -> parts.contains("reboot") || parts.contains("shutdown"));
    add(
        "kill-processes",
        "shell",
        false,
        c -> is(c, "kill killall pkill taskkill stop-process xkill") || sub(c, "systemctl", "kill"),
        null,
        List.of("os.kill(", "process.kill(", ".terminate()", ".kill()"),
        "kill terminate",
        parts -> parts.contains("kill") || parts.contains("terminate"));
    add(
        "change-permissions",
        "shell",
        false,
        c -> is(c, "chmod chown chgrp setfacl icacls takeown chattr"),
        null,
        List.of("os.chmod(", "os.chown(", "chmodsync(", "chownsync("),
        "chmod chown",
        parts ->
            parts.contains("chmod") || parts.contains("chown") || parts.contains("permissions"));
    add(
        "download",
        "shell",
        false,
        c ->
            is(c, "wget aria2c axel invoke-webrequest iwr http https")
                || (is(c, "curl") && !anyArgStarts(c, "smtp://", "smtps://")),
        null,
        List.of("urlretrieve(", "requests.get(", "urlopen("),
        "download",
        parts -> parts.contains("download"));
    add(
        "format-disk",
        "shell",
        false,
        c ->
            c.program().startsWith("mkfs")
                || is(c, "mke2fs fdisk sfdisk gdisk parted wipefs format format-volume")
                || (is(c, "diskutil")
                    && (c.sub().startsWith("erase")
                        || c.sub().startsWith("partition")
                        || c.sub().equals("zerodisk")
                        || c.sub().equals("secureerase")))
                || (is(c, "dd") && anyArgStarts(c, "of=/dev/")),
        null,
        List.of(),
        "format",
        parts -> false);
    ACTIONS = Collections.unmodifiableMap(BUILDING);
  }

  private ToolActions() {}

  private static void add(
      String key,
      String noun,
      boolean whole,
      Predicate<Command> command,
      Predicate<String> text,
      List<String> code,
      String operations,
      Predicate<List<String>> toolParts) {
    BUILDING.put(
        key,
        new Action(key, noun, whole, command, text, code, ToolNouns.words(operations), toolParts));
  }

  /**
   * Whether {@code value} names an operation: one of some act's, or a reading one ({@code view},
   * {@code list}, ...).
   */
  static boolean isOperation(String value) {
    if (ToolNouns.READ_PARTS.contains(value)) {
      return true;
    }
    for (Action a : ACTIONS.values()) {
      if (a.operations().contains(value)) {
        return true;
      }
    }
    return false;
  }

  /** The act of {@code key} ({@code delete-files}), if there is one. */
  public static Optional<Action> of(String key) {
    return Optional.ofNullable(ACTIONS.get(key));
  }

  // ---------------------------------------------------------------- what a command is

  /** Whether the command's program is one of {@code programs} (space-separated). */
  private static boolean is(Command c, String programs) {
    String p = c.program();
    for (String candidate : programs.split(" ")) {
      if (candidate.equals(p)) {
        return true;
      }
    }
    return false;
  }

  private static boolean is(Command c, String first, String second) {
    return c.program().equals(first) || c.program().equals(second);
  }

  /**
   * Whether the command is {@code program} with one of {@code subs} (space-separated) as its first
   * word that is no option (git's global options and their values skipped); an empty {@code subs}
   * takes any.
   */
  private static boolean sub(Command c, String program, String subs) {
    if (!c.program().equals(program)) {
      return false;
    }
    if (subs.isEmpty()) {
      return true;
    }
    String sub = program.equals("git") ? gitSub(c.args()) : c.sub();
    for (String candidate : subs.split(" ")) {
      if (candidate.equals(sub)) {
        return true;
      }
    }
    return false;
  }

  private static final Set<String> GIT_VALUED =
      Set.of("-c", "-C", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--config-env");

  /** git's subcommand after its global options ({@code git -C repo -c k=v push}). */
  static String gitSub(List<String> args) {
    for (int k = 0; k < args.size(); k++) {
      String a = args.get(k);
      if (GIT_VALUED.contains(a)) {
        k++;
      } else if (!ShellCommands.isOption(a)) {
        return a;
      }
    }
    return "";
  }

  private static boolean anyArg(Command c, String... values) {
    for (String a : c.args()) {
      for (String v : values) {
        if (a.equals(v)) {
          return true;
        }
      }
    }
    return false;
  }

  private static boolean anyArgStarts(Command c, String... prefixes) {
    for (String a : c.args()) {
      for (String p : prefixes) {
        if (a.startsWith(p)) {
          return true;
        }
      }
    }
    return false;
  }

  private static final Map<String, String> INSTALL_SUBS =
      Map.ofEntries(
          Map.entry("apt", "install reinstall"),
          Map.entry("apt-get", "install reinstall"),
          Map.entry("aptitude", "install reinstall"),
          Map.entry("yum", "install reinstall localinstall groupinstall"),
          Map.entry("dnf", "install reinstall"),
          Map.entry("zypper", "install in"),
          Map.entry("apk", "add"),
          Map.entry("brew", "install reinstall"),
          Map.entry("port", "install"),
          Map.entry("snap", "install"),
          Map.entry("flatpak", "install"),
          Map.entry("choco", "install"),
          Map.entry("winget", "install"),
          Map.entry("scoop", "install"),
          Map.entry("pip", "install"),
          Map.entry("pip2", "install"),
          Map.entry("pip3", "install"),
          Map.entry("pipx", "install inject"),
          Map.entry("poetry", "add install"),
          Map.entry("pipenv", "install"),
          Map.entry("conda", "install create"),
          Map.entry("mamba", "install create"),
          Map.entry("micromamba", "install create"),
          Map.entry("npm", "install i add ci isntall"),
          Map.entry("pnpm", "install i add"),
          Map.entry("yarn", "add install global"),
          Map.entry("bun", "add install i"),
          Map.entry("gem", "install"),
          Map.entry("bundle", "add install"),
          Map.entry("cargo", "install add"),
          Map.entry("go", "install get"),
          Map.entry("composer", "require install"),
          Map.entry("nuget", "install"),
          Map.entry("install-package", ""),
          Map.entry("install-module", ""));

  private static boolean installs(Command c) {
    String p = c.program();
    String subs = INSTALL_SUBS.get(p);
    if (subs != null) {
      if (subs.isEmpty() || (p.equals("yarn") && c.sub().isEmpty())) {
        return true; // a bare yarn installs
      }
      for (String s : subs.split(" ")) {
        if (s.equals(c.sub())) {
          return true;
        }
      }
    }
    return switch (p) {
      case "uv" ->
          c.sub().equals("add")
              || (c.args().size() > 1
                  && (c.args().get(0).equals("pip") || c.args().get(0).equals("tool"))
                  && c.args().get(1).equals("install"));
      case "pacman", "yay", "paru" ->
          c.args().stream()
              .anyMatch(
                  a ->
                      (a.startsWith("-S")
                              && a.chars().skip(2).noneMatch(ch -> "sicglpq".indexOf(ch) >= 0))
                          || a.equals("-U"));
      case "dpkg" -> c.has("-i") || c.has("--install");
      case "rpm" -> c.hasShort('i') || c.hasShort('U') || c.has("--install");
      case "dotnet" ->
          c.args().size() > 1 && c.args().contains("add") && c.args().contains("package");
      case "curl", "wget" -> c.intoShell();
      default -> false;
    };
  }

  private static boolean deploys(Command c) {
    String p = c.program();
    String s = c.sub();
    switch (p) {
      case "kubectl", "oc" -> {
        return Set.of("apply", "create", "replace", "rollout", "set", "scale", "patch").contains(s);
      }
      case "helm" -> {
        return Set.of("install", "upgrade", "rollback").contains(s);
      }
      case "terraform", "tofu" -> {
        return Set.of("apply", "destroy").contains(s);
      }
      case "pulumi" -> {
        return Set.of("up", "update", "destroy").contains(s);
      }
      case "vercel" -> {
        return s.isEmpty() || s.equals("deploy") || s.equals("--prod") || c.has("--prod");
      }
      case "ansible-playbook", "cap", "capistrano", "kamal" -> {
        return true;
      }
      case "git", "echo", "printf", "grep", "cat", "less", "man", "rg", "ag", "find", "ls" -> {
        return false;
      }
      default -> {}
    }
    // make deploy, npm run deploy, ./deploy.sh, gcloud app deploy, fly deploy, cdk deploy
    List<String> words = c.words();
    int seen = 0;
    for (int k = 0; k < words.size() && seen < 3; k++) {
      String w = k == 0 ? p : words.get(k);
      if (k > 0 && ShellCommands.isOption(w)) {
        continue;
      }
      seen++;
      String bare = ShellCommands.programName(w);
      if (bare.equals("deploy")
          || bare.startsWith("deploy.")
          || bare.startsWith("deploy:")
          || bare.startsWith("deploy-")
          || bare.startsWith("deploy_")
          || bare.equals("redeploy")) {
        return true;
      }
    }
    return false;
  }

  // ---------------------------------------------------------------- statements

  private static final Set<String> DROPPED =
      Set.of(
          "table",
          "tables",
          "database",
          "schema",
          "index",
          "view",
          "collection",
          "keyspace",
          "column",
          "materialized");

  /** {@code DROP TABLE}, {@code TRUNCATE}, {@code .drop()}, ... anywhere in {@code text}. */
  static boolean dropsTables(String text) {
    List<String> w = sqlWords(text);
    for (int k = 0; k < w.size(); k++) {
      String a = w.get(k);
      String b = k + 1 < w.size() ? w.get(k + 1) : "";
      if (a.equals("drop") && (DROPPED.contains(b) || b.equals("if"))) {
        return true;
      }
      if (truncates(w, k)) {
        return true;
      }
      if (a.equals("flushall") || a.equals("flushdb")) {
        return true;
      }
    }
    return text.contains(".drop()") || text.contains(".dropdatabase(");
  }

  /** {@code DELETE FROM}, {@code TRUNCATE}, {@code .deleteMany(} anywhere in {@code text}. */
  static boolean deletesRows(String text) {
    List<String> w = sqlWords(text);
    for (int k = 0; k + 1 < w.size(); k++) {
      String a = w.get(k);
      String b = w.get(k + 1);
      if (a.equals("delete") && b.equals("from")) {
        return true;
      }
      if (truncates(w, k)) {
        return true;
      }
    }
    return text.contains(".deletemany(")
        || text.contains(".deleteone(")
        || text.contains(".remove({");
  }

  /**
   * {@code TRUNCATE TABLE x}, or {@code TRUNCATE x[, y]} to a {@code ;} or the end (not the shell's
   * {@code truncate -s 0 file}, whose size is a number).
   */
  private static boolean truncates(List<String> w, int k) {
    if (!w.get(k).equals("truncate")) {
      return false;
    }
    if (k + 1 < w.size() && w.get(k + 1).equals("table")) {
      return true;
    }
    int names = 0;
    for (int m = k + 1; m < w.size() && !w.get(m).equals(";"); m++) {
      if (w.get(m).chars().allMatch(Character::isDigit) || ++names > 3) {
        return false;
      }
    }
    return names > 0;
  }

  /** Words of letters, digits and {@code _}, and {@code ;} as a word; lower-case as given. */
  private static List<String> sqlWords(String text) {
    List<String> out = new ArrayList<>();
    StringBuilder word = new StringBuilder();
    for (int i = 0; i <= text.length(); i++) {
      char c = i < text.length() ? text.charAt(i) : ' ';
      if (Character.isLetterOrDigit(c) || c == '_') {
        word.append(c);
      } else {
        if (!word.isEmpty()) {
          out.add(word.toString());
          word.setLength(0);
        }
        if (c == ';') {
          out.add(";");
        }
      }
    }
    return out;
  }
}
