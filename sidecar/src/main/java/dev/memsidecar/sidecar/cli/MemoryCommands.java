package dev.memsidecar.sidecar.cli;

import dev.memsidecar.proto.v1.AdminServiceGrpc;
import dev.memsidecar.proto.v1.ForgetMemoryRequest;
import dev.memsidecar.proto.v1.GetMemoryRequest;
import dev.memsidecar.proto.v1.GetStatusRequest;
import dev.memsidecar.proto.v1.GetStatusResponse;
import dev.memsidecar.proto.v1.ListMemoriesRequest;
import dev.memsidecar.proto.v1.ListMemoriesResponse;
import dev.memsidecar.proto.v1.Memory;
import dev.memsidecar.proto.v1.MemoryKind;
import dev.memsidecar.proto.v1.MemoryServiceGrpc;
import dev.memsidecar.proto.v1.MemoryServiceGrpc.MemoryServiceBlockingStub;
import dev.memsidecar.proto.v1.ProfileStatus;
import dev.memsidecar.proto.v1.RememberRequest;
import dev.memsidecar.proto.v1.RememberResponse;
import dev.memsidecar.proto.v1.SearchHit;
import dev.memsidecar.proto.v1.SearchRequest;
import dev.memsidecar.proto.v1.SearchResponse;
import dev.memsidecar.proto.v1.WriteDecision;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** The record commands: remember, search, list, get, forget; and status. */
final class MemoryCommands {
  private MemoryCommands() {}

  private static final String KIND_PREFIX = "MEMORY_KIND_";

  static MemoryServiceBlockingStub memory(Connection sidecar) {
    return sidecar.stub(MemoryServiceGrpc.newBlockingStub(sidecar.channel()));
  }

  static List<String> row(Memory m) {
    return List.of(
        m.getId(),
        m.getProfile(),
        Printer.name(m.getKind(), KIND_PREFIX),
        Printer.name(m.getStatus(), "MEMORY_STATUS_"),
        Printer.time(m.getUpdateTime()),
        Printer.cut(m.getContent()));
  }

  /** {@code --profile}: the profile a command reads or writes. */
  static final class ProfileOption {
    @Option(
        names = "--profile",
        defaultValue = "workspace",
        description = "the profile (default ${DEFAULT-VALUE})")
    String name;
  }

  static final List<String> MEMORY_HEADER =
      List.of("ID", "PROFILE", "KIND", "STATUS", "UPDATED", "CONTENT");

  @Command(
      name = "remember",
      description =
          "Stores a memory (an explicit \"remember this\": the write gate floors it at 8).")
  static final class Remember extends ClientCommand {
    @Parameters(paramLabel = "TEXT", arity = "1..*", description = "what to remember")
    List<String> text;

    @Mixin ProfileOption profile;

    @Option(
        names = "--kind",
        paramLabel = "KIND",
        description = "semantic, episodic or procedural (default: the sidecar decides)")
    String kind;

    @Option(names = "--tag", paramLabel = "TAG", description = "a tag; repeat for more")
    List<String> tags = new ArrayList<>();

    @Option(
        names = "--request-id",
        paramLabel = "ID",
        description = "idempotency: the same id returns the first call's result")
    String requestId;

    @Override
    int run(Connection sidecar, Printer print) {
      RememberRequest.Builder req =
          RememberRequest.newBuilder()
              .setScope(client.scope())
              .setProfile(profile.name)
              .setContent(String.join(" ", text))
              .addAllTags(tags);
      if (kind != null) {
        req.setKind(Enums.parse(MemoryKind.class, KIND_PREFIX, kind, "--kind"));
      }
      if (requestId != null) {
        req.setRequestId(requestId);
      }
      RememberResponse got = memory(sidecar).remember(req.build());
      if (print.json()) {
        print.json(got);
      } else {
        WriteDecision d = got.getDecision();
        print.line(
            Printer.name(d.getOutcome(), "WRITE_OUTCOME_")
                + " "
                + d.getMemory().getId()
                + " in "
                + d.getMemory().getProfile()
                + " (gate "
                + String.format(java.util.Locale.ROOT, "%.1f", d.getGateScore())
                + (d.getReason().isEmpty() ? "" : ", " + d.getReason())
                + ")");
      }
      return 0;
    }
  }

  @Command(name = "search", description = "Finds the memories that best match a query.")
  static final class Search extends ClientCommand {
    @Parameters(paramLabel = "QUERY", arity = "1..*", description = "what to look for")
    List<String> query;

    @Option(names = "--profile", paramLabel = "P", description = "only this profile; repeat")
    List<String> profiles = new ArrayList<>();

    @Option(names = "--top-k", paramLabel = "N", defaultValue = "8", description = "default 8")
    int topK;

    @Option(names = "--tag", paramLabel = "TAG", description = "only memories with every tag")
    List<String> tags = new ArrayList<>();

    @Override
    int run(Connection sidecar, Printer print) {
      SearchResponse got =
          memory(sidecar)
              .search(
                  SearchRequest.newBuilder()
                      .setScope(client.scope())
                      .setQuery(String.join(" ", query))
                      .addAllProfiles(profiles)
                      .setTopK(topK)
                      .addAllTags(tags)
                      .build());
      if (print.json()) {
        got.getHitsList().forEach(print::json);
        return 0;
      }
      List<List<String>> rows = new ArrayList<>();
      for (SearchHit hit : got.getHitsList()) {
        List<String> row = new ArrayList<>(row(hit.getMemory()));
        row.add(0, Printer.score(hit.getScore()));
        rows.add(row);
      }
      List<String> header = new ArrayList<>(MEMORY_HEADER);
      header.add(0, "SCORE");
      print.table(header, rows);
      return 0;
    }
  }

