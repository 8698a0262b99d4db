package dev.memsidecar.core.toolrules;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Finds a user's prohibitions in a message, English and Chinese: "Never email Sarah at
 * sarah@example.com.", "don't run `rm -rf /`", "stop pushing to main", "you must not touch
 * /etc/passwd", "no more emails to Bob", "永远不要给张三发邮件", "禁止删除数据库". Stateless and thread-safe.
 *
 * <h2>What counts</h2>
 *
 * The text is cut into sentences (at {@code . ! ?} before a space or the end, at {@code 。！？} and at
 * line ends). In a sentence that is not a question (it does not end with {@code ?}/{@code ？} or
 * 吗/呢, tag questions such as ", ok?" aside), a prohibition starts with
 *
 * <ul>
 *   <li>"never", "don't"/"do not", "stop <i>verb</i>ing", "no more <i>noun</i>", "(you/we) must
 *       not/never", "mustn't", "should not/never", "shouldn't", "may not", "(you are) not allowed
 *       to";
 *   <li>不要, 别, 禁止, 严禁, 不许, 不准, 不得, 切勿, 请勿, 勿 (also after 永远, 千万, 绝对, 再也, 以后, 请, 你 ...);
 * </ul>
 *
 * <p>at the start of a clause: at the start of the sentence or after {@code , ; : —}, after nothing
 * but linking words ("and", "also", "please", "but", "so", "from now on", "in the future", 请, 也,
 * 另外, 还有 ...). So a subject before it makes it a statement, not an order: "I never said that", "Bob
 * never emails me", "She said don't", 我不要 are not prohibitions; nor are idioms ("never mind",
 * "don't worry", "don't forget to ...", "don't hesitate", 不要紧, 别担心, 别客气, 别忘了, 别的, 别人) or a verb
 * that names no act on a tool ("don't be late": be, worry, forget, know, think, say ...). A
 * prohibition runs to the end of its sentence, to the next prohibition, or to a clause that is no
 * longer about it ("but ...", "because ...", ", I'll ...", 但是, 因为, "，我 ...").
 *
 * <p>A prohibition is kept only when it names a tool-ish noun or at least one object: "don't use
 * the shell" and "never contact Sarah" are kept, "don't run the tests" is not.
 *
 * <h2>What a prohibition holds</h2>
 *
 * <ul>
 *   <li>{@code sentence}: the words from the trigger to the end of the prohibition, linking words
 *       before it dropped, the first letter capitalised, ending with a period ({@code 。} after
 *       Chinese): "and please never email Sarah at sarah@example.com" gives "Never email Sarah at
 *       sarah@example.com."; 永远, 千万, 绝对 ... stay ("永远不要给张三发邮件。");
 *   <li>{@code verb}: the act, lower-case base form ("email", "send", "run", "delete"; "emailing"
 *       gives "email"), or the Chinese verb found (发邮件, 删除), or empty;
 *   <li>{@code noun}: the canonical tool noun ({@code email}, {@code message}, {@code shell},
 *       {@code delete}, {@code file}, {@code deploy}, {@code database}, {@code browser}, {@code
 *       calendar}, {@code payment}, {@code git}, {@code phone}; see {@link ToolAliases}), or empty.
 *       The verb decides when it is one ("email", "deploy", "push", 发邮件), else the first noun after
 *       it ("send emails", "touch the production database" is the database), else a weaker verb or
 *       noun ("delete", "files", "production"), else the objects (an address is email, a path a
 *       file, a command the shell, a channel a message, a URL the browser);
 *   <li>{@code objects}, lower-cased, most precise first: e-mail addresses; hosts and URLs (as
 *       {@code host/path}); paths ({@code /etc/passwd}, {@code ~/.ssh}, {@code C:\...}) and file
 *       names with a known extension ({@code config.yaml}); commands (in backticks, or a known
 *       program or a word with flags after run/execute/use: {@code rm -rf /}, {@code git push
 *       --force}); channels ({@code #general}) and handles ({@code @bob}); person names
 *       (capitalised words after the verb that are no function word, weekday, month, product or
 *       tool word, joined when adjacent: "Bob Smith"; Chinese names after 给/跟/向/对/和 before the verb
 *       or after 发给/联系/通知: 张三); and the branch or environment after "to"/"into"/"on" (到) when the
 *       noun is git or deploy ("push to main" gives {@code main}). An object whose form would read
 *       as another kind carries a {@code kind:} prefix (see {@link ToolCallMatcher}). A bare "never
 *       use the shell" has none: the whole tool is prohibited;
 *   <li>{@code enforceable}: false when denying calls by its objects (or, with none, every call of
 *       the tool) would block calls the user did not forbid: the prohibition carries a condition,
 *       an amount or a time ("if", "unless", "without asking", "before", "after 6pm", "more than
 *       $100", "on Fridays", "today", "for now", 如果, 除非, 之前, 周末, 今天, 先, 暂时, ...; a condition before
 *       the trigger stays in the sentence: "If the build fails, don't deploy."); or it forbids
 *       contacting someone it does not name ("don't email me", "never pay him", "don't message my
 *       manager", 不要给我发邮件); or, having no object, it narrows the act or the tool in words no object
 *       can hold ("don't delete the production database" forbids dropping it, not every query;
 *       "don't commit secrets"; "don't delete old files"; 禁止删除数据库). Such a rule should still be
 *       shown to the agent, but not enforced.
 * </ul>
 *
 * <p>Limits: no parsing beyond these patterns; a prohibition phrased positively ("only email Bob"),
 * or in other words ("keep away from prod"), is not found; names are recognised by capitals, except
 * a lower-case word right after a verb of contact ("never email sarah" names {@code sarah}); the
 * scope of a condition is not understood, only noticed.
 */
public final class Prohibitions {
  /**
   * One prohibition found in a message.
   *
   * @param sentence the prohibition as a rule that stands alone, ending with a period
   * @param verb the act ("email", "delete", 发邮件), or empty
   * @param noun the canonical tool noun ("email", "shell", ...), or empty
   * @param objects what it names, lower-cased, for {@link ToolCallMatcher}
   * @param enforceable false when it is conditional, aimed at someone unnamed, or narrowed in words
   *     no object holds: show it, do not enforce it
   */
  public record Prohibition(
      String sentence, String verb, String noun, List<String> objects, boolean enforceable) {
    public Prohibition {
      requireNonNull(sentence, "sentence is null");
      requireNonNull(verb, "verb is null");
      requireNonNull(noun, "noun is null");
      objects = List.copyOf(requireNonNull(objects, "objects is null"));
    }
  }

  private static final Set<String> INTRO =
      words(
          "and also but so please pls plz kindly plus oh ok okay alright now remember important "
              + "note seriously btw hey listen just then from on going forward in the future again "
              + "one more thing by way additionally finally lastly also, and, therefore hence rule "
              + "reminder ps p.s");

  /** Tags that make a statement look like a question: "Never email Sarah, ok?". */
  private static final List<String> TAG_QUESTIONS =
      List.of(
          (", ok?|, okay?|, alright?|, got it?|, understood?|, right?|, yeah?|"
                  + ", ok？|，好吗？|，好吗?|，知道吗？|，知道吗?|，明白吗？|，明白吗?|，好不好？|，行吗？|，记住了吗？|，懂吗？")
              .split("\\|"));

  private static final Set<String> CONJUNCTIONS = Set.of("and", "but", "so", "or", "then");
  private static final Set<String> TAGS =
      words("ok okay alright right yeah understood thanks please");
  private static final Set<String> SUBJECTS =
      words(
          "i i'm i'll i've i'd she he they we it she's he's they're we're it's that's there's "
              + "you're you'll");
  private static final Set<String> ENDERS =
      words("but because since although though whereas however otherwise cause 'cause cos");
  private static final Set<String> FILLERS =
      words("ever again please even just actually really you dare");
  private static final Set<String> STOP_VERBS =
      words(
          "be worry forget mind hesitate know think care understand get feel panic apologize"
              + " apologise fret stress sweat mean need want have like see look recall remember"
              + " matter hurry rush bother laugh cry judge lie do go give wait expect assume"
              + " believe doubt say blame count quit stop miss lose take make let ask repeat"
              + " explain");
  private static final Set<String> VERB_BASES =
      words(
          "send run use execute delete remove touch modify edit write create drop post share"
              + " forward contact upload download install uninstall update change move rename"
              + " publish approve close cancel access read truncate format tweet reboot restart"
              + " kill open merge force invoke type copy overwrite reset rotate expose leak reveal"
              + " disclose print log store save commit notify schedule book invite spend order sign"
              + " submit grant revoke disable enable shut message email text call deploy push pay"
              + " browse visit release purge erase wipe charge purchase transfer wire refund dial"
              + " phone ping mail navigate ship rebase query exec launch chat dm shred unlink trash"
              + " automate retry scrape crawl fetch curl ssh sudo rollout redeploy cc bcc reply"
              + " respond answer");
  private static final Set<String> BLANKET_VERBS =
      words(
          "use run execute exec touch access open call invoke launch send post contact visit "
              + "browse connect go do");
  private static final Set<String> QUANTIFIERS =
      words(
          "all any anything anymore ever again whatsoever more single one ones either stuff things"
              + " thing else every such kind kinds sort type types new yourself ok okay just it"
              + " them those these");
  private static final List<String> ZH_BLANKET_VERBS = wordList("用 使用 执行 运行 打开 访问 碰 动 联系 发 发送");
  private static final Set<String> CONTACT_VERBS =
      words(
          "contact tell reply respond answer share invite cc bcc forward pay call meet notify ping "
              + "dm message text email mail send wire transfer phone dial book schedule refund "
              + "charge add mention tag follow introduce talk write");
  private static final Set<String> NAME_PREPS =
      Set.of("to", "with", "from", "for", "at", "about", "by", "of", "cc");
  private static final Set<String> RUN_VERBS = words("run execute exec use type invoke launch");
  private static final Set<String> CMD_STOP =
      words(
          "on in at against to for from with without unless when while because again anymore "
              + "ever or and but please if before after until inside into onto anywhere here there "
              + "yourself as under outside during except even");
  private static final Set<String> PRE_CONDITIONS =
      words("if unless when whenever while until before after once");
  private static final Set<String> CONDITIONS =
      words(
          "if unless until without before after when whenever while during except outside today"
              + " tonight tomorrow yet currently temporarily night nights morning mornings evening"
              + " evenings weekend weekends holiday holidays weekday weekdays monday tuesday"
              + " wednesday thursday friday saturday sunday mondays tuesdays wednesdays thursdays"
              + " fridays saturdays sundays than exceeding unapproved unreviewed");
  private static final Set<String> COMMUNICATION =
      Set.of("email", "message", "phone", "calendar", "payment");
  private static final Set<String> UNNAMED =
      words(
          "me us him her them my our his their your someone somebody people customers customer "
              + "clients client colleagues colleague team boss manager family wife husband mom dad "
              + "friends friend coworkers coworker users user");
  private static final Set<String> TARGET_STOP =
      words("the a an any it them this that my our your me");
  private static final Set<String> NOT_NAMES =
      words(
          "i i'm i'll i've i'd me my mine you your yours he she it we they him her his hers its our"
              + " us them their the a an this that these those any anyone anybody anything everyone"
              + " everybody everything someone somebody something nobody nothing no not never don't"
              + " do please and or but also to from at in on of for with about by as if unless when"
              + " ever again okay ok yes hi hello hey dear thanks mr mrs ms miss dr prof sir madam"
              + " monday tuesday wednesday thursday friday saturday sunday mondays tuesdays"
              + " wednesdays thursdays fridays saturdays sundays january february march april may"
              + " june july august september october november december today tomorrow tonight"
              + " production prod staging dev api ai llm gpt chatgpt openai google chrome firefox"
              + " safari slack gmail outlook github gitlab whatsapp telegram discord teams zoom aws"
              + " azure gcp stripe paypal venmo jira confluence notion linux windows mac macos ios"
              + " android docker kubernetes postgres postgresql mysql sqlite redis mongodb"
              + " terraform english chinese internet web email e-mail sms sql bash shell terminal"
              + " python java javascript node friday's ceo cto hr it's that's under circumstances");
  private static final String LEAD = "\"'“‘([{<*_";
  private static final String TRAIL = ".,;:!?)]}\"'”’>*_…。，；：！？、";

  // Chinese.
  private static final List<String> ZH_TRIGGERS = wordList("请勿 不要 不许 不准 不得 禁止 严禁 切勿 别 勿");
  private static final List<String> ZH_KEPT_INTROS =
      wordList("从现在开始 从今以后 从现在起 永远 千万 绝对 再也 以后 今后 从此 一定 务必");
  private static final List<String> ZH_TEMPORARY_INTROS = wordList("暂时 今天 今晚 明天 这周 现在 目前 先");
  private static final List<String> ZH_DROPPED_INTROS =
      wordList("还有 另外 并且 而且 同时 但是 所以 记住 注意 切记 那就 请 你 您 也 但 那 就 还 并 而");
  private static final List<String> ZH_SKIP = wordList("随便 擅自 私自 轻易 自己 直接 主动 再 也 去");
  private static final List<String> ZH_IDIOMS =
      wordList("担心 客气 忘了 忘记 急 着急 介意 怕 害怕 说了 误会 难过 生气 在意 紧张 慌 谢 闹 开玩笑 了 提了 灰心 伤心 放在心上 见外");

  /** Words that a trigger forms with what follows: 别的 (other), 不要紧 (never mind), 不得不 (must). */
  private static final Map<String, List<String>> ZH_TRIGGER_IDIOMS =
      Map.of(
          "别", List.of("的", "人", "处", "名", "管", "墅", "扭", "致"),
          "不要", List.of("紧", "管"),
          "不得", List.of("不", "了", "已"),
          "不准", List.of("确"));

  private static final List<String> ZH_ENDERS = List.of("但是", "不过", "因为", "否则", "所以", "但");
  private static final List<String> ZH_SUBJECTS = List.of("我们", "他们", "她们", "我", "他", "她", "它");
  private static final List<String> ZH_CONDITIONS =
      wordList("如果 要是 假如 除非 的时候 时候 之前 以前 之后 未经 没有 周末 星期 周一 周二 周三 周四 周五 周六 周日 今天 今晚 明天 晚上 现在 暂时 下班");
  private static final List<String> ZH_UNNAMED =
      wordList("给我 给他 给她 给我们 给他们 给她们 联系我 联系他 联系她 通知我 发给我 发给他 发给她 我的 他的 她的 老板 经理 客户 同事 领导 家人 朋友");
  private static final List<String> ZH_NAME_BEFORE = List.of("给", "跟", "向", "对", "和", "与", "替");
  private static final List<String> ZH_NAME_AFTER =
      wordList("发送给 转账给 付款给 汇款给 发给 转给 寄给 打给 抄送 联系 通知 告诉");
  private static final List<String> ZH_NAME_STOPS =
      wordList("打电话 联系 通知 安排 分享 发 打 写 回 转 说 讲 汇 付 寄 推 预 约 的 了 和 或 、 任何");
  private static final Set<String> ZH_NOT_NAMES =
      words("我们 你们 他们 她们 它们 大家 别人 任何人 所有人 客户 老板 经理 同事 领导 用户 家人 朋友 对方 其他人 陌生人");
  private static final List<String> ZH_RUN = List.of("执行", "运行", "使用", "用", "跑");
  private static final List<String> ZH_GENERIC_VERBS =
      wordList("执行 运行 使用 用 联系 修改 改 碰 动 打开 访问 发送 发 写 分享 上传 下载 安装 提交 合并 重启 关闭 删除");
  private static final String CLAUSE_BREAKS = "，,：:；;、。！!？?—-（(「『“\"'《\n";

  private Prohibitions() {}

  /** The words of a space-separated list, as a set. */
  private static Set<String> words(String list) {
    return Set.of(list.split(" "));
  }

  /** The words of a space-separated list, in order. */
  private static List<String> wordList(String list) {
    return List.of(list.split(" "));
  }

  /** The prohibitions in {@code text}, in order; empty when there is none. */
  public static List<Prohibition> find(String text) {
    requireNonNull(text, "text is null");
    List<Prohibition> out = new ArrayList<>();
    Set<String> seen = new LinkedHashSet<>();
    for (String sentence : sentences(text)) {
      if (isQuestion(sentence)) {
        continue;
      }
      List<Prohibition> found = new ArrayList<>(english(sentence));
      if (ToolCallMatcher.hasHan(sentence)) {
        found.addAll(chinese(sentence));
      }
      for (Prohibition p : found) {
        if (seen.add(p.sentence().toLowerCase(Locale.ROOT))) {
          out.add(p);
        }
      }
    }
    return List.copyOf(out);
  }

  // ------------------------------------------------------------------ sentences

  static List<String> sentences(String text) {
    List<String> out = new ArrayList<>();
    int start = 0;
    int n = text.length();
    for (int i = 0; i < n; i++) {
      char c = text.charAt(i);
      int cut = -1;
      int next = i + 1;
      if (c == '\n' || c == '\r') {
        cut = i;
      } else if (c == '。' || c == '！' || c == '？') {
        cut = i + 1;
      } else if (c == '.' || c == '!' || c == '?') {
        int j = i + 1;
        while (j < n && "\"'”’)]".indexOf(text.charAt(j)) >= 0) {
          j++;
        }
        if ((j == n || Character.isWhitespace(text.charAt(j))) && !abbreviation(text, i)) {
          cut = j;
          next = j;
        }
      }
      if (cut >= 0) {
        add(out, text.substring(start, cut));
        start = next;
        i = next - 1;
      }
    }
    add(out, text.substring(Math.min(start, n)));
    return out;
  }

  private static boolean abbreviation(String text, int dot) {
    if (text.charAt(dot) != '.') {
      return false;
    }
    int s = dot;
    while (s > 0 && Character.isLetter(text.charAt(s - 1))) {
      s--;
    }
    String word = text.substring(s, dot).toLowerCase(Locale.ROOT);
    return Set.of("e.g", "i.e", "mr", "mrs", "ms", "dr", "st", "vs", "prof", "g", "e")
        .contains(word);
  }

  private static void add(List<String> out, String sentence) {
    String s = sentence.strip();
    if (!s.isEmpty()) {
      out.add(s);
    }
  }

  private static boolean isQuestion(String sentence) {
    String s = sentence.strip();
    for (String tag : TAG_QUESTIONS) {
      if (s.toLowerCase(Locale.ROOT).endsWith(tag)) {
        return false;
      }
    }
    int end = s.length();
    while (end > 0 && "\"'”’)]".indexOf(s.charAt(end - 1)) >= 0) {
      end--;
    }
    if (end == 0) {
      return false;
    }
    char last = s.charAt(end - 1);
    if (last == '?' || last == '？') {
      return true;
    }
    if (last == '。' || last == '！' || last == '.' || last == '!') {
      end--;
    }
    return end > 0 && (s.charAt(end - 1) == '吗' || s.charAt(end - 1) == '呢');
  }

  // ------------------------------------------------------------------ English

  /** A word of a sentence: its core without surrounding punctuation, and what follows it. */
  private static final class Tok {
    final int start;
    final int end;
    final String core;
    final String lower;
    final boolean code;
    boolean clauseEnd;
    boolean hardEnd;

    Tok(int start, int end, String core, boolean code) {
      this.start = start;
      this.end = end;
      this.core = core;
      this.lower = core.toLowerCase(Locale.ROOT).replace('’', '\'');
      this.code = code;
    }
  }

  private static List<Tok> tokens(String s) {
    List<Tok> toks = new ArrayList<>();
    int n = s.length();
    int i = 0;
    while (i < n) {
      char c = s.charAt(i);
      if (Character.isWhitespace(c)) {
        i++;
        continue;
      }
      if (c == '`') {
        int close = s.indexOf('`', i + 1);
        if (close > i) {
          int j = close + 1;
          while (j < n && !Character.isWhitespace(s.charAt(j))) {
            j++;
          }
          Tok t = new Tok(i, close + 1, s.substring(i + 1, close), true);
          mark(t, s.substring(close + 1, j));
          toks.add(t);
          i = j;
          continue;
        }
      }
      int j = i + 1; // at least one character, also an unclosed backtick
      while (j < n && !Character.isWhitespace(s.charAt(j)) && s.charAt(j) != '`') {
        j++;
      }
      int a = i;
      int b = j;
      while (a < b && LEAD.indexOf(s.charAt(a)) >= 0) {
        a++;
      }
      while (b > a && TRAIL.indexOf(s.charAt(b - 1)) >= 0) {
        b--;
      }
      String trail = s.substring(b, j);
      if (a == b) {
        String chunk = s.substring(i, j);
        if (!toks.isEmpty() && chunk.chars().anyMatch(ch -> ",;:—–-".indexOf(ch) >= 0)) {
          mark(toks.get(toks.size() - 1), chunk);
          toks.get(toks.size() - 1).clauseEnd = true;
        }
      } else {
        Tok t = new Tok(a, b, s.substring(a, b), false);
        mark(t, trail);
        toks.add(t);
      }
      i = j;
    }
    return toks;
  }

  private static void mark(Tok t, String trail) {
    for (int k = 0; k < trail.length(); k++) {
      char c = trail.charAt(k);
      if (",;:，；：、".indexOf(c) >= 0) {
        t.clauseEnd = true;
      }
      if (c == ';' || c == '；') {
        t.hardEnd = true;
      }
    }
  }

  /**
   * A trigger: its first token, the token of the verb, and whether it is "stop ...ing"/"no more".
   */
  private record Trigger(int start, int verb, int introStart, String kind) {}

  private static List<Prohibition> english(String s) {
    List<Tok> toks = tokens(s);
    int n = toks.size();
    List<Trigger> triggers = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Trigger t = trigger(toks, i);
      if (t != null) {
        int intro = introStart(toks, t.start());
        if (intro >= 0) {
          triggers.add(new Trigger(t.start(), t.verb(), intro, t.kind()));
        }
      }
    }
    List<Prohibition> out = new ArrayList<>();
    for (int k = 0; k < triggers.size(); k++) {
      Trigger t = triggers.get(k);
      int limit = k + 1 < triggers.size() ? triggers.get(k + 1).introStart() : n;
      Prohibition p = english(s, toks, t, limit);
      if (p != null) {
        out.add(p);
      }
    }
    return out;
  }

  private static String lower(List<Tok> toks, int i) {
    return i >= 0 && i < toks.size() ? toks.get(i).lower : "";
  }

  private static Trigger trigger(List<Tok> toks, int i) {
    Tok tok = toks.get(i);
    if (tok.code) {
      return null;
    }
    String w = tok.lower;
    String next = lower(toks, i + 1);
    String prev = lower(toks, i - 1);
    boolean subject = prev.equals("you") || prev.equals("we");
    switch (w) {
      case "never":
        return next.equals("mind") ? null : new Trigger(i, i + 1, i, "never");
      case "don't", "dont":
        return new Trigger(i, i + 1, i, "dont");
      case "do":
        return next.equals("not") ? new Trigger(i, i + 2, i, "dont") : null;
      case "stop":
        return next.endsWith("ing") && next.length() > 4 && !toks.get(i + 1).code
            ? new Trigger(i, i + 1, i, "stop")
            : null;
      case "no":
        return next.equals("more") ? new Trigger(i, i + 2, i, "nomore") : null;
      case "must", "should", "may":
        return next.equals("not") || next.equals("never")
            ? new Trigger(subject ? i - 1 : i, i + 2, i, "must")
            : null;
      case "mustn't", "shouldn't":
        return new Trigger(subject ? i - 1 : i, i + 1, i, "must");
      case "not":
        if (next.equals("allowed") && lower(toks, i + 2).equals("to")) {
          int start = i;
          if (prev.equals("are") || prev.equals("you're") || prev.equals("we're")) {
            start = i - 1;
            String before = lower(toks, i - 2);
            if (prev.equals("are") && (before.equals("you") || before.equals("we"))) {
              start = i - 2;
            }
          }
          return new Trigger(start, i + 3, i, "must");
        }
        return null;
      default:
        return null;
    }
  }

  /** Where the clause of a trigger at {@code start} begins (linking words included), or -1. */
  private static int introStart(List<Tok> toks, int start) {
    int j = start - 1;
    while (j >= 0) {
      Tok t = toks.get(j);
      if (t.clauseEnd) {
        return j + 1;
      }
      if (CONJUNCTIONS.contains(t.lower)) {
        return j;
      }
      if (!(INTRO.contains(t.lower) || t.lower.chars().allMatch(Character::isDigit))) {
        return -1;
      }
      j--;
    }
    return 0;
  }

  private static Prohibition english(String s, List<Tok> toks, Trigger t, int limit) {
    int n = toks.size();
    int v = t.verb();
    boolean skipped = true;
    while (skipped && v < limit) {
      skipped = false;
      String w = lower(toks, v);
      if (FILLERS.contains(w) && !toks.get(v).code) {
        v++;
        skipped = true;
      } else if ((w.equals("try") || w.equals("attempt")) && lower(toks, v + 1).equals("to")) {
        v += 2;
        skipped = true;
      } else if (w.equals("under")
          && lower(toks, v + 1).equals("any")
          && lower(toks, v + 2).startsWith("circumstance")) {
        v += 3;
        skipped = true;
      } else if (w.equals("at") && lower(toks, v + 1).equals("all")) {
        v += 2;
        skipped = true;
      }
    }
    if (v >= limit || v >= n) {
      return null;
    }
    Tok verbTok = toks.get(v);
    String verb;
    String nounFromVerb = "";
    ToolNouns.Kind verbKind = null;
    if (verbTok.code) {
      verb = "";
    } else if (t.kind().equals("stop")) {
      verb = stem(verbTok.lower);
    } else if (t.kind().equals("nomore")) {
      String w = verbTok.lower;
      String singular = w.endsWith("s") ? w.substring(0, w.length() - 1) : w;
      ToolNouns.Word noun = ToolNouns.ENGLISH_NOUNS.get(w);
      if (w.endsWith("ing") && w.length() > 4) {
        verb = stem(w);
      } else if (noun != null) {
        verb = singular;
        nounFromVerb = noun.noun();
        verbKind = ToolNouns.Kind.STRONG_VERB;
      } else {
        return null;
      }
    } else {
      verb = verbTok.lower;
    }
    if (!verbTok.code) {
      if (!verb.chars().allMatch(c -> (c >= 'a' && c <= 'z') || c == '-' || c == '\'')) {
        return null;
      }
      if (STOP_VERBS.contains(verb)) {
        return null;
      }
      if (verb.endsWith("ed") && !VERB_BASES.contains(verb) && !ToolNouns.VERBS.containsKey(verb)) {
        return null;
      }
      ToolNouns.Word w = ToolNouns.VERBS.get(verb);
      if (w != null && verbKind == null) {
        nounFromVerb = w.noun();
        verbKind = w.kind();
      }
    }
    // The end of the prohibition.
    int end = limit;
    for (int j = v + 1; j < limit; j++) {
      String w = toks.get(j).lower;
      if (toks.get(j - 1).hardEnd
          || ENDERS.contains(w)
          || ((w.equals("and") || w.equals("or") || w.equals("so"))
              && SUBJECTS.contains(lower(toks, j + 1)))
          || (toks.get(j - 1).clauseEnd && SUBJECTS.contains(w))) {
        end = j;
        break;
      }
    }
    // A tag question's tag (", ok?") is not part of it.
    while (end - 1 > v && TAGS.contains(toks.get(end - 1).lower) && toks.get(end - 2).clauseEnd) {
      end--;
    }
    // Condition or time?
    boolean conditional = false;
    int textStart = t.start();
    for (int j = 0; j < t.start(); j++) {
      if (PRE_CONDITIONS.contains(toks.get(j).lower)) {
        conditional = true;
        textStart = Math.min(textStart, j); // "If the build fails, don't deploy." keeps its "if"
      }
    }
    for (int j = v; j < end; j++) {
      String w = toks.get(j).lower;
      if (w.equals("now")) {
        conditional |= !lower(toks, j - 1).equals("from");
      } else if (CONDITIONS.contains(w) || isClockTime(w)) {
        conditional = true;
      } else if (Set.of("over", "above", "under", "below").contains(w)
          && lower(toks, j + 1).matches("[$€£¥]?[0-9].*")) {
        conditional = true;
      } else if (w.equals("for") && lower(toks, j + 1).equals("now")) {
        conditional = true;
      } else if (w.equals("this")
          && Set.of("week", "weekend", "time", "month", "morning", "afternoon", "evening")
              .contains(lower(toks, j + 1))) {
        conditional = true;
      }
    }
    // Noun words after the verb.
    String strongNoun = "";
    String weakNoun = "";
    boolean unnamed = false;
    for (int j = v + 1; j < end; j++) {
      Tok tok = toks.get(j);
      if (tok.code) {
        continue;
      }
      ToolNouns.Word w = ToolNouns.ENGLISH_NOUNS.get(tok.lower);
      if (w != null && w.kind() == ToolNouns.Kind.STRONG_NOUN && strongNoun.isEmpty()) {
        strongNoun = w.noun();
      } else if (w != null && w.kind() == ToolNouns.Kind.WEAK_NOUN && weakNoun.isEmpty()) {
        weakNoun = w.noun();
      }
      unnamed |= UNNAMED.contains(tok.lower);
    }
    int from = verbTok.start;
    int to = toks.get(end - 1).end;
    ObjectScan objects = new ObjectScan(s, from, to);
    objects.code();
    objects.commands(toks, v, end);
    objects.scan();
    String noun =
        objects.ranCommand()
            ? "shell"
            : chooseNoun(nounFromVerb, verbKind, strongNoun, weakNoun, objects.impliedNoun());
    objects.names(
        verbTok.code ? from : verbTok.end,
        COMMUNICATION.contains(noun) || CONTACT_VERBS.contains(verb));
    if (noun.equals("git") || noun.equals("deploy")) {
      objects.targets(toks, v, end);
    }
    if (COMMUNICATION.contains(noun) && verbKind == ToolNouns.Kind.STRONG_VERB) {
      objects.lowerCaseRecipient(toks, v, end);
    }
    List<String> found = objects.list();
    if (noun.isEmpty() && found.isEmpty()) {
      return null;
    }
    String sentence = sentence(s.substring(toks.get(textStart).start, to));
    boolean qualified = false;
    if (found.isEmpty()) {
      qualified =
          !verbTok.code
              && verbKind != ToolNouns.Kind.STRONG_VERB
              && !BLANKET_VERBS.contains(verb)
              && !noun.equals(nounFromVerb);
      for (int j = v + 1; j < end && !qualified; j++) {
        String w = toks.get(j).lower;
        qualified =
            !toks.get(j).code
                && w.chars().allMatch(Character::isLetter)
                && !ToolNouns.ENGLISH_NOUNS.containsKey(w)
                && !ToolNouns.VERBS.containsKey(w)
                && !NOT_NAMES.contains(w)
                && !TARGET_STOP.contains(w)
                && !CMD_STOP.contains(w)
                && !QUANTIFIERS.contains(w)
                && !(UNNAMED.contains(w) && !COMMUNICATION.contains(noun));
      }
    }
    boolean enforceable =
        !conditional && !qualified && !(COMMUNICATION.contains(noun) && found.isEmpty() && unnamed);
    return new Prohibition(sentence, verb, noun, found, enforceable);
  }

  private static boolean isClockTime(String w) {
    int i = 0;
    while (i < w.length() && (Character.isDigit(w.charAt(i)) || w.charAt(i) == ':')) {
      i++;
    }
    return i > 0 && (w.endsWith("am") || w.endsWith("pm")) && i == w.length() - 2;
  }

  private static String chooseNoun(
      String fromVerb, ToolNouns.Kind verbKind, String strong, String weak, String implied) {
    if (!fromVerb.isEmpty() && verbKind == ToolNouns.Kind.STRONG_VERB) {
      return fromVerb;
    }
    if (!strong.isEmpty()) {
      return strong;
    }
    if (!fromVerb.isEmpty()) {
      return fromVerb;
    }
    if (!weak.isEmpty()) {
      return weak;
    }
    return implied;
  }

  /** "emailing" gives "email", "running" "run", "using" "use", "deleting" "delete". */
  static String stem(String ing) {
    if (!ing.endsWith("ing") || ing.length() <= 4) {
      return ing;
    }
    String stem = ing.substring(0, ing.length() - 3);
    if (known(stem)) {
      return stem;
    }
    if (known(stem + "e")) {
      return stem + "e";
    }
    int len = stem.length();
    if (len >= 2
        && stem.charAt(len - 1) == stem.charAt(len - 2)
        && known(stem.substring(0, len - 1))) {
      return stem.substring(0, len - 1);
    }
    return stem;
  }

  private static boolean known(String verb) {
    return VERB_BASES.contains(verb)
        || ToolNouns.VERBS.containsKey(verb)
        || STOP_VERBS.contains(verb);
  }

  private static String sentence(String raw) {
    String s = raw.strip();
    int end = s.length();
    while (end > 0
        && (".,;:!?…。，；：！？、".indexOf(s.charAt(end - 1)) >= 0
            || Character.isWhitespace(s.charAt(end - 1)))) {
      end--;
    }
    s = s.substring(0, end);
    if (s.isEmpty()) {
      return s;
    }
    s = Character.toUpperCase(s.charAt(0)) + s.substring(1);
    return s + (hasHan(s) ? "。" : ".");
  }

  // ------------------------------------------------------------------ Chinese

  private record ZhTrigger(int start, int body, int introStart, int textStart, boolean temporary) {}

  private static List<Prohibition> chinese(String s) {
    List<ZhTrigger> triggers = new ArrayList<>();
    for (int i = 0; i < s.length(); ) {
      String trigger = startsWithAny(s, i, ZH_TRIGGERS);
      if (trigger == null) {
        i++;
        continue;
      }
      ZhTrigger t = zhTrigger(s, i, trigger);
      if (t != null) {
        triggers.add(t);
      }
      i += trigger.length();
    }
    List<Prohibition> out = new ArrayList<>();
    for (int k = 0; k < triggers.size(); k++) {
      ZhTrigger t = triggers.get(k);
      int limit = k + 1 < triggers.size() ? triggers.get(k + 1).introStart() : s.length();
      Prohibition p = chinese(s, t, limit);
      if (p != null) {
        out.add(p);
      }
    }
    return out;
  }

  private static ZhTrigger zhTrigger(String s, int at, String trigger) {
    // Clause start: only intros (and spaces) between a clause break and the trigger.
    int j = at;
    int textStart = at;
    boolean keptChain = true;
    boolean temporary = false;
    while (true) {
      while (j > 0 && Character.isWhitespace(s.charAt(j - 1))) {
        j--;
      }
      if (j == 0) {
        break;
      }
      String kept = endsWithAny(s, j, ZH_KEPT_INTROS);
      String temp = endsWithAny(s, j, ZH_TEMPORARY_INTROS);
      String dropped = endsWithAny(s, j, ZH_DROPPED_INTROS);
      String intro = longest(kept, temp, dropped);
      if (intro == null) {
        if (CLAUSE_BREAKS.indexOf(s.charAt(j - 1)) < 0) {
          return null;
        }
        break;
      }
      j -= intro.length();
      if (intro.equals(temp)) {
        temporary = true;
      }
      if (intro.equals(dropped) && !intro.equals(kept) && !intro.equals(temp)) {
        keptChain = false;
      } else if (keptChain) {
        textStart = j;
      }
    }
    int body = at + trigger.length();
    boolean skipped = true;
    while (skipped) {
      String skip = startsWithAny(s, body, ZH_SKIP);
      skipped = skip != null;
      if (skipped) {
        body += skip.length();
      }
    }
    if (startsWithAny(s, body, ZH_IDIOMS) != null
        || startsWithAny(
                s, at + trigger.length(), ZH_TRIGGER_IDIOMS.getOrDefault(trigger, List.of()))
            != null) {
      return null;
    }
    return new ZhTrigger(at, body, j, textStart, temporary);
  }

  private static Prohibition chinese(String s, ZhTrigger t, int limit) {
    int end = limit;
    for (int i = t.body(); i < limit; i++) {
      char c = s.charAt(i);
      if (c == ';' || c == '；' || startsWithAny(s, i, ZH_ENDERS) != null) {
        end = i;
        break;
      }
      if (c == '，' || c == ',') {
        int k = i + 1;
        while (k < limit && Character.isWhitespace(s.charAt(k))) {
          k++;
        }
        if (startsWithAny(s, k, ZH_SUBJECTS) != null) {
          end = i;
          break;
        }
      }
    }
    String span = s.substring(t.body(), end);
    boolean conditional = t.temporary();
    int textStart = t.textStart();
    // 从现在起 ("from now on") holds 现在 ("now") but sets no time limit; blank it, same length.
    String head = s.substring(0, t.start()).replace("从现在开始", "　　　　　").replace("从现在起", "　　　　");
    for (String c : ZH_CONDITIONS) {
      conditional |= span.contains(c);
      int before = head.indexOf(c);
      if (before >= 0) {
        conditional = true;
        textStart = Math.min(textStart, before); // 如果构建失败，不要部署。keeps its 如果
      }
    }
    for (String w : span.toLowerCase(Locale.ROOT).split("[^a-z0-9]+")) {
      conditional |= CONDITIONS.contains(w);
    }
    // Vocabulary hits in order.
    String strongVerb = "";
    String strongNoun = "";
    String weakVerb = "";
    String weakNoun = "";
    String verb = "";
    for (int i = 0; i < span.length(); ) {
      ToolNouns.Word hit = null;
      for (ToolNouns.Word w : ToolNouns.CHINESE) {
        if (span.startsWith(w.text(), i)) {
          hit = w;
          break;
        }
      }
      if (hit == null) {
        i++;
        continue;
      }
      switch (hit.kind()) {
        case STRONG_VERB -> strongVerb = strongVerb.isEmpty() ? hit.noun() : strongVerb;
        case STRONG_NOUN -> strongNoun = strongNoun.isEmpty() ? hit.noun() : strongNoun;
        case WEAK_VERB -> weakVerb = weakVerb.isEmpty() ? hit.noun() : weakVerb;
        case WEAK_NOUN -> weakNoun = weakNoun.isEmpty() ? hit.noun() : weakNoun;
      }
      if (verb.isEmpty()
          && (hit.kind() == ToolNouns.Kind.STRONG_VERB || hit.kind() == ToolNouns.Kind.WEAK_VERB)) {
        verb = hit.text();
      }
      i += hit.text().length();
    }
    for (String w : span.toLowerCase(Locale.ROOT).split("[^a-z-]+")) {
      ToolNouns.Word n = ToolNouns.ENGLISH_NOUNS.get(w);
      if (n != null && n.kind() == ToolNouns.Kind.STRONG_NOUN && strongNoun.isEmpty()) {
        strongNoun = n.noun();
      }
    }
    ObjectScan objects = new ObjectScan(s, t.body(), end);
    objects.code();
    objects.chineseCommands();
    objects.scan();
    objects.chineseNames();
    String noun =
        objects.ranCommand()
            ? "shell"
            : !strongVerb.isEmpty()
                ? strongVerb
                : chooseNoun(
                    weakVerb,
                    ToolNouns.Kind.WEAK_VERB,
                    strongNoun,
                    weakNoun,
                    objects.impliedNoun());
    if (verb.isEmpty()) {
      String generic = startsWithAny(span.strip(), 0, ZH_GENERIC_VERBS);
      verb = generic == null ? "" : generic;
    }
    boolean contact = COMMUNICATION.contains(noun);
    for (String marker : ZH_NAME_BEFORE) {
      contact |= span.contains(marker);
    }
    for (String marker : ZH_NAME_AFTER) {
      contact |= span.contains(marker);
    }
    objects.names(t.body(), contact);
    if (noun.equals("git") || noun.equals("deploy")) {
      objects.chineseTargets();
    }
    List<String> found = objects.list();
    if (noun.isEmpty() && found.isEmpty()) {
      return null;
    }
    boolean unnamed = false;
    for (String u : ZH_UNNAMED) {
      unnamed |= span.contains(u);
    }
    boolean qualified =
        found.isEmpty()
            && !verb.isEmpty()
            && strongVerb.isEmpty()
            && !ZH_BLANKET_VERBS.contains(verb)
            && !noun.equals(weakVerb);
    boolean enforceable =
        !conditional && !qualified && !(COMMUNICATION.contains(noun) && found.isEmpty() && unnamed);
    return new Prohibition(sentence(s.substring(textStart, end)), verb, noun, found, enforceable);
  }

  private static String startsWithAny(String s, int i, List<String> words) {
    String best = null;
    for (String w : words) {
      if (s.startsWith(w, i) && (best == null || w.length() > best.length())) {
        best = w;
      }
    }
    return best;
  }

  private static String endsWithAny(String s, int end, List<String> words) {
    String best = null;
    for (String w : words) {
      if (end >= w.length()
          && s.startsWith(w, end - w.length())
          && (best == null || w.length() > best.length())) {
        best = w;
      }
    }
    return best;
  }

  private static String longest(String... words) {
    String best = null;
    for (String w : words) {
      if (w != null && (best == null || w.length() > best.length())) {
        best = w;
      }
    }
    return best;
  }

  static boolean isHan(char c) {
    return Character.UnicodeScript.of(c) == Character.UnicodeScript.HAN;
  }

  // ------------------------------------------------------------------ objects

  /** Collects the objects of one prohibition from {@code s[from, to)}. */
  private static final class ObjectScan {
    private static final String STOP_CHARS = "\"'<>()[]{}`，。；：！？、“”‘’";

    private final String s;
    private final int from;
    private final int to;
    private final boolean[] used;
    private final List<String[]> found = new ArrayList<>(); // {order, value}
    private String implied = "";
    private int impliedOrder = Integer.MAX_VALUE;

    ObjectScan(String s, int from, int to) {
      this.s = s;
      this.from = from;
      this.to = to;
      this.used = new boolean[s.length()];
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
            };
        if (!noun.isEmpty()) {
          implied = noun;
          impliedOrder = order;
        }
      }
    }

    private boolean ranCommand;

    /** True when a command was found after run/execute/use, or in backticks after such a verb. */
    boolean ranCommand() {
      return ranCommand;
    }

    String impliedNoun() {
      return implied;
    }

    private void use(int a, int b) {
      for (int i = Math.max(a, 0); i < Math.min(b, used.length); i++) {
        used[i] = true;
      }
    }

    private boolean free(int a, int b) {
      for (int i = a; i < b; i++) {
        if (used[i]) {
          return false;
        }
      }
      return true;
    }

    List<String> list() {
      found.sort(Comparator.comparingInt(a -> Integer.parseInt(a[0])));
      LinkedHashSet<String> out = new LinkedHashSet<>();
      for (String[] f : found) {
        out.add(f[1]);
      }
      return List.copyOf(out);
    }

    /** `...` spans. */
    void code() {
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
      return b == e || RUN_VERBS.contains(word) || ZH_RUN.stream().anyMatch(word::endsWith);
    }

    /**
     * "never email sarah": a lower-case word right after a verb of contact is taken as the
     * recipient's name when no capitalised name was found (so the rule binds her, not every mail).
     */
    void lowerCaseRecipient(List<Tok> toks, int v, int end) {
      if (found.stream().anyMatch(f -> f[0].equals(String.valueOf(order(RuleObjects.Kind.NAME))))) {
        return;
      }
      int k = v + 1;
      if (lower(toks, k).equals("to")) {
        k++;
      }
      if (k >= end) {
        return;
      }
      Tok t = toks.get(k);
      String w = t.lower.endsWith("'s") ? t.lower.substring(0, t.lower.length() - 2) : t.lower;
      if (!t.code
          && w.length() >= 2
          && w.chars().allMatch(Character::isLetter)
          && free(t.start, t.end)
          && !NOT_NAMES.contains(w)
          && !UNNAMED.contains(w)
          && !CONDITIONS.contains(w)
          && !CMD_STOP.contains(w)
          && !TARGET_STOP.contains(w)
          && !ToolNouns.VERBS.containsKey(w)
          && !ToolNouns.ENGLISH_NOUNS.containsKey(w)
          && !VERB_BASES.contains(w)) {
        add(order(RuleObjects.Kind.NAME), RuleObjects.Kind.NAME, w);
        use(t.start, t.end);
      }
    }

    /** A command after run/execute/use: a known program, or a word with flags. */
    void commands(List<Tok> toks, int v, int end) {
      for (int j = v; j < end; j++) {
        Tok tok = toks.get(j);
        int start;
        if (!tok.code && RUN_VERBS.contains(tok.lower) && j + 1 < end) {
          start = j + 1;
        } else if (j == v
            && RuleObjects.PROGRAMS.contains(tok.lower)
            && j + 1 < end
            && !TARGET_STOP.contains(lower(toks, j + 1))
            && !CMD_STOP.contains(lower(toks, j + 1))) {
          start = j;
        } else {
          continue;
        }
        Tok first = toks.get(start);
        if (first.code || !free(first.start, first.end)) {
          continue;
        }
        boolean program =
            RuleObjects.PROGRAMS.contains(first.lower)
                || (first.lower.matches("[a-z][a-z0-9_.-]*")
                    && lower(toks, start + 1).startsWith("-")
                    && !ToolNouns.ENGLISH_NOUNS.containsKey(first.lower));
        if (!program) {
          continue;
        }
        List<String> words = new ArrayList<>();
        int k = start;
        while (k < end && words.size() < 8) {
          Tok w = toks.get(k);
          if (w.code || (k > start && CMD_STOP.contains(w.lower)) || hasHan(w.core)) {
            break;
          }
          words.add(w.lower);
          k++;
          if (w.clauseEnd) {
            break;
          }
        }
        add(order(RuleObjects.Kind.COMMAND), RuleObjects.Kind.COMMAND, String.join(" ", words));
        use(first.start, toks.get(k - 1).end);
        ranCommand = true;
        j = k - 1;
      }
    }

    /** 执行/运行/使用 followed by a Latin command. */
    void chineseCommands() {
      for (String run : ZH_RUN) {
        for (int i = s.indexOf(run, from); i >= 0 && i < to; i = s.indexOf(run, i + 1)) {
          int a = i + run.length();
          while (a < to && Character.isWhitespace(s.charAt(a))) {
            a++;
          }
          int b = a;
          while (b < to && !isHan(s.charAt(b)) && "，。；：！？、".indexOf(s.charAt(b)) < 0) {
            b++;
          }
          String cmd = s.substring(a, b).strip().toLowerCase(Locale.ROOT);
          if (cmd.isEmpty() || !free(a, b)) {
            continue;
          }
          String[] words = cmd.split("\\s+");
          boolean program =
              RuleObjects.PROGRAMS.contains(words[0])
                  || (words.length > 1 && words[1].startsWith("-"));
          if (program) {
            add(order(RuleObjects.Kind.COMMAND), RuleObjects.Kind.COMMAND, String.join(" ", words));
            use(a, b);
            ranCommand = true;
          }
        }
      }
    }

    /** Addresses, URLs, paths, channels, handles, hosts and file names. */
    void scan() {
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
          && !isHan(s.charAt(j))
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
      return Character.isWhitespace(c) || isHan(c) || "\"'(<[=:,;“‘（「`".indexOf(c) >= 0;
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
            && !isHan(s.charAt(j))) {
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
     * prohibition is about contacting someone ({@code contact}), only a possessive ("Bob's files")
     * or a run after to/with/from/for/at/about/by/of/cc is taken: "don't use Markdown" names no
     * one.
     */
    void names(int nameFrom, boolean contact) {
      List<String> group = new ArrayList<>();
      int groupStart = -1;
      int lastEnd = -1;
      boolean possessive = false;
      int i = Math.max(nameFrom, from);
      while (i < to) {
        char c = s.charAt(i);
        if (!Character.isLetter(c) || isHan(c) || used[i]) {
          i++;
          continue;
        }
        int j = i;
        while (j < to) {
          char d = s.charAt(j);
          if (Character.isLetter(d) && !isHan(d) && !used[j]) {
            j++;
          } else if ((d == '\'' || d == '’' || d == '-')
              && j + 1 < to
              && Character.isLetter(s.charAt(j + 1))
              && !isHan(s.charAt(j + 1))) {
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
                && !NOT_NAMES.contains(lower)
                && !ToolNouns.VERBS.containsKey(lower)
                && !ToolNouns.ENGLISH_NOUNS.containsKey(lower)
                && !VERB_BASES.contains(lower);
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
      if (!group.isEmpty() && (contact || possessive || NAME_PREPS.contains(previousWord(start)))) {
        add(order(RuleObjects.Kind.NAME), RuleObjects.Kind.NAME, String.join(" ", group));
      }
      group.clear();
    }

    /** 给张三发邮件, 发给李四, 联系王五. */
    void chineseNames() {
      for (int i = from; i < to; i++) {
        String after = startsWithAny(s, i, ZH_NAME_AFTER);
        String before = after == null ? startsWithAny(s, i, ZH_NAME_BEFORE) : null;
        if (after == null && before == null) {
          continue;
        }
        int a = i + (after != null ? after : before).length();
        while (a < to && Character.isWhitespace(s.charAt(a))) {
          a++;
        }
        while (a < to) {
          int b = a;
          while (b < to && isHan(s.charAt(b)) && b - a < 5) {
            if (b - a >= 2 && startsWithAny(s, b, ZH_NAME_STOPS) != null) {
              break;
            }
            b++;
          }
          String name = s.substring(a, b);
          if (name.length() < 2 || name.length() > 4) {
            break;
          }
          boolean stopped =
              b >= to || !isHan(s.charAt(b)) || startsWithAny(s, b, ZH_NAME_STOPS) != null;
          if (!stopped
              || ZH_NOT_NAMES.contains(name)
              || isVocabulary(name)
              || "我你他她它".indexOf(name.charAt(0)) >= 0) {
            break;
          }
          add(order(RuleObjects.Kind.NAME), RuleObjects.Kind.NAME, name);
          use(a, b);
          // A list: 张三和李四, 张三、李四.
          String sep = b < to ? startsWithAny(s, b, List.of("和", "或", "、", "及")) : null;
          if (sep == null) {
            break;
          }
          a = b + sep.length();
        }
      }
    }

    private static boolean isVocabulary(String name) {
      for (ToolNouns.Word w : ToolNouns.CHINESE) {
        if (name.contains(w.text())) {
          return true;
        }
      }
      return false;
    }

    /** The branch or environment of a push or deploy: "to main", "into prod", "on staging". */
    void targets(List<Tok> toks, int v, int end) {
      for (int j = v + 1; j + 1 < end; j++) {
        String w = toks.get(j).lower;
        if (!(w.equals("to") || w.equals("into") || w.equals("onto") || w.equals("on"))) {
          continue;
        }
        int k = j + 1;
        if (lower(toks, k).equals("the") && k + 1 < end) {
          k++;
        }
        Tok target = toks.get(k);
        addTarget(target.lower, target.start, target.end);
      }
    }

    /** 推送到 main, 部署到 staging. */
    void chineseTargets() {
      for (int i = s.indexOf('到', from); i >= 0 && i < to; i = s.indexOf('到', i + 1)) {
        int a = i + 1;
        while (a < to && Character.isWhitespace(s.charAt(a))) {
          a++;
        }
        int b = a;
        while (b < to
            && (RuleObjects.isAsciiLetterOrDigit(s.charAt(b))
                || "._/-".indexOf(s.charAt(b)) >= 0)) {
          b++;
        }
        addTarget(s.substring(a, b).toLowerCase(Locale.ROOT), a, b);
      }
    }

    private void addTarget(String target, int a, int b) {
      if (target.isEmpty()
          || !target.matches("[a-z0-9][a-z0-9._/-]*")
          || TARGET_STOP.contains(target)
          || CONDITIONS.contains(target)
          || CMD_STOP.contains(target)
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
      };
    }
  }

  private static boolean hasHan(String s) {
    return ToolCallMatcher.hasHan(s);
  }
}
