package dev.memsidecar.sidecar.cli;

import picocli.CommandLine;

/**
 * The client commands of the command line, each a call (or a few) to a running sidecar over gRPC:
 * {@code remember, search, list, get, forget, rules, sessions, status, maintenance, export, import,
 * mcp}.
 */
public final class ClientCommands {
  private ClientCommands() {}

  /** Adds the client commands to {@code cli}, after its own. */
  public static void addTo(CommandLine cli) {
    for (Class<?> command :
        new Class<?>[] {
          MemoryCommands.Remember.class,
          MemoryCommands.Search.class,
          MemoryCommands.ListMemories.class,
          MemoryCommands.Get.class,
          MemoryCommands.Forget.class,
          RuleCommands.class,
          SessionCommands.class,
          MemoryCommands.Status.class,
          MaintenanceCommands.class,
          TransferCommands.Export.class,
          TransferCommands.Import.class,
          McpCommand.class
        }) {
      cli.addSubcommand(command);
    }
    for (String name : NAMES) {
      withHelp(cli.getSubcommands().get(name));
    }
  }

  private static final java.util.List<String> NAMES =
      java.util.List.of(
          "remember",
          "search",
          "list",
          "get",
          "forget",
          "rules",
          "sessions",
          "status",
          "maintenance",
          "export",
          "import",
          "mcp");

  private static void withHelp(CommandLine command) {
    command
        .getCommandSpec()
        .addOption(
            CommandLine.Model.OptionSpec.builder("-h", "--help")
                .usageHelp(true)
                .description("this text")
                .build());
    command.getSubcommands().values().forEach(ClientCommands::withHelp);
  }
}
