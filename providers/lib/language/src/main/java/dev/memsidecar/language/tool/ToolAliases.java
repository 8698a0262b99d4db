package dev.memsidecar.language.tool;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.language.Language;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * Which of a run's tools a prohibition's noun means: "email" is {@code send_email} or {@code
 * gmail_send}, "shell" is {@code bash} or {@code exec}. A noun given as a word of some language
 * ("e-mail", "terminal", 邮件) is read by the languages' {@link ToolWords}. Immutable and
 * thread-safe.
 *
 * <p>A tool name is cut into lower-case word parts (at {@code _ - . /} and other non-alphanumerics,
 * and at case changes: {@code mcp__gmail__sendEmail} is mcp, gmail, send, email). A known tool
 * belongs to a noun when its whole name is one of the noun's tool names, or one of its parts is one
 * of the noun's parts, or starts with one of its prefixes, or is one of its generic parts and no
 * part of the name is (or starts with) another noun's part or prefix ({@code exec} is the shell,
 * {@code exec_sql} is the database):
 *
 * <table>
 *   <caption>The alias table</caption>
 *   <tr><th>noun (and its words)</th><th>tool name parts</th><th>default</th></tr>
 *   <tr><td>email (mail, e-mail, gmail, 邮件)</td><td>email, mail*, gmail, smtp, outlook, inbox,
 *       sendgrid</td><td>send_email</td></tr>
 *   <tr><td>message (text, dm, slack, sms, 消息, 短信)</td><td>slack, sms, chat, dm, whatsapp,
 *       telegram, discord, teams; generic message, msg; names send_text, text</td>
 *       <td>send_message</td></tr>
 *   <tr><td>shell (terminal, command, bash, script, ssh, 命令, 终端)</td><td>bash, shell, sh,
 *       zsh, terminal, powershell, subprocess; generic exec, execute, cmd, command, console;
 *       names run, run_command, execute_command, ...</td><td>bash</td></tr>
 *   <tr><td>delete (remove, rm, erase, wipe, 删除)</td><td>a delete part (delete, remove, rm,
 *       unlink, trash, erase, del, purge) with a file part, or a name of one part such as rm,
 *       delete, unlink</td><td>delete_file</td></tr>
 *   <tr><td>file (files, folder, directory, 文件, 目录)</td><td>file, fs, filesystem, dir,
 *       directory, folder, path, disk; names read, write, edit, rm, mv, cp, ...</td>
 *       <td>write_file</td></tr>
 *   <tr><td>deploy (deployment, release, production, 部署, 上线)</td><td>deploy*, deployment,
 *       release, rollout, kubectl, helm, vercel, netlify, heroku</td><td>deploy</td></tr>
 *   <tr><td>database (db, sql, table, 数据库)</td><td>sql, db, database, postgres, mysql, sqlite,
 *       mongo, bigquery, redis, ...; generic query</td><td>sql</td></tr>
 *   <tr><td>browser (web, url, website, browse, visit, 网页)</td><td>browse, browser, web, url,
 *       navigate, visit, scrape, crawl; generic page, fetch, http, open; names fetch, fetch_url,
 *       open_url, http_get</td><td>browse</td></tr>
 *   <tr><td>calendar (meeting, invite, event, 日历, 会议)</td><td>calendar, cal, gcal, meeting,
 *       invite, appointment; generic event, schedule</td><td>create_event</td></tr>
 *   <tr><td>payment (pay, money, transfer, purchase, 付款, 转账)</td><td>pay, payment, wire,
 *       stripe, paypal, venmo, checkout, refund, invoice, billing, wallet; generic transfer,
 *       charge, buy, purchase</td><td>send_payment</td></tr>
 *   <tr><td>git (push, commit, merge, repo, github, 推送)</td><td>git*, github, gitlab; generic
 *       push, commit, merge, pr, repo, branch</td><td>git</td></tr>
 *   <tr><td>phone (call, dial, 电话)</td><td>phone, dial, voice, twilio; names call, make_call,
 *       phone_call</td><td>make_call</td></tr>
 * </table>
 *
 * <p>For the nouns whose prohibitions forbid an act (email, message, deploy, calendar, payment,
 * git, phone), a tool whose parts say it only reads ({@code read_email}, {@code list_events},
 * {@code gmail_search}: read, get, list, search, find, view, show, lookup, fetch, query, draft,
 * ...) is left out when another matching tool acts; "never email Sarah" binds {@code send_email},
 * not {@code read_email}. A noun outside the table matches tools that have it as a part ({@code
 * jira} gives {@code jira_create}) and has no default.
 */
