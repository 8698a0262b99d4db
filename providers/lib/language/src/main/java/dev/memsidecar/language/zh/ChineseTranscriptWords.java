package dev.memsidecar.language.zh;

import dev.memsidecar.language.extraction.TranscriptWords;
import dev.memsidecar.language.extraction.WordSets;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * How a Chinese transcript labels its speakers: a name of up to four Han characters ({@code 小明：}),
 * a role ({@code 用户：}, {@code 助手：}); a header {@code [日期：...]}.
 */
final class ChineseTranscriptWords {
  private ChineseTranscriptWords() {}

  /** Words that head a line of text, not a turn: "注意：", "错误：", "步骤：". */
  private static final Set<String> NOT_SPEAKERS =
      WordSets.of(
          """
          注意 注 提示 错误 警告 示例 例如 步骤 输出 输入 命令 结果 原因 总结 问题 答案 更正 记住 备注 说明 版本 地址 邮箱 电话 时间 日期 目标 计划 状态 描述
          名字 姓名 比如 另外 其实 但是 不过 所以 然后 首先 最后 补充
          """);

  static final TranscriptWords WORDS =
      new TranscriptWords(
          "会话日期|会话时间|日期|时间",
          "[\\p{IsHan}]{1,4}",
          Set.of("用户", "我", "客户"),
          Set.of("助手", "系统", "机器人", "智能体"),
          NOT_SPEAKERS,
          Pattern.compile("我"),
          "用户",
          "助手");
}
