package dev.memsidecar.sidecar.bench;

import java.io.PrintStream;
import java.util.concurrent.Callable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * What every {@code bench} subcommand has: its picocli spec, {@code --help} (listed last), and the
 * streams it reports to, tables on {@link #out} and progress on {@link #err}.
 */
abstract class Bench implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(
      names = {"-h", "--help"},
      usageHelp = true,
      order = Integer.MAX_VALUE,
      description = "this text")
  boolean help;

  final PrintStream out;
  final PrintStream err;

  Bench(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }
}
