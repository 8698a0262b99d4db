package dev.memsidecar.provider.embedder;

import java.util.ArrayList;
import java.util.List;

/**
 * How texts of known token counts are cut into ONNX runs. A run pads every row to its longest, so
 * rows are sorted by length and cut into consecutive groups that minimise the estimated cost: a
 * fixed cost per run, plus per row the padded length times a term that grows with it (attention is
 * quadratic). A group holds at most {@code maxRows} rows, at most {@link #ATTENTION_BUDGET} rows
 * times padded length squared (8 rows of 128 tokens, 32 of 64) and at most {@link #TOKEN_BUDGET}
 * rows times padded length (a row longer than that runs alone). That bounds the working memory of
 * one run: a layer's attention scores (12 heads x rows x length² floats) to ~6 MiB and its
 * feed-forward activations (rows x length x 1,536 floats) to ~12 MiB; with 32 rows of 128 tokens
 * they were 25 MiB each, and several runs go at once (queries, vectors behind writes, sessions).
 * The model computes about as many texts a second in runs of 8 as of 32 on one thread.
 */
final class BatchPlan {
  /** Rows times padded length squared per run: 8 x 128². */
  static final long ATTENTION_BUDGET = 8L * 128 * 128;

  /** Rows times padded length per run: 32 x 64. */
  static final long TOKEN_BUDGET = 32L * 64;

  /** A run's fixed cost, in the cost of one padded token. */
  private static final double RUN_COST = 16;

  /** The length at which a token's attention costs as much as the rest of its work. */
  private static final double QUADRATIC_SCALE = 384;

  private BatchPlan() {}

  /**
   * Cuts rows of the given ascending lengths into runs.
   *
   * @param sortedLengths token counts, ascending
   * @param maxRows the most rows one run takes, >= 1
   * @return the end index (exclusive) of each run, in order; the last is {@code
   *     sortedLengths.length}
   */
  static int[] cut(int[] sortedLengths, int maxRows) {
    int n = sortedLengths.length;
    if (maxRows < 1) {
      throw new IllegalArgumentException("maxRows must be >= 1: " + maxRows);
    }
    double[] best = new double[n + 1];
    int[] from = new int[n + 1];
    for (int end = 1; end <= n; end++) {
      long padded = sortedLengths[end - 1];
      if (end > 1 && sortedLengths[end - 2] > padded) {
        throw new IllegalArgumentException("lengths are not ascending at " + (end - 1));
      }
      double rowCost = padded * (1 + padded / QUADRATIC_SCALE);
      best[end] = Double.MAX_VALUE;
      for (int start = end - 1; start >= Math.max(0, end - maxRows); start--) {
        int rows = end - start;
        if (rows > 1
            && (rows * padded * padded > ATTENTION_BUDGET || rows * padded > TOKEN_BUDGET)) {
          break;
        }
        double cost = best[start] + RUN_COST + rows * rowCost;
        if (cost < best[end]) {
          best[end] = cost;
          from[end] = start;
        }
      }
    }
    List<Integer> ends = new ArrayList<>();
    for (int end = n; end > 0; end = from[end]) {
      ends.add(end);
    }
    int[] out = new int[ends.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = ends.get(out.length - 1 - i);
    }
    return out;
  }
}
