package dev.memsidecar.language.zh;

import dev.memsidecar.language.Terms;
import dev.memsidecar.language.extraction.AnyLanguage;
import dev.memsidecar.language.extraction.ExtractionLexicon;
import dev.memsidecar.language.extraction.SharedLexicon;
import dev.memsidecar.language.extraction.WordCount;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Chinese sentence patterns of the rules extractor. Words are not separated by spaces, so
 * content is counted in characters (two to a word), and the Latin-script words of a Chinese
 * sentence are weighed by every language's fillers ({@link AnyLanguage#isFiller}). Stateless and
 * thread-safe.
 */
final class ChineseExtractionLexicon implements ExtractionLexicon {

  private static final Pattern EXPLICIT =
      Pattern.compile(
          "^(?:(?:另外|还有|对了|好的)[，,]?)?(?:请|麻烦|帮我|你要|务必)?(?:你)?(?:记住|记一下|记下|牢记|记着|别忘了|不要忘记|不要忘了|请记得|记得)"
              + "(?:一下)?(?:这个|这件事|这点)?[：:，,]?\\s*(.*)$");

  private static final Pattern CORRECTION =
      Pattern.compile("^(?:不对|不是的|错了|更正|纠正一下|我说错了|说错了|其实|应该是)[，,：:。！!\\s]*(.*)$");

  private static final Pattern PREFERENCE =
      Pattern.compile(
          "我(?:们)?(?:很|最|比较|更|特别|非常|也|真的|一直|超|挺|还是|都)?(?:喜欢|爱吃|爱喝|爱看|爱玩|偏好|更喜欢|讨厌|不喜欢|偏爱|倾向于|习惯用|热爱|钟爱|受不了|不吃|不喝)"
              + "|我(?:最)?喜欢的|我的爱好|我的偏好");

  private static final Pattern IDENTITY =
      Pattern.compile(
          "我叫|我的名字(?:是|叫)|我是(?!说|不是|觉得|在说|想|要|因为|真的|个)|我在.{1,20}(?:工作|上班|上学|读书|实习)"
              + "|我住在|我来自|我今年\\d+岁|我老家|我家在|我的(?:妻子|丈夫|老婆|老公|女朋友|男朋友|儿子|女儿|孩子|爸爸|妈妈|邮箱|电话|生日|工作)");

  private static final Pattern PROCEDURE =
      Pattern.compile(
          "^(?:请)?(?:先.{1,40}(?:再|然后|之后).{1,40}|.{0,20}(?:之前|以前|前)(?:要|需要|必须)?先.{1,40}|(?:每次|部署|发布|提交|上线|合并).{0,20}(?:前|后|时)(?:要|需要|必须|都)?.{1,40}|(?:运行|执行|跑)\\s*.{2,60})$");

  /** Characters of function words, pronouns and fillers: no content. */
  private static final Pattern FILLER =
      Pattern.compile("[的了是在我你他她它们也都很就还吧呢吗啊呀哦嗯这那个有和与及或但而且所以因为如果会要能可以一不没真太好挺超特别非常觉得感觉]");

  /** Words of feelings, verdicts and abstractions: content, but nothing concrete. */
  private static final Pattern GENERIC =
      Pattern.compile(
          "开心|高兴|难过|伤心|感动|厉害|辛苦|加油|努力|支持|鼓励|进步|成功|希望|梦想|意义|感谢|幸福|快乐|美好|重要|有趣|精彩|好玩"
              + "|放松|舒服|温暖|压力|紧张|激动|兴奋|担心|害怕|喜欢|感受|心情|经历|体验|东西|事情|时候|时间|一切|大家|生活|世界"
              + "|坚持|相信|继续|开始|帮助|分享|照片|图片|今天|明天|昨天|现在|最近|有点|一点|一下|累|忙");

  private static final Pattern CLOSING_PARTICLES = Pattern.compile("[哦哈吧啊呀噢。！!]+$");
  private static final Pattern LATIN_WORD = Pattern.compile("\\b[A-Za-z][\\w-]+\\b");
  private static final Pattern HAN = Pattern.compile("\\p{IsHan}");
  private static final Pattern NOT_HAN = Pattern.compile("[^\\p{IsHan}]");

