package dev.memsidecar.language.zh;

import dev.memsidecar.language.extraction.Punctuation;
import dev.memsidecar.language.extraction.Questions;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a Chinese sentence ending in a question (a question mark, or 吗/么/是不是/要不要/好不好) states: a tag
 * question ("向日葵代表温暖和快乐，对吧？") states what it asks to confirm; the clauses before a clause that asks
 * ("我上周去了巴黎，你去过吗？") state themselves, unless they ask too or open with 如果. A sentence that asks as
 * a whole ("你去过巴黎吗？", "什么时候...？") states nothing. Stateless and thread-safe.
 */
final class ChineseQuestions implements Questions {

  private static final Pattern TAG =
      Pattern.compile(
          "[，,]?\\s*(?:对吧|对不对|对吗|是吧|是不是|是吗|不是吗|没错吧|你说是吧|你说对吧|你知道吗|知道吗|你说呢|你觉得呢|好吗|行吗)"
              + "[？?！!。]*$|(?<=[\\p{IsHan}])吧[？?]+[？?！!。]*$");

  private static final Pattern ASKS =
      Pattern.compile(
          "^(?:那|所以|还有|另外|对了)?(?:你|您|有没有|是不是|要不要|能不能|会不会|怎么|怎样|什么|为什么|为啥|哪|谁|几|多少|多久|难道)"
              + "|(?:吗|呢|么|没有|是不是|要不要|好不好|有没有|对不对)[？?！!。]*$"
              + "|(?:什么|怎么|哪里|哪儿|哪个|谁|多少|为什么|为啥)");

  @Override
  public String stated(String s) {
    String body = s.strip();
    boolean question = Punctuation.isQuestion(body) || body.matches(".*(?:吗|么|是不是|要不要|好不好)[。！!]*$");
    if (!question) {
      return s;
    }
    Matcher tag = TAG.matcher(body);
    if (tag.find() && tag.start() > 0) {
      String rest = body.substring(0, tag.start()).replaceAll("[，,\\s]+$", "");
      return rest.isEmpty() || ASKS.matcher(rest).find() ? null : rest + "。";
    }
    // "我上周去了巴黎，你去过吗？": the clauses before the one that asks.
    String[] clauses = body.split("[，,；;]");
    String last = clauses[clauses.length - 1];
    if (clauses.length < 2 || !ASKS.matcher(last).find()) {
      return null;
    }
    String prefix = body.substring(0, body.lastIndexOf(last)).replaceAll("[，,；;\\s]+$", "");
    if (prefix.isEmpty() || ASKS.matcher(prefix).find() || prefix.startsWith("如果")) {
      return null;
    }
    return prefix + "。";
  }
}
