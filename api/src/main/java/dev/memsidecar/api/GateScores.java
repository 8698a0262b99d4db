package dev.memsidecar.api;

/**
 * The write gate's six dimensions, each 0..10 (PromptX memory trigger).
 *
 * @param importance weight 0.3
 * @param novelty weight 0.1
 * @param relevance weight 0.2
 * @param credibility weight 0.2
 * @param granularity weight 0.1
 * @param timeliness weight 0.1
 */
public record GateScores(
    float importance,
    float novelty,
    float relevance,
    float credibility,
    float granularity,
    float timeliness) {

  public static final GateScores NONE = new GateScores(0, 0, 0, 0, 0, 0);

  /** The weighted score 0..10, rounded to one decimal. */
  public float weighted() {
    double sum =
        importance * 0.3
            + novelty * 0.1
            + relevance * 0.2
            + credibility * 0.2
            + granularity * 0.1
            + timeliness * 0.1;
    return (float) (Math.round(sum * 10.0) / 10.0);
  }

  /** Whether no dimension was given (all zero): the gate then uses its defaults. */
  public boolean isEmpty() {
    return equals(NONE);
  }
}
