package dev.memsidecar.api;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * Something an {@link Extractor} found worth remembering in a run, before the engine's low-value
 * filter, write gate and dedupe decide its fate.
 *
 * @param content the memory as the agent should read it later: one self-contained statement that
 *     names who it is about (not "I" or "he") and, for events, when (an absolute date, not
 *     "yesterday")
 * @param kind semantic (facts, preferences), episodic (events) or procedural (how-to)
 * @param owner whose memory it is, which decides the profile it lands in
 * @param profile the profile it should land in, or empty to let the engine route it by {@code
 *     owner} (an extractor that saw the profiles' prompts may name one)
 * @param scores the six gate dimensions, each 0..10, with the extractor's reasons in {@code reason}
 * @param explicit the user asked for it to be remembered ("remember ..."): the gate floors it at 8
 * @param validity long-term, or short-term (the engine gives it an expire time)
 * @param tags labels, e.g. {@code preference}; may be empty
 * @param evidence the run text it came from (indexed with it as context, never shown as content)
 * @param reason why the extractor proposes it, in words, for the audit
 */
public record MemoryCandidate(
    String content,
    MemoryKind kind,
    Owner owner,
    String profile,
    GateScores scores,
    boolean explicit,
    Validity validity,
    List<String> tags,
    String evidence,
    String reason) {

  /** Whose memory a candidate is. */
  public enum Owner {
    /** About the user: preferences, identity, their life and plans. */
    USER,
    /** About the agent itself: how it should behave. */
    AGENT,
    /** Only for this session. */
    SESSION,
    /** Shared by the workspace: project facts, procedures, commands. */
    WORKSPACE
  }

  public MemoryCandidate {
    requireNonNull(content, "content is null");
    requireNonNull(kind, "kind is null");
    requireNonNull(owner, "owner is null");
    profile = profile == null ? "" : profile;
    scores = scores == null ? GateScores.NONE : scores;
    validity = validity == null ? Validity.LONG_TERM : validity;
    tags = tags == null ? List.of() : List.copyOf(tags);
    evidence = evidence == null ? "" : evidence;
    reason = reason == null ? "" : reason;
  }
}
