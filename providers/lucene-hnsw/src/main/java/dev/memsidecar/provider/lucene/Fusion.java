package dev.memsidecar.provider.lucene;

import dev.memsidecar.toolkit.HybridScore;
import java.util.Arrays;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * How the two ranked lists of a hybrid search, kNN over embeddings and BM25 over terms, become one
 * score in 0..1 (setting {@code fusion}).
 *
 * <p>Inputs per candidate: its rank in each list it appears in (1 + the candidates scoring strictly
 * higher there, so equal scores share a rank), its vector similarity {@code v = max(0, cos(q, e))}
 * (computed exactly also for candidates only BM25 found) and its BM25 score divided by the best
 * BM25 score of the query, {@code b} (0 when BM25 did not find it). A list is <i>active</i> when it
 * could run: kNN needs a non-zero query vector, BM25 a query with at least one term after analysis.
 *
 * <p>{@link #BLEND} is the default. On the development half of LoCoMo (760 questions of categories
 * 1-4 over 2,760 conversation turns, hash embedder, top 10; {@code RecallBench}) it found an
 * evidence turn for 64.3% of questions against 57.4% for {@link #RRF} (MRR 0.426 against 0.362),
 * ahead in every category. Rank fusion throws away how far apart scores are: with only two lists, a
 * record that BM25 ranks 3rd and kNN 40th ties one ranked 40th and 3rd, however strong its text
 * match.
 */
enum Fusion {
  /**
   * Reciprocal rank fusion (Cormack et al. 2009): {@code r = Σ 1 / (60 + rank)} over the active
   * lists the candidate appears in, divided by its largest possible value {@code active / 61}. So
   * 1.0 means first in every active list; the score says where a record ranks, not how close it is.
   * With two lists equal sums are common (1st and 2nd ties 2nd and 1st), so the score is {@code (1
   * - ε) r + ε f}, {@code f} the {@link #BLEND} score and {@code ε} {@link #RRF_TIE_BREAK}: of two
   * records that rank alike, the stronger word and meaning match comes first.
   */
  RRF,
  /**
   * The one hybrid score of every ranking store, {@link HybridScore} (the kNN list active means the
   * query has a vector, the BM25 list active that it has words). The score keeps absolute meaning
   * on the vector side: an unrelated record scores low even when it ranks first.
   */
  BLEND;

  /** The rank constant of {@link #RRF}, from the original paper. */
  static final int RRF_K = 60;

  /**
   * The share {@code ε} of the {@link #BLEND} score in an {@link #RRF} score. It is less than what
   * one step down a list costs anywhere in its first 490 ranks, so it orders equal and nearly equal
   * rank sums and no others.
   */
  static final float RRF_TIE_BREAK = 1e-4f;

  /** The {@link #settingValue()} of every mode. */
  static final Set<String> SETTING_VALUES =
      Arrays.stream(values()).map(Fusion::settingValue).collect(Collectors.toUnmodifiableSet());

  /**
   * The fused score in 0..1.
   *
   * @param knnRank 1-based rank in the kNN list, or 0 when absent from it
   * @param bm25Rank 1-based rank in the BM25 list, or 0 when absent from it
   * @param vector {@code v} in 0..1
   * @param bm25 {@code b} in 0..1
   * @param speaker whether a query word names the record's speaker ({@link #BLEND} only)
   * @param vectorWeight {@code w} of {@link #BLEND}: {@link HybridScore#meaningWeightFor} the
   *     embedder
   */
  float score(
      double vectorWeight,
      boolean knnActive,
      boolean bm25Active,
      int knnRank,
      int bm25Rank,
      float vector,
      float bm25,
      boolean speaker) {
    float s =
        switch (this) {
          case RRF -> {
            int active = (knnActive ? 1 : 0) + (bm25Active ? 1 : 0);
            if (active == 0) {
              yield 0f;
            }
            double sum = 0;
            if (knnActive && knnRank > 0) {
              sum += 1.0 / (RRF_K + knnRank);
            }
            if (bm25Active && bm25Rank > 0) {
              sum += 1.0 / (RRF_K + bm25Rank);
            }
            float f = BLEND.score(vectorWeight, knnActive, bm25Active, 0, 0, vector, bm25, speaker);
            yield (float) ((1 - RRF_TIE_BREAK) * sum * (RRF_K + 1) / active + RRF_TIE_BREAK * f);
          }
          case BLEND -> HybridScore.of(vectorWeight, knnActive, bm25Active, vector, bm25, speaker);
        };
    return Math.min(1f, Math.max(0f, s));
  }

  /** The setting value naming this mode: {@code rrf} or {@code blend}. */
  String settingValue() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The mode whose {@link #settingValue()} is {@code value}. */
  static Fusion ofSetting(String value) {
    for (Fusion f : values()) {
      if (f.settingValue().equals(value)) {
        return f;
      }
    }
    throw new IllegalArgumentException("no fusion mode '" + value + "'; known: " + SETTING_VALUES);
  }
}
