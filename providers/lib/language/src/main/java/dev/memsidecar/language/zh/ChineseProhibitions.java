package dev.memsidecar.language.zh;

import dev.memsidecar.language.Scripts;
import dev.memsidecar.language.prohibition.ObjectScan;
import dev.memsidecar.language.prohibition.Prohibition;
import dev.memsidecar.language.prohibition.ProhibitionRules;
import dev.memsidecar.language.prohibition.Prohibitions;
import dev.memsidecar.language.tool.RuleObjects;
import dev.memsidecar.language.tool.ToolActions;
import dev.memsidecar.language.tool.ToolNouns.Kind;
import dev.memsidecar.language.tool.ToolNouns.Word;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * How a prohibition is said in Chinese (the contract is {@link Prohibitions}'): 不要, 别, 禁止, 严禁, 不许,
 * 不准, 不得, 切勿, 请勿, 勿 at the start of a clause, also after 永远, 千万, 绝对, 再也, 以后 (kept in the rule) or
 * 请, 也, 另外, 还有, 你 (dropped); not after a subject (我不要), nor in an idiom (不要紧, 别担心, 别客气, 别忘了, 别的,
 * 别人). It runs to the end of its sentence, to the next trigger, or to a clause no longer about it
 * (但是, 因为, "，我 ..."). Its verb is the Chinese verb found (发邮件, 删除); names are taken after 给/跟/向/对/和
 * or 发给/联系/通知 (张三). Read on a sentence with a Han character. Immutable and thread-safe.
 */
final class ChineseProhibitions implements ProhibitionRules {
  private static final List<String> TAG_QUESTIONS =
      List.of(
          "，好吗？", "，好吗?", "，知道吗？", "，知道吗?", "，明白吗？", "，明白吗?", "，好不好？", "，行吗？", "，记住了吗？", "，懂吗？");
  private static final List<String> ZH_BLANKET_VERBS = wordList("用 使用 执行 运行 打开 访问 碰 动 联系 发 发送");
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

  /** The words of a space-separated list, as a set. */
  private static Set<String> words(String list) {
    return Set.of(list.split(" "));
  }

  /** The words of a space-separated list, in order. */
  private static List<String> wordList(String list) {
    return List.of(list.split(" "));
  }

  @Override
  public boolean reads(String sentence) {
    return Scripts.hasHan(sentence);
  }

  @Override
  public String fullStop() {
    return "。";
  }

  @Override
  public List<String> tagQuestions() {
    return TAG_QUESTIONS;
  }

  @Override
  public String questionParticles() {
    return "吗呢";
  }

  /** 执行, 运行, 使用, 用, 跑, also at the end of a longer word. */
  @Override
  public boolean isRunVerb(String word) {
    return ZH_RUN.stream().anyMatch(word::endsWith);
  }

  @Override
  public boolean excludesName(String word) {
    return ZH_NOT_NAMES.contains(word);
  }

  @Override
  public boolean precedesName(String word) {
    return false;
  }

  @Override
  public boolean excludesTarget(String word) {
    return false;
  }

  @Override
  public boolean isCondition(String word) {
    return ZH_CONDITIONS.contains(word);
  }

  private record ZhTrigger(int start, int body, int introStart, int textStart, boolean temporary) {}

  @Override
  public List<Prohibition> find(String s, Prohibitions finder) {
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
      Prohibition p = find(s, t, limit, finder);
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

  private static Prohibition find(String s, ZhTrigger t, int limit, Prohibitions finder) {
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
      conditional |= finder.isCondition(w); // Latin words, read by the languages that know them
    }
    // Vocabulary hits in order.
    String strongVerb = "";
    String strongNoun = "";
    String weakVerb = "";
    String weakNoun = "";
    String verb = "";
    for (int i = 0; i < span.length(); ) {
      Word hit = null;
      for (Word w : ChineseToolWords.WORDS) {
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
      if (verb.isEmpty() && (hit.kind() == Kind.STRONG_VERB || hit.kind() == Kind.WEAK_VERB)) {
        verb = hit.text();
      }
      i += hit.text().length();
    }
    for (String w : span.toLowerCase(Locale.ROOT).split("[^a-z-]+")) {
      Word n = finder.toolWord(w).orElse(null); // Latin words, read by the languages that know them
      if (n != null && n.kind() == Kind.STRONG_NOUN && strongNoun.isEmpty()) {
        strongNoun = n.noun();
      }
    }
    ObjectScan objects = finder.objects(s, t.body(), end);
    objects.code();
    commands(objects);
    objects.scan();
    names(objects);
    Acts acts = acts(objects, s, t.body(), end);
    String implied = objects.impliedNoun();
    if (implied.isEmpty() && !acts.keys().isEmpty()) {
      implied = ToolActions.of(acts.keys().get(0)).orElseThrow().noun();
    }
    String noun =
        objects.ranCommand()
            ? "shell"
            : !strongVerb.isEmpty()
                ? strongVerb
                : Prohibitions.chooseNoun(weakVerb, Kind.WEAK_VERB, strongNoun, weakNoun, implied);
    if (verb.isEmpty()) {
      String generic = startsWithAny(span.strip(), 0, ZH_GENERIC_VERBS);
      verb = generic == null ? "" : generic;
    }
    boolean contact = Prohibitions.CONTACT_NOUNS.contains(noun);
    for (String marker : ZH_NAME_BEFORE) {
      contact |= span.contains(marker);
    }
    for (String marker : ZH_NAME_AFTER) {
      contact |= span.contains(marker);
    }
    objects.names(t.body(), contact);
    if (noun.equals("git") || noun.equals("deploy")) {
      targets(objects);
    }
    List<String> named = objects.list();
    for (String key : acts.keys()) {
      if (!Prohibitions.actIsTheTool(key, noun)) {
        objects.addAction(key, 0, 0);
      }
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
        !acts.keys().isEmpty() && named.isEmpty()
            ? acts.narrowed()
            : found.isEmpty()
                && ((!verb.isEmpty()
                        && strongVerb.isEmpty()
                        && !ZH_BLANKET_VERBS.contains(verb)
                        && !noun.equals(weakVerb))
                    || narrowsTool(span, noun));
    return new Prohibition(
        finder.asRule(s.substring(textStart, end)),
        verb,
        noun,
        found,
        Prohibitions.enforceable(conditional, qualified, noun, found, unnamed));
  }

  /**
   * The acts of a prohibition ({@link ChineseActions}) in {@code s[from, to)}, in order, each once;
   * {@code narrowed} when a word between a verb and its object, or after the act, narrows it
   * (删除<b>旧</b>文件, 删除<b>生产</b>数据库, 删除文件<b>夹里的日志</b>).
   */
  private record Acts(List<String> keys, boolean narrowed) {}

  private static final String PARTICLES = "了吧啊呀哦呢的。！!，,；;：:、 \t";

  private static Acts acts(ObjectScan objects, String s, int from, int to) {
    List<String> keys = new ArrayList<>();
    boolean narrowed = false;
    int i = from;
    while (i < to) {
      ChineseActions.Verb verb = null;
      for (ChineseActions.Verb v : ChineseActions.VERBS) {
        if (s.startsWith(v.text(), i) && i + v.text().length() <= to && objects.free(i, i + 1)) {
          verb = v;
          break;
        }
      }
      if (verb == null) {
        i++;
        continue;
      }
      int k = i + verb.text().length();
      String act = "";
      int skipped = 0;
      int objectEnd = k;
      for (int steps = 0; k < to && steps < 8 && act.isEmpty(); steps++) {
        char c = s.charAt(k);
        if (Character.isWhitespace(c)) {
          k++;
          continue;
        }
        String object = null;
        for (Map.Entry<String, String> e : verb.byObject()) {
          if (s.startsWith(e.getKey(), k)) {
            object = e.getKey();
            act = e.getValue();
            break;
          }
        }
        if (object != null) {
          objectEnd = k + object.length();
          break;
        }
        String det = startsWithAny(s, k, ChineseActions.DETERMINERS);
        if (det != null) {
          k += det.length();
        } else if (Scripts.isHan(c) && objects.free(k, k + 1)) {
          skipped++;
          k++;
        } else {
          break;
        }
      }
      if (!act.isEmpty()) {
        narrowed |= skipped > 0;
        addOnce(keys, act);
        i = objectEnd;
        // What follows the act, up to a clause break, narrows it unless it is a particle.
        for (int m = objectEnd; m < to; m++) {
          char c = s.charAt(m);
          if ("，。；！？,;!?".indexOf(c) >= 0) {
            break;
          }
          narrowed |= Scripts.isHan(c) && PARTICLES.indexOf(c) < 0 && objects.free(m, m + 1);
        }
      } else {
        if (!verb.alone().isEmpty()) {
          addOnce(keys, verb.alone());
        }
        i += verb.text().length();
      }
    }
    return new Acts(List.copyOf(keys), narrowed);
  }

  private static void addOnce(List<String> keys, String key) {
    if (!keys.contains(key)) {
      keys.add(key);
    }
  }

  /**
   * Whether a prohibition of a whole tool says more than the tool: a Han word that is neither a
   * word of its noun, a verb of using it, nor a particle (不要用 shell <b>挖矿</b>, 不要用浏览器<b>付款</b>).
   */
  private static boolean narrowsTool(String span, String noun) {
    int i = 0;
    while (i < span.length()) {
      char c = span.charAt(i);
      if (!Scripts.isHan(c) || PARTICLES.indexOf(c) >= 0) {
        i++;
        continue;
      }
      String covered = null;
      for (Word w : ChineseToolWords.WORDS) {
        if (w.noun().equals(noun) && span.startsWith(w.text(), i)) {
          covered = w.text();
          break;
        }
      }
      if (covered == null) {
        covered = startsWithAny(span, i, ZH_BLANKET_VERBS);
      }
      if (covered == null) {
        covered = startsWithAny(span, i, ZH_SKIP);
      }
      if (covered == null) {
        covered = startsWithAny(span, i, ChineseActions.DETERMINERS);
      }
      if (covered == null) {
        covered = startsWithAny(span, i, ZH_NAME_BEFORE);
      }
      if (covered == null) {
        return true;
      }
      i += covered.length();
    }
    return false;
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

  /** 执行/运行/使用 followed by a Latin command. */
  private static void commands(ObjectScan objects) {
    String s = objects.text();
    int from = objects.from();
    int to = objects.to();
    for (String run : ZH_RUN) {
      for (int i = s.indexOf(run, from); i >= 0 && i < to; i = s.indexOf(run, i + 1)) {
        int a = i + run.length();
        while (a < to && Character.isWhitespace(s.charAt(a))) {
          a++;
        }
        int b = a;
        while (b < to && !Scripts.isHan(s.charAt(b)) && "，。；：！？、".indexOf(s.charAt(b)) < 0) {
          b++;
        }
        String cmd = s.substring(a, b).strip().toLowerCase(Locale.ROOT);
        if (cmd.isEmpty() || !objects.free(a, b)) {
          continue;
        }
        String[] words = cmd.split("\\s+");
        boolean program =
            RuleObjects.PROGRAMS.contains(words[0])
                || (words.length > 1 && words[1].startsWith("-"));
        if (program) {
          objects.addCommand(String.join(" ", words), a, b);
        }
      }
    }
  }

  /** 给张三发邮件, 发给李四, 联系王五. */
  private static void names(ObjectScan objects) {
    String s = objects.text();
    int from = objects.from();
    int to = objects.to();
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
        while (b < to && Scripts.isHan(s.charAt(b)) && b - a < 5) {
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
            b >= to || !Scripts.isHan(s.charAt(b)) || startsWithAny(s, b, ZH_NAME_STOPS) != null;
        if (!stopped
            || ZH_NOT_NAMES.contains(name)
            || ChineseToolWords.containsWord(name)
            || "我你他她它".indexOf(name.charAt(0)) >= 0) {
          break;
        }
        objects.addName(name, a, b);
        // A list: 张三和李四, 张三、李四.
        String sep = b < to ? startsWithAny(s, b, List.of("和", "或", "、", "及")) : null;
        if (sep == null) {
          break;
        }
        a = b + sep.length();
      }
    }
  }

  /** 推送到 main, 部署到 staging. */
  private static void targets(ObjectScan objects) {
    String s = objects.text();
    int from = objects.from();
    int to = objects.to();
    for (int i = s.indexOf('到', from); i >= 0 && i < to; i = s.indexOf('到', i + 1)) {
      int a = i + 1;
      while (a < to && Character.isWhitespace(s.charAt(a))) {
        a++;
      }
      int b = a;
      while (b < to
          && (RuleObjects.isAsciiLetterOrDigit(s.charAt(b)) || "._/-".indexOf(s.charAt(b)) >= 0)) {
        b++;
      }
      objects.addTarget(s.substring(a, b).toLowerCase(Locale.ROOT), a, b);
    }
  }
}
