package dev.memsidecar.sidecar.bench;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.proto.v1.AdminServiceGrpc;
import dev.memsidecar.proto.v1.GetStatusRequest;
import dev.memsidecar.proto.v1.ProfileStatus;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A sidecar child process, {@code <command> serve --workspace DIR --host 127.0.0.1 --port 0}, and a
 * plaintext gRPC channel to it. {@link #start} returns once the child printed {@code listening on
 * HOST:PORT}; the time from spawn to that line is {@link #startNanos}. The child's stderr goes to a
 * temp file, quoted when it fails to start. The environment's {@code MEMSIDECAR_HOST}, {@code
 * MEMSIDECAR_PORT} and {@code MEMSIDECAR_DATA} are not passed on.
 *
 * <p>One thread starts and terminates it; {@link #channel} may be used from any thread.
 */
public final class SidecarProcess implements AutoCloseable {
  private static final Pattern LISTENING = Pattern.compile("^listening on (.+):(\\d+)$");
  private static final Pattern VM_HWM = Pattern.compile("^VmHWM:\\s+(\\d+)\\s+kB$");
  private static final Pattern VM_RSS = Pattern.compile("^VmRSS:\\s+(\\d+)\\s+kB$");
  private static final Pattern RSS_FILE = Pattern.compile("^RssFile:\\s+(\\d+)\\s+kB$");
  private static final long READY_LIMIT_SECONDS = 120;

  private final Process process;
  private final long startNanos;
  private final ManagedChannel channel;
  private final String address;
  private final String dial;
  private final int port;
  private final Path stderr;

  private SidecarProcess(Process process, long startNanos, String host, int port, Path stderr) {
    this.process = process;
    this.startNanos = startNanos;
    this.stderr = stderr;
    this.dial = host.equals("0.0.0.0") ? "127.0.0.1" : host.replace("[", "").replace("]", "");
    this.port = port;
    this.address = host + ":" + port;
    this.channel = newChannel();
  }

  /**
   * The command that runs {@code jar} on the JVM running this code, with the JVM options of {@code
   * sidecar/bin/memsidecar} (Lucene's SIMD through the incubating Vector API, JVM logs on stderr;
   * no class-data sharing) and those of {@code MEMSIDECAR_JAVA_OPTS}.
   */
  public static List<String> javaCommand(Path jar) {
    List<String> command = javaWithOptions();
    command.addAll(List.of("-jar", jar.toAbsolutePath().normalize().toString()));
    return command;
  }

  /**
   * The command that runs the sidecar whose entry point is {@code mainClass} (the class that runs
   * {@code serve}, handed down by the command line that runs the bench, so this package never
   * refers to it): {@link #javaCommand} of the jar holding it, or, when the classes come from a
   * folder (an IDE, a test), {@code mainClass} on this JVM's class path.
   */
  public static List<String> selfCommand(Class<?> mainClass) {
    requireNonNull(mainClass, "mainClass is null");
    CodeSource source = mainClass.getProtectionDomain().getCodeSource();
    Path location = null;
    if (source != null && source.getLocation() != null) {
      try {
        location = Path.of(source.getLocation().toURI());
      } catch (URISyntaxException | IllegalArgumentException e) {
        location = null;
      }
    }
    if (location != null && Files.isRegularFile(location)) {
      return javaCommand(location);
    }
    List<String> command = javaWithOptions();
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), mainClass.getName()));
    return command;
  }

  /** The command that runs a launcher script such as {@code sidecar/bin/memsidecar}. */
  public static List<String> launcherCommand(Path launcher) {
    return List.of(launcher.toAbsolutePath().normalize().toString());
  }

  /**
   * Starts {@code java -jar jar} ({@link #javaCommand}), or the {@code launcher} script when it is
   * not null, on {@code workspace} (data in {@code workspace/.memsidecar}).
   */
  public static SidecarProcess start(Path jar, Path launcher, Path workspace)
      throws IOException, InterruptedException {
    return start(launcher == null ? javaCommand(jar) : launcherCommand(launcher), workspace, null);
  }

  /**
   * Starts {@code command serve --workspace workspace --host 127.0.0.1 --port 0 [--data data]} and
   * waits (up to 2 minutes) for its {@code listening on} line.
   *
   * @param data the data folder, or null for the workspace's own setting
   * @throws IllegalStateException when the child exits or stays silent first; the message quotes
   *     the end of its stderr
   */
  public static SidecarProcess start(List<String> command, Path workspace, Path data)
      throws IOException, InterruptedException {
    return start(command, workspace, data, Map.of());
  }

  /** {@link #start(List, Path, Path)} with {@code env} added to the child's environment. */
  public static SidecarProcess start(
      List<String> command, Path workspace, Path data, Map<String, String> env)
      throws IOException, InterruptedException {
    requireNonNull(command, "command is null");
    requireNonNull(workspace, "workspace is null");
    Path stderr = Files.createTempFile("memsidecar-bench", ".stderr.log");
    List<String> full = new ArrayList<>(command);
    full.addAll(
        List.of(
            "serve",
            "--workspace",
            workspace.toAbsolutePath().toString(),
            "--host",
            "127.0.0.1",
            "--port",
            "0"));
    if (data != null) {
      full.addAll(List.of("--data", data.toAbsolutePath().toString()));
    }
    ProcessBuilder builder = new ProcessBuilder(full);
    builder.environment().remove("MEMSIDECAR_HOST");
    builder.environment().remove("MEMSIDECAR_PORT");
    builder.environment().remove("MEMSIDECAR_DATA");
    builder.environment().putAll(env);
    builder.redirectError(stderr.toFile());
    long t0 = System.nanoTime();
    Process process = builder.start();
    CompletableFuture<Listening> ready = new CompletableFuture<>();
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader in =
                  new BufferedReader(
                      new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                  Matcher m = LISTENING.matcher(line);
                  if (!ready.isDone() && m.matches()) {
                    ready.complete(
                        new Listening(
                            System.nanoTime() - t0, m.group(1), Integer.parseInt(m.group(2))));
                  }
                }
                ready.completeExceptionally(new IllegalStateException("its stdout closed"));
              } catch (IOException e) {
                ready.completeExceptionally(e);
              }
            },
            "sidecar-stdout");
    reader.setDaemon(true);
    reader.start();
    Listening listening;
    try {
      listening = ready.get(READY_LIMIT_SECONDS, TimeUnit.SECONDS);
    } catch (TimeoutException | ExecutionException e) {
      process.destroyForcibly();
      process.waitFor(10, TimeUnit.SECONDS);
      String why = e instanceof TimeoutException ? "no line in " + READY_LIMIT_SECONDS + " s" : "";
      if (e.getCause() != null) {
        why = e.getCause().getMessage();
      }
      String tail = tail(stderr, 30);
      Files.deleteIfExists(stderr);
      throw new IllegalStateException(
          "the sidecar did not print 'listening on' (" + why + "); its stderr ends with:\n" + tail,
          e);
    }
    return new SidecarProcess(process, listening.nanos, listening.host, listening.port, stderr);
  }

  private record Listening(long nanos, String host, int port) {}

  /** A channel to the sidecar; closed by {@link #terminate} and {@link #close}. */
  public ManagedChannel channel() {
    return channel;
  }

  /**
   * A new channel to the sidecar, for a client that wants its own connection; the caller shuts it
   * down.
   */
  public ManagedChannel newChannel() {
    return Grpc.newChannelBuilderForAddress(dial, port, InsecureChannelCredentials.create())
        .build();
  }

  /**
   * Waits until no profile of the sidecar has records waiting for their vectors (GetStatus {@code
   * profiles[].vectors_pending}), polling every 100 ms for at most {@code timeout}; returns how
   * long it waited, in nanoseconds. A provider that embeds as it writes never has any waiting.
   *
   * @throws TimeoutException if records still wait after {@code timeout}
   */
  public long awaitVectors(Duration timeout) throws InterruptedException, TimeoutException {
    AdminServiceGrpc.AdminServiceBlockingStub admin = AdminServiceGrpc.newBlockingStub(channel);
    long started = System.nanoTime();
    while (true) {
      long pending =
          admin
              .withDeadlineAfter(30, TimeUnit.SECONDS)
              .getStatus(GetStatusRequest.getDefaultInstance())
              .getProfilesList()
              .stream()
              .mapToLong(ProfileStatus::getVectorsPending)
              .sum();
      long waited = System.nanoTime() - started;
      if (pending == 0) {
        return waited;
      }
      if (waited > timeout.toNanos()) {
        throw new TimeoutException(
            pending + " records still wait for their vectors after " + timeout);
      }
      Thread.sleep(100);
    }
  }

  /** Spawn to the {@code listening on} line, in nanoseconds. */
  public long startNanos() {
    return startNanos;
  }

  /** {@code HOST:PORT} as the sidecar printed it. */
  public String address() {
    return address;
  }

  /** The process id of the child (of the JVM, also through a launcher script that execs it). */
  public long pid() {
    return process.pid();
  }

  /**
   * The child's peak resident set size so far ({@code VmHWM} of {@code /proc/<pid>/status}), in
   * bytes; empty where there is no such file (not Linux) or the child has exited.
   */
  public OptionalLong peakRssBytes() {
    return procStatusKb(VM_HWM);
  }

  /**
   * The child's resident set size now ({@code VmRSS} of {@code /proc/<pid>/status}), in bytes;
   * empty where there is no such file (not Linux) or the child has exited.
   */
  public OptionalLong rssBytes() {
    return procStatusKb(VM_RSS);
  }

  /**
   * The part of {@link #rssBytes} that is pages of mapped files ({@code RssFile}: the jar, the
   * class-data archive, index files a store maps), which the kernel can drop and read again; empty
   * where there is no such file.
   */
  public OptionalLong fileRssBytes() {
    return procStatusKb(RSS_FILE);
  }

  private OptionalLong procStatusKb(Pattern line) {
    Path status = Path.of("/proc", Long.toString(process.pid()), "status");
    try {
      for (String l : Files.readAllLines(status, StandardCharsets.UTF_8)) {
        Matcher m = line.matcher(l);
        if (m.matches()) {
          return OptionalLong.of(Long.parseLong(m.group(1)) * 1024);
        }
      }
    } catch (IOException | RuntimeException e) {
      return OptionalLong.empty();
    }
    return OptionalLong.empty();
  }

  /**
   * The CPU time the child has used so far (user and system, {@code /proc/<pid>/stat}), in
   * nanoseconds, assuming the usual 100 clock ticks per second; empty where there is no such file.
   */
  public OptionalLong cpuNanos() {
    Path stat = Path.of("/proc", Long.toString(process.pid()), "stat");
    try {
      String line = Files.readString(stat, StandardCharsets.UTF_8);
      // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
      String[] f = line.substring(line.lastIndexOf(')') + 2).split(" ");
      long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
      return OptionalLong.of(ticks * 10_000_000L);
    } catch (IOException | RuntimeException e) {
      return OptionalLong.empty();
    }
  }

  /** The last {@code lines} lines the child wrote to stderr. */
  public String stderrTail(int lines) {
    return tail(stderr, lines);
  }

  /**
   * Closes the channel, sends SIGTERM and waits up to a minute for the exit (then kills it).
   *
   * @return the exit code, -1 when it had to be killed
   */
  public int terminate() throws InterruptedException {
    channel.shutdownNow();
    process.destroy();
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      System.err.println("sidecar ignored SIGTERM for 60 s; killed");
      return -1;
    }
    return process.exitValue();
  }

  /**
   * Kills the child with SIGKILL ({@code kill -9}: no shutdown hook, no close of its stores) and
   * waits for it to be gone; closes the channel.
   */
  public void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor();
    channel.shutdownNow();
  }

  /** Terminates the child if it still runs and deletes its stderr file. */
  @Override
  public void close() throws IOException, InterruptedException {
    channel.shutdownNow();
    if (process.isAlive()) {
      terminate();
    }
    Files.deleteIfExists(stderr);
  }

  private static List<String> javaWithOptions() {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    // The same options as sidecar/bin/memsidecar, so the figures are those of the real process.
    command.addAll(
        List.of(
            "-Xlog:disable",
            "-Xlog:all=warning:stderr",
            "--add-modules",
            "jdk.incubator.vector",
            "--enable-native-access=ALL-UNNAMED"));
    if (Runtime.version().feature() >= 23) {
      command.add("--sun-misc-unsafe-memory-access=allow");
    }
    String extra = System.getenv("MEMSIDECAR_JAVA_OPTS");
    if (extra != null && !extra.isBlank()) {
      command.addAll(List.of(extra.strip().split("\\s+")));
    }
    return command;
  }

  private static String tail(Path file, int lines) {
    try {
      List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException e) {
      return String.format(Locale.ROOT, "(unreadable: %s)", e);
    }
  }
}
