package dev.memsidecar.provider.embedder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Read-only containers can say where ONNX Runtime's native libraries are loaded from; by default a
 * process leaves none of its copies behind.
 */
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
    ProcessBuilder pb = probe();
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

  @Test
  void aProcessLeavesNothingInItsTemporaryFolderWhetherItExitsOrIsKilled(@TempDir Path tmp)
      throws Exception {
    ProcessBuilder exits = probe("-Djava.io.tmpdir=" + tmp);
    exits.environment().remove(NativeLibraries.DIR_VARIABLE);
    Process p = exits.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(120, TimeUnit.SECONDS));
    assertEquals(0, p.exitValue(), out);
    assertTrue(out.contains("path=" + tmp.toRealPath()) || out.contains("path=" + tmp), out);
    assertEquals(List.of(), entries(tmp), out);

    ProcessBuilder killed = probe("-Djava.io.tmpdir=" + tmp, "wait");
    killed.environment().remove(NativeLibraries.DIR_VARIABLE);
    Process q = killed.start();
    try (BufferedReader lines =
        new BufferedReader(new InputStreamReader(q.getInputStream(), StandardCharsets.UTF_8))) {
      StringBuilder seen = new StringBuilder();
      for (String line = lines.readLine(); line != null; line = lines.readLine()) {
        seen.append(line).append('\n');
        if (line.equals("loaded")) {
          break;
        }
      }
      assertTrue(seen.toString().endsWith("loaded\n"), seen.toString());
      q.destroyForcibly();
      assertTrue(q.waitFor(60, TimeUnit.SECONDS));
      // The model and its libraries stay mapped in the process, their files already gone.
      assertEquals(List.of(), entries(tmp), seen.toString());
    }
  }

  @Test
  void copiesLeftByKilledProcessesAreDeletedAndFreshOnesKept(@TempDir Path dir) throws Exception {
    Instant now = Instant.now();
    Instant stale = now.minus(TempCopies.STALE_AFTER).minusSeconds(1);
    Path staleFile = touch(Files.writeString(dir.resolve("memsidecar-model-1.onnx"), "x"), stale);
    Path staleFolder = dir.resolve("memsidecar-native-1");
    Files.createDirectories(staleFolder);
    Files.writeString(staleFolder.resolve(LIB), "x");
    touch(staleFolder, stale);
    Path loading = touch(Files.writeString(dir.resolve("memsidecar-model-2.onnx"), "x"), now);
    Path other = touch(Files.writeString(dir.resolve("other.onnx"), "x"), stale);
    TempCopies.deleteStale(dir, "memsidecar-model-*.onnx", now.minus(TempCopies.STALE_AFTER));
    TempCopies.deleteStale(dir, "memsidecar-native-*", now.minus(TempCopies.STALE_AFTER));
    assertFalse(Files.exists(staleFile), "a copy older than the bound is deleted");
    assertFalse(Files.exists(staleFolder), "so is a folder, with what it holds");
    assertTrue(Files.exists(loading), "a copy a live process may be loading is kept");
    assertTrue(Files.exists(other), "only the copies named are touched");
  }

  private static Path touch(Path path, Instant modified) throws IOException {
    Files.setLastModifiedTime(path, FileTime.from(modified));
    return path;
  }

  private static List<String> entries(Path dir) throws IOException {
    try (var files = Files.list(dir)) {
      return files.map(f -> f.getFileName().toString()).sorted().toList();
    }
  }

  /** A child JVM running {@link NativeDirProbe}, JVM options first, then probe arguments. */
  private static ProcessBuilder probe(String... optionsThenArguments) {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED"));
    List<String> arguments = new ArrayList<>();
    for (String a : optionsThenArguments) {
      (a.startsWith("-") ? command : arguments).add(a);
    }
    command.addAll(List.of("-cp", System.getProperty("java.class.path")));
    command.add(NativeDirProbe.class.getName());
    command.addAll(arguments);
    return new ProcessBuilder(command).redirectErrorStream(true);
  }
}
