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
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * The child process of {@link MemoryStoreConformance#acknowledgedWritesSurviveKillOfTheProcess}. It
 * opens a provider's store and writes its {@link Workload}: with {@link Capability#RECORDS} it puts
 * the records from {@value #WRITERS} threads at once and then deletes one; with {@link
 * Capability#FILES} it writes a memory file. Then it writes a sequence, one write after another: a
 * record (in a namespace of its own) and a version of another memory file at each step. After
 * {@value Workload#SEQUENCE_ACKNOWLEDGED} steps it prints {@value #WRITTEN} and goes on, so that
 * the parent's SIGKILL lands in the middle of a write. When the sequence is done it waits to be
 * killed; if its parent goes away first (stdin closes) it halts without closing anything, as a
 * crash would.
 *
 * <p>Arguments ({@link Arguments}, read with picocli): provider class, embedder class, data
 * directory, workload seed, then {@code key=value} settings.
 */
public final class CrashChild {
  static final String WRITTEN = "written";
  static final int WRITERS = 4;

  private CrashChild() {}

  /** The arguments {@link #start} passes, in order. */
  @Command(name = "CrashChild")
  private static final class Arguments {
    @Parameters(index = "0", paramLabel = "PROVIDER", description = "provider class")
    Class<?> provider;

    @Parameters(index = "1", paramLabel = "EMBEDDER", description = "embedder class")
    Class<?> embedder;

    @Parameters(index = "2", paramLabel = "DIR", description = "data directory")
    Path dataDirectory;

    @Parameters(index = "3", paramLabel = "SEED", description = "workload seed")
    long workloadSeed;

    @Parameters(index = "4..*", paramLabel = "KEY=VALUE", description = "provider settings")
    Map<String, String> settings = new LinkedHashMap<>();
  }

  public static void main(String[] args) throws Exception {
    Arguments arguments = new Arguments();
    new CommandLine(arguments).parseArgs(args);
    MemoryProvider provider = instance(arguments.provider, MemoryProvider.class);
    Embedder embedder = instance(arguments.embedder, Embedder.class);
    Workload work = Workload.of(arguments.workloadSeed);
    MemoryStore store =
        provider.open(
            new ProviderContext(
                RandomMemories.PROFILE, arguments.dataDirectory, arguments.settings, embedder));
    Set<Capability> capabilities = provider.capabilities();
    if (capabilities.contains(Capability.RECORDS)) {
      putConcurrently(store, work.records());
      if (!store.delete(work.namespace(), work.deleted().id())) {
        throw new IllegalStateException("delete of a record just put returned false");
      }
    }
    if (capabilities.contains(Capability.FILES)) {
      store.writeFile(work.fileNamespace(), work.file(), null);
    }
    for (int i = 0; i < Workload.SEQUENCE; i++) {
      if (capabilities.contains(Capability.RECORDS)) {
        store.put(work.sequence().get(i));
      }
      if (capabilities.contains(Capability.FILES)) {
        store.writeFile(work.sequenceFileNamespace(), Workload.sequenceFile(i), null);
      }
      if (i == Workload.SEQUENCE_ACKNOWLEDGED - 1) {
        System.out.println(WRITTEN);
        System.out.flush();
      }
    }
    while (System.in.read() >= 0) {
      // wait for SIGKILL
    }
    Runtime.getRuntime().halt(3);
  }

  private static void putConcurrently(MemoryStore store, List<MemoryRecord> records)
      throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(WRITERS);
    try {
      List<Callable<Void>> writers = new ArrayList<>();
      for (int w = 0; w < WRITERS; w++) {
        int first = w;
        writers.add(
            () -> {
              for (int i = first; i < records.size(); i += WRITERS) {
                store.put(records.get(i));
              }
              return null;
            });
      }
      for (Future<Void> f : pool.invokeAll(writers)) {
        f.get(); // a failed put fails the child, and the parent shows its output
      }
    } finally {
      pool.shutdown();
    }
  }

  /**
   * What the child writes, drawn from a seed, so that the parent draws the same and a failure
   * replays with the test's seed.
   *
   * @param namespace where the acknowledged records go
   * @param records the records put before {@value #WRITTEN}, {@code findable} among them
   * @param deleted the record of {@code records} deleted before {@value #WRITTEN}
   * @param findable an active record, the only one holding {@code word}
   * @param word the word that finds {@code findable}
   * @param fileNamespace the namespace of the memory file written before {@value #WRITTEN}
   * @param file that file's content
   * @param sequenceNamespace where the records of the sequence go
   * @param sequence the records put one after another, the first {@value #SEQUENCE_ACKNOWLEDGED}
   *     before {@value #WRITTEN}
   * @param sequenceFileNamespace the namespace whose file the sequence rewrites
   */
  record Workload(
      Namespace namespace,
      List<MemoryRecord> records,
      MemoryRecord deleted,
      MemoryRecord findable,
      String word,
      Namespace fileNamespace,
      String file,
      Namespace sequenceNamespace,
      List<MemoryRecord> sequence,
      Namespace sequenceFileNamespace) {
    static final int ACKNOWLEDGED = 200;
    static final int SEQUENCE = 500;
    static final int SEQUENCE_ACKNOWLEDGED = 20;

    static Workload of(long seed) {
      RandomMemories gen = new RandomMemories(new Random(seed));
      Random random = gen.random();
      Namespace namespace = gen.namespace();
      List<MemoryRecord> records = new ArrayList<>();
      for (int i = 0; i < ACKNOWLEDGED; i++) {
        records.add(gen.fullRecord(namespace, gen.id()));
      }
      String word = gen.word();
      Instant created = gen.instant();
      MemoryRecord findable =
          gen.record(namespace, gen.id(), "findable " + word + " " + gen.unicodeFragment(), created)
              .build();
      MemoryRecord deleted = records.get(random.nextInt(records.size()));
      records.add(random.nextInt(records.size() + 1), findable);
      Namespace fileNamespace = gen.namespace();
      String file = "# Memory\n\n- " + gen.unicodeFragment() + "\n- " + gen.word() + " 🚀\n";
      Namespace sequenceNamespace = gen.namespace();
      List<MemoryRecord> sequence = new ArrayList<>();
      for (int i = 0; i < SEQUENCE; i++) {
        sequence.add(gen.fullRecord(sequenceNamespace, gen.id()));
      }
      return new Workload(
          namespace,
          List.copyOf(records),
          deleted,
          findable,
          word,
          fileNamespace,
          file,
          sequenceNamespace,
          List.copyOf(sequence),
          gen.namespace());
    }

    /** The records that must be there after the kill: all but the deleted one. */
    List<MemoryRecord> survivors() {
      return records.stream().filter(r -> r != deleted).toList();
    }

    /** Version {@code i} of the file the sequence rewrites; long enough to tear. */
    static String sequenceFile(int i) {
      return "# Sequence\n\n" + ("- version " + i + " 用户喜欢简洁的回答\n").repeat(200);
    }
  }

  /**
   * Starts the child and returns once it has written what it acknowledges, in the middle of its
   * sequence (or fails with its output).
   */
  static Process start(
      Class<?> provider,
      Class<?> embedder,
      Path dataDirectory,
      long workloadSeed,
      Map<String, String> settings)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(ProcessHandle.current().info().command().orElseThrow());
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(CrashChild.class.getName());
    command.add(provider.getName());
    command.add(embedder.getName());
    command.add(dataDirectory.toString());
    command.add(Long.toString(workloadSeed));
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

  private static <T> T instance(Class<?> implementation, Class<T> type)
      throws ReflectiveOperationException {
    return type.cast(implementation.getDeclaredConstructor().newInstance());
  }
}
