package dev.memsidecar.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import picocli.CommandLine;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.TypeConversionException;

/**
 * The command line of the mains in this module, read with picocli into an options object (a class
 * nested in the main's class, carrying the {@code @Option} annotations). What they share: the usage
 * (named after the main's class, defaults shown), {@code --help} (the usage on stdout, exit 0), a
 * usage error ({@code error: <message>} and the usage on stderr, exit 2), whole numbers that must
 * not be negative ({@link Count}, for every {@code int} option), and the sidecar jar the run
 * benches start ({@link SidecarJar}). Each main parses once, on its main thread.
 */
final class BenchArguments {
  private BenchArguments() {}

  /**
   * Fills {@code options} from {@code args} and returns it; exits the JVM after {@code --help} (0)
   * or a usage error (2). {@code options} may implement {@link Checked} for checks across options.
   */
  static <T> T parseOrExit(T options, String[] args) {
    CommandLine cli = new CommandLine(options);
    CommandSpec spec = cli.getCommandSpec();
    spec.name(options.getClass().getEnclosingClass().getName());
    spec.addOption(
        OptionSpec.builder("-h", "--help").usageHelp(true).description("this text").build());
    spec.usageMessage().width(100).sortOptions(false).sortSynopsis(false).showDefaultValues(true);
    cli.registerConverter(Integer.class, new Count());
    cli.registerConverter(int.class, new Count());
    try {
      ParseResult parsed = cli.parseArgs(args);
      if (parsed.isUsageHelpRequested()) {
        cli.usage(System.out);
        System.exit(0);
      }
      if (options instanceof Checked checked) {
        checked.check(cli.getCommandSpec());
      }
      return options;
    } catch (ParameterException e) {
      System.err.println("error: " + e.getMessage());
      cli.usage(System.err);
      System.exit(2);
      throw new AssertionError("exited", e);
    }
  }

  /** Options checked together once they are all read. */
  interface Checked {
    /** Throws a {@link ParameterException} naming the option that is wrong. */
    void check(CommandSpec spec);
  }

  /** A whole number {@code >= 0}, such as a count of calls; picocli names the option when not. */
  static final class Count implements ITypeConverter<Integer> {
    @Override
    public Integer convert(String value) {
      int n;
      try {
        n = Integer.parseInt(value);
      } catch (NumberFormatException e) {
        throw new TypeConversionException("needs a number, got " + value);
      }
      if (n < 0) {
        throw new TypeConversionException("must be >= 0, got " + value);
      }
      return n;
    }
  }

  /**
   * {@code --jar} and {@code --launcher}: which sidecar the run benches start ({@link
   * dev.memsidecar.sidecar.bench.SidecarProcess#start(Path, Path, Path)}).
   */
  static final class SidecarJar {
    @Option(names = "--jar", paramLabel = "PATH", description = "sidecar jar")
    Path jar = Path.of("sidecar", "target", "memsidecar.jar");

    @Option(
        names = "--launcher",
        paramLabel = "PATH",
        description = "start the sidecar with this script (e.g. sidecar/bin/memsidecar)")
    Path launcher;

    /** Exits 2 with a hint when the jar is not built. */
    void requireBuiltOrExit() {
      if (!Files.isRegularFile(jar)) {
        System.err.printf(
            Locale.ROOT,
            "sidecar jar not found at %s: run mvn package first, or pass --jar PATH%n",
            jar.toAbsolutePath());
        System.exit(2);
      }
    }
  }
}
