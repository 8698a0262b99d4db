package dev.memsidecar.core.config;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.Map;

/**
 * How BeginRun and EndRun behave ({@code memory.extractor}, {@code memory.runs}, {@code
 * memory.toolRules}).
 *
 * @param extractor the extractor's name ({@code memory.extractor.name}), e.g. "rules"
 * @param extractorSettings its settings ({@code memory.extractor.settings})
 * @param snapshotTtl how long a BeginRun snapshot is served again for the same run
 * @param shortTermTtl how long a short-term memory is recalled after it is stored
 * @param captureToolRules whether EndRun turns a user's prohibitions and repeated tool failures
 *     into tool rules ({@code memory.toolRules.capture})
 */
public record RunConfig(
    String extractor,
    Map<String, String> extractorSettings,
    Duration snapshotTtl,
    Duration shortTermTtl,
    boolean captureToolRules) {
  public static final String DEFAULT_EXTRACTOR = "rules";
  public static final Duration DEFAULT_SNAPSHOT_TTL = Duration.ofHours(24);
  public static final Duration DEFAULT_SHORT_TERM_TTL = Duration.ofDays(7);
  public static final RunConfig DEFAULT =
      new RunConfig(
          DEFAULT_EXTRACTOR, Map.of(), DEFAULT_SNAPSHOT_TTL, DEFAULT_SHORT_TERM_TTL, true);

  public RunConfig {
    requireNonNull(extractor, "extractor is null");
    extractorSettings = extractorSettings == null ? Map.of() : Map.copyOf(extractorSettings);
    requireNonNull(snapshotTtl, "snapshotTtl is null");
    requireNonNull(shortTermTtl, "shortTermTtl is null");
    if (snapshotTtl.isNegative() || snapshotTtl.isZero()) {
      throw new IllegalArgumentException("snapshotTtl must be positive: " + snapshotTtl);
    }
    if (shortTermTtl.isNegative() || shortTermTtl.isZero()) {
      throw new IllegalArgumentException("shortTermTtl must be positive: " + shortTermTtl);
    }
  }
}
