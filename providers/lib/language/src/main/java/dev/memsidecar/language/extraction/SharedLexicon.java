package dev.memsidecar.language.extraction;

import static java.util.Objects.requireNonNull;

import java.util.Set;
import java.util.regex.Pattern;

/**
 * One language's share of the rules the extractor reads in every language at once, since words of
 * one language show up in text of another ("deploy" in a Chinese sentence, a Chinese date in an
 * English one): {@link AnyLanguage}, {@link Instructions}, {@link Attachments}, {@link
 * WorkspaceTokens} and {@link CommandLines} join the shares of every language. A language without a
 * share of a rule gives {@link #NEVER}, an empty set or an empty string. Immutable.
 *
 * @param technical words of a workspace (repo, deploy, 部署), found anywhere
 * @param hedges what makes a statement uncertain ("maybe", "I think", "可能")
 * @param now what binds a statement to the present moment ("today", "right now", "目前")
 * @param done what tells of something done ("went", "finished", "了"), looked for once {@code
 *     states} are removed
 * @param states what looks done but tells a state ("I'm swamped", "so tired"), removed first
 * @param futureDates future dates ("tomorrow", "next week", "明天")
 * @param absoluteDates absolute dates ("8 May", "in 2022", "5月8日")
 * @param dateWords words of dates (month and weekday names, years, 年/月/日), counted
 * @param acknowledgements what opens an acknowledgement ("Noted", "Memory stored", "好的")
 * @param presentsOwn what presents a shared image as the speaker's own ("Here's my painting",
 *     "这是我画的")
 * @param leadingChatter interjections and forms of address that open a sentence ("Oh wow, ", "Hey
 *     Mel! "), stripped from its start
 * @param proseWords words (lower case) of prose that end a command's arguments ("before", "the")
 * @param courtesyWords what may end an instruction to remember ("please", "for later"), as a
 *     regular expression alternation
 * @param attachmentNouns the nouns that open an attachment marker ({@code [image: ...]}, {@code
 *     [图片：...]}), as a regular expression alternation
 * @param portPhrase a port number as the language writes it ({@code port 8080}, {@code 端口 8080}),
 *     as a regular expression
 */
public record SharedLexicon(
    Pattern technical,
    Pattern hedges,
    Pattern now,
    Pattern done,
    Pattern states,
    Pattern futureDates,
    Pattern absoluteDates,
    Pattern dateWords,
    Pattern acknowledgements,
    Pattern presentsOwn,
    Pattern leadingChatter,
    Set<String> proseWords,
    String courtesyWords,
    String attachmentNouns,
    String portPhrase) {

  /** A pattern that matches nothing: the share of a language that has none. */
  public static final Pattern NEVER = Pattern.compile("(?!)");

  /** Checks the arguments and copies the set. */
  public SharedLexicon {
    requireNonNull(technical, "technical is null");
    requireNonNull(hedges, "hedges is null");
    requireNonNull(now, "now is null");
    requireNonNull(done, "done is null");
    requireNonNull(states, "states is null");
    requireNonNull(futureDates, "futureDates is null");
    requireNonNull(absoluteDates, "absoluteDates is null");
    requireNonNull(dateWords, "dateWords is null");
    requireNonNull(acknowledgements, "acknowledgements is null");
    requireNonNull(presentsOwn, "presentsOwn is null");
    requireNonNull(leadingChatter, "leadingChatter is null");
    proseWords = Set.copyOf(proseWords);
    requireNonNull(courtesyWords, "courtesyWords is null");
    requireNonNull(attachmentNouns, "attachmentNouns is null");
    requireNonNull(portPhrase, "portPhrase is null");
  }
}
