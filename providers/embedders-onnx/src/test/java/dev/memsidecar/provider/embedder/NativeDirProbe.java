package dev.memsidecar.provider.embedder;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Run in a child JVM by {@link TestNativeLibraries}: embeds one text, then prints where ONNX
 * Runtime was told to load from and every mapped file of the process that is an ONNX Runtime
 * library (Linux), one a line, then "loaded"; with the argument {@code wait}, then waits to be
 * killed.
 */
public final class NativeDirProbe {
  private NativeDirProbe() {}

  public static void main(String[] args) throws Exception {
    new BgeSmallEnEmbedder().embed("probe");
    System.out.println("path=" + System.getProperty(NativeLibraries.ORT_PATH_PROPERTY));
    Path maps = Path.of("/proc/self/maps");
    if (Files.exists(maps)) {
      Files.readAllLines(maps).stream()
          .filter(l -> l.contains("onnxruntime"))
          .map(l -> "mapped=" + l.substring(l.indexOf('/')))
          .distinct()
          .forEach(System.out::println);
    }
    System.out.println("loaded");
    System.out.flush();
    if (args.length > 0 && args[0].equals("wait")) {
      Thread.sleep(Long.MAX_VALUE);
    }
  }
}
