package dev.memsidecar.language.en;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class TestEnglishStemmer {
  @Test
  void pluralsAndVerbFormsShareAStem() {
    assertEquals("hike", EnglishStemmer.stem("hikes"));
    assertEquals("hike", EnglishStemmer.stem("hiked"));
    assertEquals("hike", EnglishStemmer.stem("hiking"));
    assertEquals("paint", EnglishStemmer.stem("painted"));
    assertEquals("paint", EnglishStemmer.stem("painting"));
    assertEquals("paint", EnglishStemmer.stem("paints"));
    assertEquals("stori", EnglishStemmer.stem("stories"));
    assertEquals("stori", EnglishStemmer.stem("story"));
    assertEquals("run", EnglishStemmer.stem("running"));
  }

  @Test
  void leavesShortWordsDigitsAndOtherScriptsAlone() {
    assertEquals("is", EnglishStemmer.stem("is"));
    assertEquals("sing", EnglishStemmer.stem("sing"));
    assertEquals("2023s", EnglishStemmer.stem("2023s"));
    assertEquals("记忆", EnglishStemmer.stem("记忆"));
    assertEquals("glass", EnglishStemmer.stem("glass"));
  }

  @Test
  void theLooseStemAlsoFoldsAFinalE() {
    assertEquals("us", EnglishStemmer.looseStem("use"));
    assertEquals("us", EnglishStemmer.looseStem("used"));
    assertEquals("us", EnglishStemmer.looseStem("using"));
    assertEquals("delet", EnglishStemmer.looseStem("deletes"));
    assertEquals("delet", EnglishStemmer.looseStem("deleting"));
    assertEquals("liv", EnglishStemmer.looseStem("lives"));
    assertEquals("paint", EnglishStemmer.looseStem("painted"));
    assertEquals("be", EnglishStemmer.looseStem("be"));
    assertEquals("v2e", EnglishStemmer.looseStem("v2e"));
  }
}
