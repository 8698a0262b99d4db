package dev.memsidecar.api;

import static java.util.Objects.requireNonNull;

import java.time.Duration;

/**
 * The records a store acknowledged whose vectors it has not made yet (a store that embeds behind
 * its writes, {@link MemoryStore#pendingVectors}): found by their words meanwhile, by their meaning
 * once their vectors land.
 *
 * @param records how many wait
 * @param oldestWait how long the one waiting longest has waited; {@link Duration#ZERO} when none
 */
public record PendingVectors(long records, Duration oldestWait) {
  /** Nothing waits. */
  public static final PendingVectors NONE = new PendingVectors(0, Duration.ZERO);

  public PendingVectors {
    requireNonNull(oldestWait, "oldestWait is null");
    if (records < 0 || oldestWait.isNegative()) {
      throw new IllegalArgumentException(
          "records and oldestWait must not be negative: " + records + ", " + oldestWait);
    }
  }
}
