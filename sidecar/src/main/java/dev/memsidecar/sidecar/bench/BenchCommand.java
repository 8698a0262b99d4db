package dev.memsidecar.sidecar.bench;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code memsidecar bench}: benchmarks that start a sidecar (a child process running this jar's
 * {@code serve}) and measure it through its gRPC API. Subcommands {@code locomo} ({@link
 * LocomoBench}), {@code load} ({@link LoadBench}), {@code crash} ({@link CrashBench}), {@code
 * footprint} ({@link FootprintBench}) and {@code lag} ({@link VectorLagBench}). Exit codes: 0 done,
 * 2 a usage error (one line naming the option, then where to find the usage), 1 a failure while
 * measuring (the sidecar did not start, a call failed).
 */
@Command(
    name = "bench",
    usageHelpWidth = 100,
    sortSynopsis = false,
    description = {
      "Benchmarks through the gRPC API of a sidecar it starts (a child process of this jar).",
      "Progress goes to stderr, one markdown table to stdout."
    },
    footer = {
      "",
      "Examples:",
      "  java -jar sidecar/target/memsidecar.jar bench locomo --data"
          + " ../shared/bench/locomo-dev.json",
      "  java -jar sidecar/target/memsidecar.jar bench load --provider lucene-hnsw",
      "  java -jar sidecar/target/memsidecar.jar bench footprint --launcher sidecar/bin/memsidecar"
    })
public final class BenchCommand implements Runnable {
  @Spec CommandSpec spec;

  @Option(
      names = {"-h", "--help"},
      usageHelp = true,
      description = "this text")
  boolean help;

  private BenchCommand() {}

  /** {@code bench} alone: a usage error that lists the subcommands. */
  @Override
  public void run() {
    throw new ParameterException(
        spec.commandLine(), "name a benchmark: locomo, load, crash, footprint or lag");
  }

  /**
   * The {@code bench} command and its benchmarks, standalone or as a subcommand of the sidecar's
   * command line: tables on {@code out}, progress and errors on {@code err}; its handlers give the
   * exit codes above (a parent command line hands them the errors of {@code bench ...}).
   *
   * @param sidecarMain the sidecar's main class, which the benchmarks start ({@link
   *     SidecarProcess#selfCommand})
   */
  public static CommandLine commandLine(PrintStream out, PrintStream err, Class<?> sidecarMain) {
    CommandLine cli =
        new CommandLine(new BenchCommand())
            .addSubcommand(new LocomoBench(out, err, sidecarMain))
            .addSubcommand(new LoadBench(out, err, sidecarMain))
            .addSubcommand(new CrashBench(out, err, sidecarMain))
            .addSubcommand(new FootprintBench(out, err, sidecarMain))
            .addSubcommand(new VectorLagBench(out, err, sidecarMain));
    cli.setOut(new PrintWriter(out, true, StandardCharsets.UTF_8));
    PrintWriter errWriter = new PrintWriter(err, true, StandardCharsets.UTF_8);
    cli.setErr(errWriter);
    cli.setParameterExceptionHandler(
        (e, args) -> {
          String command = benchPath(e.getCommandLine());
          err.printf(Locale.ROOT, "memsidecar %s: %s%n", command, e.getMessage());
          CommandLine.UnmatchedArgumentException.printSuggestions(e, errWriter);
          err.printf(Locale.ROOT, "run 'java -jar memsidecar.jar %s --help' for usage%n", command);
          return 2;
        });
    cli.setExecutionExceptionHandler(
        (e, cmd, parsed) -> {
          if (e instanceof ParameterException p) {
            return cli.getParameterExceptionHandler().handleParseException(p, new String[0]);
          }
          err.printf(Locale.ROOT, "memsidecar %s: failed: %s%n", benchPath(cmd), message(e));
          return 1;
        });
    return cli;
  }

  /** {@code "bench load"}: the names from {@code bench} down to {@code command}. */
  private static String benchPath(CommandLine command) {
    List<String> names = new ArrayList<>();
    for (CommandSpec c = command.getCommandSpec(); c != null; c = c.parent()) {
      names.addFirst(c.name());
      if (c.userObject() instanceof BenchCommand) {
        break;
      }
    }
    return String.join(" ", names);
  }

  private static String message(Throwable e) {
    Throwable t = e;
    while ((t instanceof java.util.concurrent.ExecutionException || t.getMessage() == null)
        && t.getCause() != null) {
      t = t.getCause();
    }
    return t.getMessage() == null ? t.toString() : t.getMessage();
  }
}
