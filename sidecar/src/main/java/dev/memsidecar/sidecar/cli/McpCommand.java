package dev.memsidecar.sidecar.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.memsidecar.core.CoreModule;
import dev.memsidecar.core.MemoryEngine;
import dev.memsidecar.core.StartupException;
import dev.memsidecar.sidecar.SidecarServer;
import dev.memsidecar.sidecar.config.ConfigLoader;
import dev.memsidecar.sidecar.config.SidecarConfig;
import io.grpc.ManagedChannel;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema.ServerCapabilities;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code memsidecar mcp}: memory as MCP tools ({@link McpTools}) over stdio, for agent frameworks
 * that attach tools through the Model Context Protocol. In process on {@code --workspace DIR} (the
 * engine {@code serve} would run, on the same configuration and data, without a port), or a bridge
 * to a running sidecar with {@code --target} or {@code --unix-socket}. Stdout carries the protocol
 * alone; logs go to stderr. Runs until the client closes stdin.
 */
@Command(
    name = "mcp",
    description = {
      "Serves memory as MCP tools over stdio: remember, recall, forget, session_search,"
          + " list_tool_rules, put_tool_rule, check_tool_call, begin_run, end_run.",
      "In process on --workspace DIR (default: the current directory), or a bridge to a running"
          + " sidecar with --target HOST:PORT or --unix-socket PATH. Runs until stdin closes."
    })
final class McpCommand implements Callable<Integer> {
  @Mixin ClientOptions client;

  @Spec CommandSpec spec;

  @Option(
      names = "--workspace",
      paramLabel = "DIR",
      description = "run the sidecar in this process on the workspace folder DIR, as serve does")
  Path workspace;

  @Override
  public Integer call() throws Exception {
    PrintWriter err = spec.commandLine().getErr();
    boolean bridge =
        spec.commandLine().getParseResult().hasMatchedOption("--target")
            || spec.commandLine().getParseResult().hasMatchedOption("--unix-socket");
    if (bridge && workspace != null) {
      err.println(
          "memsidecar: --workspace runs the sidecar in this process, --target and --unix-socket"
              + " call a running one: give one of them");
      err.flush();
      return CliException.USAGE;
    }
    SidecarServer inProcess = null;
    Connection sidecar;
    try {
      if (bridge) {
        sidecar = Connection.open(client);
      } else {
        String name = "memsidecar-mcp-" + UUID.randomUUID();
        inProcess = startInProcess(workspace == null ? Path.of(".") : workspace, name);
        ManagedChannel channel = InProcessChannelBuilder.forName(name).directExecutor().build();
        sidecar = Connection.of(channel, client.timeoutSeconds);
      }
    } catch (StartupException e) {
      err.println("memsidecar: cannot start: " + e.getMessage());
      err.flush();
      return CliException.USAGE;
    } catch (CliException e) {
      err.println("memsidecar: " + e.getMessage());
      err.flush();
      return e.exitCode();
    }
    CountDownLatch closed = new CountDownLatch(1);
    McpJsonMapper json = new JacksonMcpJsonMapper(new ObjectMapper());
    McpSyncServer server =
        McpServer.sync(
                new StdioServerTransportProvider(json, untilClosed(System.in, closed), System.out))
            .serverInfo("memsidecar", version())
            .capabilities(ServerCapabilities.builder().tools(true).build())
            .tools(new McpTools(sidecar, client.scope(), json).all())
            .build();
    try {
      closed.await();
    } finally {
      server.closeGracefully();
      sidecar.close();
      if (inProcess != null) {
        inProcess.stop(10_000);
      }
    }
    return 0;
  }

  private static SidecarServer startInProcess(Path workspace, String name) {
    SidecarConfig config =
        ConfigLoader.load(
            workspace.toAbsolutePath().normalize(), System.getenv(), ConfigLoader.Overrides.NONE);
    MemoryEngine engine =
        new CoreModule(config.engine(), McpCommand.class.getClassLoader()).engine();
    return new SidecarServer(
            List.of(InProcessServerBuilder.forName(name)),
            engine,
            version(),
            config.maxConcurrentCalls(),
            config.maxQueuedCalls(),
            null)
        .start();
  }

  /** The jar's version (its manifest's), or "dev" outside a jar. */
  private static String version() {
    String v = McpCommand.class.getPackage().getImplementationVersion();
    return v == null ? "dev" : v;
  }

  /** {@code in}, counting {@code closed} down when it ends. */
  private static InputStream untilClosed(InputStream in, CountDownLatch closed) {
    return new FilterInputStream(in) {
      @Override
      public int read() throws IOException {
        return ended(super.read());
      }

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        return ended(super.read(b, off, len));
      }

      private int ended(int n) {
        if (n < 0) {
          closed.countDown();
        }
        return n;
      }
    };
  }
}
