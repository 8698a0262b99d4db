package dev.memsidecar.language.extraction;

import static java.util.Objects.requireNonNull;

import java.time.LocalDate;

/**
 * Who says a sentence, to whom, and when.
 *
 * @param speaker the name written instead of "I" ("Caroline", "the user")
 * @param addressee who "you" is, or null when unknown
 * @param named whether the speaker is a named person of a conversation; otherwise the user of an
 *     agent run, whose "we" is the team and whose statements are about them only in the singular
 * @param day the session date, on which relative dates are read
 */
public record Utterance(String speaker, String addressee, boolean named, LocalDate day) {
  /** Checks the arguments. */
  public Utterance {
    requireNonNull(speaker, "speaker is null");
    requireNonNull(day, "day is null");
  }
}
