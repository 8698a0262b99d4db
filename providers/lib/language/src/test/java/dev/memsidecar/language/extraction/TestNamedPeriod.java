package dev.memsidecar.language.extraction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.LocalDate;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class TestNamedPeriod {
  private static final NamedPeriod OCTOBER_13 =
      new NamedPeriod(LocalDate.of(2023, 10, 13), LocalDate.of(2023, 10, 14));
  private static final NamedPeriod JULY =
      new NamedPeriod(LocalDate.of(2023, 7, 1), LocalDate.of(2023, 8, 1));

  @Test
  void aDayInAnyFormTheReferenceTimeReads() {
    for (String q :
        new String[] {
          "What painting did Melanie show on October 13, 2023?",
          "What did she paint on 13 October 2023?",
          "notes of 2023-10-13",
          "2023年10月13日我们说了什么？",
          "what was said on Oct. 13th, 2023"
        }) {
      assertEquals(Optional.of(OCTOBER_13), NamedPeriod.in(q), q);
    }
  }

  @Test
  void aMonthAndItsYear() {
    for (String q :
        new String[] {
          "What did Mel and her kids paint in July 2023?",
          "in july, 2023",
          "the release of 2023-07",
          "2023年7月的计划",
          "what happened in Jul 2023"
        }) {
      assertEquals(Optional.of(JULY), NamedPeriod.in(q), q);
    }
    assertEquals(
        new NamedPeriod(LocalDate.of(2022, 12, 1), LocalDate.of(2023, 1, 1)),
        NamedPeriod.in("in December 2022").orElseThrow());
  }

  @Test
  void noPeriodInAYearAloneARelativePhraseOrNoDateAtAll() {
    for (String q :
        new String[] {
          "How many times has Melanie gone to the beach in 2023?",
          "What did we decide last week?",
          "Would Melanie enjoy Vivaldi?",
          "the meeting at 10:30",
          "version 2023-13 of the plan",
          "",
        }) {
      assertEquals(Optional.empty(), NamedPeriod.in(q), q);
    }
    assertEquals(Optional.empty(), NamedPeriod.in(null));
  }

  @Test
  void aPeriodIsNeverEmpty() {
    assertThrows(
        IllegalArgumentException.class,
        () -> new NamedPeriod(LocalDate.of(2023, 7, 1), LocalDate.of(2023, 7, 1)));
  }
}