public final class ToolAliases {
  private static final Set<String> FILE_PARTS =
      Set.of("file", "files", "fs", "filesystem", "dir", "directory", "folder", "path", "disk");
  private static final Set<String> DELETE_PARTS =
      Set.of("delete", "remove", "rm", "unlink", "trash", "erase", "del", "purge", "rmdir");

  private final List<Language> languages;

  /**
   * @param languages the languages whose words name a noun, asked in this order
   */
  public ToolAliases(List<Language> languages) {
    this.languages = List.copyOf(requireNonNull(languages, "languages is null"));
  }

  /**
   * The tools among {@code knownTools} that {@code noun} means, in the order of {@code knownTools}
   * and spelled as there; when none does, the noun's default tool ({@code send_email} for email,
   * {@code bash} for shell, ...) alone; when the noun has no default either, empty (the caller then
   * falls back to the first tool the run used).
   *
   * @param noun a canonical noun ({@link dev.memsidecar.language.prohibition.Prohibition#noun()})
   *     or any word of the vocabulary ("e-mail", "terminal", "邮件"); blank gives empty
   * @param knownTools the run's tools: those it called and those named at BeginRun
   */
  public List<String> toolsFor(String noun, Collection<String> knownTools) {
    requireNonNull(noun, "noun is null");
    requireNonNull(knownTools, "knownTools is null");
    if (noun.isBlank()) {
      return List.of();
    }
    String key = canonical(noun);
    List<String> acting = new ArrayList<>();
    List<String> reading = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (String tool : knownTools) {
      if (tool == null || tool.isBlank() || !seen.add(tool.toLowerCase(Locale.ROOT))) {
        continue;
      }
      List<String> parts = ToolNouns.parts(tool);
      boolean matches =
          key == null
              ? parts.contains(noun.strip().toLowerCase(Locale.ROOT))
              : belongs(key, tool.toLowerCase(Locale.ROOT), parts);
      if (matches) {
        boolean reads = parts.stream().anyMatch(ToolNouns.READ_PARTS::contains);
        (reads ? reading : acting).add(tool);
      }
    }
    if (key != null && ToolNouns.NOUNS.get(key).acting() && !acting.isEmpty()) {
      return List.copyOf(acting);
    }
    if (!acting.isEmpty() || !reading.isEmpty()) {
      List<String> all = new ArrayList<>();
      for (String tool : knownTools) {
        if (acting.contains(tool) || reading.contains(tool)) {
          if (!all.contains(tool)) {
            all.add(tool);
          }
        }
      }
      return List.copyOf(all);
    }
    if (key == null || ToolNouns.NOUNS.get(key).defaultTool().isEmpty()) {
      return List.of();
    }
    return List.of(ToolNouns.NOUNS.get(key).defaultTool());
  }

  /** Parts of tool names too common to say which tool a text means ({@code send}, {@code tool}). */
  private static final Set<String> COMMON_PARTS =
      ToolNouns.words(
          "tool tools send create update delete remove make call exec file files data info item"
              + " items user users with from into main base util utils helper helpers post put"
              + " add set new run runs open close start stop save load edit write text name list"
              + " http https json default");

