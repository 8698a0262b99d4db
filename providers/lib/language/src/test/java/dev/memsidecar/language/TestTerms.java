package dev.memsidecar.language;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class TestTerms {
  @Test
  void splitsLowerCasesAndKeepsUnderscoredTokens() {
    assertEquals(
        List.of("run", "npm", "run", "check", "rules", "easynet_user_memory_9137"),
        Terms.of("Run `npm run check:rules` EASYNET_USER_MEMORY_9137"));
  }

  @Test
  void chineseGivesCharactersAndBigrams() {
    assertEquals(List.of("记", "忆", "记忆"), Terms.of("记忆"));
  }

  @Test
  void keywordsDropStopwords() {
    assertEquals(List.of("user", "prefers", "tea"), Terms.keywords("The user prefers tea"));
    assertTrue(Terms.keywords("what is the").isEmpty());
  }
}
