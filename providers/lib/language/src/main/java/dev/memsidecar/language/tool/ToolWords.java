package dev.memsidecar.language.tool;

import java.util.Optional;

/**
 * One language's words for the tool nouns ({@link ToolNouns}): which canonical noun a word points
 * at, and how strongly. {@link ToolAliases} asks every language to read a noun a user or caller
 * wrote ("e-mail", "邮件"); the language's prohibition rules use their own words to find what a
 * prohibition is about. Implementations are immutable and thread-safe.
 */
public interface ToolWords {
  /**
   * The vocabulary entry of one lower-cased word (or, in a language without spaces, one phrase): as
   * a noun when it is both a noun and a verb ("email"), else as a verb; empty when the word is none
   * of this language's vocabulary.
   */
  Optional<ToolNouns.Word> word(String word);
}
