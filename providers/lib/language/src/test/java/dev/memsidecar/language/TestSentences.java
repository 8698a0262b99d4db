package dev.memsidecar.language;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class TestSentences {
  @Test
  void splitsAfterFullStopsOfBothScriptsAndAtLineBreaks() {
    assertEquals(
        List.of("Never email Sarah.", "She left!", "不要删除数据库。", "好的", "Why?"),
        Sentences.split("Never email Sarah. She left! 不要删除数据库。好的\nWhy?"));
  }

  @Test
  void anAddressOrUrlEndingASentenceLeavesItsFullStopToTheSentence() {
    assertEquals(
        List.of("Never email Sarah at sarah@example.com.", "She left the project."),
        Sentences.split("Never email Sarah at sarah@example.com. She left the project."));
    assertEquals(
        List.of("Docs live at https://docs.example.com/a.", "Read them."),
        Sentences.split("Docs live at https://docs.example.com/a. Read them."));
  }

  @Test
  void codeQuotesAbbreviationsAndInitialsAreNotCut() {
    assertEquals(
        List.of("Don't run `rm -rf ./build. now` on the server.", "Ok."),
        Sentences.split("Don't run `rm -rf ./build. now` on the server. Ok."));
    assertEquals(
        List.of("Ask Prof. Smith, e.g. about J. Doe's notes."),
        Sentences.split("Ask Prof. Smith, e.g. about J. Doe's notes."));
  }
}
