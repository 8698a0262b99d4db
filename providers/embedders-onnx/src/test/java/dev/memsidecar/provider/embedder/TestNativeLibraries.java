package dev.memsidecar.provider.embedder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Read-only containers can say where ONNX Runtime's native libraries are loaded from. */
class TestNativeLibraries {
  private static final String LIB = NativeLibraries.fileName("onnxruntime");
  private static final String JNI = NativeLibraries.fileName("onnxruntime4j_jni");

  @Test
  void extractsTheLibrariesOnceIntoAFolderPerOnnxRuntimeBuild(@TempDir Path root)
      throws IOException {
    Path folder = NativeLibraries.prepare(root);
    assertTrue(folder.getFileName().toString().startsWith("onnxruntime-"), folder.toString());
    assertTrue(Files.size(folder.resolve(LIB)) > 1_000_000);
    assertTrue(Files.isRegularFile(folder.resolve(JNI)));
    FileTime old = FileTime.fromMillis(1_000_000_000_000L);
    Files.setLastModifiedTime(folder.resolve(LIB), old);

    assertEquals(folder, NativeLibraries.prepare(root));
    assertEquals(old, Files.getLastModifiedTime(folder.resolve(LIB)), "not written again");
  }

  @Test
  void usesAFolderThatAlreadyHoldsTheLibrariesAsItIs(@TempDir Path scratch, @TempDir Path filled)
      throws IOException {
    Path extracted = NativeLibraries.prepare(scratch);
    Files.copy(extracted.resolve(LIB), filled.resolve(LIB));
    Files.copy(extracted.resolve(JNI), filled.resolve(JNI));

    assertEquals(filled, NativeLibraries.prepare(filled));
    try (var files = Files.list(filled)) {
      assertEquals(2, files.count(), "nothing written beside them");
    }
  }

  @Test
  void leavesOnnxRuntimesOwnPropertyAndTheDefaultAlone() throws IOException {
    assertEquals(
        Path.of("/opt/ort"),
        NativeLibraries.configure(
            Map.of(
                    NativeLibraries.ORT_PATH_PROPERTY,
                    "/opt/ort",
                    NativeLibraries.DIR_PROPERTY,
                    "/x")
                ::get,
            Map.of(NativeLibraries.DIR_VARIABLE, "/y")));
    assertNull(NativeLibraries.configure(k -> null, Map.of()));
  }

  @Test
  void aFolderThatCannotBeWrittenFailsNamingTheVariable(@TempDir Path dir) throws IOException {
    Path notAFolder = Files.writeString(dir.resolve("file"), "x");
    IOException e = assertThrows(IOException.class, () -> NativeLibraries.prepare(notAFolder));
    assertTrue(e.getMessage().contains(NativeLibraries.DIR_VARIABLE), e.getMessage());
  }

  @Test
  void onnxRuntimeLoadsFromTheFolderTheEnvironmentNames(@TempDir Path dir) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    ProcessBuilder pb =
        new ProcessBuilder(
                java,
                "--enable-native-access=ALL-UNNAMED",
                "-cp",
                System.getProperty("java.class.path"),
                NativeDirProbe.class.getName())
            .redirectErrorStream(true);
    pb.environment().put(NativeLibraries.DIR_VARIABLE, dir.toString());
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(120, TimeUnit.SECONDS));
    assertEquals(0, p.exitValue(), out);
    Path folder = NativeLibraries.prepare(dir);
    assertTrue(out.contains("path=" + folder), out);
    if (Files.exists(Path.of("/proc/self/maps"))) {
      List<String> mapped = out.lines().filter(l -> l.startsWith("mapped=")).toList();
      assertTrue(mapped.stream().anyMatch(l -> l.equals("mapped=" + folder.resolve(LIB))), out);
      assertTrue(mapped.stream().allMatch(l -> l.startsWith("mapped=" + folder)), out);
    }
  }
}
