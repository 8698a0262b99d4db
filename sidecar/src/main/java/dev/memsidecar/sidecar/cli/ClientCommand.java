package dev.memsidecar.sidecar.cli;

import io.grpc.StatusRuntimeException;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * A command that calls a running sidecar: connects as its {@link ClientOptions} say, runs, and
 * turns a failure into one line on stderr ({@code memsidecar: <what went wrong>}) and the exit code
 * that says what kind it was ({@link CliException}).
 */
abstract class ClientCommand implements Callable<Integer> {
  @Mixin ClientOptions client;

  @Spec CommandSpec spec;

  /** Does the work; returns the exit code (0 when done). */
  abstract int run(Connection sidecar, Printer print) throws Exception;

  @Override
  public final Integer call() throws Exception {
    PrintWriter err = spec.commandLine().getErr();
    try (Connection sidecar = Connection.open(client)) {
      return run(sidecar, new Printer(spec.commandLine().getOut(), client.json));
    } catch (StatusRuntimeException e) {
      return fail(err, CliException.of(e, target()));
    } catch (CliException e) {
      return fail(err, e);
    }
  }

  private String target() {
    return client.unixSocket != null ? "unix:" + client.unixSocket : client.target;
  }

  private static int fail(PrintWriter err, CliException e) {
    err.println("memsidecar: " + e.getMessage());
    err.flush();
    return e.exitCode();
  }
}
