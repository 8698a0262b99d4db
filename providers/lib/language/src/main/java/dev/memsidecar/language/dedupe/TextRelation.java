package dev.memsidecar.language.dedupe;

import static java.util.Objects.requireNonNull;

/**
 * How a candidate's text relates to a stored text, and why.
 *
 * @param relation duplicate or supersedes
 * @param reason why, in words, for the audit: {@code same content}, {@code same canonical token npm
 *     run x}, {@code 0.82 word overlap}, {@code new value Thursday for: deploy day}, {@code
 *     contradicts: ...}
 */
public record TextRelation(Relation relation, String reason) {
  public TextRelation {
    requireNonNull(relation, "relation is null");
    requireNonNull(reason, "reason is null");
  }
}
