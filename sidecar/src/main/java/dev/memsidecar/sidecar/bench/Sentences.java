package dev.memsidecar.sidecar.bench;

import java.util.List;
import java.util.Locale;
import java.util.Random;

/**
 * Realistic English sentences about a team ("Chen reviews the Kafka consumer before every release
 * because the last outage started there (ticket 1042).") from a seeded vocabulary: the same seed
 * gives the same sentences. Each carries a distinct ticket number. Not thread-safe.
 */
public final class Sentences {
  private static final List<String> NAMES =
      List.of(
          "Alice", "Bruno", "Chen", "Dana", "Emeka", "Farah", "Goran", "Hana", "Ines", "Jonas",
          "Kiran", "Lena", "Mateo", "Nadia", "Omar", "Priya", "Quentin", "Rosa", "Sven", "Tariq",
          "Uma", "Viktor", "Wen", "Ximena", "Yusuf", "Zoe");
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
          "mentors on",
          "demos",
          "owns",
          "escalates",
          "debugs",
          "plans",
          "cleans up");
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
          "pairing sessions",
          "the Redis cache",
          "the CI pipeline",
          "the iOS build",
          "the pricing page",
          "the SSO integration",
          "the Android beta",
          "the churn report",
          "the load balancer config",
          "the Helm charts",
          "the audit log exporter");
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
          "during quiet hours",
          "when the pager is quiet",
          "before quarterly planning",
          "on the first Tuesday of the month");
  private static final List<String> REASONS =
      List.of(
          "because the last outage started there",
          "since the customer asked for it",
          "to keep the error budget healthy",
          "so the auditors stay happy",
          "because it saves the team an hour a week",
          "after the postmortem recommended it",
          "to unblock the mobile team",
          "as agreed in the architecture review",
          "",
          "",
          "");

  private final Random random;
  private int index;

  /** Sentences drawn from {@code seed}. */
  public Sentences(long seed) {
    this.random = new Random(seed);
  }

  /** The next sentence. */
  public String next() {
    String reason = pick(REASONS);
    String sentence =
        String.format(
            Locale.ROOT,
            "%s %s %s %s%s (ticket %d).",
            pick(NAMES),
            pick(VERBS),
            pick(OBJECTS),
            pick(TIMES),
            reason.isEmpty() ? "" : " " + reason,
            1000 + index);
    index++;
    return sentence;
  }

  private String pick(List<String> words) {
    return words.get(random.nextInt(words.size()));
  }
}
