package dev.memsidecar.provider.embedder;

import ai.onnxruntime.OrtEnvironment;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Field;
import java.net.URL;
import java.net.URLConnection;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * Where ONNX Runtime's native libraries are loaded from. By default ONNX Runtime copies them out of
 * its jar into a new folder under {@code java.io.tmpdir} on every start and deletes them on exit.
 * Read-only containers choose a folder instead:
 *
 * <ul>
 *   <li>{@code -Donnxruntime.native.path=DIR} (ONNX Runtime's own property): DIR holds the
 *       libraries already; left as it is;
 *   <li>else {@code -Dmemsidecar.native.dir=DIR} or the environment variable {@code
 *       MEMSIDECAR_NATIVE_DIR=DIR}: if DIR holds the libraries (a folder pre-filled when the image
 *       was built, may be read-only) they are loaded from there; otherwise they are copied, once,
 *       into {@code DIR/onnxruntime-<build>/} (DIR must be writable: a volume), and loaded from
 *       there on every later start.
 * </ul>
 *
 * <p>With neither, ONNX Runtime's own copy (1.23) would stay in {@code java.io.tmpdir} as long as
 * the process runs, and after it too: it deletes the files at exit but not their folder, and a
 * process killed (kill -9, an OOM kill) leaves 22 MB there, every start. So on Linux and macOS
 * (where a loaded library's file can be deleted) the libraries are copied into a new private folder
 * under {@code java.io.tmpdir}, which {@link #loaded} deletes as soon as they are loaded; a start
 * first deletes such folders that processes killed while loading left.
 *
 * <p>ONNX Runtime (1.23) still creates and at once deletes an empty folder under {@code
 * java.io.tmpdir} while it loads, whatever the setting: a container whose {@code /tmp} is not
 * writable also needs {@code -Djava.io.tmpdir=} a writable folder.
 */
final class NativeLibraries {
  static final String ORT_PATH_PROPERTY = "onnxruntime.native.path";
  static final String DIR_PROPERTY = "memsidecar.native.dir";
  static final String DIR_VARIABLE = "MEMSIDECAR_NATIVE_DIR";

  private static final List<String> REQUIRED = List.of("onnxruntime", "onnxruntime4j_jni");
  private static final List<String> OPTIONAL = List.of("onnxruntime_providers_shared");

  private static final String SCRATCH_PREFIX = "memsidecar-native-";
  private static final String ORT_TEMP = "onnxruntime-java";

  // The private folder configure made, until loaded deletes it; guarded by the class.
  private static Path scratch;

  private NativeLibraries() {}

  /**
   * Sets {@value #ORT_PATH_PROPERTY} from the configured folder, extracting the libraries into it
   * if needed, or when none is configured (and the property is not set) to a new private folder
   * holding them, to be deleted by {@link #loaded}. Call before ONNX Runtime's first use in this
   * JVM.
   *
   * @return the folder the libraries will load from, or null for ONNX Runtime's default (Windows)
   * @throws IOException if the folder lacks the libraries and they cannot be written there
   */
  static synchronized Path configure() throws IOException {
    Path folder = configure(System.getProperties()::getProperty, System.getenv());
    if (folder != null
        || System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("win")) {
      return folder;
    }
    Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
    TempCopies.deleteStale(tmp, SCRATCH_PREFIX + "*", Instant.now().minus(TempCopies.STALE_AFTER));
    Path made = Files.createTempDirectory(tmp, SCRATCH_PREFIX);
    Path filled;
    try {
      filled = prepare(made);
    } catch (IOException | RuntimeException e) {
      TempCopies.delete(made);
      throw e;
    }
    scratch = made;
    System.setProperty(ORT_PATH_PROPERTY, filled.toString());
    return filled;
  }

  /**
   * ONNX Runtime has loaded its libraries: deletes the private folder {@link #configure} made for
   * them, if it made one (the process keeps them mapped).
   */
  static synchronized void loaded() {
    if (scratch == null) {
      return;
    }
    TempCopies.delete(scratch);
    scratch = null;
    // ONNX Runtime's own folder, left empty when it loads from a path: it only marks it to be
    // deleted at exit, so a process killed leaves it. Found by its field (1.23); if that is gone,
    // the folder stays until exit, as before.
    try {
      Class<?> runtime =
          Class.forName("ai.onnxruntime.OnnxRuntime", false, OrtEnvironment.class.getClassLoader());
      Field field = runtime.getDeclaredField("tempDirectory");
      field.setAccessible(true);
      if (field.get(null) instanceof Path own
          && own.getFileName().toString().startsWith(ORT_TEMP)) {
        Files.deleteIfExists(own);
      }
    } catch (ReflectiveOperationException | RuntimeException | IOException e) {
      // Not empty, or not this version's layout: left for the exit.
    }
  }

  static synchronized Path configure(
      Function<String, String> properties, Map<String, String> environment) throws IOException {
    String preset = properties.apply(ORT_PATH_PROPERTY);
    if (preset != null && !preset.isBlank()) {
      return Path.of(preset);
    }
    String dir = properties.apply(DIR_PROPERTY);
    if (dir == null || dir.isBlank()) {
      dir = environment.get(DIR_VARIABLE);
    }
    if (dir == null || dir.isBlank()) {
      return null;
    }
    Path folder = prepare(Path.of(dir).toAbsolutePath());
    System.setProperty(ORT_PATH_PROPERTY, folder.toString());
    return folder;
  }

  /** {@code root} itself if it holds the libraries, else its versioned subfolder, filled. */
  static Path prepare(Path root) throws IOException {
    if (holdsAll(root)) {
      return root;
    }
    Path folder = root.resolve("onnxruntime-" + build());
    try {
      Files.createDirectories(folder);
      for (String library : REQUIRED) {
        extract(library, folder, true);
      }
      for (String library : OPTIONAL) {
        extract(library, folder, false);
      }
    } catch (IOException e) {
      throw new IOException(
          "cannot put ONNX Runtime's native libraries in "
              + folder
              + " ("
              + e
              + "): point "
              + DIR_VARIABLE
              + " at a writable folder or at one that holds "
              + fileNames(),
          e);
    }
    return folder;
  }

  private static boolean holdsAll(Path folder) {
    for (String library : REQUIRED) {
      if (!Files.isRegularFile(folder.resolve(fileName(library)))) {
        return false;
      }
    }
    return true;
  }

  /** Copies one library out of the jar unless the folder holds it already, same size. */
  private static void extract(String library, Path folder, boolean required) throws IOException {
    String resource = "/ai/onnxruntime/native/" + osArch() + "/" + fileName(library);
    URL url = NativeLibraries.class.getResource(resource);
    if (url == null) {
      if (required) {
        throw new IOException("no " + resource + " on the class path for this platform");
      }
      return;
    }
    Path target = folder.resolve(fileName(library));
    URLConnection connection = url.openConnection();
    long size = connection.getContentLengthLong();
    if (size >= 0 && Files.isRegularFile(target) && Files.size(target) == size) {
      return;
    }
    Path temp = Files.createTempFile(folder, fileName(library), ".part");
    try {
      try (InputStream in = connection.getInputStream()) {
        Files.copy(in, temp, StandardCopyOption.REPLACE_EXISTING);
      }
      try {
        Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
      }
    } finally {
      Files.deleteIfExists(temp);
    }
  }

  /** The ONNX Runtime build in the jar (its git commit), so two versions never share a folder. */
  private static String build() throws IOException {
    try (InputStream in = NativeLibraries.class.getResourceAsStream("/GIT_COMMIT_ID")) {
      if (in != null) {
        String id = new String(in.readNBytes(64), StandardCharsets.US_ASCII).strip();
        if (id.matches("[0-9a-fA-F]{7,}")) {
          return id.substring(0, 12).toLowerCase(Locale.ROOT);
        }
      }
    }
    return "build";
  }

  private static String fileNames() {
    return fileName(REQUIRED.get(0)) + " and " + fileName(REQUIRED.get(1));
  }

  /** The platform's file name of a library, as ONNX Runtime names it. */
  static String fileName(String library) {
    return System.mapLibraryName(library).replace("jnilib", "dylib");
  }

  /** ONNX Runtime's name of this platform's folder in its jar, e.g. {@code linux-x64}. */
  static String osArch() {
    String os = System.getProperty("os.name", "generic").toLowerCase(Locale.ROOT);
    String arch = System.getProperty("os.arch", "generic").toLowerCase(Locale.ROOT);
    String o =
        os.contains("mac") || os.contains("darwin")
            ? "osx"
            : os.contains("win") ? "win" : os.contains("nux") ? "linux" : os;
    String a =
        arch.startsWith("amd64") || arch.startsWith("x86_64")
            ? "x64"
            : arch.startsWith("aarch64") ? "aarch64" : arch;
    return o + "-" + a;
  }
}
