package dev.memsidecar.language.en;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class TestEnglishProhibitions {
  @Test
  void anIngFormGivesTheKnownVerbWithItsStem() {
    assertEquals("email", EnglishProhibitions.baseForm("emailing"));
    assertEquals("use", EnglishProhibitions.baseForm("using"));
    assertEquals("run", EnglishProhibitions.baseForm("running"));
    assertEquals("delete", EnglishProhibitions.baseForm("deleting"));
    assertEquals("push", EnglishProhibitions.baseForm("pushing"));
    assertEquals("pay", EnglishProhibitions.baseForm("paying"));
    assertEquals("dial", EnglishProhibitions.baseForm("dialling"));
    assertEquals("add", EnglishProhibitions.baseForm("adding"));
    assertEquals("dm", EnglishProhibitions.baseForm("dming"));
    assertEquals("e-mail", EnglishProhibitions.baseForm("e-mailing"));
  }

  @Test
  void anUnknownVerbLosesItsIngAndOtherWordsStay() {
    assertEquals("frobb", EnglishProhibitions.baseForm("frobbing"));
    assertEquals("emails", EnglishProhibitions.baseForm("emails"));
    assertEquals("sing", EnglishProhibitions.baseForm("sing"));
  }
}
