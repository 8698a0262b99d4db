package dev.memsidecar.it;

import java.util.List;
import java.util.Locale;
import java.util.Random;

/**
 * Realistic, mutually distinct English sentences from a seeded vocabulary, so that a sidecar that
 * dedupes similar memories still stores each one as its own record. Each sentence carries a made-up
 * code name unique to its index. Not thread-safe.
 */
final class Sentences {
  private static final List<String> NAMES =
      List.of(
          "Alice", "Bruno", "Chen", "Dana", "Emeka", "Farah", "Goran", "Hana", "Ines", "Jonas",
          "Kiran", "Lena", "Mateo", "Nadia", "Omar", "Priya", "Quentin", "Rosa", "Sven", "Tariq");
  private static final List<String> VERBS =
      List.of(
          "prefers",
          "avoids",
          "reviews",
          "schedules",
          "deploys",
          "documents",
          "tests",
          "migrates",
          "monitors",
          "archives",
          "refactors",
          "benchmarks",
          "approves",
          "drafts",
          "rotates",
          "patches",
          "audits",
          "profiles",
          "mentors",
          "demos");
  private static final List<String> OBJECTS =
      List.of(
          "dark roast coffee",
          "the billing service",
          "green tea",
          "the release notes",
          "the staging cluster",
          "flaky integration tests",
          "the Postgres replica",
          "quarterly budget slides",
          "the onboarding checklist",
          "TLS certificates",
          "the Kafka consumer",
          "design review comments",
          "the mobile login screen",
          "weekly metrics dashboards",
          "the payment webhook",
          "legacy cron jobs",
          "the search ranking model",
          "customer support macros",
          "the Terraform modules",
          "oat milk cappuccinos",
          "the incident runbook",
          "vendor contracts",
          "the accessibility audit",
          "error budget reports",
          "the GraphQL gateway",
          "nightly backups",
          "the feature flag cleanup",
          "sprint retrospectives",
          "the data retention policy",
          "pairing sessions");
  private static final List<String> TIMES =
      List.of(
          "before the 9am standup",
          "every Friday afternoon",
          "right after lunch",
          "during the on-call week",
          "at the end of each sprint",
          "on Monday mornings",
          "before every release",
          "late in the evening",
          "after the product sync",
          "while travelling",
          "twice a month",
          "in the Lisbon office",
          "from the Berlin hub",
          "ahead of board meetings",
          "during quiet hours");
  private static final List<String> SYLLABLES =
      List.of(
          "ka", "lo", "mi", "ne", "ru", "so", "ta", "vi", "zu", "be", "do", "fa", "gi", "ho", "ju",
          "pe");

  private final Random random;
  private int index;

  Sentences(long seed) {
    this.random = new Random(seed);
  }

  /** The next sentence, e.g. "Alice prefers dark roast coffee before the 9am standup (...)". */
  String next() {
    String sentence =
        String.format(
            Locale.ROOT,
            "%s %s %s %s, tracked as project %s.",
            pick(NAMES),
            pick(VERBS),
            pick(OBJECTS),
            pick(TIMES),
            codeName(index));
    index++;
    return sentence;
  }

  /** A pronounceable word unique to {@code n}, e.g. "kalomi". */
  static String codeName(int n) {
    StringBuilder word = new StringBuilder();
    int rest = n;
    for (int i = 0; i < 4; i++) {
      word.append(SYLLABLES.get(rest % SYLLABLES.size()));
      rest /= SYLLABLES.size();
    }
    return word.toString();
  }

  private String pick(List<String> words) {
    return words.get(random.nextInt(words.size()));
  }
}
