package dev.memsidecar.language.lowvalue;

import static java.util.Objects.requireNonNull;

import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What is not worth a memory in one language ({@link LowValueFilter}): its greetings, small talk
 * and acknowledgements, laughter, the ways it tells a model how to answer or echoes the memory
 * machinery, how its questions start and end, and its words that weigh nothing. Patterns are
 * matched against a lower-cased clause. Implementations are immutable and thread-safe.
 */
public interface LowValueRules {
  /**
   * A phrase stripped from the start of a clause.
   *
   * @param text the phrase, lower-case ("good morning", 你好)
   * @param reason the reason it gives when nothing else is left: {@link LowValueFilter#GREETING},
   *     {@link LowValueFilter#SMALL_TALK} or {@link LowValueFilter#RUN_INSTRUCTION}
   * @param beforeName whether it is stripped also before a name ("Hi Alice"), not only before
   *     punctuation or the end
   */
  record Phrase(String text, String reason, boolean beforeName) {
    public Phrase {
      requireNonNull(text, "text is null");
      requireNonNull(reason, "reason is null");
    }
  }

  /** A pattern that matches nothing, for a language without one of the patterns below. */
  Pattern NOTHING = Pattern.compile("(?!)");

  /**
   * Rules given as values, one per method of this interface: what a language that needs no code of
   * its own hands out.
   */
  record Table(
      List<Phrase> phrases,
      Pattern laughter,
      Pattern instruction,
      Pattern echo,
      Pattern questionStart,
      Pattern rememberAsk,
      String questionEndings,
      Set<String> weightless,
      String particles)
      implements LowValueRules {
    public Table {
      phrases = List.copyOf(phrases);
      requireNonNull(laughter, "laughter is null");
      requireNonNull(instruction, "instruction is null");
      requireNonNull(echo, "echo is null");
      requireNonNull(questionStart, "questionStart is null");
      requireNonNull(rememberAsk, "rememberAsk is null");
      requireNonNull(questionEndings, "questionEndings is null");
      weightless = Set.copyOf(weightless);
      requireNonNull(particles, "particles is null");
    }
  }

  /**
   * The phrases of a {@code |}-separated list ("hi|hello|good morning"), each giving {@code
   * reason}.
   */
  static List<Phrase> phrases(String reason, boolean beforeName, String list) {
    return Arrays.stream(list.split("\\|")).map(p -> new Phrase(p, reason, beforeName)).toList();
  }

  /** Greetings, small talk and acknowledgements. */
  List<Phrase> phrases();

  /** Laughter at the start of a clause ("haha", "lol", 哈哈), anchored with {@code ^}. */
  Pattern laughter();

  /** A clause that tells the model how to answer ("reply exactly ...", 只回复). */
  Pattern instruction();

  /** A clause that echoes the memory machinery ("memory stored", "I'll remember", 已记住). */
  Pattern echo();

  /** The start of an unpunctuated question ("what is", "can you", 为什么). */
  Pattern questionStart();

  /** A request to remember, which makes a question worth keeping ("remember", 记住). */
  Pattern rememberAsk();

  /** Final characters that make an unpunctuated clause a question (吗, 呢, 么), as one string. */
  String questionEndings();

  /** Words that weigh nothing in the count of meaningful words ("please", "remember"). */
  Set<String> weightless();

  /** Characters of a script without spaces that weigh nothing (的, 了, 吗), as one string. */
  String particles();
}
