package dev.memsidecar.language.zh;

import dev.memsidecar.language.extraction.Specifics;
import dev.memsidecar.language.extraction.Statement;
import dev.memsidecar.language.extraction.StatementReader;
import dev.memsidecar.language.extraction.Utterance;
import java.util.regex.Pattern;

/**
 * Reads one Chinese sentence of a person's turn into a statement: its opening interjection or
 * discourse marker (嗯, 哈哈, 嘿, 好的, 对了, 其实) dropped, what a question states kept, small talk
 * (greetings, thanks, short replies: "谢谢你！", "太棒了", also with a name said to the listener: "嘿，小红！",
 * "谢谢你，小红！") dropped, and a sentence kept when it speaks of its speaker or comes from a named
 * person and holds two content words, or else holds a specific and two content words, or six
 * content words. Stateless and thread-safe.
 */
final class ChineseStatements implements StatementReader {
  private static final Pattern OPENER =
      Pattern.compile(
          "^(?:嗯+|哈+|哇+|啊+|哦+|噢+|嘿+|嗨+|喂+|哎+|诶+|哟+|呀+|嘻+|呵+|耶+|好的|好吧|对了|另外|还有|其实)[，,!！。～~]*");

  /** The characters of a name: Han characters that are not function words or pronouns. */
  private static final String NAME = "(?:(?![的了是在我你他她它们也很都就还又和跟吗呢吧啊])\\p{IsHan}){2,3}";

  /** A name said to the listener: "小红，" opening a sentence, "，小红！" ending it. */
  private static final Pattern VOCATIVE = Pattern.compile("^" + NAME + "[，,!！]+");

  private static final Pattern TRAILING_VOCATIVE = Pattern.compile("[，,]" + NAME + "[!！～~]*$");

  /** Greetings, thanks and short replies: a sentence that opens with one and says little more. */
  private static final Pattern SMALL_TALK =
      Pattern.compile(
          "^(?:你好|您好|嗨|嘿|喂|哈喽|哈啰|早上好|早安|中午好|下午好|晚上好|晚安|好久不见|谢谢|多谢|感谢|不客气|没关系|没问题|好的|好吧|好呀|好啊|嗯+|哈+|呵+|是的|对的|对啊|对呀|真的吗|是吗|太棒了|太好了|真棒|真好|不错|厉害|加油|辛苦了|再见|拜拜|回头聊|回头见|下次见|下次聊|改天见|改天聊|晚点聊|待会见|待会儿见|一会儿见|收到|明白|了解|知道了|恭喜|祝你|希望你|听起来|看起来|哇|啊|哦|噢|呃)"
              + ".{0,12}$");

  private final ChineseExtractionLexicon lexicon = new ChineseExtractionLexicon();
  private final ChineseQuestions questions = new ChineseQuestions();
  private final ChineseVoice voice = new ChineseVoice();

  @Override
  public Statement read(String sentence, Utterance utterance, boolean continues) {
    Statement statement = readAsSaid(sentence, utterance);
    if (statement == null) {
      return null;
    }
    // "嘿，小红！", "谢谢你，小红！": a name said to the listener is no content, so a sentence that is
    // small talk without it is small talk. The statement keeps the name.
    String said = OPENER.matcher(sentence).replaceAll("").strip();
    String unaddressed =
        TRAILING_VOCATIVE.matcher(VOCATIVE.matcher(said).replaceFirst("")).replaceFirst("").strip();
    if (unaddressed.length() < said.length()
        && (unaddressed.isEmpty() || readAsSaid(unaddressed, utterance) == null)) {
      return null;
    }
    return statement;
  }

  private Statement readAsSaid(String sentence, Utterance utterance) {
    String s = OPENER.matcher(sentence).replaceAll("").strip();
    s = s.isEmpty() ? null : questions.stated(s);
    if (s == null || SMALL_TALK.matcher(s).matches()) {
      return null;
    }
    boolean named = utterance.named();
    boolean first = lexicon.isAboutSpeaker(s, named);
    Specifics sp = Specifics.of(s, lexicon, utterance.speaker(), utterance.addressee());
    boolean informative =
        first || named
            ? sp.content() >= 2
            : sp.count() >= 1 && sp.content() >= 2 || sp.content() >= 6;
    if (!informative) {
      return null;
    }
    return Statement.of(s, s, sp, utterance, lexicon, voice, first, false);
  }
}
