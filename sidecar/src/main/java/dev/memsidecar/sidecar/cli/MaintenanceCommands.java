package dev.memsidecar.sidecar.cli;

import dev.memsidecar.proto.v1.AdminServiceGrpc;
import dev.memsidecar.proto.v1.MaintenanceResult;
import dev.memsidecar.proto.v1.RunMaintenanceRequest;
import dev.memsidecar.proto.v1.RunMaintenanceResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code maintenance run [TARGET...]}: AdminService.RunMaintenance, now. */
@Command(
    name = "maintenance",
    description = "Background maintenance: run its targets now.",
    subcommands = {MaintenanceCommands.Run.class})
final class MaintenanceCommands {
  @Command(
      name = "run",
      description =
          "Runs maintenance targets now (langmem, deepagents, housekeeping, skills; none: all) and"
              + " waits for them. Exit 0 when every one succeeded, 1 when one failed.")
  static final class Run extends ClientCommand {
    @Parameters(paramLabel = "TARGET", arity = "0..*", description = "the targets; none: all")
    List<String> targets = new ArrayList<>();

    @Override
    int run(Connection sidecar, Printer print) {
      RunMaintenanceResponse got =
          sidecar
              .stub(AdminServiceGrpc.newBlockingStub(sidecar.channel()))
              .runMaintenance(RunMaintenanceRequest.newBuilder().addAllTargets(targets).build());
      if (print.json()) {
        got.getResultsList().forEach(print::json);
      } else {
        List<List<String>> rows = new ArrayList<>();
        for (MaintenanceResult r : got.getResultsList()) {
          String counts =
              r.getCountsMap().entrySet().stream()
                  .filter(e -> e.getValue() != 0)
                  .map(e -> e.getKey() + "=" + e.getValue())
                  .sorted()
                  .collect(Collectors.joining(" "));
          rows.add(
              List.of(
                  r.getName(),
                  r.getOk() ? "ok" : "failed",
                  Printer.cut(r.getOk() ? counts : r.getError())));
        }
        print.table(List.of("TARGET", "RESULT", "COUNTS"), rows);
      }
      return got.getResultsList().stream().allMatch(MaintenanceResult::getOk)
          ? 0
          : CliException.FAILURE;
    }
  }
}
