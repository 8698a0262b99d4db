package dev.memsidecar.core.config;

/**
 * {@code memory.maintenance}: background consolidation, shared by both memory paths.
 *
 * @param enabled whether it runs
 * @param schedule e.g. "periodic"
 * @param prompt what consolidation keeps and drops
 */
public record Maintenance(boolean enabled, String schedule, String prompt) {
  public static final Maintenance DEFAULT =
      new Maintenance(
          true,
          "periodic",
          "durable preferences, workspace facts, reusable procedures, prior corrections, stale"
              + " duplicates, and contradicted memories");

  public Maintenance {
    schedule = schedule == null ? "periodic" : schedule;
    prompt = prompt == null ? "" : prompt;
  }
}
