package dev.memsidecar.toolkit;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.regex.Pattern;

/**
 * Crash-safe file replacement: write a temporary file in the same directory, force it to disk,
 * rename it over the target atomically, then force the directory so the rename itself is durable. A
 * crash at any point leaves the old file or the new one, never a torn one; what is left behind is
 * at most a temporary file, which {@link #removeStrayTemporaries} deletes. Stateless and
 * thread-safe (temporary names are random). Used by the {@code deepagents-files} provider for its
 * memory files and by the sidecar for the workspace files it keeps apart from profiles.
 */
public final class DurableFiles {
  private static final System.Logger LOG = System.getLogger(DurableFiles.class.getName());
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final String TEMP_MARK = ".tmp-";

  /** {@code .<name>.tmp-<16 hex>}: hidden, and never the name of a memory file or directory. */
  private static final Pattern TEMPORARY = Pattern.compile("\\..+\\.tmp-[0-9a-f]{16}");

  private DurableFiles() {}

  /** Replaces {@code file} with {@code bytes}, durably; creates missing parent directories. */
  public static void replace(Path root, Path file, byte[] bytes) throws IOException {
    Path dir = file.getParent();
    createDirectories(root, dir);
    byte[] nonce = new byte[8];
    RANDOM.nextBytes(nonce);
    Path temp = dir.resolve("." + file.getFileName() + TEMP_MARK + HexFormat.of().formatHex(nonce));
    try {
      try (FileChannel ch =
          FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
        ByteBuffer buf = ByteBuffer.wrap(bytes);
        while (buf.hasRemaining()) {
          ch.write(buf);
        }
        ch.force(true);
      }
      Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException | RuntimeException e) {
      try {
        Files.deleteIfExists(temp);
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
    forceDirectory(dir);
  }

  /**
   * Creates {@code dir} and its missing parents up to {@code root}, forcing each parent whose
   * listing changed so the new directories survive a power loss too.
   */
  public static void createDirectories(Path root, Path dir) throws IOException {
    if (Files.isDirectory(dir)) {
      return;
    }
    if (!dir.startsWith(root) || dir.equals(root)) {
      Files.createDirectories(dir);
      return;
    }
    createDirectories(root, dir.getParent());
    try {
      Files.createDirectory(dir);
    } catch (java.nio.file.FileAlreadyExistsException e) {
      if (!Files.isDirectory(dir)) {
        throw e;
      }
      return;
    }
    forceDirectory(dir.getParent());
  }

  /**
   * Forces a directory's entries to disk. Some platforms (Windows) cannot open a directory as a
   * channel; there the rename's durability is left to the file system.
   */
  public static void forceDirectory(Path dir) {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    } catch (IOException | UnsupportedOperationException e) {
      LOG.log(Level.TRACE, () -> "cannot force directory " + dir, e);
    }
  }

  /** Whether {@code name} is a temporary file name of {@link #replace}. */
  public static boolean isTemporary(String name) {
    return TEMPORARY.matcher(name).matches();
  }

  /**
   * Deletes the temporary files a crash left anywhere under {@code root}, without following links.
   *
   * @return how many were deleted
   */
  public static int removeStrayTemporaries(Path root) throws IOException {
    if (!Files.isDirectory(root)) {
      return 0;
    }
    int[] removed = {0};
    Files.walkFileTree(
        root,
        new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult visitFile(Path file, BasicFileAttributes attrs)
              throws IOException {
            if (attrs.isRegularFile() && isTemporary(file.getFileName().toString())) {
              try {
                Files.delete(file);
                removed[0]++;
              } catch (NoSuchFileException e) {
                // gone already
              }
            }
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult visitFileFailed(Path file, IOException e) {
            LOG.log(Level.WARNING, () -> "cannot inspect " + file, e);
            return FileVisitResult.CONTINUE;
          }
        });
    return removed[0];
  }
}
