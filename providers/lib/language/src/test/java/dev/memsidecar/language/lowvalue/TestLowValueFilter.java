package dev.memsidecar.language.lowvalue;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.memsidecar.language.TextRules;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class TestLowValueFilter {
  private static final LowValueFilter FILTER = new LowValueFilter(TextRules.standard().languages());

  private static void assertReason(String reason, List<String> contents) {
    for (String content : contents) {
      assertEquals(Optional.of(reason), FILTER.reason(content), content);
    }
  }

  private static void assertKept(List<String> contents) {
    for (String content : contents) {
      assertEquals(Optional.empty(), FILTER.reason(content), content);
    }
  }

  @Test
  void runInstructionsAndEchoesAreDropped() {
    assertReason(
        LowValueFilter.RUN_INSTRUCTION,
        List.of(
            "Reply exactly 'memory stored'.",
            "Respond only with the word OK",
            "Answer with just a number.",
            "Please reply with exactly one word",
            "Do not say anything else.",
            "memory stored",
            "Memory saved.",
            "I will remember that",
            "I'll remember that.",
            "The user asked to remember the deployment command",
            "User asked me to remember the rules check",
            "Noted.",
            "Got it",
            "Understood!",
            "请只回复'已记住'",
            "只输出数字",
            "记住了",
            "已记住",
            "收到",
            "好的，已记住。",
            "Hi! Reply exactly 'ok'."));
  }

  @Test
  void greetingsAreDropped() {
    assertReason(
        LowValueFilter.GREETING,
        List.of(
            "hi",
            "Hello there!",
            "Good morning",
            "Hey Alice",
            "hi there :)",
            "你好",
            "您好！",
            "早上好",
            "Goodbye, see you later"));
  }

  @Test
  void smallTalkIsDropped() {
    assertReason(
        LowValueFilter.SMALL_TALK,
        List.of(
            "thanks!",
            "Thank you so much",
            "How are you?",
            "how are you doing today?",
            "haha",
            "Hahaha!",
            "lol",
            "ok",
            "OK.",
            "Sounds good",
            "Sure, thanks!",
            "谢谢",
            "好的",
            "哈哈哈",
            "没问题",
            "谢谢你！"));
  }

  @Test
  void tinyFragmentsAreDropped() {
    assertReason(
        LowValueFilter.FRAGMENT,
        List.of(
            "Port 8080", "remember this", "Please remember this.", "tea", "", "  ", "部署", "周二"));
  }

  @Test
  void bareQuestionsAreDropped() {
    assertReason(
        LowValueFilter.QUESTION,
        List.of(
            "What is the deploy day?",
            "How do I run the rules check",
            "Can you tell me the staging URL?",
            "Is there a faster way to build the project?",
            "部署日是哪天？",
            "你知道部署命令吗"));
  }

  @Test
  void factsAreKeptEvenWhenWrappedInPleasantries() {
    assertKept(
        List.of(
            "Remember that Alice prefers tea",
            "OK, deploys are on Tuesdays",
            "Deploys are on Tuesdays",
            "Thanks! The staging database is read-only on Fridays.",
            "Hi, I'm a backend engineer working on the billing service",
            "Alice prefers tea",
            "The user prefers dark mode",
            "Could you remember that my birthday is May 3?",
            "Deploys are on Tuesdays. What about hotfixes?",
            "How to deploy: run make deploy from the repo root",
            "Good engineers write tests first",
            "No, the deploy day is Thursday",
            "记住：部署前运行 npm run check:rules",
            "我喜欢喝茶",
            "你好，我叫小明",
            "好的，部署日是周二",
            "用户喜欢深色主题"));
  }

  @Test
  void canonicalTokenSavesAShortText() {
    assertKept(
        List.of(
            "`npm run check:rules`",
            "Thanks! `npm run check:rules`",
            "npm run check:rules",
            "EASYNET_USER_MEMORY_9137",
            "https://staging.example.com",
            "ops@example.com"));
  }
}
