package dev.memsidecar.sidecar;

import dev.memsidecar.core.ConfigurationException;
import dev.memsidecar.core.CoreModule;
import dev.memsidecar.core.EngineStatus;
import dev.memsidecar.core.MemoryEngine;
import dev.memsidecar.core.StartupException;
import dev.memsidecar.core.config.Flags;
import dev.memsidecar.sidecar.bench.BenchCommand;
import dev.memsidecar.sidecar.cli.ClientCommands;
import dev.memsidecar.sidecar.config.ConfigLoader;
import dev.memsidecar.sidecar.config.SidecarConfig;
import io.grpc.ServerBuilder;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.UnmatchedArgumentException;
import sun.misc.Signal;

/**
 * The command line (picocli): {@code memsidecar serve [flags]}, {@code memsidecar version}, {@code
 * memsidecar bench ...} ({@link BenchCommand}). Exit codes: 0 done ({@code --help} included), 2 a
 * usage or configuration error (for {@code serve} the one line {@code memsidecar: cannot start:
 * <message>} naming the flag or key), 1 any other failure. No command prints the usage and exits 2.
 * This class is the top of the sidecar's arrows: it wires the bench and the server, and nothing
 * refers back to it.
 */
@Command(
    name = "java -jar memsidecar.jar",
    usageHelpWidth = 100,
    description = {
      "A long-term memory sidecar for AI agents: one process beside each agent, gRPC on loopback.",
      "sidecar/bin/memsidecar runs it the same way with a java >= 21 it finds."
    })
public final class Main implements Callable<Integer> {
  private static final System.Logger LOG = System.getLogger(Main.class.getName());
  private static final long SHUTDOWN_GRACE_MILLIS = 10_000;
  private static final String SERVE = "serve";

  @Spec CommandSpec spec;

  private final PrintStream out;
  private final PrintStream err;

