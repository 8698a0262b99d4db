package dev.memsidecar.sidecar;

import dev.memsidecar.core.CoreModule;
import dev.memsidecar.core.MemoryEngine;
import dev.memsidecar.core.StartupException;
import dev.memsidecar.sidecar.bench.BenchCommand;
import dev.memsidecar.sidecar.config.ConfigException;
import dev.memsidecar.sidecar.config.ConfigLoader;
import dev.memsidecar.sidecar.config.SidecarConfig;
import io.grpc.ServerBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Properties;
import sun.misc.Signal;

/**
 * The command line: {@code memsidecar serve [flags]}, {@code memsidecar version}, {@code memsidecar
 * bench ...} ({@link BenchCommand}).
 */
public final class Main {
  static final String USAGE =
      """
      usage: java -jar memsidecar.jar serve [--workspace DIR] [--host HOST] [--port N] [--data DIR]
                                            [--plugins DIR]
             java -jar memsidecar.jar version
             java -jar memsidecar.jar bench locomo --data FILE [options]
             java -jar memsidecar.jar bench load [options]
             java -jar memsidecar.jar bench footprint [options]
             java -jar memsidecar.jar --help

      serve         run the sidecar until SIGTERM or SIGINT
        --workspace DIR  the workspace folder: reads DIR/memsidecar.yaml and
                         DIR/config/memory/*.yaml (both optional). Default: current directory
        --host HOST      address to listen on (default 127.0.0.1; env MEMSIDECAR_HOST)
        --port N         port to listen on, 0 for any free port (default 7411; env MEMSIDECAR_PORT)
        --data DIR       where generated data lives (default DIR/.memsidecar; env MEMSIDECAR_DATA)
        --plugins DIR    provider jars to load, each in its own class loader (default DIR/plugins)
        --help           this text
      version       print the version
      bench         measure a sidecar it starts, through its gRPC API: 'bench locomo' (evidence
                    recall on LoCoMo), 'bench load' (latency, throughput, start time, peak RSS),
                    'bench footprint' (RSS idle, under a mix of calls, settled);
                    'bench NAME --help' lists the options of each

      Precedence: built-in defaults < memsidecar.yaml < environment < flags. When the server accepts
      calls it prints one line "listening on HOST:PORT" on stdout; logs go to stderr.
      SIGTERM: health turns NOT_SERVING, in-flight calls finish, exit 0.
      """;

  private static final System.Logger LOG = System.getLogger(Main.class.getName());
  private static final long SHUTDOWN_GRACE_MILLIS = 10_000;

  private Main() {}

  public static void main(String[] args) {
    // Guice's class generation (for AOP, which we do not use) calls sun.misc.Unsafe, which new
    // JDKs warn about on every start.
    System.setProperty("guice_bytecode_gen_option", "DISABLED");
    System.exit(run(args, System.out, System.err));
  }

  static int run(String[] args, PrintStream out, PrintStream err) {
    if (args.length == 0 || args[0].equals("--help") || args[0].equals("-h")) {
      out.print(USAGE);
      return args.length == 0 ? 2 : 0;
    }
    return switch (args[0]) {
      case "version" -> {
        out.println("memsidecar " + version());
        yield 0;
      }
      case "bench" -> BenchCommand.run(Arrays.copyOfRange(args, 1, args.length), out, err);
      case "serve" -> serve(Arrays.asList(args).subList(1, args.length).iterator(), out, err);
      default -> usageError(err, "unknown command '" + args[0] + "'");
    };
  }

  private static int serve(Iterator<String> args, PrintStream out, PrintStream err) {
    Path workspace = Path.of(".");
    String host = null;
    Integer port = null;
    Path data = null;
    Path plugins = null;
    while (args.hasNext()) {
      String flag = args.next();
      if (flag.equals("--help") || flag.equals("-h")) {
        out.print(USAGE);
        return 0;
      }
      if (!args.hasNext()) {
        return usageError(
            err, flag.startsWith("--") ? flag + " needs a value" : "unexpected '" + flag + "'");
      }
      String value = args.next();
      switch (flag) {
        case "--workspace" -> workspace = Path.of(value);
        case "--host" -> host = value;
        case "--data" -> data = Path.of(value);
        case "--plugins" -> plugins = Path.of(value);
        case "--port" -> {
          try {
            port = Integer.parseInt(value);
          } catch (NumberFormatException e) {
            return usageError(err, "--port must be a number: '" + value + "'");
          }
        }
        default -> {
          return usageError(err, "unknown flag '" + flag + "'");
        }
      }
    }

    SidecarServer server;
    SidecarConfig config;
    UnixSocket unix = null;
    try {
      config =
          ConfigLoader.load(
              workspace.toAbsolutePath().normalize(),
              System.getenv(),
              new ConfigLoader.Overrides(host, port, data, plugins));
      List<ServerBuilder<?>> listeners = new ArrayList<>();
      listeners.add(
          NettyServerBuilder.forAddress(new InetSocketAddress(config.host(), config.port())));
      if (config.unixSocket() != null) {
        unix = UnixSocket.prepare(config.unixSocket());
        listeners.add(unix.builder());
      }
      MemoryEngine engine = new CoreModule(config.engine(), Main.class.getClassLoader()).engine();
      server =
          new SidecarServer(
                  listeners,
                  engine,
                  version(),
                  config.maxConcurrentCalls(),
                  config.maxQueuedCalls(),
                  config.authToken())
              .start();
      if (unix != null) {
        unix.publish();
      }
    } catch (StartupException e) {
      if (unix != null) {
        unix.close();
      }
      return cannotStart(err, e.getMessage(), e instanceof ConfigException ? 2 : 1);
    } catch (RuntimeException | Error e) {
      LOG.log(System.Logger.Level.ERROR, "unexpected failure at start-up", e);
      return cannotStart(err, "unexpected " + e + " (stack trace logged)", 1);
    }
    SidecarServer running = server;
    UnixSocket socket = unix;
    Runnable stop =
        () -> {
          running.stop(SHUTDOWN_GRACE_MILLIS);
          if (socket != null) {
            socket.close();
          }
        };
    // SIGTERM/SIGINT: stop in order, then exit 0 (the JVM's own handler would exit with 143).
    for (String signal : new String[] {"TERM", "INT"}) {
      Signal.handle(
          new Signal(signal),
          s -> {
            stop.run();
            System.exit(0);
          });
    }
    Runtime.getRuntime().addShutdownHook(new Thread(stop, "memsidecar-shutdown"));

    if (unix != null) {
      LOG.log(System.Logger.Level.INFO, "also listening on unix:" + unix.path());
    }
    HeapTuning.apply();
    out.println("listening on " + hostPort(config.host(), server.port()));
    out.flush();
    try {
      server.awaitTermination();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return 0;
  }

  static String version() {
    try (InputStream in = Main.class.getResourceAsStream("version.properties")) {
      Properties p = new Properties();
      if (in != null) {
        p.load(in);
      }
      return p.getProperty("version", "dev");
    } catch (IOException e) {
      return "dev";
    }
  }

  private static String hostPort(String host, int port) {
    return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
  }

  private static int usageError(PrintStream err, String message) {
    err.println("memsidecar: " + message);
    err.println("run 'java -jar memsidecar.jar --help' for usage");
    return 2;
  }

  /** The one line every start-up failure prints; returns {@code exitCode}. */
  private static int cannotStart(PrintStream err, String message, int exitCode) {
    err.println("memsidecar: cannot start: " + message);
    return exitCode;
  }
}
