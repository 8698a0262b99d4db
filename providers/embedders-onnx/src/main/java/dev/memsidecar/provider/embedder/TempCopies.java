package dev.memsidecar.provider.embedder;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * The copies a start makes under {@code java.io.tmpdir} for ONNX Runtime to read (the model, the
 * native libraries), and deletes once loaded: a process killed while loading leaves its copies, so
 * a start deletes those older than {@link #STALE_AFTER}.
 */
final class TempCopies {
  private static final System.Logger LOG = System.getLogger(TempCopies.class.getName());

  /** How old a copy must be for a start to take it as left by a process killed while loading. */
  static final Duration STALE_AFTER = Duration.ofHours(1);

  private TempCopies() {}

  /**
   * Deletes the files and folders in {@code dir} matching {@code glob} last modified before {@code
   * before}; one that cannot be deleted (another user's, say) is left.
   */
  static void deleteStale(Path dir, String glob, Instant before) {
    long freed = 0;
    int count = 0;
    try (DirectoryStream<Path> copies = Files.newDirectoryStream(dir, glob)) {
      for (Path copy : copies) {
        try {
          if (Files.getLastModifiedTime(copy).toInstant().isBefore(before)) {
            long size = deleteTree(copy);
            if (size >= 0) {
              freed += size;
              count++;
            }
          }
        } catch (IOException e) {
          // Gone meanwhile, or not ours to read.
        }
      }
    } catch (IOException e) {
      return;
    }
    if (count > 0) {
      int n = count;
      long bytes = freed;
      LOG.log(
          System.Logger.Level.INFO,
          () ->
              String.format(
                  Locale.ROOT,
                  "deleted %d copies (%,d MB) in %s that processes killed while loading the model"
                      + " left",
                  n,
                  bytes / 1_000_000,
                  dir));
    }
  }

  /** Deletes a file, or a folder and what it holds; returns whether it is gone. */
  static boolean delete(Path path) {
    return deleteTree(path) >= 0;
  }

  /** {@link #delete}, returning the bytes of the files it deleted, or -1 if one is left. */
  private static long deleteTree(Path path) {
    try (Stream<Path> tree = Files.walk(path)) {
      long freed = 0;
      for (Path p : tree.sorted(Comparator.reverseOrder()).toList()) {
        if (Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
          freed += Files.size(p);
        }
        Files.deleteIfExists(p);
      }
      return freed;
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }
}