  private Main(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  public static void main(String[] args) {
    // Guice's class generation (for AOP, which we do not use) calls sun.misc.Unsafe, which new
    // JDKs warn about on every start.
    System.setProperty("guice_bytecode_gen_option", "DISABLED");
    String logProblem = Logging.configure(System.getenv());
    if (logProblem != null) {
      System.err.println("memsidecar: " + logProblem);
    }
    System.exit(run(args, System.out, System.err));
  }

  static int run(String[] args, PrintStream out, PrintStream err) {
    CommandLine cli = new CommandLine(new Main(out, err));
    // picocli reads every subcommand's annotations up front; the bench's tree of commands and
    // options cost serve ~200 ms of its start, so serve is parsed without it.
    boolean serving = args.length > 0 && args[0].equals(SERVE);
    CommandLine bench = serving ? null : BenchCommand.commandLine(out, err, Main.class);
    IParameterExceptionHandler benchUsageError =
        bench == null ? null : bench.getParameterExceptionHandler();
    IExecutionExceptionHandler benchFailure =
        bench == null ? null : bench.getExecutionExceptionHandler();
    if (!serving) {
      ClientCommands.addTo(cli);
    }
    if (bench != null) {
      cli.addSubcommand(bench);
    }
    CommandLine serve = cli.getSubcommands().get(SERVE);
    cli.getCommandSpec().addOption(helpOption("this text, and the flags of serve"));
    serve.getCommandSpec().addOption(helpOption("this text"));
    // As before picocli: a flag given twice takes its last value.
    serve.setOverwrittenOptionsAllowed(true);
    cli.getHelpSectionMap().put(SERVE, help -> "%n".formatted() + serve.getUsageMessage());
    List<String> sections = new ArrayList<>(cli.getHelpSectionKeys());
    sections.add(sections.indexOf(CommandLine.Model.UsageMessageSpec.SECTION_KEY_FOOTER), SERVE);
    cli.setHelpSectionKeys(sections);
    cli.setOut(new PrintWriter(out, true, StandardCharsets.UTF_8));
    cli.setErr(new PrintWriter(err, true, StandardCharsets.UTF_8));
    cli.setParameterExceptionHandler(
        (e, arguments) -> {
          if (bench != null && isWithin(e.getCommandLine(), bench)) {
            return benchUsageError.handleParseException(e, arguments);
          }
          if (e.getCommandLine() == serve) {
            return cannotStart(err, usageProblem(e), 2);
          }
          return usageError(err, usageProblem(e));
        });
    cli.setExecutionExceptionHandler(
        (e, command, parsed) -> {
          if (bench != null && isWithin(command, bench)) {
            return benchFailure.handleExecutionException(e, command, parsed);
          }
          throw e;
        });
    return cli.execute(args);
  }

  /** No command: the usage, as a usage error. */
  @Override
  public Integer call() {
    spec.commandLine().usage(out);
    return 2;
  }

  @Command(name = "version", description = "Prints the version.")
  int version() {
    out.println("memsidecar " + releaseVersion());
    return 0;
  }

  @Command(
      name = SERVE,
      usageHelpWidth = 100,
      sortOptions = false,
      sortSynopsis = false,
      description = "Runs the sidecar until SIGTERM or SIGINT.",
      footer = {
        "",
        "Precedence: built-in defaults < memsidecar.yaml < environment < flags. When the server"
            + " accepts calls it prints one line \"listening on HOST:PORT\" on stdout; logs go to"
            + " stderr. SIGTERM: health turns NOT_SERVING, in-flight calls finish, exit 0."
      })
  int serve(
      @Option(
              names = "--workspace",
              paramLabel = "DIR",
              defaultValue = ".",
              description =
                  "the workspace folder, holding the configuration (memsidecar.yaml and"
                      + " config/memory/*.yaml, both optional); default: the current directory")
          Path workspace,
      @Option(
              names = "--host",
              paramLabel = "HOST",
              description = "address to listen on (default 127.0.0.1; env MEMSIDECAR_HOST)")
          String host,
      @Option(
              names = "--port",
              paramLabel = "N",
              description =
                  "port to listen on, 0 for any free port (default 7411; env MEMSIDECAR_PORT)")
          Integer port,
      @Option(
              names = "--data",
              paramLabel = "DIR",
              description =
                  "where generated data lives (default DIR/.memsidecar; env MEMSIDECAR_DATA)")
          Path data,
      @Option(
              names = "--plugins",
              paramLabel = "DIR",
              description =
                  "provider jars to load, each in its own class loader (default DIR/plugins)")
          Path plugins,
      @Option(
              names = "--unix-socket",
              paramLabel = "PATH",
              description =
                  "also listen on this Unix socket, mode 0600 (server.unixSocket; env"
                      + " MEMSIDECAR_UNIX_SOCKET)")
          Path unixSocket,
      @Option(
              names = "--token-file",
              paramLabel = "FILE",
              description =
                  "every call but health must carry 'authorization: Bearer <the token in FILE>'"
                      + " (server.auth.tokenFile; env MEMSIDECAR_AUTH_TOKEN holds the token"
                      + " itself)")
          Path tokenFile,
      @Option(
              names = "--http-port",
              paramLabel = "N",
              description =
                  "serve /metrics (and the inspector) over HTTP on this port, 0 for any free one"
                      + " (server.http.port; env MEMSIDECAR_HTTP_PORT; default: off)")
          Integer httpPort,
      @Option(
              names = "--inspector",
              description =
                  "serve the web inspector at http://HOST:PORT/inspector/ on the HTTP port,"
                      + " read-only unless server.inspector.writes is true"
                      + " (server.inspector.enabled; needs --http-port or server.http.port)")
          boolean inspectorFlag) {
    SidecarServer server;
    SidecarConfig config;
    UnixSocket unix = null;
    HttpEndpoint http = null;
    try {
      config =
          ConfigLoader.load(
              workspace.toAbsolutePath().normalize(),
              System.getenv(),
              new ConfigLoader.Overrides(
                  host, port, data, plugins, unixSocket, tokenFile, httpPort, inspectorFlag));
      List<ServerBuilder<?>> listeners = new ArrayList<>();
      listeners.add(
          NettyServerBuilder.forAddress(new InetSocketAddress(config.host(), config.port())));
      if (config.unixSocket() != null) {
        unix = UnixSocket.prepare(config.unixSocket());
        listeners.add(unix.builder());
      }
      // The inspector calls the same services, with the same guards, over an in-process channel.
      String inProcessName = "memsidecar-inspector-" + UUID.randomUUID();
      if (config.inspector().enabled()) {
        listeners.add(InProcessServerBuilder.forName(inProcessName));
      }
      MemoryEngine engine = new CoreModule(config.engine(), Main.class.getClassLoader()).engine();
      SidecarMetrics metrics =
          config.httpPort() == null ? null : new SidecarMetrics(engine, config.dataDir());
      SidecarServer built =
          new SidecarServer(
              listeners,
              engine,
              releaseVersion(),
              config.maxConcurrentCalls(),
              config.maxQueuedCalls(),
              config.authToken(),
              metrics == null ? null : metrics.interceptor());
      if (metrics != null) {
        try {
          Inspector inspector =
              config.inspector().enabled()
                  ? new Inspector(
                      InProcessChannelBuilder.forName(inProcessName).directExecutor().build(),
                      engine,
                      releaseVersion(),
                      config.inspector().writes(),
                      config.httpHost(),
                      config.authToken() != null)
                  : null;
          http =
              HttpEndpoint.start(
                  config.httpHost(), config.httpPort(), config.authToken(), metrics, inspector);
        } catch (StartupException e) {
          engine.close();
          throw e;
        }
      }
      server = built.start();
      if (unix != null) {
        unix.publish();
      }
    } catch (StartupException e) {
      if (unix != null) {
        unix.close();
      }
      if (http != null) {
        http.close();
      }
      return cannotStart(err, e.getMessage(), e instanceof ConfigurationException ? 2 : 1);
    } catch (RuntimeException | Error e) {
      LOG.log(System.Logger.Level.ERROR, "unexpected failure at start-up", e);
      return cannotStart(err, "unexpected " + e + " (stack trace logged)", 1);
    }
    SidecarServer running = server;
    UnixSocket socket = unix;
    HttpEndpoint web = http;
    Runnable stop =
        () -> {
          if (web != null) {
            web.close();
          }
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

    HeapTuning.apply();
    String address = hostPort(config.host(), server.port());
    String httpAddress = http == null ? null : hostPort(config.httpHost(), http.port());
    err.println(startLine(server.engine(), config, address, unix, httpAddress));
    err.flush();
    if (httpAddress != null) {
      out.println("http on " + httpAddress);
    }
    out.println("listening on " + address);
    out.flush();
    try {
      server.awaitTermination();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return 0;
  }

  /**
   * The one line a start prints on stderr: version, profiles and their providers, embedder,
   * extractor, data folder, flags, and where it listens.
   */
  static String startLine(
      MemoryEngine engine,
      SidecarConfig config,
      String address,
      UnixSocket unix,
      String httpAddress) {
    EngineStatus status = engine.status();
    List<String> profiles = new ArrayList<>();
    for (EngineStatus.ProfileStatus p : status.profiles()) {
      profiles.add(p.id() + " on " + p.provider() + (p.enabled() ? "" : " (disabled)"));
    }
    Flags f = status.flags();
    return "memsidecar %s: profiles %s; embedder %s; extractor %s; data %s; flags"
            .formatted(
                releaseVersion(),
                String.join(", ", profiles),
                status.embedder(),
                status.extractor(),
                config.dataDir())
        + " deepagentsMem.read=%s deepagentsMem.write=%s LangMem.read=%s LangMem.write=%s;"
            .formatted(
                f.deepagentsMemRead(), f.deepagentsMemWrite(), f.langMemRead(), f.langMemWrite())
        + " listening on "
        + address
        + (unix == null ? "" : " and unix:" + unix.path())
        + (httpAddress == null ? "" : "; http on " + httpAddress)
        + (httpAddress == null || !config.inspector().enabled()
            ? ""
            : " (inspector at http://"
                + httpAddress
                + "/inspector/, "
                + (config.inspector().writes() ? "read-write" : "read-only")
                + ")")
        + (config.authToken() == null ? "" : " (bearer token required)");
  }

  static String releaseVersion() {
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

  private static OptionSpec helpOption(String description) {
    return OptionSpec.builder("-h", "--help").usageHelp(true).description(description).build();
  }

  /** Whether {@code command} is {@code ancestor} or one of its subcommands. */
  private static boolean isWithin(CommandLine command, CommandLine ancestor) {
    for (CommandLine c = command; c != null; c = c.getParent()) {
      if (c == ancestor) {
        return true;
      }
    }
    return false;
  }

  /**
   * What is wrong with the command line: the first word nobody expected ("unknown flag '--prot'",
   * "unknown command 'serv'") and what picocli suggests for it, or else picocli's message.
   */
  private static String usageProblem(ParameterException e) {
    if (!(e instanceof UnmatchedArgumentException unmatched)
        || unmatched.getUnmatched().isEmpty()) {
      return e.getMessage();
    }
    String word = unmatched.getUnmatched().get(0);
    String kind =
        word.startsWith("-")
            ? "flag"
            : e.getCommandLine().getSubcommands().isEmpty() ? "argument" : "command";
    String problem = "unknown " + kind + " '" + word + "'";
    List<String> suggestions = unmatched.getSuggestions();
    return suggestions.isEmpty()
        ? problem
        : problem + "; did you mean " + String.join(" or ", suggestions) + "?";
  }

  private static int usageError(PrintStream err, String message) {
    err.println("memsidecar: " + message);
    err.println("run 'java -jar memsidecar.jar --help' for usage");
    return 2;
  }

  /**
   * The one line every start-up failure of {@code serve} prints, usage errors included; returns
   * {@code exitCode}.
   */
  private static int cannotStart(PrintStream err, String message, int exitCode) {
    err.println("memsidecar: cannot start: " + message);
    return exitCode;
  }
}
