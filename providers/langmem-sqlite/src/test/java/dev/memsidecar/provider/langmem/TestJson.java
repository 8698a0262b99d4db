package dev.memsidecar.provider.langmem;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TestJson {
  private static final List<String> TRICKY =
      List.of(
          "",
          "plain",
          "say \"hi\"",
          "back\\slash \\\\ and \\n literally",
          "line1\nline2\r\n\ttabbed",
          "bell\u0007 nul\u0000 escape\u001b del\u007f",
          "caf\u00e9 na\u00efve \u00fc",
          "\u7528\u6237\u504f\u597d\u4e2d\u6587\u56de\u590d",
          "emoji \ud83d\ude00 and math \ud835\udc00",
          "lone high \ud800 and lone low \udc00",
          "slash / and unicode escape text \\u0041",
          "json-ish {\"a\":[1,2]}",
          "line sep \u2028 para sep \u2029");

  @Test
  void stringListsRoundTripTrickyStrings() {
    String json = Json.encodeStrings(TRICKY);
    assertEquals(TRICKY, Json.decodeStrings(json));
    assertEquals(List.of(), Json.decodeStrings(Json.encodeStrings(List.of())));
  }

  @Test
  void encodedStringsAreStrictJson() {
    String json = Json.encodeStrings(TRICKY);
    for (int i = 0; i < json.length(); i++) {
      char c = json.charAt(i);
      assertTrue(c >= 0x20, "raw control character at " + i);
      if (Character.isSurrogate(c)) {
        assertTrue(
            Character.isHighSurrogate(c)
                ? Character.isLowSurrogate(json.charAt(i + 1))
                : Character.isHighSurrogate(json.charAt(i - 1)),
            "unpaired surrogate at " + i);
      }
    }
    assertEquals(
        "[\"a\\\"b\",\"c\\\\d\",\"e\\nf\",\"\\u0001\"]",
        Json.encodeStrings(List.of("a\"b", "c\\d", "e\nf", "\u0001")));
  }

  @Test
  void mapsRoundTripAndEncodeKeysSorted() {
    Map<String, String> map = new LinkedHashMap<>();
    for (int i = 0; i < TRICKY.size(); i++) {
      map.put(TRICKY.get(i), TRICKY.get(TRICKY.size() - 1 - i));
    }
    assertEquals(map, Json.decodeMap(Json.encodeMap(map)));
    assertEquals("{\"a\":\"1\",\"b\":\"2\"}", Json.encodeMap(Map.of("b", "2", "a", "1")));
    assertEquals(Map.of(), Json.decodeMap("{}"));
  }

  @Test
  void floatArraysRoundTripExactly() {
    float[] values = {
      0f, -0f, 1f, -1f, 0.1f, 1e-38f, Float.MIN_VALUE, Float.MAX_VALUE, -3.4028235e38f, 0.33333334f
    };
    assertArrayEquals(values, Json.decodeFloats(Json.encodeFloats(values)));
    assertArrayEquals(new float[0], Json.decodeFloats("[]"));
    float[] many = new float[300];
    for (int i = 0; i < many.length; i++) {
      many[i] = (float) Math.sin(i) / 7f;
    }
    assertArrayEquals(many, Json.decodeFloats(Json.encodeFloats(many)));
  }

  @Test
  void decodingAcceptsWhitespaceAndStandardEscapes() {
    assertEquals(
        List.of("A\u00e9/\u4e2d", "\ud83d\ude00"),
        Json.decodeStrings(" [ \"\\u0041\\u00E9\\/\u4e2d\" ,\n\t\"\\ud83d\\ude00\" ] "));
    assertEquals(Map.of("k", "v"), Json.decodeMap("{ \"k\" : \"v\" }"));
    assertArrayEquals(new float[] {1.5f, -2e-3f}, Json.decodeFloats("[ 1.5 , -2E-3 ]"));
  }

  @Test
  void nonFiniteFloatsAreRejected() {
    assertThrows(IllegalArgumentException.class, () -> Json.encodeFloats(new float[] {Float.NaN}));
    assertThrows(
        IllegalArgumentException.class,
        () -> Json.encodeFloats(new float[] {Float.POSITIVE_INFINITY}));
    assertThrows(IllegalArgumentException.class, () -> Json.decodeFloats("[1e99]"));
  }

  @Test
  void malformedTextFailsNamingTheOffset() {
    for (String bad :
        List.of(
            "",
            "[",
            "[\"a\"",
            "[\"a\",]",
            "[\"a\" \"b\"]",
            "[\"a\"] x",
            "[\"\\x\"]",
            "[\"\\u12\"]",
            "[\"raw\nnewline\"]",
            "[1]",
            "{\"a\":1}",
            "{\"a\":\"1\",\"a\":\"2\"}",
            "{\"a\"}")) {
      IllegalArgumentException e =
          assertThrows(
              IllegalArgumentException.class,
              () -> {
                if (bad.startsWith("{")) {
                  Json.decodeMap(bad);
                } else {
                  Json.decodeStrings(bad);
                }
              },
              bad);
      assertTrue(e.getMessage().contains("offset"), e.getMessage());
    }
    assertThrows(IllegalArgumentException.class, () -> Json.decodeFloats("[1,,2]"));
    assertThrows(IllegalArgumentException.class, () -> Json.decodeFloats("[\"1\"]"));
    assertThrows(IllegalArgumentException.class, () -> Json.decodeFloats("[1-]"));
  }
}
