package dev.memsidecar.language.extraction;

import java.util.Set;

/**
 * How a transcript in one language labels its speakers ({@code Caroline: ...}, {@code User: ...},
 * {@code 用户：...}) and its session date ({@code [session date: ...]}, {@code [日期：...]}), and what
 * the extractor calls an unnamed user or agent. The extractor's turn parsing reads the labels of
 * every language at once; the names are asked of the language of the turn. Implementations are
 * stateless and thread-safe.
 */
public interface TranscriptWords {
  /**
   * The words of a session header's label ({@code session date}, {@code 日期}), as a regular
   * expression alternation (matched ignoring case); empty when none.
   */
  String headerLabels();

  /**
   * What a speaker's label looks like in this language (a capitalised name of up to three words, up
   * to four Han characters, a role written in lower case), as a regular expression; empty when
   * none.
   */
  String speakerLabel();

  /** Labels (lower case) of the user of an agent run: "user", "用户". */
  Set<String> userLabels();

  /** Labels (lower case) of the agent: "assistant", "助手". */
  Set<String> agentLabels();

  /**
   * Words (lower case) that look like a speaker's label but head a line of text ("Note:", "Error:",
   * "注意："); a label whose first word is one of them is no speaker either.
   */
  Set<String> notSpeakerLabels();

  /** Whether {@code text} speaks in the first person: a lone "Caroline: I went ..." is a turn. */
  boolean speaksOfSelf(String text);

  /** The name written for an unnamed user: "the user", "用户". */
  String userName();

  /** The name written for an unnamed agent: "the agent", "助手". */
  String agentName();
}
