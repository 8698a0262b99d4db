package dev.memsidecar.language.tool;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
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

  /**
   * The words of the vocabulary in a text, in order: by default its words of letters, digits and
   * hyphens, lower-cased, each looked up with {@link #word}; a language written without spaces
   * finds its phrases itself.
   */
  default List<ToolNouns.Word> wordsIn(String text) {
    List<ToolNouns.Word> out = new ArrayList<>();
    StringBuilder w = new StringBuilder();
    for (int i = 0; i <= text.length(); i++) {
      char c = i < text.length() ? text.charAt(i) : ' ';
      if (Character.isLetterOrDigit(c) || (c == '-' && !w.isEmpty())) {
        w.append(c);
      } else if (!w.isEmpty()) {
        word(w.toString().toLowerCase(Locale.ROOT)).ifPresent(out::add);
        w.setLength(0);
      }
    }
    return out;
  }
}
