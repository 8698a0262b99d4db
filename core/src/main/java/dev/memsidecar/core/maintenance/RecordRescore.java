package dev.memsidecar.core.maintenance;

import dev.memsidecar.api.GateScores;
import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.Validity;
import dev.memsidecar.core.WriteGate;
import dev.memsidecar.language.TextRules;
import java.time.Duration;
import java.time.Instant;

/**
 * Scores a stored record again with the write gate (PromptX: "periodically re-score stored
 * memories"), as it stands now. A record keeps only the weighted score that admitted it, so each of
 * the six dimensions starts from that score, and then:
 *
 * <ul>
 *   <li><b>credibility</b> rises by 1 for each source beyond the first (the same fact taught again,
 *       merged into it);
 *   <li><b>timeliness</b> of a short-term record falls with the share of its validity that has
 *       passed (0 when it expires);
 *   <li><b>importance</b> and <b>relevance</b> fall to 0 when the language rules now call its text
 *       low-value (a greeting, an echo of the memory machinery, a run instruction), unless it was
 *       an explicit instruction;
 *   <li>an explicit instruction (a Remember: a source ref {@code remember} or {@code remember:...})
 *       keeps the gate's floor of 8.
 * </ul>
 *
 * A record with no score (0: written by something that never scored it) is not re-scored. The
 * threshold is the cleanup threshold, not the write threshold. Stateless and thread-safe.
 */
final class RecordRescore {
  private final WriteGate cleanup;
  private final TextRules text;

  RecordRescore(double cleanupThreshold, TextRules text) {
    this.cleanup = new WriteGate(cleanupThreshold);
    this.text = text;
  }

  double threshold() {
    return cleanup.threshold();
  }

  /** The verdict on {@code r} at {@code now}, or null when it has no score to start from. */
  WriteGate.Verdict rescore(
      float gateScore,
      int sources,
      boolean explicit,
      Validity validity,
      Instant created,
      Instant expires,
      String content,
      Instant now) {
    if (!(gateScore > 0)) {
      return null;
    }
    float base = clamp(gateScore);
    float credibility = clamp(base + Math.max(0, sources - 1));
    float timeliness = base;
    if (validity == Validity.SHORT_TERM && expires != null) {
      long whole = Math.max(1, Duration.between(created, expires).toMillis());
      long left = Math.max(0, Duration.between(now, expires).toMillis());
      timeliness = clamp(base * (float) Math.min(1.0, (double) left / whole));
    }
    float importance = base;
    float relevance = base;
    if (!explicit && text.lowValueReason(content).isPresent()) {
      importance = 0;
      relevance = 0;
    }
    return cleanup.evaluate(
        new GateScores(importance, base, relevance, credibility, base, timeliness), explicit);
  }

  /** Whether {@code r} came from an explicit instruction (Remember). */
  static boolean explicit(MemoryRecord r) {
    for (String ref : r.sourceRefs()) {
      if (ref.equals("remember") || ref.startsWith("remember:")) {
        return true;
      }
    }
    return false;
  }

  private static float clamp(float v) {
    return Math.max(0f, Math.min(10f, v));
  }
}
