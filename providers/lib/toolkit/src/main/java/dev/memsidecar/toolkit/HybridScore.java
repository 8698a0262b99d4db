package dev.memsidecar.toolkit;

/**
 * The one hybrid score of a memory for a query, and its weights: every store that ranks records
 * ({@link HybridIndex} for langmem-sqlite and deepagents-files, lucene-hnsw's BM25 + HNSW search)
 * computes it here, so a Search over profiles on different providers merges hits on one scale.
 *
 * <p>Per record, for a query:
 *
 * <ul>
 *   <li>{@code v = max(0, cos(query vector, record vector))}: meaning;
 *   <li>{@code b} = its BM25F score over the best BM25F score of the query among the admitted
 *       records (1 = the best word match, 0 = no query word), a word of the record's context
 *       counting {@value #CONTEXT_WEIGHT} of one of its content, summary or tags;
 *   <li>{@code s} = 1 when a query word names the record's speaker (the {@code Name:} label of a
 *       chat line), else 0: a question about a person leans to what that person said.
 * </ul>
 *
 * The score is {@code min(1, w v + (1 - w) b + }{@value #SPEAKER_WEIGHT}{@code s)} when the query
 * has both a vector and words, {@code v} with a vector and no words (only stopwords or
 * punctuation), {@code min(1, b + }{@value #SPEAKER_WEIGHT}{@code s)} with words and a zero vector,
 * and 0 with neither; {@code w} is {@value #MEANING_WEIGHT} for a semantic embedder and {@value
 * #LEXICAL_MEANING_WEIGHT} for the lexical {@code hash} one ({@link #meaningWeightFor}). Scores
 * order the hits of one query; they are not probabilities.
 *
 * <p>The weights were chosen on the development half of LoCoMo ({@code it/bench} {@code RankBench}
 * and {@code bench locomo}, kept only where each of its five conversations gained), with
 * bge-small-en: the cosine weight rose steadily from 0.5 to 0.8 (R@10 0.764 to 0.793) and fell back
 * at 0.9; context at half weight beat full weight (0.797 against 0.793); the speaker cue lifted
 * R@10 to 0.817 and multi-hop questions from 0.415 to 0.511, at a cost of 0.04 to adversarial
 * questions (those that name the wrong person). With {@code hash}, whose vectors hash the words
 * BM25 already matches, 0.5 beat 0.8 (R@10 0.759 against 0.714). Stateless.
 */
public final class HybridScore {
  /** The weight {@code w} of meaning (cosine) with a semantic embedder. */
  public static final double MEANING_WEIGHT = 0.8;

  /** The weight {@code w} of meaning with the lexical {@code hash} embedder. */
  public static final double LEXICAL_MEANING_WEIGHT = 0.5;

  /** What a query word naming the record's speaker adds to the score (clamped to 1). */
  public static final double SPEAKER_WEIGHT = 0.05;

  /** How much a word of a record's context counts against one of its content, in BM25F. */
  public static final double CONTEXT_WEIGHT = 0.5;

  private HybridScore() {}

  /**
   * The meaning weight {@code w} for vectors of the embedder named {@code embedderName}: {@value
   * #LEXICAL_MEANING_WEIGHT} for {@link HashEmbedder#NAME}, else {@value #MEANING_WEIGHT}.
   */
  public static double meaningWeightFor(String embedderName) {
    return HashEmbedder.NAME.equals(embedderName) ? LEXICAL_MEANING_WEIGHT : MEANING_WEIGHT;
  }

  /**
   * The score in 0..1.
   *
   * @param meaningWeight {@code w}, 0..1 ({@link #meaningWeightFor})
   * @param hasVector whether the query has a non-zero vector (the meaning side can score)
   * @param hasWords whether the query has at least one keyword (the word side can score)
   * @param v {@code max(0, cos)}, 0..1
   * @param b BM25F over the query's best, 0..1
   * @param speaker whether a query word names the record's speaker
   */
  public static float of(
      double meaningWeight,
      boolean hasVector,
      boolean hasWords,
      double v,
      double b,
      boolean speaker) {
    double cue = speaker ? SPEAKER_WEIGHT : 0;
    double score;
    if (hasVector && hasWords) {
      score = meaningWeight * v + (1 - meaningWeight) * b + cue;
    } else if (hasVector) {
      score = v;
    } else if (hasWords) {
      score = b + cue;
    } else {
      score = 0;
    }
    return (float) Math.min(1.0, Math.max(0.0, score));
  }
}
