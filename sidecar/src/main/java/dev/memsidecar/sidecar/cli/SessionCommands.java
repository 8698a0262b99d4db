package dev.memsidecar.sidecar.cli;

import dev.memsidecar.proto.v1.GetHistoryRequest;
import dev.memsidecar.proto.v1.GetHistoryResponse;
import dev.memsidecar.proto.v1.ListSessionsRequest;
import dev.memsidecar.proto.v1.ListSessionsResponse;
import dev.memsidecar.proto.v1.Message;
import dev.memsidecar.proto.v1.MessageRole;
import dev.memsidecar.proto.v1.SearchSessionsRequest;
import dev.memsidecar.proto.v1.SessionHit;
import dev.memsidecar.proto.v1.SessionInfo;
import dev.memsidecar.proto.v1.SessionServiceGrpc;
import dev.memsidecar.proto.v1.SessionServiceGrpc.SessionServiceBlockingStub;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code sessions list | history | search}: a user's conversations, as the sidecar keeps them. */
@Command(
    name = "sessions",
    description = "A user's sessions: list them, read one's history, search them all.",
    subcommands = {
      SessionCommands.ListSessions.class,
      SessionCommands.History.class,
      SessionCommands.Search.class
    })
final class SessionCommands {
  static SessionServiceBlockingStub sessions(Connection sidecar) {
    return sidecar.stub(SessionServiceGrpc.newBlockingStub(sidecar.channel()));
  }

  static String who(Message m) {
    return m.getName().isEmpty() ? Printer.name(m.getRole(), "MESSAGE_ROLE_") : m.getName();
  }

  @Command(name = "list", description = "Lists the user's sessions in the workspace.")
  static final class ListSessions extends ClientCommand {
    @Override
    int run(Connection sidecar, Printer print) {
      List<SessionInfo> found = new ArrayList<>();
      String token = "";
      do {
        ListSessionsResponse page =
            sessions(sidecar)
                .listSessions(
                    ListSessionsRequest.newBuilder()
                        .setScope(client.scope())
                        .setPageSize(500)
                        .setPageToken(token)
                        .build());
        found.addAll(page.getSessionsList());
        token = page.getNextPageToken();
      } while (!token.isEmpty());
      if (print.json()) {
        found.forEach(print::json);
        return 0;
      }
      List<List<String>> rows = new ArrayList<>();
      for (SessionInfo s : found) {
        rows.add(
            List.of(
                s.getSessionId(),
                String.valueOf(s.getMessageCount()),
                Printer.time(s.getCreateTime()),
                Printer.time(s.getLastMessageTime())));
      }
      print.table(List.of("SESSION", "MESSAGES", "STARTED", "LAST MESSAGE"), rows);
      return 0;
    }
  }

  @Command(name = "history", description = "The newest messages of --session-id, oldest first.")
  static final class History extends ClientCommand {
    @Option(
        names = "--limit",
        paramLabel = "N",
        defaultValue = "50",
        description = "at most N messages (default ${DEFAULT-VALUE})")
    int limit;

    @Override
    int run(Connection sidecar, Printer print) {
      if (client.sessionId.isEmpty()) {
        throw CliException.usage("history needs --session-id (or MEMSIDECAR_SESSION_ID)");
      }
      if (limit < 1) {
        throw CliException.usage("--limit must be at least 1, not " + limit);
      }
      List<Message> newestPagesFirst = new ArrayList<>();
      String token = "";
      do {
        GetHistoryResponse page =
            sessions(sidecar)
                .getHistory(
                    GetHistoryRequest.newBuilder()
                        .setScope(client.scope())
                        .setPageSize(Math.min(500, limit - newestPagesFirst.size()))
                        .setPageToken(token)
                        .build());
        newestPagesFirst.addAll(0, page.getMessagesList());
        token = page.getNextPageToken();
      } while (!token.isEmpty() && newestPagesFirst.size() < limit);
      if (print.json()) {
        newestPagesFirst.forEach(print::json);
        return 0;
      }
      List<List<String>> rows = new ArrayList<>();
      for (Message m : newestPagesFirst) {
        rows.add(
            List.of(
                String.valueOf(m.getSequence()),
                Printer.time(m.getTime()),
                who(m),
                Printer.cut(m.getContent())));
      }
      print.table(List.of("#", "TIME", "WHO", "CONTENT"), rows);
      return 0;
    }
  }

  @Command(name = "search", description = "Full-text search over the user's sessions.")
  static final class Search extends ClientCommand {
    @Parameters(paramLabel = "QUERY", arity = "1..*", description = "what to look for")
    List<String> query;

    @Option(names = "--top-k", paramLabel = "N", defaultValue = "8", description = "default 8")
    int topK;

    @Option(names = "--role", paramLabel = "ROLE", description = "only this role (user, ...)")
    List<String> roles = new ArrayList<>();

    @Override
    int run(Connection sidecar, Printer print) {
      SearchSessionsRequest.Builder req =
          SearchSessionsRequest.newBuilder()
              .setScope(client.scope())
              .setQuery(String.join(" ", query))
              .setSessionId(client.sessionId)
              .setTopK(topK);
      for (String role : roles) {
        req.addRoles(Enums.parse(MessageRole.class, "MESSAGE_ROLE_", role, "--role"));
      }
      List<SessionHit> hits = sessions(sidecar).searchSessions(req.build()).getHitsList();
      if (print.json()) {
        hits.forEach(print::json);
        return 0;
      }
      List<List<String>> rows = new ArrayList<>();
      for (SessionHit h : hits) {
        rows.add(
            List.of(
                Printer.score(h.getScore()),
                h.getSessionId(),
                Printer.time(h.getTime()),
                who(h.getMessage()),
                Printer.cut(h.getSnippet())));
      }
      print.table(List.of("SCORE", "SESSION", "TIME", "WHO", "SNIPPET"), rows);
      return 0;
    }
  }
}
