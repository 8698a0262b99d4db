package dev.memsidecar.it;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.proto.v1.AdminServiceGrpc;
import dev.memsidecar.proto.v1.LearningServiceGrpc;
import dev.memsidecar.proto.v1.MemoryFileServiceGrpc;
import dev.memsidecar.proto.v1.MemoryServiceGrpc;
import dev.memsidecar.proto.v1.SessionServiceGrpc;
import dev.memsidecar.proto.v1.ToolRuleServiceGrpc;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.reflection.v1.ServerReflectionGrpc;
import io.grpc.reflection.v1.ServerReflectionRequest;
import io.grpc.reflection.v1.ServerReflectionResponse;
import io.grpc.reflection.v1.ServiceResponse;
import io.grpc.stub.StreamObserver;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One memsidecar process started from the built jar, as a user would start it: {@code java -jar
 * memsidecar.jar serve --workspace DIR --port 0 ...}. Stdout is read line by line (the {@code
 * listening on HOST:PORT} line tells the port); stderr goes to a log file whose tail failure
 * messages show. Closing stops the process (SIGTERM, then SIGKILL) and the channel.
 *
 * <p>Not thread-safe for start/stop; the stubs it hands out are.
 */
public final class SidecarProcess implements AutoCloseable {
  /** How long a sidecar may take to print its {@code listening on} line. */
  public static final Duration READY_LIMIT = Duration.ofSeconds(60);

  /** Guard for one RPC, so that a hung server fails a test instead of hanging the build. */
  public static final Duration CALL_LIMIT = Duration.ofSeconds(30);

  /** Guard for a process to exit after a signal. */
  public static final Duration EXIT_LIMIT = Duration.ofSeconds(30);

  private static final Pattern LISTENING = Pattern.compile("^listening on (.+):(\\d+)$");
  private static final List<String> ENV_KEYS =
      List.of(
          "MEMSIDECAR_HOST",
          "MEMSIDECAR_PORT",
          "MEMSIDECAR_DATA",
          "MEMSIDECAR_STORE_URL",
          "MEMSIDECAR_STORE_USER",
          "MEMSIDECAR_STORE_PASSWORD");
  private static final AtomicInteger SEQUENCE = new AtomicInteger();

  private final Process process;
  private final Path stderrLog;
  private final List<String> stdout;
  private final Thread stdoutReader;
  private final String listeningLine;
  private final String host;
  private final int port;
  private final ManagedChannel channel;

  private SidecarProcess(
      Process process,
      Path stderrLog,
      List<String> stdout,
      Thread stdoutReader,
      String listeningLine,
      String host,
      int port) {
    this.process = process;
    this.stderrLog = stderrLog;
    this.stdout = stdout;
    this.stdoutReader = stdoutReader;
    this.listeningLine = listeningLine;
    this.host = host;
    this.port = port;
    String dialHost =
        switch (host) {
          case "0.0.0.0", "" -> "127.0.0.1";
          case "::", "[::]", "0:0:0:0:0:0:0:0" -> "::1";
          default ->
              host.startsWith("[") && host.endsWith("]")
                  ? host.substring(1, host.length() - 1)
                  : host;
        };
    this.channel =
        Grpc.newChannelBuilderForAddress(dialHost, port, InsecureChannelCredentials.create())
            .build();
  }

