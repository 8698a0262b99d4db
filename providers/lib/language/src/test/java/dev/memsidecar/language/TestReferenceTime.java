package dev.memsidecar.language;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** When a run's conversation took place: metadata, else a leading timestamp, else now. */
class TestReferenceTime {
  private static final Instant NOW = Instant.parse("2026-11-24T10:00:00Z");
  private static final ZoneId PARIS = ZoneId.of("Europe/Paris");

  private static Instant at(String text, ZoneId zone) {
    return ReferenceTime.parse(text, zone).orElseThrow(() -> new AssertionError(text)).toInstant();
  }

  @Test
  void everyCommonFormOfASessionDateIsRead() {
    Instant afternoon = Instant.parse("2023-05-08T11:56:00Z"); // 13:56 in Paris
    for (String form :
        List.of(
            "1:56 pm on 8 May, 2023",
            "8 May 2023 13:56",
            "8 May 2023, 1:56 PM",
            "Monday, May 8, 2023 1:56 PM",
            "May 8th, 2023 at 1:56pm",
            "2023-05-08 13:56",
            "2023-05-08T13:56",
            "2023-05-08T13:56:00+02:00",
            "2023-05-08T11:56:00Z",
            "Mon, 8 May 2023 11:56:00 GMT",
            "8 May 2023 11:56 UTC",
            "2023年5月8日 下午1点56分",
            "2023年5月8日下午1:56",
            "1683546960")) {
      assertEquals(afternoon, at(form, PARIS), form);
    }
    Instant midnight = Instant.parse("2023-05-07T22:00:00Z"); // the start of 8 May in Paris
    for (String form :
        List.of(
            "2023-05-08",
            "2023/5/8",
            "2023年5月8日",
            "8 May 2023",
            "8th of May, 2023",
            "May 8, 2023",
            "8-May-2023",
            "5/8/2023",
            "8.5.2023",
            "Monday, 8 May 2023")) {
      assertEquals(midnight, at(form, PARIS), form);
    }
    assertEquals(
        LocalDate.of(2023, 8, 13), ReferenceTime.parse("13/08/2023", PARIS).get().toLocalDate());
    assertEquals(Instant.ofEpochMilli(1683546960123L), at("1683546960123", PARIS));
    for (String notADate : List.of("", "yesterday", "13:56", "2023-13-45", "next Friday")) {
      assertTrue(ReferenceTime.parse(notADate, PARIS).isEmpty(), notADate);
    }
  }

  @Test
  void metadataComesFirstThenTheInputsTimestampThenNow() {
    ReferenceTime fromMetadata =
        ReferenceTime.of(
            Map.of("session_date", "1:56 pm on 8 May, 2023"), "[9 May 2023] hi", NOW, PARIS);
    assertEquals(ReferenceTime.Source.METADATA, fromMetadata.source());
    assertEquals(LocalDate.of(2023, 5, 8), fromMetadata.date());
    assertEquals("hi", fromMetadata.input(), "the timestamp is never content");

    ReferenceTime fromInput = ReferenceTime.of(Map.of(), "[9 May 2023] hi", NOW, PARIS);
    assertEquals(ReferenceTime.Source.INPUT, fromInput.source());
    assertEquals(LocalDate.of(2023, 5, 9), fromInput.date());
    assertTrue(fromInput.dated());

    ReferenceTime unparsable =
        ReferenceTime.of(Map.of("session_date", "someday", "date", "2023-05-10"), "hi", NOW, PARIS);
    assertEquals(LocalDate.of(2023, 5, 10), unparsable.date());

    ReferenceTime none = ReferenceTime.of(null, null, NOW, PARIS);
    assertEquals(NOW, none.instant());
    assertEquals("", none.input());
    assertFalse(none.dated());
  }

  @Test
  void aLeadingTimestampIsRemovedFromTheInput() {
    Map<String, String> cases =
        Map.of(
            "[8 May 2023] I went there yesterday.", "I went there yesterday.",
            "[2023-05-08 13:56]\nI went", "I went",
            "[session date: 1:56 pm on 8 May, 2023]\nCaroline: hi\nMelanie: hey",
                "Caroline: hi\nMelanie: hey",
            "  [8 May 2023] - hello", "hello",
            "【日期：2023年5月8日】我昨天去了", "我昨天去了",
            "[会话日期：2023-05-08] 你好", "你好",
            "Session date: 8 May 2023\nCaroline: hi", "Caroline: hi");
    for (Map.Entry<String, String> c : cases.entrySet()) {
      ReferenceTime r = ReferenceTime.of(Map.of(), c.getKey(), NOW, ZoneOffset.UTC);
      assertEquals(LocalDate.of(2023, 5, 8), r.date(), c.getKey());
      assertEquals(c.getValue(), r.input(), c.getKey());
    }
    // Brackets that are not a timestamp alone stay content.
    for (String input :
        List.of(
            "[image: a photo taken on 8 May 2023] nice",
            "[note] hi",
            "[yesterday] I went",
            "I went there on [8 May 2023]")) {
      ReferenceTime r = ReferenceTime.of(Map.of(), input, NOW, ZoneOffset.UTC);
      assertSame(input, r.input(), input);
      assertEquals(NOW, r.instant(), input);
    }
  }

  @Test
  void aTimestampReadFromTheInputIsHandedOnAsTheSessionDate() {
    Map<String, String> metadata = Map.of("user_name", "Caroline");
    ReferenceTime fromInput = ReferenceTime.of(metadata, "[9 May 2023 13:56] hi", NOW, PARIS);
    assertEquals(
        Map.of("user_name", "Caroline", "session_date", "2023-05-09T13:56:00+02:00"),
        fromInput.withSessionDate(metadata));
    ReferenceTime fromMetadata =
        ReferenceTime.of(Map.of("session_date", "2023-05-09"), "hi", NOW, PARIS);
    assertSame(metadata, fromMetadata.withSessionDate(metadata));
  }
}
