package dev.memsidecar.sidecar.bench;

import static java.util.Objects.requireNonNull;

import java.io.PrintStream;
import java.util.concurrent.Callable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * What every {@code bench} subcommand has: its picocli spec, {@code --help} (listed last), the
 * streams it reports to, tables on {@link #out} and progress on {@link #err}, and the main class of
 * the sidecar it starts ({@link SidecarProcess#selfCommand}).
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
  final Class<?> sidecarMain;

  Bench(PrintStream out, PrintStream err, Class<?> sidecarMain) {
    this.out = requireNonNull(out, "out is null");
    this.err = requireNonNull(err, "err is null");
    this.sidecarMain = requireNonNull(sidecarMain, "sidecarMain is null");
  }
}
