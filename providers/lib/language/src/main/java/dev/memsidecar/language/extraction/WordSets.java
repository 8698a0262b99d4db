package dev.memsidecar.language.extraction;

import java.util.List;
import java.util.Set;

/** Word lists written as text: one set of the words, whatever the spacing and the repeats. */
public final class WordSets {
  private WordSets() {}

  /** The words of {@code text}, split on white space. */
  public static Set<String> of(String text) {
    String t = text.strip();
    return t.isEmpty() ? Set.of() : Set.copyOf(List.of(t.split("\\s+")));
  }
}
