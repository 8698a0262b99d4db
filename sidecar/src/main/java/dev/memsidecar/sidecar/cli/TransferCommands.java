package dev.memsidecar.sidecar.cli;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import dev.memsidecar.proto.v1.AdminServiceGrpc;
import dev.memsidecar.proto.v1.ExportScopeRequest;
import dev.memsidecar.proto.v1.ExportScopeResponse;
import dev.memsidecar.proto.v1.ImportScopeRequest;
import dev.memsidecar.proto.v1.ImportScopeResponse;
import dev.memsidecar.proto.v1.ScopeItem;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code export} and {@code import}: a scope as JSON Lines, and back. */
final class TransferCommands {
  private TransferCommands() {}

  /** Items sent per ImportScope call (its bound). */
  static final int IMPORT_BATCH = 500;

  @Command(
      name = "export",
      description = {
        "Writes everything the scope holds as JSON Lines, one item per line: records with their"
            + " history, tool rules, session messages, memory files.",
        "The scope is the ids given: --workspace-id, and --user-id, --agent-id, --session-id to"
            + " reach those profiles and that user's sessions."
      })
  static final class Export extends ClientCommand {
    @Option(
        names = {"-o", "--out"},
        paramLabel = "FILE",
        description = "write to FILE (default: stdout)")
    Path out;

    @Override
    int run(Connection sidecar, Printer print) throws IOException {
      JsonFormat.Printer json = JsonFormat.printer().omittingInsignificantWhitespace();
      Iterator<ExportScopeResponse> stream =
          AdminServiceGrpc.newBlockingStub(sidecar.channel())
              .withInterceptors(sidecar.auth())
              .exportScope(ExportScopeRequest.newBuilder().setScope(client.scope()).build());
      long n = 0;
      try (Writer w = writer()) {
        while (stream.hasNext()) {
          for (ScopeItem item : stream.next().getItemsList()) {
            w.write(json.print(item));
            w.write('\n');
            n++;
          }
        }
      }
      if (out != null) {
        spec.commandLine().getErr().println("exported " + n + " items to " + out);
      }
      return 0;
    }

    private Writer writer() throws IOException {
      if (out == null) {
        PrintWriter stdout = spec.commandLine().getOut();
        return new Writer() {
          @Override
          public void write(char[] buf, int off, int len) {
            stdout.write(buf, off, len);
          }

          @Override
          public void flush() {
            stdout.flush();
          }

          @Override
          public void close() {
            stdout.flush();
          }
        };
      }
      return new BufferedWriter(
          new OutputStreamWriter(Files.newOutputStream(out), StandardCharsets.UTF_8));
    }
  }

  @Command(
      name = "import",
      description = {
        "Reads what export wrote back into the scope, as it was (ids, times, history)."
            + " Importing the same file again changes nothing."
      })
  static final class Import extends ClientCommand {
    @Parameters(paramLabel = "FILE", description = "the export (- for stdin)")
    String file;

    @Override
    int run(Connection sidecar, Printer print) throws IOException {
      long total = file.equals("-") ? -1 : countLines(Path.of(file));
      ProgressBar bar = new ProgressBar(spec.commandLine().getErr(), "importing", total);
      JsonFormat.Parser parser = JsonFormat.parser();
      long[] counts = new long[4];
      List<ScopeItem> batch = new ArrayList<>();
      long line = 0;
      try (BufferedReader in = new BufferedReader(reader())) {
        String text;
        while ((text = in.readLine()) != null) {
          line++;
          if (text.isBlank()) {
            continue;
          }
          ScopeItem.Builder item = ScopeItem.newBuilder();
          try {
            parser.merge(text, item);
          } catch (InvalidProtocolBufferException e) {
            throw CliException.usage(
                file + " line " + line + " is not an export item: " + e.getMessage());
          }
          batch.add(item.build());
          if (batch.size() == IMPORT_BATCH) {
            send(sidecar, batch, counts);
            bar.set(line);
          }
        }
      }
      send(sidecar, batch, counts);
      bar.done(line);
      String summary =
          "imported %d memories, %d tool rules, %d messages, %d files"
              .formatted(counts[0], counts[1], counts[2], counts[3]);
      if (print.json()) {
        print.json(
            ImportScopeResponse.newBuilder()
                .setMemories((int) counts[0])
                .setToolRules((int) counts[1])
                .setMessages((int) counts[2])
                .setFiles((int) counts[3]));
      } else {
        print.line(summary);
      }
      return 0;
    }

    private void send(Connection sidecar, List<ScopeItem> batch, long[] counts) {
      if (batch.isEmpty()) {
        return;
      }
      ImportScopeResponse got =
          sidecar
              .stub(AdminServiceGrpc.newBlockingStub(sidecar.channel()))
              .importScope(
                  ImportScopeRequest.newBuilder()
                      .setScope(client.scope())
                      .addAllItems(batch)
                      .build());
      counts[0] += got.getMemories();
      counts[1] += got.getToolRules();
      counts[2] += got.getMessages();
      counts[3] += got.getFiles();
      batch.clear();
    }

    private Reader reader() throws IOException {
      if (file.equals("-")) {
        return new InputStreamReader(System.in, StandardCharsets.UTF_8);
      }
      return Files.newBufferedReader(Path.of(file), StandardCharsets.UTF_8);
    }

    private static long countLines(Path path) throws IOException {
      if (!Files.isRegularFile(path)) {
        throw CliException.usage(path + " is not a file");
      }
      try (var lines = Files.lines(path, StandardCharsets.UTF_8)) {
        return lines.count();
      }
    }
  }
}
