package dev.memsidecar.provider.embedder;

import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;

/**
 * A model resource as a file, for ONNX Runtime to read itself: the resource's own file when the
 * class path is a folder, else a copy under {@code java.io.tmpdir} that {@link #close} deletes once
 * the session is made.
 *
 * <p>Why a file: a session made from bytes in memory leaves those bytes behind. The model read into
 * a direct buffer (133 MB for {@code bge-small-en}) stays in native memory, beside ONNX Runtime's
 * own copy of the weights, until a garbage collection happens to free the buffer, which an idle
 * sidecar may never run: its idle RSS was ~500 MiB, ~130 MiB of them that buffer. Read from a file,
 * the only copy is ONNX Runtime's, and start-up never holds two.
 *
 * <p>A process killed while it loads (kill -9, an OOM kill) leaves its copy behind: 34-133 MB per
 * start in {@code /tmp}. So each copy first deletes the copies older than {@link
 * TempCopies#STALE_AFTER}: a live process deletes its own within seconds of making it.
 */
final class ModelFile implements AutoCloseable {
  private static final String PREFIX = "memsidecar-model-";
  private static final String SUFFIX = ".onnx";

  private final Path path;
  private final boolean temporary;

  private ModelFile(Path path, boolean temporary) {
    this.path = path;
    this.temporary = temporary;
  }

  /**
   * The resource as a file.
   *
   * @throws IOException if it cannot be read, or copied into {@code java.io.tmpdir}
   */
  static ModelFile of(URL resource) throws IOException {
    if ("file".equals(resource.getProtocol())) {
      try {
        return new ModelFile(Path.of(resource.toURI()), false);
      } catch (URISyntaxException | IllegalArgumentException e) {
        throw new IOException(resource + ": not a file path", e);
      }
    }
    Path file;
    try {
      file = Files.createTempFile(PREFIX, SUFFIX);
      TempCopies.deleteStale(
          file.getParent(), PREFIX + "*" + SUFFIX, Instant.now().minus(TempCopies.STALE_AFTER));
    } catch (IOException e) {
      throw new IOException(
          "cannot copy the model into java.io.tmpdir ("
              + System.getProperty("java.io.tmpdir")
              + ") for ONNX Runtime to read: "
              + e.getMessage()
              + "; give the JVM a writable folder with -Djava.io.tmpdir=DIR",
          e);
    }
    try (InputStream in = resource.openStream()) {
      Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
      return new ModelFile(file, true);
    } catch (IOException | RuntimeException e) {
      Files.deleteIfExists(file);
      throw e;
    }
  }

  Path path() {
    return path;
  }

  /** Deletes the copy, if this is one. */
  @Override
  public void close() throws IOException {
    if (temporary) {
      Files.deleteIfExists(path);
    }
  }
}
