package dev.memsidecar.language.extraction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.memsidecar.language.en.English;
import dev.memsidecar.language.zh.Chinese;
import org.junit.jupiter.api.Test;

class TestQuestions {
  private static final Questions ENGLISH = new English().extraction().questions();
  private static final Questions CHINESE = new Chinese().extraction().questions();

  @Test
  void aStatementIsLeftAsItIs() {
    assertEquals("I went to Paris.", ENGLISH.stated("I went to Paris."));
    assertEquals("我去了巴黎。", CHINESE.stated("我去了巴黎。"));
  }

  @Test
  void aTagQuestionStatesWhatItAsksToConfirm() {
    assertEquals(
        "Sunflowers mean warmth and happiness.",
        ENGLISH.stated("Sunflowers mean warmth and happiness, right?"));
    assertEquals(
        "Life does throw us some surprises.",
        ENGLISH.stated("Life does throw us some surprises, doesn't it?"));
    assertEquals("It's all about practice.", ENGLISH.stated("It's all about practice isn't it?"));
    assertEquals("Hard work pays off.", ENGLISH.stated("Hard work pays off, you know?!"));
    assertEquals("向日葵代表温暖和快乐。", CHINESE.stated("向日葵代表温暖和快乐，对吧？"));
    assertEquals("这家店的面很好吃。", CHINESE.stated("这家店的面很好吃，是不是？"));
  }

  @Test
  void theStatementBeforeAQuestionIsKept() {
    assertEquals(
        "Spider-Man has always been a favorite of mine.",
        ENGLISH.stated(
            "Spider-Man has always been a favorite of mine - I mean, who doesn't love him?"));
    assertEquals(
        "I finished another pottery project.",
        ENGLISH.stated("I finished another pottery project - want to see a pic?"));
    assertEquals("我上周去了巴黎。", CHINESE.stated("我上周去了巴黎，你去过吗？"));
  }

  @Test
  void aQuestionThatAsksStatesNothing() {
    for (String q :
        new String[] {
          "What do flowers mean to you?",
          "Did you go to the concert?",
          "Any plans for the weekend?",
          "Seen any good movies lately?",
          "For walking or running?",
          "You went to Paris?",
          "Maybe you could share a pic?",
          "Is that right?"
        }) {
      assertNull(ENGLISH.stated(q), q);
    }
    for (String q : new String[] {"你去过巴黎吗？", "你周末去哪儿了？", "周末去爬山？", "如果下雨，你还去吗？", "什么时候走，对吧？"}) {
      assertNull(CHINESE.stated(q), q);
    }
  }
}