  private static final Pattern TECHNICAL =
      Pattern.compile("部署|仓库|服务|接口|数据库|分支|版本|端口|配置|测试|发布|上线|代码|项目|集群|环境|变量|脚本|命令|模型|缓存|日志|流水线");
  private static final Pattern HEDGE = Pattern.compile("可能|也许|大概|好像|似乎|不确定");
  private static final Pattern SHORT_TERM = Pattern.compile("今天|今晚|现在|此刻|目前|这周|本周|这会儿");
  private static final Pattern DONE = Pattern.compile("了|过");
  private static final Pattern FUTURE_DATE = Pattern.compile("明天|后天|下周|下星期|下个|下月|明年|以后|之后");
  private static final Pattern ABSOLUTE_DATE = Pattern.compile("\\d{1,4}年|\\d{1,2}月\\d{1,2}[日号]");
  private static final Pattern DATE_WORDS = Pattern.compile("[年月日号]|周[一二三四五六日天]|星期");
  private static final Pattern ACKNOWLEDGEMENT =
      Pattern.compile("^(?:好的|收到|记住了|已记住|我记住了|明白|了解|没问题)");

  /** A turn that shows the speaker's own thing with its image: "这是我画的", "给你看看". */
  private static final Pattern PRESENTS =
      Pattern.compile("这是我|这些是我|这就是我|看看这个|看看我|给你看|你看这|我拍的|我画的|我做的|我买的|我写的|我种的");

  /**
   * Chinese's share of the rules read in every language at once. It strips no interjections (its
   * openers, 嗯, 好的, 其实, are dropped from statements only: {@link ChineseStatements}), ends no
   * command at a word (a command's arguments end at the first Han character anyway) and has no
   * courtesy words (an instruction's closing particles are trimmed instead).
   */
  static final SharedLexicon SHARED =
      new SharedLexicon(
          TECHNICAL,
          HEDGE,
          SHORT_TERM,
          DONE,
          SharedLexicon.NEVER,
          FUTURE_DATE,
          ABSOLUTE_DATE,
          DATE_WORDS,
          ACKNOWLEDGEMENT,
          PRESENTS,
          SharedLexicon.NEVER,
          Set.of(),
          "",
          "图片|照片",
          "端口\\s*\\d{2,5}");

  @Override
  public String instruction(String sentence, boolean named) {
    Matcher m = EXPLICIT.matcher(sentence);
    return m.matches() ? m.group(1).strip() : null;
  }

  @Override
  public String trimClosingParticles(String rest) {
    return CLOSING_PARTICLES.matcher(rest).replaceAll("").strip();
  }

  @Override
  public String correctionRest(String sentence) {
    Matcher m = CORRECTION.matcher(sentence);
    if (!m.matches()) {
      return null;
    }
    String rest = m.group(1).strip();
    if (sentence.startsWith("其实") && rest.length() < 4) {
      return null; // "其实..." opens a statement as often as a correction
    }
    return rest.replaceAll("^[,，:：\\s]+", "");
  }

  @Override
  public String completeCorrection(String rest, String context) {
    if (rest.startsWith("是") && context.contains("是")) {
      String subject = context.substring(0, context.indexOf('是'));
      subject = subject.replaceAll("^.*[，,：:]", "").strip();
      if (!subject.isEmpty() && subject.length() <= 20) {
        return subject + rest;
      }
    }
    return rest;
  }

  @Override
  public boolean isPreference(String sentence) {
    return PREFERENCE.matcher(sentence).find();
  }

  @Override
  public boolean isIdentity(String sentence) {
    return IDENTITY.matcher(sentence).find();
  }

  @Override
  public boolean isFirstPerson(String sentence) {
    return sentence.contains("我") || sentence.contains("咱们");
  }

  @Override
  public boolean isFirstPersonSingular(String sentence) {
    return sentence.replace("我们", "").contains("我");
  }

  @Override
  public boolean isProcedure(String sentence) {
    return !sentence.contains("我")
        && !sentence.contains("你")
        && PROCEDURE.matcher(sentence).matches();
  }

  @Override
  public WordCount countWords(String sentence, Set<String> names) {
    String han = NOT_HAN.matcher(sentence).replaceAll("");
    int content = (FILLER.matcher(han).replaceAll("").length() + 1) / 2;
    // Words (two characters each, as for content) that are neither filler nor feelings: "吉他",
    // "香菜", "爬山" name things.
    int concrete =
        (FILLER.matcher(GENERIC.matcher(han).replaceAll("")).replaceAll("").length() + 1) / 2;
    for (String w : Terms.keywords(HAN.matcher(sentence).replaceAll(" "))) {
      if (!AnyLanguage.isFiller(w) && w.length() > 1) {
        content++;
        concrete++;
      }
    }
    return new WordCount(content, concrete);
  }

  /** The Latin-script words of a Chinese sentence, at most two: "npm", "Python". */
  @Override
  public int countProperNames(String sentence, Set<String> names) {
    int proper = 0;
    Matcher latin = LATIN_WORD.matcher(sentence);
    while (latin.find() && proper < 2) {
      proper++;
    }
    return proper;
  }

  @Override
  public boolean isFiller(String word) {
    return FILLER.matcher(word).matches();
  }
}
