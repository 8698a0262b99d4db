package dev.memsidecar.sidecar.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Evidence recall at k per question category, the LoCoMo paper's dialog-level R@k: a question's
 * score at k is the share of its evidence turns found among the top k hits; a category's R@k is the
 * mean over its questions. Questions without evidence are not scored, only counted. Also keeps the
 * Search latency of every scored question. Not thread-safe.
 */
final class EvidenceRecall {
  private static final Map<Integer, String> NAMES =
      Map.of(1, "multi-hop", 2, "temporal", 3, "open-domain", 4, "single-hop", 5, "adversarial");

  private final int[] ks;
  private final Map<Integer, Category> categories = new TreeMap<>();

  /**
   * @param ks the cut-offs, ascending, each 1 or more
   */
  EvidenceRecall(int[] ks) {
    this.ks = ks.clone();
  }

  private static final class Category {
    final List<double[]> scores = new ArrayList<>();
    final List<Long> nanos = new ArrayList<>();
    int skipped;
  }

  /** The share of {@code evidence} among the first {@code k} of {@code ranked}; 0 for none. */
  static double score(Set<String> evidence, List<String> ranked, int k) {
    if (evidence.isEmpty()) {
      return 0;
    }
    Set<String> found = new HashSet<>();
    for (String id : ranked.subList(0, Math.min(k, ranked.size()))) {
      if (evidence.contains(id)) {
        found.add(id);
      }
    }
    return found.size() / (double) evidence.size();
  }

  /** Counts a question that has no evidence turn. */
  void skip(int category) {
    categories.computeIfAbsent(category, c -> new Category()).skipped++;
  }

  /** Scores a question by the dia_ids of its hits, best first, and keeps its Search latency. */
  void add(int category, Set<String> evidence, List<String> ranked, long searchNanos) {
    double[] row = new double[ks.length];
    for (int i = 0; i < ks.length; i++) {
      row[i] = score(evidence, ranked, ks[i]);
    }
    Category c = categories.computeIfAbsent(category, x -> new Category());
    c.scores.add(row);
    c.nanos.add(searchNanos);
  }

  /** R@k (the i-th cut-off) over the given categories; NaN when none was scored. */
  double recall(Set<Integer> which, int i) {
    double sum = 0;
    int n = 0;
    for (Map.Entry<Integer, Category> e : categories.entrySet()) {
      if (which.contains(e.getKey())) {
        for (double[] row : e.getValue().scores) {
          sum += row[i];
          n++;
        }
      }
    }
    return n == 0 ? Double.NaN : sum / n;
  }

  /**
   * The table: one row per category, then all but adversarial (when both kinds were asked), then
   * all. Columns: questions scored, skipped, R@k for each cut-off, Search p50 and p99.
   */
  String markdown() {
    StringBuilder out = new StringBuilder("| category | questions | skipped (no evidence) |");
    StringBuilder rule = new StringBuilder("|---|---:|---:|");
    for (int k : ks) {
      out.append(" R@").append(k).append(" |");
      rule.append("---:|");
    }
    out.append(" Search p50 ms | Search p99 ms |\n");
    rule.append("---:|---:|\n");
    out.append(rule);
    for (int category : categories.keySet()) {
      out.append(
          row(
              category + " " + NAMES.getOrDefault(category, "category " + category),
              Set.of(category)));
    }
    Set<Integer> answerable = new HashSet<>(categories.keySet());
    answerable.remove(5);
    if (categories.containsKey(5) && !answerable.isEmpty()) {
      out.append(row("**all but adversarial**", answerable));
    }
    out.append(row("**all**", categories.keySet()));
    return out.toString();
  }

  private String row(String name, Set<Integer> which) {
    int scored = 0;
    int skipped = 0;
    List<Long> nanos = new ArrayList<>();
    for (Map.Entry<Integer, Category> e : categories.entrySet()) {
      if (which.contains(e.getKey())) {
        scored += e.getValue().scores.size();
        skipped += e.getValue().skipped;
        nanos.addAll(e.getValue().nanos);
      }
    }
    long[] sorted = nanos.stream().mapToLong(Long::longValue).toArray();
    Arrays.sort(sorted);
    boolean bold = name.startsWith("**");
    StringBuilder out =
        new StringBuilder(String.format(Locale.ROOT, "| %s | %d | %d |", name, scored, skipped));
    for (int i = 0; i < ks.length; i++) {
      double r = recall(which, i);
      String cell = Double.isNaN(r) ? "-" : String.format(Locale.ROOT, "%.3f", r);
      out.append(' ').append(bold && !Double.isNaN(r) ? "**" + cell + "**" : cell).append(" |");
    }
    out.append(
        String.format(
            Locale.ROOT,
            " %.2f | %.2f |%n",
            Figures.millis(Figures.percentile(sorted, 50)),
            Figures.millis(Figures.percentile(sorted, 99))));
    return out.toString();
  }
}