  /**
   * The tools among {@code tools} that {@code text} (a run's input) names or clearly means, in the
   * order of {@code tools}: a tool whose name is written in the text ({@code fetch_url}, or its
   * parts as words: "fetch url"), or one of whose distinctive parts is a word of the text ({@code
   * weather} for {@code weather_api}; not a common part such as send, get or tool), or one a word
   * of the vocabulary in the text points at strongly, or as a verb ("emails" or 邮件: {@code
   * send_email} and {@code read_email}; "shell" or 终端: {@code bash}; "delete": {@code
   * delete_file}), read by every language. No default tool is added.
   */
  public List<String> toolsMeant(String text, Collection<String> tools) {
    requireNonNull(text, "text is null");
    requireNonNull(tools, "tools is null");
    if (text.isBlank() || tools.isEmpty()) {
      return List.of();
    }
    String lower = text.toLowerCase(Locale.ROOT);
    Set<String> words = new HashSet<>();
    StringBuilder w = new StringBuilder();
    for (int i = 0; i <= lower.length(); i++) {
      char c = i < lower.length() ? lower.charAt(i) : ' ';
      if (Character.isLetterOrDigit(c) && c < 128) {
        w.append(c);
      } else if (!w.isEmpty()) {
        words.add(w.toString());
        w.setLength(0);
      }
    }
    Set<String> nouns = new HashSet<>();
    for (Language language : languages) {
      for (ToolNouns.Word word : language.toolWords().wordsIn(text)) {
        if (word.kind() != ToolNouns.Kind.WEAK_NOUN) {
          nouns.add(word.noun());
        }
      }
    }
    List<String> out = new ArrayList<>();
    for (String tool : tools) {
      if (tool == null || tool.isBlank() || out.contains(tool)) {
        continue;
      }
      if (means(tool, lower, words, nouns)) {
        out.add(tool);
      }
    }
    return List.copyOf(out);
  }

  private boolean means(String tool, String lower, Set<String> words, Set<String> nouns) {
    String name = tool.toLowerCase(Locale.ROOT);
    List<String> parts = ToolNouns.parts(tool);
    int at = lower.indexOf(name);
    while (at >= 0) {
      int end = at + name.length();
      if ((at == 0 || !isNameChar(lower.charAt(at - 1)))
          && (end == lower.length() || !isNameChar(lower.charAt(end)))) {
        return true;
      }
      at = lower.indexOf(name, at + 1);
    }
    if (parts.size() > 1 && lower.contains(String.join(" ", parts))) {
      return true;
    }
    for (String part : parts) {
      if (part.length() >= 4
          && !COMMON_PARTS.contains(part)
          && !ToolNouns.READ_PARTS.contains(part)
          && !part.chars().allMatch(Character::isDigit)
          && words.contains(part)) {
        return true;
      }
    }
    for (String noun : nouns) {
      if (belongs(noun, name, parts)) {
        return true;
      }
    }
    return false;
  }

  private static boolean isNameChar(char c) {
    return Character.isLetterOrDigit(c) || c == '_' || c == '-' || c == '.';
  }

  /** The default tool of {@code noun} (any word of the vocabulary), or empty. */
  public String defaultTool(String noun) {
    requireNonNull(noun, "noun is null");
    String key = canonical(noun);
    return key == null ? "" : ToolNouns.NOUNS.get(key).defaultTool();
  }

  /**
   * The canonical noun {@code word} means ("e-mail", "Mail", "邮件" and "email" all give {@code
   * email}), or null when it is none of the vocabulary: a key of {@link ToolNouns#NOUNS} itself,
   * else the first language's word for it.
   */
  String canonical(String word) {
    String w = word.strip().toLowerCase(Locale.ROOT);
    if (ToolNouns.NOUNS.containsKey(w)) {
      return w;
    }
    for (Language language : languages) {
      Optional<ToolNouns.Word> known = language.toolWords().word(w);
      if (known.isPresent()) {
        return known.get().noun();
      }
    }
    return null;
  }

  private static boolean belongs(String key, String name, List<String> parts) {
    ToolNouns.Noun noun = ToolNouns.NOUNS.get(key);
    if (noun.names().contains(name)) {
      return true;
    }
    if (key.equals("delete")) {
      boolean delete = parts.stream().anyMatch(DELETE_PARTS::contains);
      return delete && (parts.size() == 1 || parts.stream().anyMatch(FILE_PARTS::contains));
    }
    for (String part : parts) {
      if (noun.parts().contains(part)) {
        return true;
      }
      for (String prefix : noun.prefixes()) {
        if (part.startsWith(prefix)) {
          return true;
        }
      }
    }
    if (parts.stream().anyMatch(noun.genericParts()::contains)) {
      for (ToolNouns.Noun other : ToolNouns.NOUNS.values()) {
        if (other == noun || other.key().equals("delete")) {
          continue;
        }
        for (String part : parts) {
          if (other.parts().contains(part)
              || other.prefixes().stream().anyMatch(part::startsWith)) {
            return false;
          }
        }
      }
      return true;
    }
    return false;
  }
}
