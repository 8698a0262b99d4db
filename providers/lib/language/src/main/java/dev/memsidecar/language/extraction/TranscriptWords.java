package dev.memsidecar.language.extraction;

import static java.util.Objects.requireNonNull;

import java.util.Set;
import java.util.regex.Pattern;

/**
 * How a transcript in one language labels its speakers ({@code Caroline: ...}, {@code User: ...},
 * {@code 用户：...}) and its session date ({@code [session date: ...]}, {@code [日期：...]}), and what
 * the extractor calls an unnamed user or agent. The extractor's turn parsing reads the labels of
 * every language at once; the names are asked of the language of the turn. Immutable.
 *
 * @param headerLabels the words of a session header's label ({@code session date}, {@code 日期}), as
 *     a regular expression alternation matched ignoring case; empty when none
 * @param speakerLabel what a speaker's label looks like (a capitalised name of up to three words,
 *     up to four Han characters, a role written in lower case), as a regular expression; empty when
 *     none
 * @param userLabels labels (lower case) of the user of an agent run: "user", "用户"
 * @param agentLabels labels (lower case) of the agent: "assistant", "助手"
 * @param notSpeakerLabels words (lower case) that look like a speaker's label but head a line of
 *     text ("Note:", "Error:", "注意："); a label whose first word is one of them is no speaker
 * @param firstPerson the first person, found in a line that speaks of its speaker: a lone
 *     "Caroline: I went ..." line is a turn
 * @param userName the name written for an unnamed user: "the user", "用户"
 * @param agentName the name written for an unnamed agent: "the agent", "助手"
 */
public record TranscriptWords(
    String headerLabels,
    String speakerLabel,
    Set<String> userLabels,
    Set<String> agentLabels,
    Set<String> notSpeakerLabels,
    Pattern firstPerson,
    String userName,
    String agentName) {
  /** Checks the arguments and copies the sets. */
  public TranscriptWords {
    requireNonNull(headerLabels, "headerLabels is null");
    requireNonNull(speakerLabel, "speakerLabel is null");
    userLabels = Set.copyOf(userLabels);
    agentLabels = Set.copyOf(agentLabels);
    notSpeakerLabels = Set.copyOf(notSpeakerLabels);
    requireNonNull(firstPerson, "firstPerson is null");
    requireNonNull(userName, "userName is null");
    requireNonNull(agentName, "agentName is null");
  }

  /** Whether {@code text} speaks in the first person. */
  public boolean speaksOfSelf(String text) {
    return firstPerson.matcher(text).find();
  }
}
