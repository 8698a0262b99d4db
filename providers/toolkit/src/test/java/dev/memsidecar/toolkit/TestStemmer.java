package dev.memsidecar.toolkit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class TestStemmer {
  @Test
  void pluralsAndVerbFormsShareAStem() {
    assertEquals("hike", Stemmer.stem("hikes"));
    assertEquals("hike", Stemmer.stem("hiked"));
    assertEquals("hike", Stemmer.stem("hiking"));
    assertEquals("paint", Stemmer.stem("painted"));
    assertEquals("paint", Stemmer.stem("painting"));
    assertEquals("paint", Stemmer.stem("paints"));
    assertEquals("stori", Stemmer.stem("stories"));
    assertEquals("stori", Stemmer.stem("story"));
    assertEquals("run", Stemmer.stem("running"));
  }

  @Test
  void leavesShortWordsDigitsAndOtherScriptsAlone() {
    assertEquals("is", Stemmer.stem("is"));
    assertEquals("sing", Stemmer.stem("sing"));
    assertEquals("2023s", Stemmer.stem("2023s"));
    assertEquals("记忆", Stemmer.stem("记忆"));
    assertEquals("glass", Stemmer.stem("glass"));
  }
}