  @Command(name = "list", description = "Lists the memories of a profile, newest first.")
  static final class ListMemories extends ClientCommand {
    @Mixin ProfileOption profile;

    @Option(names = "--all", description = "superseded and forgotten memories too")
    boolean all;

    @Option(
        names = "--limit",
        paramLabel = "N",
        defaultValue = "100",
        description = "at most N (default ${DEFAULT-VALUE}; 0: every one)")
    int limit;

    @Override
    int run(Connection sidecar, Printer print) {
      if (limit < 0) {
        throw CliException.usage("--limit must be 0 or more, not " + limit);
      }
      List<Memory> found = new ArrayList<>();
      String token = "";
      do {
        ListMemoriesResponse page =
            memory(sidecar)
                .listMemories(
                    ListMemoriesRequest.newBuilder()
                        .setScope(client.scope())
                        .setProfile(profile.name)
                        .setIncludeInactive(all)
                        .setPageSize(500)
                        .setPageToken(token)
                        .build());
        found.addAll(page.getMemoriesList());
        token = page.getNextPageToken();
      } while (!token.isEmpty() && (limit == 0 || found.size() < limit));
      if (limit > 0 && found.size() > limit) {
        found = found.subList(0, limit);
      }
      print.list(found, MEMORY_HEADER, MemoryCommands::row);
      return 0;
    }
  }

  @Command(name = "get", description = "Shows one memory, whole.")
  static final class Get extends ClientCommand {
    @Parameters(paramLabel = "ID")
    String id;

    @Mixin ProfileOption profile;

    @Override
    int run(Connection sidecar, Printer print) {
      Memory m =
          memory(sidecar)
              .getMemory(
                  GetMemoryRequest.newBuilder()
                      .setScope(client.scope())
                      .setProfile(profile.name)
                      .setId(id)
                      .build())
              .getMemory();
      if (print.json()) {
        print.json(m);
        return 0;
      }
      List<List<String>> rows = new ArrayList<>();
      rows.add(List.of("id", m.getId()));
      rows.add(List.of("profile", m.getProfile()));
      rows.add(List.of("namespace", m.getNamespace()));
      rows.add(List.of("kind", Printer.name(m.getKind(), KIND_PREFIX)));
      rows.add(List.of("status", Printer.name(m.getStatus(), "MEMORY_STATUS_")));
      rows.add(List.of("created", Printer.time(m.getCreateTime())));
      rows.add(List.of("updated", Printer.time(m.getUpdateTime())));
      rows.add(
          List.of("gate score", String.format(java.util.Locale.ROOT, "%.1f", m.getGateScore())));
      rows.add(List.of("tags", String.join(", ", m.getTagsList())));
      rows.add(List.of("sources", String.join(", ", m.getSourceRefsList())));
      m.getMetadataMap().forEach((k, v) -> rows.add(List.of("metadata " + k, v)));
      rows.add(List.of("content", m.getContent()));
      print.table(List.of("FIELD", "VALUE"), rows);
      return 0;
    }
  }

  @Command(name = "forget", description = "Forgets a memory (kept in its history as forgotten).")
  static final class Forget extends ClientCommand {
    @Parameters(paramLabel = "ID")
    String id;

    @Mixin ProfileOption profile;

    @Override
    int run(Connection sidecar, Printer print) {
      boolean forgotten =
          memory(sidecar)
              .forgetMemory(
                  ForgetMemoryRequest.newBuilder()
                      .setScope(client.scope())
                      .setProfile(profile.name)
                      .setId(id)
                      .build())
              .getForgotten();
      if (!forgotten) {
        throw new CliException(
            CliException.NOT_FOUND, "no active memory " + id + " in profile " + profile.name);
      }
      print.line("forgotten " + id);
      return 0;
    }
  }

  @Command(
      name = "status",
      description = "Shows the sidecar's version, providers, profiles, flags.")
  static final class Status extends ClientCommand {
    @Override
    int run(Connection sidecar, Printer print) {
      GetStatusResponse s =
          sidecar
              .stub(AdminServiceGrpc.newBlockingStub(sidecar.channel()))
              .getStatus(GetStatusRequest.getDefaultInstance());
      if (print.json()) {
        print.json(s);
        return 0;
      }
      print.line("memsidecar " + s.getVersion());
      print.line("embedder " + s.getEmbedder() + " (" + s.getEmbedderDimensions() + " dimensions)");
      print.line("extractor " + s.getExtractor());
      print.line(
          "flags deepagentsMem.read="
              + s.getFlags().getDeepagentsMemRead()
              + " deepagentsMem.write="
              + s.getFlags().getDeepagentsMemWrite()
              + " LangMem.read="
              + s.getFlags().getLangmemRead()
              + " LangMem.write="
              + s.getFlags().getLangmemWrite());
      List<List<String>> rows = new ArrayList<>();
      for (ProfileStatus p : s.getProfilesList()) {
        rows.add(List.of(p.getId(), p.getProvider(), p.getScopeKind()));
      }
      print.table(List.of("PROFILE", "PROVIDER", "SCOPE"), rows);
      return 0;
    }
  }
}