  /** The jar under test, from system property {@code memsidecar.jar}; fails if it is missing. */
  public static Path jar() {
    String property = System.getProperty("memsidecar.jar");
    Path jar =
        property == null || property.isBlank()
            ? Path.of("..", "..", "sidecar", "target", "memsidecar.jar")
            : Path.of(property);
    jar = jar.toAbsolutePath().normalize();
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException(
          "sidecar jar not found at "
              + jar
              + ": run mvn package first (e.g. `mvn -B -q -pl "
              + "sidecar -am package -DskipTests`)");
    }
    return jar;
  }

  /** The java launcher of this test JVM (>= 21), used to run the jar. */
  public static String java() {
    return ProcessHandle.current().info().command().orElseThrow();
  }

  /** Starts {@code serve --workspace workspace --port 0} plus {@code extraArgs}. */
  public static SidecarProcess start(Path workspace, String... extraArgs) {
    return start(workspace, Map.of(), extraArgs);
  }

  /**
   * Starts {@code serve --workspace workspace --port 0} plus {@code extraArgs}, with {@code env}
   * added to the environment (the MEMSIDECAR_* variables of this JVM are removed first), and waits
   * for the {@code listening on} line.
   */
  public static SidecarProcess start(Path workspace, Map<String, String> env, String... extraArgs) {
    requireNonNull(workspace, "workspace is null");
    env =
        SharedDatabase.ENABLED
            ? SharedDatabase.environment(workspace, env, List.of(extraArgs))
            : env;
    List<String> args = new ArrayList<>();
    args.add("serve");
    args.add("--workspace");
    args.add(workspace.toAbsolutePath().toString());
    args.add("--port");
    args.add("0");
    args.addAll(List.of(extraArgs));
    Path stderrLog = newLogFile();
    Process process = spawn(args, env, stderrLog);
    List<String> stdout = new CopyOnWriteArrayList<>();
    CompletableFuture<String> ready = new CompletableFuture<>();
    Thread reader =
        Thread.ofVirtual()
            .name("sidecar-stdout-" + process.pid())
            .start(() -> readStdout(process.getInputStream(), stdout, ready));
    String line;
    try {
      line = ready.get(READY_LIMIT.toSeconds(), TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      process.destroyForcibly();
      throw new AssertionError(
          "sidecar printed no `listening on HOST:PORT` line within "
              + READY_LIMIT.toSeconds()
              + " s; args "
              + args
              + "\nstdout: "
              + stdout
              + "\n"
              + tail(stderrLog));
    } catch (ExecutionException e) {
      waitQuietly(process);
      throw new AssertionError(
          "sidecar exited before listening (exit code "
              + exitCodeOrNone(process)
              + "); args "
              + args
              + "\nstdout: "
              + stdout
              + "\n"
              + tail(stderrLog),
          e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
      throw new AssertionError("interrupted while waiting for the sidecar", e);
    }
    Matcher m = LISTENING.matcher(line);
    if (!m.matches()) {
      throw new AssertionError("unexpected ready line: " + line);
    }
    return new SidecarProcess(
        process, stderrLog, stdout, reader, line, m.group(1), Integer.parseInt(m.group(2)));
  }

  /**
   * Runs the jar with {@code args} until it exits (killing it past {@code limit}), for commands
   * that are not meant to keep serving: {@code --help}, a bad configuration.
   */
  public static Completed run(Map<String, String> env, Duration limit, String... args) {
    Path stderrLog = newLogFile();
    Process process = spawn(List.of(args), env, stderrLog);
    CompletableFuture<String> stdout =
        CompletableFuture.supplyAsync(
            () -> {
              try (InputStream in = process.getInputStream()) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
            });
    try {
      if (!process.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly().waitFor(EXIT_LIMIT.toSeconds(), TimeUnit.SECONDS);
        throw new AssertionError(
            "memsidecar "
                + List.of(args)
                + " did not exit within "
                + limit
                + "\n"
                + tail(stderrLog));
      }
      String out = stdout.get(EXIT_LIMIT.toSeconds(), TimeUnit.SECONDS);
      String err = Files.readString(stderrLog, StandardCharsets.UTF_8);
      return new Completed(process.exitValue(), out, err);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
      throw new AssertionError("interrupted", e);
    } catch (ExecutionException | TimeoutException | IOException e) {
      throw new AssertionError("could not read the output of memsidecar " + List.of(args), e);
    }
  }

  /** What a process that ran to its end printed. */
  public record Completed(int exitCode, String stdout, String stderr) {
    @Override
    public String toString() {
      return "exit " + exitCode + "\n--- stdout ---\n" + stdout + "\n--- stderr ---\n" + stderr;
    }
  }

  public String host() {
    return host;
  }

  public int port() {
    return port;
  }

  /** The exact {@code listening on HOST:PORT} line. */
  public String listeningLine() {
    return listeningLine;
  }

  /** Every stdout line read so far. */
  public List<String> stdoutLines() {
    return List.copyOf(stdout);
  }

  public ManagedChannel channel() {
    return channel;
  }

  public MemoryServiceGrpc.MemoryServiceBlockingStub memory() {
    return MemoryServiceGrpc.newBlockingStub(channel).withDeadlineAfter(CALL_LIMIT);
  }

  public AdminServiceGrpc.AdminServiceBlockingStub admin() {
    return AdminServiceGrpc.newBlockingStub(channel).withDeadlineAfter(CALL_LIMIT);
  }

  public MemoryFileServiceGrpc.MemoryFileServiceBlockingStub files() {
    return MemoryFileServiceGrpc.newBlockingStub(channel).withDeadlineAfter(CALL_LIMIT);
  }

  public ToolRuleServiceGrpc.ToolRuleServiceBlockingStub toolRules() {
    return ToolRuleServiceGrpc.newBlockingStub(channel).withDeadlineAfter(CALL_LIMIT);
  }

  public SessionServiceGrpc.SessionServiceBlockingStub sessions() {
    return SessionServiceGrpc.newBlockingStub(channel).withDeadlineAfter(CALL_LIMIT);
  }

  public LearningServiceGrpc.LearningServiceBlockingStub learning() {
    return LearningServiceGrpc.newBlockingStub(channel).withDeadlineAfter(CALL_LIMIT);
  }

  public HealthGrpc.HealthBlockingStub health() {
    return HealthGrpc.newBlockingStub(channel).withDeadlineAfter(CALL_LIMIT);
  }

  public ServerReflectionGrpc.ServerReflectionStub reflection() {
    return ServerReflectionGrpc.newStub(channel).withDeadlineAfter(CALL_LIMIT);
  }

  /** The services server reflection lists, waiting at most {@link #CALL_LIMIT}. */
  public List<String> reflectedServices() throws Exception {
    CompletableFuture<List<String>> services = new CompletableFuture<>();
    StreamObserver<ServerReflectionRequest> requests =
        reflection()
            .serverReflectionInfo(
                new StreamObserver<>() {
                  private final List<String> names = new ArrayList<>();

                  @Override
                  public void onNext(ServerReflectionResponse response) {
                    response.getListServicesResponse().getServiceList().stream()
                        .map(ServiceResponse::getName)
                        .forEach(names::add);
                  }

                  @Override
                  public void onError(Throwable t) {
                    services.completeExceptionally(t);
                  }

                  @Override
                  public void onCompleted() {
                    services.complete(names);
                  }
                });
    requests.onNext(ServerReflectionRequest.newBuilder().setListServices("*").build());
    requests.onCompleted();
    return services.get(CALL_LIMIT.toSeconds(), TimeUnit.SECONDS);
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  public long pid() {
    return process.pid();
  }

  /** The last lines of the sidecar's stderr, for failure messages. */
  public String stderrTail() {
    return tail(stderrLog);
  }

  /**
   * The sidecar's threads and their stacks ({@code jcmd <pid> Thread.print} of this test's JDK),
   * for the failure message of a call that stalls; what went wrong instead when they cannot be had.
   */
  public String threadDump() {
    Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
    try {
      Process p =
          new ProcessBuilder(jcmd.toString(), Long.toString(process.pid()), "Thread.print")
              .redirectErrorStream(true)
              .start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      return p.waitFor(CALL_LIMIT.toSeconds(), TimeUnit.SECONDS) && p.exitValue() == 0
          ? out
          : "no thread dump (" + jcmd + "): " + out;
    } catch (IOException e) {
      return "no thread dump (" + jcmd + "): " + e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "no thread dump: interrupted";
    }
  }

  /** The whole stderr so far. */
  public String stderr() {
    try {
      return Files.readString(stderrLog, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Sends SIGTERM and returns the exit code once the process is gone. */
  public int terminate() {
    channel.shutdownNow();
    process.destroy();
    return awaitExit("SIGTERM");
  }

  /** Sends SIGKILL ({@code kill -9}) and returns once the process is gone. */
  public int kill9() {
    channel.shutdownNow();
    process.destroyForcibly();
    return awaitExit("SIGKILL");
  }

  @Override
  public void close() {
    channel.shutdownNow();
    if (process.isAlive()) {
      process.destroy();
      try {
        if (!process.waitFor(EXIT_LIMIT.toSeconds(), TimeUnit.SECONDS)) {
          process.destroyForcibly().waitFor(EXIT_LIMIT.toSeconds(), TimeUnit.SECONDS);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        process.destroyForcibly();
      }
    }
  }

  @Override
  public String toString() {
    return "sidecar pid " + process.pid() + " on " + host + ":" + port;
  }

  private int awaitExit(String signal) {
    try {
      if (!process.waitFor(EXIT_LIMIT.toSeconds(), TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(EXIT_LIMIT.toSeconds(), TimeUnit.SECONDS);
        throw new AssertionError(
            "sidecar did not exit within "
                + EXIT_LIMIT.toSeconds()
                + " s of "
                + signal
                + "\n"
                + stderrTail());
      }
      stdoutReader.join(EXIT_LIMIT.toMillis());
      return process.exitValue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
      throw new AssertionError("interrupted while waiting for the sidecar to exit", e);
    }
  }

  private static Process spawn(List<String> args, Map<String, String> env, Path stderrLog) {
    List<String> command = new ArrayList<>();
    command.add(java());
    command.add("-jar");
    command.add(jar().toString());
    command.addAll(args);
    ProcessBuilder builder = new ProcessBuilder(command);
    ENV_KEYS.forEach(builder.environment()::remove);
    builder.environment().putAll(env);
    builder.redirectInput(ProcessBuilder.Redirect.from(nullDevice()));
    builder.redirectError(ProcessBuilder.Redirect.to(stderrLog.toFile()));
    try {
      return builder.start();
    } catch (IOException e) {
      throw new UncheckedIOException("could not start " + command, e);
    }
  }

  private static java.io.File nullDevice() {
    boolean windows = System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("win");
    return new java.io.File(windows ? "NUL" : "/dev/null");
  }

  private static void readStdout(
      InputStream in, List<String> lines, CompletableFuture<String> ready) {
    try (BufferedReader reader =
        new BufferedReader(new java.io.InputStreamReader(in, StandardCharsets.UTF_8))) {
      String line;
      while ((line = reader.readLine()) != null) {
        lines.add(line);
        if (!ready.isDone() && LISTENING.matcher(line).matches()) {
          ready.complete(line);
        }
      }
      ready.completeExceptionally(new IllegalStateException("stdout closed"));
    } catch (IOException e) {
      ready.completeExceptionally(e);
    }
  }

  private static Path newLogFile() {
    try {
      Path dir = Path.of("target", "sidecar-logs");
      if (Files.isDirectory(Path.of("target"))) {
        Files.createDirectories(dir);
      } else {
        dir = Path.of(System.getProperty("java.io.tmpdir"));
      }
      String name =
          String.format(
              Locale.ROOT,
              "sidecar-%d-%03d-stderr.log",
              ProcessHandle.current().pid(),
              SEQUENCE.incrementAndGet());
      Path log = dir.resolve(name).toAbsolutePath();
      Files.deleteIfExists(log);
      return Files.createFile(log);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String tail(Path log) {
    try {
      List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
      int from = Math.max(0, lines.size() - 40);
      return "--- stderr tail ("
          + log
          + ") ---\n"
          + String.join("\n", lines.subList(from, lines.size()));
    } catch (IOException | UncheckedIOException e) {
      return "--- stderr unreadable (" + log + "): " + e + " ---";
    }
  }

  private static void waitQuietly(Process process) {
    try {
      process.waitFor(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static String exitCodeOrNone(Process process) {
    return process.isAlive() ? "none, still running" : Integer.toString(process.exitValue());
  }
}
