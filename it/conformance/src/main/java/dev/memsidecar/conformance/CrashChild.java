package dev.memsidecar.conformance;

import dev.memsidecar.api.Capability;
import dev.memsidecar.api.Embedder;
import dev.memsidecar.api.MemoryProvider;
import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.MemoryStore;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.api.ProviderContext;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The child process of {@link MemoryStoreConformance#acknowledgedWritesSurviveKillOfTheProcess}:
 * opens a provider's store, puts {@link #COUNT} records (with {@link Capability#RECORDS}) and
 * writes a memory file (with {@link Capability#FILES}), prints {@value #WRITTEN} and waits to be killed. If its parent goes
 * away first (stdin closes) it halts without closing anything, as a crash would.
 *
 * <p>Arguments: provider class, embedder class, data directory, then {@code key=value} settings.
 */
public final class CrashChild {
  static final String WRITTEN = "written";
  static final int COUNT = 100;
  static final Namespace RECORDS = Namespace.of("crash:workspace:conformance");
  static final Namespace FILES = Namespace.of("crash:workspace:files");
  static final String FILE = "# crash file\n\n- written just before kill -9\n";
  static final Instant T0 = Instant.parse("2026-01-02T03:04:05.123456789Z");

  private CrashChild() {}

  public static void main(String[] args) throws Exception {
    MemoryProvider provider = instance(args[0], MemoryProvider.class);
    Embedder embedder = instance(args[1], Embedder.class);
    Map<String, String> settings = new LinkedHashMap<>();
    for (int i = 3; i < args.length; i++) {
      String[] kv = args[i].split("=", 2);
      settings.put(kv[0], kv[1]);
    }
    MemoryStore store =
        provider.open(new ProviderContext("conformance", Path.of(args[2]), settings, embedder));
    if (provider.capabilities().contains(Capability.RECORDS)) {
      for (MemoryRecord r : records()) {
        store.put(r);
      }
    }
    if (provider.capabilities().contains(Capability.FILES)) {
      store.writeFile(FILES, FILE, null);
    }
    System.out.println(WRITTEN);
    System.out.flush();
    while (System.in.read() >= 0) {
      // wait for SIGKILL
    }
    Runtime.getRuntime().halt(3);
  }

  /** The records the child writes, the same in both processes. */
  static List<MemoryRecord> records() {
    List<MemoryRecord> out = new ArrayList<>();
    for (int i = 0; i < COUNT; i++) {
      out.add(
          MemoryRecord.builder()
              .id("r" + i)
              .namespace(RECORDS)
              .profile("conformance")
              .content("crash record " + i + " 记忆")
              .tags(List.of("crash"))
              .times(T0.plusMillis(i))
              .gateScore(8)
              .build());
    }
    return out;
  }

  /** Starts the child and returns once it has written everything (or fails with its output). */
  static Process start(
      Class<?> provider, Class<?> embedder, Path dataDirectory, Map<String, String> settings)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(ProcessHandle.current().info().command().orElseThrow());
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(CrashChild.class.getName());
    command.add(provider.getName());
    command.add(embedder.getName());
    command.add(dataDirectory.toString());
    settings.forEach((k, v) -> command.add(k + "=" + v));
    Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
    StringBuilder output = new StringBuilder();
    BufferedReader in =
        new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
    for (String line; (line = in.readLine()) != null; ) {
      if (line.equals(WRITTEN)) {
        return child;
      }
      output.append(line).append('\n');
    }
    throw new AssertionError("crash child exited with " + child.waitFor() + ":\n" + output);
  }

  private static <T> T instance(String className, Class<T> type) throws ReflectiveOperationException {
    return type.cast(Class.forName(className).getDeclaredConstructor().newInstance());
  }
}
