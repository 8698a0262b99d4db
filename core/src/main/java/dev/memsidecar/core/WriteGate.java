package dev.memsidecar.core;

import dev.memsidecar.api.GateScores;
import dev.memsidecar.api.MemoryException;
import java.util.Locale;

/**
 * Decides whether a candidate is worth storing (PromptX memory trigger): six dimension scores
 * weighted into one score 0..10 with one decimal; stored at or above the threshold (7.0 by
 * default); an explicit "remember this" is floored at 8.0, so it passes the default threshold.
 */
public final class WriteGate {
  /** The score an explicit instruction never falls below. */
  public static final float EXPLICIT_FLOOR = 8.0f;

  private final double threshold;

  public WriteGate(double threshold) {
    if (!(threshold >= 0 && threshold <= 10)) {
      throw new IllegalArgumentException("gate threshold must be 0..10: " + threshold);
    }
    this.threshold = threshold;
  }

  public double threshold() {
    return threshold;
  }

  /** The verdict on one candidate. */
  public record Verdict(boolean admitted, float score, GateScores scores, String reason) {}

  /**
   * Scores a candidate. {@code scores} may be {@link GateScores#NONE} (not given); each given
   * dimension must be 0..10 (INVALID_ARGUMENT naming {@code scores.<dimension>} otherwise).
   */
  public Verdict evaluate(GateScores scores, boolean explicit) {
    check("importance", scores.importance());
    check("novelty", scores.novelty());
    check("relevance", scores.relevance());
    check("credibility", scores.credibility());
    check("granularity", scores.granularity());
    check("timeliness", scores.timeliness());
    float weighted = scores.weighted();
    float score = explicit ? Math.max(weighted, EXPLICIT_FLOOR) : weighted;
    boolean admitted = score >= threshold;
    String how =
        explicit && weighted < EXPLICIT_FLOOR ? "explicit instruction, floored at 8.0" : "scored";
    String reason =
        String.format(
            Locale.ROOT,
            "%s: %.1f %s threshold %.1f (%s)",
            admitted ? "stored" : "rejected",
            score,
            admitted ? ">=" : "below",
            threshold,
            how);
    return new Verdict(admitted, score, scores, reason);
  }

  private static void check(String dimension, float value) {
    if (!(value >= 0 && value <= 10)) {
      throw MemoryException.invalidArgument(
          "scores." + dimension, "scores." + dimension + " must be 0..10: " + value);
    }
  }
}
