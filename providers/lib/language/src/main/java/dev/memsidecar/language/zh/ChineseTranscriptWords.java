package dev.memsidecar.language.zh;

import dev.memsidecar.language.extraction.TranscriptWords;
import dev.memsidecar.language.extraction.WordSets;
import java.util.Set;

/**
 * How a Chinese transcript labels its speakers: a name of up to four Han characters ({@code 小明：}),
 * a role ({@code 用户：}, {@code 助手：}); a header {@code [日期：...]}. Stateless and thread-safe.
 */
final class ChineseTranscriptWords implements TranscriptWords {
  private static final Set<String> USER_LABELS = Set.of("用户", "我", "客户");
  private static final Set<String> AGENT_LABELS = Set.of("助手", "系统", "机器人", "智能体");

  /** Words that head a line of text, not a turn: "注意：", "错误：", "步骤：". */
  private static final Set<String> NOT_SPEAKERS =
      WordSets.of(
          """
          注意 注 提示 错误 警告 示例 例如 步骤 输出 输入 命令 结果 原因 总结 问题 答案 更正 记住 备注 说明 版本 地址 邮箱 电话 时间 日期 目标 计划 状态 描述
          名字 姓名 比如 另外 其实 但是 不过 所以 然后 首先 最后 补充
          """);

  @Override
  public String headerLabels() {
    return "日期|时间";
  }

  @Override
  public String speakerLabel() {
    return "[\\p{IsHan}]{1,4}";
  }

  @Override
  public Set<String> userLabels() {
    return USER_LABELS;
  }

  @Override
  public Set<String> agentLabels() {
    return AGENT_LABELS;
  }

  @Override
  public Set<String> notSpeakerLabels() {
    return NOT_SPEAKERS;
  }

  @Override
  public boolean speaksOfSelf(String text) {
    return text.contains("我");
  }

  @Override
  public String userName() {
    return "用户";
  }

  @Override
  public String agentName() {
    return "助手";
  }
}
