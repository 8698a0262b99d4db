package dev.memsidecar.language.tool;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The canonical tool nouns ({@code email}, {@code message}, {@code shell}, {@code delete}, {@code
 * file}, {@code deploy}, {@code database}, {@code browser}, {@code calendar}, {@code payment},
 * {@code git}, {@code phone}) and how a tool name shows each: the language-neutral half of the
 * vocabulary shared by the prohibition finder (which noun a sentence is about) and {@link
 * ToolAliases} (which tools a noun means). Tool names are identifiers, the same whatever language
 * the user speaks; the words that point at a noun in a language ("emails", 邮件) are that language's
 * {@link ToolWords}. Immutable and thread-safe.
 */
public final class ToolNouns {
  /** How strongly a word points at its noun. */
  public enum Kind {
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
   * One canonical noun and how a tool name shows it.
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
  public record Noun(
      String key,
      String defaultTool,
      Set<String> parts,
      Set<String> genericParts,
      Set<String> prefixes,
      Set<String> names,
      boolean acting) {}

  /**
   * A word of a language's vocabulary and what it points at.
   *
   * @param text the word, lower-case ("emails", 发邮件)
   * @param noun the canonical noun it points at (a key of {@link #NOUNS})
   * @param kind how strongly
   */
  public record Word(String text, String noun, Kind kind) {}

  /** Every canonical noun by its key, in a fixed order. */
  public static final Map<String, Noun> NOUNS;

  /** Parts of a tool name that say it only reads ({@code read_email}, {@code list_events}). */
  public static final Set<String> READ_PARTS =
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

  private static final Map<String, Noun> BUILDING = new LinkedHashMap<>();

  static {
    noun(
        "email",
        "send_email",
        true,
        "email emails mail mails gmail smtp outlook inbox mailgun sendgrid",
        "",
        "mail",
        "");
    noun(
        "message",
        "send_message",
        true,
        "slack sms chat dm whatsapp telegram discord teams imessage",
        "message messages msg",
        "",
        "send_text text");
    noun(
        "shell",
        "bash",
        false,
        "bash shell sh zsh terminal powershell pwsh subprocess",
        "exec execute cmd command commands console",
        "",
        "run run_command execute execute_command run_shell_command run_terminal_cmd");
    noun("delete", "delete_file", false, "", "", "", "rm unlink trash delete remove del rmdir");
    noun(
        "file",
        "write_file",
        false,
        "file files fs filesystem dir directory folder path disk",
        "",
        "",
        "read write edit multiedit glob str_replace_editor text_editor str_replace_based_edit_tool"
            + " rm mv cp unlink");
    noun(
        "deploy",
        "deploy",
        true,
        "deploy deployment deployments release rollout kubectl helm vercel netlify heroku",
        "",
        "deploy",
        "");
    noun(
        "database",
        "sql",
        false,
        "sql db database databases postgres postgresql psql mysql sqlite mongo mongodb bigquery"
            + " snowflake supabase redis dynamodb",
        "query",
        "",
        "");
    noun(
        "browser",
        "browse",
        false,
        "browse browser web url urls navigate visit scrape crawl website chrome playwright"
            + " puppeteer",
        "page fetch http https open",
        "",
        "fetch fetch_url open_url http_get http_request get_url");
    noun(
        "calendar",
        "create_event",
        true,
        "calendar cal gcal meeting meetings invite invites appointment appointments",
        "event events schedule",
        "",
        "");
    noun(
        "payment",
        "send_payment",
        true,
        "pay payment payments wire stripe paypal venmo checkout refund invoice billing wallet",
        "transfer charge buy purchase",
        "",
        "");
    noun(
        "git",
        "git",
        true,
        "git github gitlab",
        "push commit merge pr repo repository branch",
        "git",
        "");
    noun(
        "phone",
        "make_call",
        true,
        "phone dial voice twilio",
        "",
        "",
        "call make_call phone_call place_call");
    NOUNS = Collections.unmodifiableMap(BUILDING);
  }

  private ToolNouns() {}

  private static void noun(
      String key,
      String defaultTool,
      boolean acting,
      String parts,
      String genericParts,
      String prefixes,
      String names) {
    BUILDING.put(
        key,
        new Noun(
            key,
            defaultTool,
            words(parts),
            words(genericParts),
            words(prefixes),
            words(names),
            acting));
  }

  /** The words of a space-separated list, as a set; empty for a blank list. */
  public static Set<String> words(String list) {
    return list.isBlank() ? Set.of() : Set.of(list.trim().split("\\s+"));
  }

  /**
   * The word parts of a tool name, lower-cased: split at anything but letters and digits and at
   * lower-to-upper case changes ({@code mcp__gmail__sendEmail} gives mcp, gmail, send, email).
   */
  public static List<String> parts(String toolName) {
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
