package dev.memsidecar.jdbc.postgresql;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.ProcessBuilder.Redirect;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * A throwaway PostgreSQL server for tests: Debian's binaries ({@value #DEFAULT_BIN}, or the folder
 * in {@code -D}{@value #BIN_PROPERTY}) run {@code initdb} into a new temporary folder and {@code
 * postgres} on a free port of 127.0.0.1 with its unix socket in that folder, {@code fsync} off;
 * {@link #close} stops the server and deletes the folder. {@link #shared()} is one server per JVM,
 * stopped when the JVM exits; {@link #createDatabase()} gives each test a database of its own.
 *
 * <p>The superuser is {@value #USER} with the password {@value #PASSWORD}, checked with SCRAM on
 * every connection (local and TCP), so tests use the password path a real deployment does.
 *
 * <p>{@code initdb} refuses to run as root, which CI is: as root the binaries run as the {@code
 * postgres} system user (made by Debian's package) through {@code setpriv}, and the folder is
 * handed to that user; as anyone else they run as that user. The server is started by a thread that
 * lives as long as it, with {@code setpriv --pdeathsig INT}: if the JVM dies without stopping it
 * ({@code kill -9}), the server shuts down by itself (its folder stays in the temporary directory).
 *
 * <p>A test can take the server away under its clients and bring it back on the same port and data:
 * {@link #stop} (a fast shutdown: sessions are ended with SQLSTATE {@code 57P01}, a checkpoint is
 * written), {@link #kill} ({@code kill -9} of the postmaster, a crash: its backends end when they
 * notice, and the next start replays the WAL), {@link #restart} and {@link #crash}. With {@code
 * fsync} off a crash of the server loses nothing committed, as long as the machine does not crash
 * too: the WAL a commit wrote is in the operating system's page cache, which outlives the
 * processes.
 *
 * <p>Missing binaries fail with {@link IllegalStateException} saying what to install: a test that
 * needs PostgreSQL fails rather than skips. Thread-safe.
 */
public final class PostgresCluster implements AutoCloseable {
  /** The system property naming the folder of {@code initdb} and {@code postgres}. */
  public static final String BIN_PROPERTY = "memsidecar.postgres.bin";

  /** Where Debian's {@code postgresql-15} package puts them. */
  public static final String DEFAULT_BIN = "/usr/lib/postgresql/15/bin";

  public static final String USER = "memsidecar";
  public static final String PASSWORD = "throwaway-test-password";

  private static final String SYSTEM_USER = "postgres";
  private static final long START_TIMEOUT_MILLIS = 60_000;
  private static PostgresCluster shared;

  private final Path folder;
  private final int port;
  private final boolean root;
  private final Path bin;
  private final boolean fsync;
  private final AtomicInteger databases = new AtomicInteger();
  private Process server;
  private volatile boolean closed;

  private PostgresCluster(
      Path folder, int port, boolean root, Path bin, boolean fsync, Process server) {
    this.folder = folder;
    this.port = port;
    this.root = root;
    this.bin = bin;
    this.fsync = fsync;
    this.server = server;
  }

  /** The server of this JVM, started on first use and stopped when the JVM exits. */
  public static synchronized PostgresCluster shared() {
    if (shared == null) {
      PostgresCluster started = start();
      Runtime.getRuntime().addShutdownHook(new Thread(started::close, "postgres-cluster-stop"));
      shared = started;
    }
    return shared;
  }

  /**
   * Starts a new server.
   *
   * @throws IllegalStateException if the binaries are missing, or the server does not start (the
   *     message holds the end of its log)
   */
  public static PostgresCluster start() {
    return start(false);
  }

  /**
   * Starts a new server, with {@code fsync} and {@code full_page_writes} on (a benchmark's figures,
   * durable across a crash of the machine) or off (the tests': faster, durable across a crash of
   * the server only).
   */
  public static PostgresCluster start(boolean fsync) {
    Path bin = Path.of(System.getProperty(BIN_PROPERTY, DEFAULT_BIN));
    for (String tool : List.of("initdb", "postgres")) {
      if (!Files.isExecutable(bin.resolve(tool))) {
        throw new IllegalStateException(
            "the tests on PostgreSQL need its server binaries, and "
                + bin.resolve(tool)
                + " is missing: install PostgreSQL 15 (Debian: apt-get install -y postgresql-15),"
                + " or name the folder of another installation's initdb and postgres with -D"
                + BIN_PROPERTY
                + "=...");
      }
    }
    try {
      boolean root = isRoot();
      Path folder = Files.createTempDirectory("memsidecar-pg-");
      try {
        if (root) {
          handToSystemUser(folder);
        }
        Path pwfile = folder.resolve("pwfile");
        Files.writeString(pwfile, PASSWORD + "\n", StandardCharsets.UTF_8);
        if (root) {
          handToSystemUser(pwfile);
        }
        Path data = folder.resolve("data");
        run(
            folder,
            command(
                root,
                false,
                bin.resolve("initdb").toString(),
                "-D",
                data.toString(),
                "-U",
                USER,
                "--pwfile=" + pwfile,
                "-A",
                "scram-sha-256",
                "-E",
                "UTF8",
                "--locale=C",
                "--no-sync",
                "--no-instructions"));
        Files.delete(pwfile);
        IllegalStateException failure = null;
        for (int attempt = 0; attempt < 3; attempt++) {
          int port = freePort();
          try {
            return new PostgresCluster(
                folder, port, root, bin, fsync, startServer(root, bin, folder, data, port, fsync));
          } catch (IllegalStateException e) {
            // Most likely the port was taken between freePort and the server's bind: try another.
            failure = e;
          }
        }
        throw failure;
      } catch (IOException | RuntimeException e) {
        deleteRecursively(folder);
        throw e;
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start a PostgreSQL server for the tests", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while starting PostgreSQL", e);
    }
  }

  /** The folder of the server's data, socket and log; deleted by {@link #close}. */
  public Path folder() {
    return folder;
  }

  /** The server's TCP port on 127.0.0.1. */
  public int port() {
    return port;
  }

  /** The JDBC URL of {@code database} on this server, over TCP; it holds no credentials. */
  public String url(String database) {
    return "jdbc:postgresql://127.0.0.1:" + port + "/" + database;
  }

  /**
   * Creates a new empty database and returns its name ({@code test_<n>}), so that each test starts
   * from nothing.
   */
  public String createDatabase() {
    String name = "test_" + databases.incrementAndGet();
    try (Connection c = connect("postgres");
        Statement st = c.createStatement()) {
      st.execute("CREATE DATABASE " + name);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot create database " + name + ": " + e.getMessage(), e);
    }
    return name;
  }

  /** A new connection to {@code database} as the superuser. */
  public Connection connect(String database) throws SQLException {
    return DriverManager.getConnection(url(database), USER, PASSWORD);
  }

  /** Whether the server is running (not {@link #stop stopped}, {@link #kill killed} or closed). */
  public synchronized boolean isRunning() {
    return !closed && server != null && server.isAlive();
  }

  /**
   * Stops the server with a fast shutdown (SIGINT): open sessions are ended ({@code FATAL:
   * terminating connection due to administrator command}, SQLSTATE {@code 57P01}), a checkpoint is
   * written, and the server exits. Its data and port stay for {@link #restart}. Does nothing if it
   * is not running.
   *
   * @throws IllegalStateException if it is closed or does not exit within 60 s
   */
  public synchronized void stop() {
    Process running = running("stop");
    if (running == null) {
      return;
    }
    signal(running, "INT");
    awaitExit(running, "a fast shutdown");
    server = null;
  }

  /**
   * Crashes the server: {@code kill -9} of the postmaster, then waits until its backends and
   * auxiliary processes, which notice their parent's death, are gone too (any left after 30 s are
   * killed as well). Its data and port stay: {@link #restart} then replays the WAL. Does nothing if
   * it is not running.
   *
   * @throws IllegalStateException if it is closed, or a process does not go away
   */
  public synchronized void kill() {
    Process running = running("kill");
    if (running == null) {
      return;
    }
    List<ProcessHandle> children = running.descendants().toList();
    signal(running, "KILL");
    awaitExit(running, "kill -9");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    for (ProcessHandle child : children) {
      try {
        child.onExit().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (java.util.concurrent.TimeoutException e) {
        child.destroyForcibly();
        child.onExit().join();
      } catch (ExecutionException e) {
        throw new IllegalStateException("cannot wait for " + child.pid(), e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for " + child.pid(), e);
      }
    }
    server = null;
  }

  /**
   * Starts the server again on its data and port, and returns once it accepts connections; stops it
   * first ({@link #stop}) if it is running. After a {@link #kill} the server first recovers from
   * its WAL.
   *
   * @throws IllegalStateException if it is closed or does not start (the message holds the end of
   *     its log)
   */
  public synchronized void restart() {
    stop();
    try {
      server = startServer(root, bin, folder, folder.resolve("data"), port, fsync);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start PostgreSQL again on port " + port, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while starting PostgreSQL again", e);
    }
  }

  /** {@link #kill} then {@link #restart}: the server crashes and recovers. */
  public synchronized void crash() {
    kill();
    restart();
  }

  private Process running(String what) {
    if (closed) {
      throw new IllegalStateException("cannot " + what + " " + this + ": it is closed");
    }
    return server != null && server.isAlive() ? server : null;
  }

  private static void signal(Process p, String signal) {
    try {
      Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(p.pid())).start();
      if (kill.waitFor() != 0) {
        throw new IllegalStateException("kill -" + signal + " " + p.pid() + " failed");
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run kill -" + signal, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while sending " + signal, e);
    }
  }

  private void awaitExit(Process p, String what) {
    try {
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        throw new IllegalStateException(
            "PostgreSQL did not exit within 60 s of " + what + ":\n" + tail(log()));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for PostgreSQL to exit", e);
    }
  }

  private Path log() {
    return folder.resolve("postgres-" + port + ".log");
  }

  /** Stops the server at once (clients are cut off) and deletes its folder. Idempotent. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (server != null && server.isAlive()) {
      try {
        // SIGQUIT: immediate shutdown; nothing in the folder is kept.
        new ProcessBuilder("kill", "-QUIT", Long.toString(server.pid())).start().waitFor();
        if (!server.waitFor(30, TimeUnit.SECONDS)) {
          server.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
      } catch (IOException e) {
        server.destroyForcibly();
      } catch (InterruptedException e) {
        server.destroyForcibly();
        Thread.currentThread().interrupt();
      }
    }
    deleteRecursively(folder);
  }

  @Override
  public String toString() {
    return "PostgresCluster[127.0.0.1:" + port + ", " + folder + "]";
  }

  private static Process startServer(
      boolean root, Path bin, Path folder, Path data, int port, boolean fsync)
      throws IOException, InterruptedException {
    Path log = folder.resolve("postgres-" + port + ".log");
    ProcessBuilder builder =
        new ProcessBuilder(
                command(
                    root,
                    true,
                    bin.resolve("postgres").toString(),
                    "-D",
                    data.toString(),
                    "-p",
                    Integer.toString(port),
                    "-k",
                    folder.toString(),
                    "-c",
                    "listen_addresses=127.0.0.1",
                    "-c",
                    "fsync=" + (fsync ? "on" : "off"),
                    "-c",
                    "full_page_writes=" + (fsync ? "on" : "off"),
                    "-c",
                    "max_connections=300",
                    "-c",
                    "shared_buffers=32MB"))
            .directory(folder.toFile())
            .redirectErrorStream(true)
            .redirectOutput(Redirect.appendTo(log.toFile()));
    // Started by a thread that lives as long as the server: --pdeathsig fires when the thread
    // that started the process ends, not only when the JVM does.
    CompletableFuture<Process> started = new CompletableFuture<>();
    Thread keeper =
        new Thread(
            () -> {
              Process p;
              try {
                p = builder.start();
              } catch (IOException | RuntimeException e) {
                started.completeExceptionally(e);
                return;
              }
              started.complete(p);
              while (true) {
                try {
                  p.waitFor();
                  return;
                } catch (InterruptedException e) {
                  // keep the server's parent alive while the server runs
                }
              }
            },
            "postgres-" + port);
    keeper.setDaemon(true);
    keeper.start();
    Process server;
    try {
      server = started.get();
    } catch (ExecutionException e) {
      throw new IOException("cannot run " + bin.resolve("postgres"), e.getCause());
    }
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(START_TIMEOUT_MILLIS);
    SQLException last = null;
    while (System.nanoTime() < deadline) {
      if (!server.isAlive()) {
        throw new IllegalStateException(
            "PostgreSQL exited with " + server.exitValue() + " at start:\n" + tail(log));
      }
      try (Connection c =
          DriverManager.getConnection(
              "jdbc:postgresql://127.0.0.1:" + port + "/postgres", USER, PASSWORD)) {
        return server;
      } catch (SQLException e) {
        last = e;
        Thread.sleep(50);
      }
    }
    server.destroyForcibly();
    throw new IllegalStateException(
        "PostgreSQL did not accept connections within "
            + START_TIMEOUT_MILLIS
            + " ms ("
            + (last == null ? "" : last.getMessage())
            + "):\n"
            + tail(log));
  }

  /** {@code args} as the system user when root; with {@code --pdeathsig INT} for the server. */
  private static List<String> command(boolean root, boolean server, String... args) {
    List<String> out = new ArrayList<>();
    if (root || server) {
      out.add("setpriv");
      if (root) {
        out.addAll(List.of("--reuid=" + SYSTEM_USER, "--regid=" + SYSTEM_USER, "--init-groups"));
      }
      if (server) {
        out.add("--pdeathsig=INT");
      }
      out.add("--");
    }
    out.addAll(List.of(args));
    return out;
  }

  private static void run(Path folder, List<String> command)
      throws IOException, InterruptedException {
    Process p =
        new ProcessBuilder(command).directory(folder.toFile()).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (p.waitFor() != 0) {
      throw new IllegalStateException(
          String.join(" ", command) + " failed with " + p.exitValue() + ":\n" + output);
    }
  }

  private static boolean isRoot() throws IOException {
    return ((Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid")) == 0;
  }

  private static void handToSystemUser(Path path) throws IOException {
    UserPrincipalLookupService users = path.getFileSystem().getUserPrincipalLookupService();
    PosixFileAttributeView view = Files.getFileAttributeView(path, PosixFileAttributeView.class);
    try {
      view.setOwner(users.lookupPrincipalByName(SYSTEM_USER));
      GroupPrincipal group = users.lookupPrincipalByGroupName(SYSTEM_USER);
      view.setGroup(group);
    } catch (java.nio.file.attribute.UserPrincipalNotFoundException e) {
      throw new IllegalStateException(
          "running as root, the PostgreSQL tests run the server as the system user '"
              + SYSTEM_USER
              + "', which does not exist: install Debian's postgresql-15 package (it makes the"
              + " user) or run the tests as another user",
          e);
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  private static String tail(Path log) {
    try {
      List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  private static void deleteRecursively(Path folder) {
    try (Stream<Path> paths = Files.walk(folder)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      // A test's leftovers in the temporary directory; nothing to fail a test for.
    }
  }
}
