package dev.memsidecar.sidecar.bench;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
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
 * LocomoBench}), {@code load} ({@link LoadBench}), {@code crash} ({@link CrashBench}) and {@code
 * footprint} ({@link FootprintBench}). Exit codes: 0 done, 2 a usage error (one line naming the
 * option, then where to find the usage), 1 a failure while measuring (the sidecar did not start, a
 * call failed).
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
        spec.commandLine(), "name a benchmark: locomo, load, crash or footprint");
  }

  /**
   * Runs {@code bench ARGS}: the table on {@code out}, progress and errors on {@code err}.
   *
   * @return the exit code
   */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    CommandLine cli = commandLine(out, err);
    return cli.execute(args);
  }

  static CommandLine commandLine(PrintStream out, PrintStream err) {
    CommandLine cli =
        new CommandLine(new BenchCommand())
            .addSubcommand(new LocomoBench(out, err))
            .addSubcommand(new LoadBench(out, err))
            .addSubcommand(new CrashBench(out, err))
            .addSubcommand(new FootprintBench(out, err));
    cli.setOut(new PrintWriter(out, true, StandardCharsets.UTF_8));
    PrintWriter errWriter = new PrintWriter(err, true, StandardCharsets.UTF_8);
    cli.setErr(errWriter);
    cli.setParameterExceptionHandler(
        (e, args) -> {
          String command = e.getCommandLine().getCommandSpec().qualifiedName(" ");
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
          String command = cmd.getCommandSpec().qualifiedName(" ");
          err.printf(Locale.ROOT, "memsidecar %s: failed: %s%n", command, message(e));
          return 1;
        });
    return cli;
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
