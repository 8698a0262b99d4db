package dev.memsidecar.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a person sees who runs {@code sidecar/bin/memsidecar}: a normal start prints one line on
 * stderr (what runs, where, with which flags) and the {@code listening on} line on stdout, and no
 * JVM noise (class-data sharing, incubator modules, Unsafe) on the first start, the next, or a
 * {@code --help}.
 */
class TestLauncher {
  private static final Path LAUNCHER =
      SidecarProcess.jar().getParent().getParent().resolve("bin").resolve("memsidecar");

  @Test
  void aNormalStartPrintsOneLineOnEachStream(@TempDir Path ws) throws Exception {
    for (int start = 1;
        start <= 2;
        start++) { // the second maps the class-data archive the first made
      Path err = ws.resolve("stderr-" + start + ".txt");
      Process p =
          new ProcessBuilder(
                  "bash", LAUNCHER.toString(), "serve", "--workspace", ws.toString(), "--port", "0")
              .redirectError(err.toFile())
              .start();
      BufferedReader out =
          new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
      String listening = out.readLine();
      p.destroy(); // SIGTERM
      assertTrue(p.waitFor(30, TimeUnit.SECONDS), "exits on SIGTERM");
      assertTrue(listening != null && listening.startsWith("listening on 127.0.0.1:"), listening);
      List<String> lines = Files.readAllLines(err);
      assertEquals(
          1, lines.size(), () -> "a start printed on stderr:\n" + String.join("\n", lines));
      String line = lines.get(0);
      assertTrue(line.startsWith("memsidecar "), line);
      for (String says :
          new String[] {
            "workspace on langmem-sqlite",
            "embedder bge-small-en-q;",
            "data " + ws.resolve(".memsidecar"),
            "LangMem.write=true",
            listening
          }) {
        assertTrue(line.contains(says), () -> "'" + says + "' missing from: " + line);
      }
    }
  }

  @Test
  void helpIsQuietAndNamesTheTokenAndTheSocket(@TempDir Path dir) throws Exception {
    Path err = dir.resolve("stderr.txt");
    Process p =
        new ProcessBuilder("bash", LAUNCHER.toString(), "serve", "--help")
            .redirectError(err.toFile())
            .start();
    String help = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(30, TimeUnit.SECONDS));
    assertEquals(0, p.exitValue());
    assertEquals("", Files.readString(err), "nothing on stderr");
    for (String flag : new String[] {"--token-file", "--unix-socket", "--port", "--workspace"}) {
      assertTrue(help.contains(flag), flag);
    }
  }

  @Test
  void findJavaReadsAJdksReleaseFileAndAsksAJavaWithoutOne(@TempDir Path dir) throws Exception {
    Path findJava = LAUNCHER.resolveSibling("find-java");
    // A JDK with a release file: its java is not run (this one would say 17 if it were).
    Path jdk21 = fakeJava(dir.resolve("jdk21"), "JAVA_VERSION=\"21.0.4\"", "17");
    assertEquals(jdk21 + " 21", findJava(findJava, jdk21));
    // Too old by its release file: the next candidate is looked at, as for any older java.
    Path jdk17 = fakeJava(dir.resolve("jdk17"), "JAVA_VERSION=\"17.0.15\"", "25");
    assertTrue(!findJava(findJava, jdk17).startsWith(jdk17.toString()), "17 is refused");
    // No release file (a wrapper, a macOS stub): the java itself is asked.
    Path bare = fakeJava(dir.resolve("bare"), null, "22");
    assertEquals(bare + " 22", findJava(findJava, bare));
  }

  /**
   * A stand-in JDK: {@code home/bin/java} prints {@code says} as the JVM's specification version;
   * {@code home/release} holds {@code release} (none when null).
   */
  private static Path fakeJava(Path home, String release, String says) throws Exception {
    Path java = home.resolve("bin").resolve("java");
    Files.createDirectories(java.getParent());
    Files.writeString(
        java, "#!/bin/sh\necho '    java.specification.version = " + says + "' >&2\n");
    assertTrue(java.toFile().setExecutable(true));
    if (release != null) {
      Files.writeString(home.resolve("release"), "IMPLEMENTOR=\"test\"\n" + release + "\n");
    }
    return java;
  }

  /** What {@code find-java --with-version} prints with {@code MEMSIDECAR_JAVA=java}. */
  private static String findJava(Path findJava, Path java) throws Exception {
    ProcessBuilder pb =
        new ProcessBuilder("bash", findJava.toString(), "--with-version")
            .redirectError(ProcessBuilder.Redirect.DISCARD);
    pb.environment().put("MEMSIDECAR_JAVA", java.toString());
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    assertTrue(p.waitFor(60, TimeUnit.SECONDS));
    return out;
  }

  @Test
  void underAMemoryLimitTheHeapBoundIsHalfOfIt() throws Exception {
    Optional<Path> group = newMemoryGroup(512L << 20);
    assumeTrue(group.isPresent(), "no memory cgroup can be made here (needs root and cgroup v1)");
    try {
      assertEquals(256L << 20, maxHeap(group.get(), ""), "half of a 512 MiB limit");
      assertEquals(300L << 20, maxHeap(group.get(), "300m"), "MEMSIDECAR_HEAP still decides");
    } finally {
      Files.deleteIfExists(group.get());
    }
    assertEquals(512L << 20, maxHeap(null, ""), "512 MiB without a limit");
  }

  /** The JVM's MaxHeapSize when the launcher starts in {@code group} (null: where we run). */
  private static long maxHeap(Path group, String heap) throws Exception {
    String join = group == null ? "" : "echo $$ > " + group.resolve("cgroup.procs") + "; ";
    ProcessBuilder pb =
        new ProcessBuilder("bash", "-c", join + "exec bash \"$0\" --version", LAUNCHER.toString())
            .redirectError(ProcessBuilder.Redirect.DISCARD);
    pb.environment().put("MEMSIDECAR_JAVA_OPTS", "-XX:+PrintFlagsFinal");
    pb.environment().remove("MEMSIDECAR_HEAP");
    if (!heap.isEmpty()) {
      pb.environment().put("MEMSIDECAR_HEAP", heap);
    }
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS));
    Matcher m = Pattern.compile("\\sMaxHeapSize\\s+=\\s+(\\d+)").matcher(out);
    assertTrue(m.find(), "the JVM printed its flags");
    return Long.parseLong(m.group(1));
  }

  /**
   * A new cgroup v1 memory group beside this process's, limited to {@code bytes}; empty when this
   * machine does not let us make one.
   */
  private static Optional<Path> newMemoryGroup(long bytes) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/cgroup"))) {
        int at = line.indexOf(":memory:");
        if (at < 0) {
          continue;
        }
        Path parent = Path.of("/sys/fs/cgroup/memory" + line.substring(at + ":memory:".length()));
        Path group = parent.resolve("memsidecar-test-" + UUID.randomUUID());
        Files.createDirectory(group);
        Files.writeString(group.resolve("memory.limit_in_bytes"), Long.toString(bytes));
        return Optional.of(group);
      }
    } catch (Exception e) {
      // Not Linux, not root, cgroup v2, or a read-only hierarchy: the test does not apply.
    }
    return Optional.empty();
  }
}
