package dev.memsidecar.language.zh;

import dev.memsidecar.language.lowvalue.LowValueFilter;
import dev.memsidecar.language.lowvalue.LowValueRules;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * What is not worth a memory in Chinese: greetings (你好, 早上好), small talk (谢谢, 好的, 哈哈, 没问题),
 * acknowledgements (收到, 明白了, 知道了), instructions to the model (请只回复 ..., 只输出 ..., 直接回复 ...), echoes
 * (已记住, 记住了, 我会记住, 已保存, 要求记住), questions (为什么 ..., ... 吗); particles (的了吗呢) weigh nothing.
 * Immutable and thread-safe.
 */
final class ChineseLowValue {
  private static final Pattern LAUGHTER = Pattern.compile("^(?:哈{2,}|呵{2,}|嘿{2,})");

  private static final Pattern INSTRUCTION =
      Pattern.compile("^(?:请)?(?:只|仅|直接|只需|只要|务必只)(?:回复|回答|输出|返回|说)|不要(?:说|回复|输出)(?:任何)?其他");

  private static final Pattern ECHO =
      Pattern.compile("已记住|记住了|我会记住|已保存|已存储|已记录|已存入|记忆已|要求记住|让我记住|请求记住|要我记住");

  private static final Pattern QUESTION_START = Pattern.compile("^(?:为什么|怎么|如何)");

  private static final Pattern REMEMBER_ASK = Pattern.compile("记住|记一下");

  /** The rules: phrases, patterns and weightless words. */
  static final LowValueRules RULES =
      new LowValueRules.Table(
          Stream.of(
                  LowValueRules.phrases(
                      LowValueFilter.GREETING,
                      true,
                      "你好|您好|大家好|嗨|哈喽|哈啰|早上好|早安|中午好|下午好|晚上好|晚安|再见|拜拜"),
                  LowValueRules.phrases(
                      LowValueFilter.SMALL_TALK,
                      false,
                      "谢谢|多谢|感谢|谢了|谢谢你|好的|好|好吧|嗯|嗯嗯|哦|噢|哇|行|可以|没问题|不客气|你好吗|最近怎么样|最近好吗|太好了|不错"
                          + "|棒"),
                  LowValueRules.phrases(
                      LowValueFilter.RUN_INSTRUCTION, false, "收到|明白|明白了|了解|知道了|记住了|已记住|好的收到"))
              .flatMap(List::stream)
              .toList(),
          LAUGHTER,
          INSTRUCTION,
          ECHO,
          QUESTION_START,
          REMEMBER_ASK,
          "吗呢么",
          Set.of(),
          "的了吗呢吧啊呀哦嗯么");

  private ChineseLowValue() {}
}
