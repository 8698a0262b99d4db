package dev.memsidecar.core.toolrules;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The vocabulary shared by {@link Prohibitions} (which noun a sentence is about) and {@link
 * ToolAliases} (which tools a noun means): one entry per canonical noun ({@code email}, {@code
 * message}, {@code shell}, {@code delete}, {@code file}, {@code deploy}, {@code database}, {@code
 * browser}, {@code calendar}, {@code payment}, {@code git}, {@code phone}). Immutable and
 * thread-safe.
 */
final class ToolNouns {
  /** How strongly a word points at its noun. */
  enum Kind {
    /** A verb that is itself the action: "email", "deploy", 发邮件. */
    STRONG_VERB,
    /** A noun that names the tool: "emails", "shell", 数据库. */
    STRONG_NOUN,
    /** A verb that names the tool only when nothing stronger does: "delete", 删除. */
    WEAK_VERB,
    /** A noun that names it only when nothing stronger does: "production", "files", 文件. */
    WEAK_NOUN
  }

  /**
   * One canonical noun: its English and Chinese words, and how a tool name shows it.
   *
   * @param key the canonical noun
   * @param defaultTool the tool name assumed when the run knows no matching tool, or empty
   * @param parts word parts of a tool name that mean this noun ({@code email} in {@code
   *     send_email})
   * @param genericParts parts that mean it only when no other noun's part is in the name ({@code
   *     exec} in {@code exec}, not in {@code exec_sql})
   * @param prefixes part prefixes ({@code mail} in {@code mailgun_send})
   * @param names whole tool names ({@code run_command})
   * @param acting true when only tools that act (not read) carry a prohibition of this noun
   */
  record Noun(
      String key,
      String defaultTool,
      Set<String> parts,
      Set<String> genericParts,
      Set<String> prefixes,
      Set<String> names,
      boolean acting) {}

  /** A word of the vocabulary and what it points at. */
  record Word(String text, String noun, Kind kind) {}

  static final Map<String, Noun> NOUNS = new LinkedHashMap<>();

  /** English verbs (lower-case, base form) to their noun and kind. */
  static final Map<String, Word> VERBS = new HashMap<>();

  /** English nouns (lower-case) to their noun and kind. */
  static final Map<String, Word> ENGLISH_NOUNS = new HashMap<>();

  /** Chinese words, longest first (so 发邮件 wins over 邮件). */
  static final List<Word> CHINESE = new ArrayList<>();

  /** Parts of a tool name that say it only reads ({@code read_email}, {@code list_events}). */
  static final Set<String> READ_PARTS =
      Set.of(
          "read",
          "get",
          "list",
          "search",
          "find",
          "view",
          "show",
          "lookup",
          "check",
          "count",
          "describe",
          "status",
          "inspect",
          "fetch",
          "query",
          "history",
          "draft",
          "drafts");

  static {
    noun(
        "email",
        "send_email",
        true,
        "email emails mail mails gmail smtp outlook inbox mailgun sendgrid",
        "",
        "mail",
        "",
        "email mail e-mail",
        "emails e-mails mail mails gmail inbox outlook email",
        "",
        "",
        "发邮件 发送邮件 发电邮 写邮件 回邮件 转发邮件 抄送",
        "邮件 电邮 邮箱",
        "");
    noun(
        "message",
        "send_message",
        true,
        "slack sms chat dm whatsapp telegram discord teams imessage",
        "message messages msg",
        "",
        "send_text text",
        "message text dm slack ping msg",
        "message messages msg msgs dm dms slack sms chat whatsapp telegram discord",
        "",
        "",
        "发消息 发信息 发短信 发私信 私信 发微信",
        "消息 短信 微信",
        "");
    noun(
        "shell",
        "bash",
        false,
        "bash shell sh zsh terminal powershell pwsh subprocess",
        "exec execute cmd command commands console",
        "",
        "run run_command execute execute_command run_shell_command run_terminal_cmd",
        "ssh",
        "shell shells terminal command commands bash sh zsh cli console script scripts sudo"
            + " powershell",
        "",
        "",
        "执行命令 运行命令",
        "命令 终端 脚本 命令行",
        "");
    noun(
        "delete",
        "delete_file",
        false,
        "",
        "",
        "",
        "rm unlink trash delete remove del rmdir",
        "",
        "",
        "delete remove rm erase wipe unlink trash purge shred",
        "",
        "",
        "",
        "删除 删掉 删 清空 清除 移除");
    noun(
        "file",
        "write_file",
        false,
        "file files fs filesystem dir directory folder path disk",
        "",
        "",
        "read write edit multiedit glob str_replace_editor text_editor str_replace_based_edit_tool"
            + " rm mv cp unlink",
        "",
        "",
        "",
        "file files folder folders directory directories dir filesystem disk",
        "",
        "",
        "文件 目录 文件夹");
    noun(
        "deploy",
        "deploy",
        true,
        "deploy deployment deployments release rollout kubectl helm vercel netlify heroku",
        "",
        "deploy",
        "",
        "deploy release ship rollout redeploy",
        "deploy deploys deployment deployments release releases rollout rollouts",
        "",
        "production prod",
        "部署 上线 发布",
        "",
        "生产环境 生产 线上");
    noun(
        "database",
        "sql",
        false,
        "sql db database databases postgres postgresql psql mysql sqlite mongo mongodb bigquery"
            + " snowflake supabase redis dynamodb",
        "query",
        "",
        "",
        "",
        "database databases db dbs sql table tables postgres postgresql mysql sqlite mongodb",
        "",
        "",
        "",
        "数据库 数据表",
        "");
    noun(
        "browser",
        "browse",
        false,
        "browse browser web url urls navigate visit scrape crawl website chrome playwright"
            + " puppeteer",
        "page fetch http https open",
        "",
        "fetch fetch_url open_url http_get http_request get_url",
        "browse visit navigate",
        "browser web url urls website websites webpage webpages internet",
        "",
        "site sites page pages link links",
        "浏览 访问 打开网页 上网",
        "浏览器 网页 网站 链接 网址",
        "");
    noun(
        "calendar",
        "create_event",
        true,
        "calendar cal gcal meeting meetings invite invites appointment appointments",
        "event events schedule",
        "",
        "",
        "invite schedule book",
        "calendar calendars meeting meetings invite invites invitation invitations appointment"
            + " appointments event events",
        "",
        "",
        "约会议 安排会议 发邀请 预约",
        "日历 会议 日程 邀请",
        "");
    noun(
        "payment",
        "send_payment",
        true,
        "pay payment payments wire stripe paypal venmo checkout refund invoice billing wallet",
        "transfer charge buy purchase",
        "",
        "",
        "pay transfer wire buy purchase refund charge spend",
        "payment payments money transfer transfers wire wires purchase purchases refund refunds"
            + " invoice invoices",
        "",
        "",
        "付款 支付 转账 汇款 打钱 购买 付钱 充值",
        "钱",
        "");
    noun(
        "git",
        "git",
        true,
        "git github gitlab",
        "push commit merge pr repo repository branch",
        "git",
        "",
        "push commit merge rebase force-push",
        "git github gitlab repo repository repositories commit commits push pushes",
        "",
        "branch branches",
        "推送 强推 提交代码 合并",
        "代码仓库 仓库 主分支 分支",
        "");
    noun(
        "phone",
        "make_call",
        true,
        "phone dial voice twilio",
        "",
        "",
        "call make_call phone_call place_call",
        "call phone dial ring",
        "phone phones call calls",
        "",
        "",
        "打电话 致电",
        "电话",
        "");
    CHINESE.sort(Comparator.comparingInt((Word w) -> w.text().length()).reversed());
  }

