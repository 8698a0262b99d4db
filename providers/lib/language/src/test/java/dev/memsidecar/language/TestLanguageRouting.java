package dev.memsidecar.language;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.language.extraction.AnyLanguage;
import dev.memsidecar.language.extraction.DatePhrases;
import dev.memsidecar.language.extraction.ExtractionRules;
import java.time.LocalDate;
import java.util.List;
import org.junit.jupiter.api.Test;

class TestLanguageRouting {

  /**
   * The parts of a language's extraction rules that read and write sentences come from that
   * language's own package; its words name an unnamed user in that language.
   */
  private static void assertClassSet(String tag, String user, ExtractionRules rules) {
    String pkg = "dev.memsidecar.language." + tag;
    for (Object part :
        List.of(rules.lexicon(), rules.voice(), rules.questions(), rules.statements())) {
      assertEquals(pkg, part.getClass().getPackageName(), part.getClass().getName());
    }
    assertEquals(user, rules.transcript().userName());
  }

  @Test
  void chineseTextIsReadByTheChineseClassSet() {
    Language language = Languages.of("我上周去了巴黎，你去过吗？");
    assertEquals("zh", language.tag());
    assertClassSet("zh", "用户", language.extraction());
    assertEquals(
        "用户喜欢香菜。",
        language
            .extraction()
            .voice()
            .terminate(language.extraction().voice().thirdPerson("我喜欢香菜", "用户", null, null)));
  }

  @Test
  void otherTextIsReadByTheEnglishClassSet() {
    Language language = Languages.of("Caroline: I went to a support group yesterday.");
    assertEquals("en", language.tag());
    assertClassSet("en", "the user", language.extraction());
    assertEquals(
        "The user likes tea.",
        language
            .extraction()
            .voice()
            .terminate(
                language.extraction().voice().thirdPerson("I like tea", "the user", null, null)));
  }

  @Test
  void mixedTextIsReadInEveryLanguageAtOnce() {
    // An English workspace word in a Chinese sentence, a Chinese date in an English one.
    assertTrue(AnyLanguage.isTechnical("我们昨天把服务 deploy 了"));
    assertTrue(AnyLanguage.isTechnical("We moved the repo"));
    LocalDate day = LocalDate.of(2023, 5, 8);
    assertEquals("我昨天（2023年5月7日）到了", DatePhrases.annotate("我昨天到了", day));
    assertEquals("I came yesterday (7 May 2023)", DatePhrases.annotate("I came yesterday", day));
  }
}
