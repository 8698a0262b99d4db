package dev.memsidecar.sidecar.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * What every bench needs: unit conversions, median and nearest-rank percentiles, temp-folder
 * cleanup. Stateless; safe from any thread.
 */
public final class Figures {
  private Figures() {}

  /** Nanoseconds as milliseconds. */
  public static double millis(long nanos) {
    return nanos / 1e6;
  }

  /** Nanoseconds as seconds. */
  public static double seconds(long nanos) {
    return nanos / 1e9;
  }

  /** The median of {@code values} (any order; not changed); 0 for none. */
  public static long median(long[] values) {
    if (values.length == 0) {
      return 0;
    }
    long[] sorted = values.clone();
    Arrays.sort(sorted);
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }

  /** Nearest-rank percentile {@code p} (0..100) of ascending {@code sorted} values; 0 for none. */
  public static long percentile(long[] sorted, double p) {
    if (sorted.length == 0) {
      return 0;
    }
    int rank = (int) Math.ceil(p / 100.0 * sorted.length);
    return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
  }

  /** Deletes a folder tree; a failure is reported on stderr, not thrown (it is a temp folder). */
  public static void deleteTree(Path root) {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      paths
          .sorted(Comparator.reverseOrder())
          .forEach(
              p -> {
                try {
                  Files.deleteIfExists(p);
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              });
    } catch (IOException | UncheckedIOException e) {
      System.err.println("could not delete " + root + ": " + e);
    }
  }

  /** The apparent size of every file under {@code root}; 0 if it does not exist. */
  public static long treeBytes(Path root) throws IOException {
    if (!Files.exists(root)) {
      return 0;
    }
    try (Stream<Path> files = Files.walk(root)) {
      return files.filter(Files::isRegularFile).mapToLong(Figures::fileSize).sum();
    }
  }

  /**
   * The apparent size of a file; 0 when the sidecar deleted it meanwhile (a merged-away segment, a
   * trimmed log).
   */
  public static long fileSize(Path file) {
    try {
      return Files.size(file);
    } catch (IOException e) {
      if (Files.exists(file)) {
        throw new UncheckedIOException(e);
      }
      return 0;
    }
  }
}