  private ToolNouns() {}

  private static void noun(
      String key,
      String defaultTool,
      boolean acting,
      String parts,
      String genericParts,
      String prefixes,
      String names,
      String strongVerbs,
      String strongNouns,
      String weakVerbs,
      String weakNouns,
      String zhStrongVerbs,
      String zhStrongNouns,
      String zhWeakVerbsOrNouns) {
    NOUNS.put(
        key,
        new Noun(
            key,
            defaultTool,
            words(parts),
            words(genericParts),
            words(prefixes),
            words(names),
            acting));
    english(strongVerbs, key, Kind.STRONG_VERB);
    english(strongNouns, key, Kind.STRONG_NOUN);
    english(weakVerbs, key, Kind.WEAK_VERB);
    english(weakNouns, key, Kind.WEAK_NOUN);
    for (String w : words(zhStrongVerbs)) {
      CHINESE.add(new Word(w, key, Kind.STRONG_VERB));
    }
    for (String w : words(zhStrongNouns)) {
      CHINESE.add(new Word(w, key, Kind.STRONG_NOUN));
    }
    // The last Chinese list is weak: verbs for "delete", nouns elsewhere.
    Kind weak = key.equals("delete") ? Kind.WEAK_VERB : Kind.WEAK_NOUN;
    for (String w : words(zhWeakVerbsOrNouns)) {
      CHINESE.add(new Word(w, key, weak));
    }
  }

  private static void english(String list, String key, Kind kind) {
    Map<String, Word> map =
        kind == Kind.STRONG_VERB || kind == Kind.WEAK_VERB ? VERBS : ENGLISH_NOUNS;
    for (String w : words(list)) {
      map.putIfAbsent(w, new Word(w, key, kind));
    }
  }

  private static Set<String> words(String list) {
    return list.isBlank() ? Set.of() : Set.of(list.trim().split("\\s+"));
  }

  /**
   * The canonical noun {@code word} means ("e-mail", "Mail", "邮件" and "email" all give {@code
   * email}), or null when it is none of the vocabulary.
   */
  static String canonical(String word) {
    String w = word.strip().toLowerCase(Locale.ROOT);
    if (NOUNS.containsKey(w)) {
      return w;
    }
    Word english = ENGLISH_NOUNS.getOrDefault(w, VERBS.get(w));
    if (english != null) {
      return english.noun();
    }
    for (Word zh : CHINESE) {
      if (zh.text().equals(w)) {
        return zh.noun();
      }
    }
    return null;
  }

  /**
   * The word parts of a tool name, lower-cased: split at anything but letters and digits and at
   * lower-to-upper case changes ({@code mcp__gmail__sendEmail} gives mcp, gmail, send, email).
   */
  static List<String> parts(String toolName) {
    List<String> out = new ArrayList<>();
    StringBuilder part = new StringBuilder();
    char prev = 0;
    for (int i = 0; i < toolName.length(); i++) {
      char c = toolName.charAt(i);
      if (!Character.isLetterOrDigit(c)) {
        flush(part, out);
      } else {
        boolean upperAfterLower = Character.isUpperCase(c) && Character.isLowerCase(prev);
        boolean upperRunEnds =
            Character.isUpperCase(prev)
                && Character.isUpperCase(c)
                && i + 1 < toolName.length()
                && Character.isLowerCase(toolName.charAt(i + 1));
        if (upperAfterLower || upperRunEnds) {
          flush(part, out);
        }
        part.append(Character.toLowerCase(c));
      }
      prev = c;
    }
    flush(part, out);
    return out;
  }

  private static void flush(StringBuilder part, List<String> out) {
    if (!part.isEmpty()) {
      out.add(part.toString());
      part.setLength(0);
    }
  }
}
