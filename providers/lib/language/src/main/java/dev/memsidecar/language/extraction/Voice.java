package dev.memsidecar.language.extraction;

import java.time.LocalDate;
import java.util.List;

/**
 * How a memory is written in one language so that it stands alone: in the third person ("I went"
 * becomes "Caroline went"), ended like a sentence, with its notes ("(said on 8 May 2023)").
 * Implementations are stateless and thread-safe.
 */
public interface Voice {
  /**
   * {@code sentence} in the third person: the first person becomes {@code speaker} ("my kids":
   * "Melanie's kids"), the second person {@code addressee} when not null, "we" {@code group} when
   * not null (spoken of in the singular: "the team deploys"), else the speaker and others. Code
   * spans, quotes, URLs and e-mail addresses are never touched ({@link
   * dev.memsidecar.language.ProtectedSpans}).
   */
  String thirdPerson(String sentence, String speaker, String addressee, String group);

  /** Who "we" is for the user of an agent run: "the team". */
  String team();

  /**
   * {@code text} ended like a sentence: trailing exclamation marks and tildes dropped, a full stop
   * added unless it ends in one already (or in a code span); empty stays empty.
   */
  String terminate(String text);

  /** What separates two sentences joined into one memory: a space, or nothing. */
  String sentenceSeparator();

  /** {@code notes} (not empty) in parentheses, to append to a memory: " (a; b)". */
  String notes(List<String> notes);

  /** The note that dates what a person said: "said on 8 May 2023". */
  String saidOn(LocalDate day);

  /** A memory of an image {@code speaker} shared: "Melanie shared a photo of a cup." */
  String sharedImage(String speaker, String caption);
}
