package dev.memsidecar.language.zh;

import dev.memsidecar.language.tool.ToolNouns;
import dev.memsidecar.language.tool.ToolNouns.Kind;
import dev.memsidecar.language.tool.ToolNouns.Word;
import dev.memsidecar.language.tool.ToolWords;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * The Chinese words of the tool nouns ({@link ToolNouns}): 发邮件 and 邮件 point at {@code email}, 推送
 * and 仓库 at {@code git}, 删除 (weakly) at {@code delete}. Immutable and thread-safe.
 */
final class ChineseToolWords implements ToolWords {
  /** Every word, longest first (so 发邮件 wins over 邮件 where both start). */
  static final List<Word> WORDS;

  private static final List<Word> BUILDING = new ArrayList<>();

  static {
    // noun, strong verbs, strong nouns, weak words (verbs for delete, nouns elsewhere)
    words("email", "发邮件 发送邮件 发电邮 写邮件 回邮件 转发邮件 抄送", "邮件 电邮 邮箱", "");
    words("message", "发消息 发信息 发短信 发私信 私信 发微信", "消息 短信 微信", "");
    words("shell", "执行命令 运行命令", "命令 终端 脚本 命令行", "");
    words("delete", "", "", "删除 删掉 删 清空 清除 移除");
    words("file", "", "", "文件 目录 文件夹");
    words("deploy", "部署 上线 发布", "", "生产环境 生产 线上");
    words("database", "", "数据库 数据表", "");
    words("browser", "浏览 访问 打开网页 上网", "浏览器 网页 网站 链接 网址", "");
    words("calendar", "约会议 安排会议 发邀请 预约", "日历 会议 日程 邀请", "");
    words("payment", "付款 支付 转账 汇款 打钱 购买 付钱 充值", "钱", "");
    words("git", "推送 强推 提交代码 合并", "代码仓库 仓库 主分支 分支", "");
    words("phone", "打电话 致电", "电话", "");
    BUILDING.sort(Comparator.comparingInt((Word w) -> w.text().length()).reversed());
    WORDS = List.copyOf(BUILDING);
  }

  private static void words(String noun, String strongVerbs, String strongNouns, String weak) {
    for (String w : ToolNouns.words(strongVerbs)) {
      BUILDING.add(new Word(w, noun, Kind.STRONG_VERB));
    }
    for (String w : ToolNouns.words(strongNouns)) {
      BUILDING.add(new Word(w, noun, Kind.STRONG_NOUN));
    }
    Kind weakKind = noun.equals("delete") ? Kind.WEAK_VERB : Kind.WEAK_NOUN;
    for (String w : ToolNouns.words(weak)) {
      BUILDING.add(new Word(w, noun, weakKind));
    }
  }

  @Override
  public Optional<Word> word(String word) {
    for (Word w : WORDS) {
      if (w.text().equals(word)) {
        return Optional.of(w);
      }
    }
    return Optional.empty();
  }

  /** The vocabulary's phrases in {@code text}, longest first where two start at one place. */
  @Override
  public List<Word> wordsIn(String text) {
    List<Word> out = new ArrayList<>();
    for (int i = 0; i < text.length(); ) {
      Word hit = null;
      for (Word w : WORDS) {
        if (text.startsWith(w.text(), i)) {
          hit = w;
          break;
        }
      }
      if (hit == null) {
        i++;
      } else {
        out.add(hit);
        i += hit.text().length();
      }
    }
    return out;
  }

  /** Whether {@code text} holds a word of the vocabulary. */
  static boolean containsWord(String text) {
    for (Word w : WORDS) {
      if (text.contains(w.text())) {
        return true;
      }
    }
    return false;
  }
}
