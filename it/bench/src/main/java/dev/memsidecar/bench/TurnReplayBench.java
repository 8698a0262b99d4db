package dev.memsidecar.bench;

import dev.memsidecar.bench.BenchArguments.SidecarJar;
import dev.memsidecar.bench.Locomo.Conversation;
import dev.memsidecar.bench.Locomo.Question;
import dev.memsidecar.bench.Locomo.Session;
import dev.memsidecar.bench.Locomo.Turn;
import dev.memsidecar.language.Terms;
import dev.memsidecar.proto.v1.AdminServiceGrpc;
import dev.memsidecar.proto.v1.AdminServiceGrpc.AdminServiceBlockingStub;
import dev.memsidecar.proto.v1.BeginRunRequest;
import dev.memsidecar.proto.v1.BeginRunResponse;
import dev.memsidecar.proto.v1.EndRunRequest;
import dev.memsidecar.proto.v1.GetStatusRequest;
import dev.memsidecar.proto.v1.Memory;
import dev.memsidecar.proto.v1.MemoryServiceGrpc;
import dev.memsidecar.proto.v1.MemoryServiceGrpc.MemoryServiceBlockingStub;
import dev.memsidecar.proto.v1.PromptSection;
import dev.memsidecar.proto.v1.RememberRequest;
import dev.memsidecar.proto.v1.Scope;
import dev.memsidecar.proto.v1.SearchHit;
import dev.memsidecar.proto.v1.SearchRequest;
import dev.memsidecar.proto.v1.SearchSessionsRequest;
import dev.memsidecar.proto.v1.SessionServiceGrpc;
import dev.memsidecar.proto.v1.SessionServiceGrpc.SessionServiceBlockingStub;
import dev.memsidecar.sidecar.bench.Figures;
import dev.memsidecar.sidecar.bench.SidecarProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Does the memory an agent gets hold the answers, when the agent calls us the way the README's
 * agent loop does? Replays LoCoMo through the built sidecar jar over loopback gRPC, default
 * configuration, one client:
 *
 * <ul>
 *   <li><b>Agent loop</b>: per conversation one workspace; each speaker is a user. Every turn is
 *       one EndRun: scope {@code {workspace_id: <conv>, user_id: <speaker>, session_id:
 *       <conv>-s<k>}}, input the turn's text, output the other speaker's reply (the next turn, when
 *       it is theirs), metadata {@code session_date} (the session's date as LoCoMo writes it),
 *       {@code user_name} and {@code agent_name}. Then every question of categories 1-4 is one
 *       read-only BeginRun, {@code top_k} 10, by the speaker the question names (else the first
 *       speaker), in a new session: its {@code recalled} facts and {@code evidence} messages
 *       together are what the agent gets.
 *   <li><b>User and agent</b> ({@code --user-and-agent}), instead: the conversation's first speaker
 *       is the user (every run's {@code user_id} and {@code user_name}), the other the agent
 *       ({@code agent_name}), as in a chat with an assistant. Each run is one exchange: the user's
 *       consecutive turns as input (a line each), the agent's turns after them as output (a session
 *       that opens with the agent opens with a run of empty input). As the README's loop, a
 *       BeginRun with the run's input (not read-only) comes before each EndRun. Every question is
 *       asked by the user.
 *   <li><b>Verbatim store</b> (the baseline, same run): scope {@code {workspace_id: raw-<conv>,
 *       user_id: u}}, one Remember per turn into the {@code user} profile, content {@code Speaker:
 *       text (session date: ...)}; every question is a Search, top 10.
 * </ul>
 *
 * Answer recall at 10: the share of the answer's keywords ({@link Terms#keywords}) among the words
 * of the first 10 texts ({@link Locomo#coverage}). Before the questions of a conversation it waits
 * until the sidecar has made the vectors of every message (GetStatus {@code
 * session_vectors_pending}; an agent asks later than the next turn). Prints recall per category for
 * both and for SearchSessions alone (top 10, the asker's sessions), the facts kept (active records
 * of both speakers' {@code user} profiles and the {@code workspace} profile) per turn, both again
 * per conversation (a change should hold on each, not only on the sum), EndRun, BeginRun and
 * Remember latency (p50, p99), and a sample of the kept facts.
 *
 * <pre>
 * java -cp it/bench/target/memsidecar-bench.jar dev.memsidecar.bench.TurnReplayBench
 *     [--jar sidecar/target/memsidecar.jar] [--launcher sidecar/bin/memsidecar]
 *     [--locomo /work/shared/bench/locomo-dev.json] [--conversations N] [--no-captions]
 *     [--facts 20] [--show-category C] [--keep DIR] [--user-and-agent]
 * </pre>
 */
public final class TurnReplayBench {
  private static final int TOP_K = 10;
  private static final String RAW_USER = "u";
  private static final String[] CATEGORY = {
    "all", "1 multi-hop", "2 temporal", "3 open-domain", "4 single-hop"
  };
  private static final Pattern NOT_ID = Pattern.compile("[^A-Za-z0-9._-]");

  private final Options options;

  /** Part of each question's run id: a kept store asked again answers anew, not from snapshots. */
  private final long askedAt = System.currentTimeMillis();

  private final List<Long> endRunNanos = new ArrayList<>();
  private final List<Long> beginRunNanos = new ArrayList<>();
  private final List<Long> loopBeginRunNanos = new ArrayList<>();
  private final List<Long> rememberNanos = new ArrayList<>();
  private final List<Long> searchNanos = new ArrayList<>();
  private final double[][] recall = new double[3][5];
  private final int[] questions = new int[5];
  private final int[] evidenceShare = new int[2];
  private final long[] charsRead = new long[2];
  private int facts;
  private final List<String> factSample = new ArrayList<>();

  /**
   * Per conversation, in replay order: answer recall summed (the system's, the verbatim store's),
   * questions, facts kept, turns.
   */
  private final Map<String, double[]> perConversation = new LinkedHashMap<>();

  private TurnReplayBench(Options options) {
    this.options = options;
  }

  public static void main(String[] args) throws Exception {
    Options options = BenchArguments.parseOrExit(new Options(), args);
    options.sidecar.requireBuiltOrExit();
    new TurnReplayBench(options).run();
  }

  private void run() throws Exception {
    List<Conversation> convs = options.data.load();
    int turns = convs.stream().mapToInt(c -> c.turns().size()).sum();
    System.out.printf(
        Locale.ROOT,
        "turn replay bench: jar %s, data %s (%d conversations, %d turns, %d questions of"
            + " categories 1-4)%n",
        options.sidecar.jar.toAbsolutePath().normalize(),
        options.data.locomo,
        convs.size(),
        turns,
        convs.stream().mapToInt(c -> c.questions().size()).sum());
    Path ws =
        options.keep != null
            ? Files.createDirectories(options.keep)
            : Files.createTempDirectory("memsidecar-turn-replay");
    Path replayed = ws.resolve("replayed");
    boolean replay = !Files.exists(replayed);
    try (SidecarProcess sidecar =
        SidecarProcess.start(options.sidecar.jar, options.sidecar.launcher, ws)) {
      MemoryServiceBlockingStub stub = MemoryServiceGrpc.newBlockingStub(sidecar.channel());
      AdminServiceBlockingStub admin = AdminServiceGrpc.newBlockingStub(sidecar.channel());
      SessionServiceBlockingStub sessions = SessionServiceGrpc.newBlockingStub(sidecar.channel());
      if (replay) {
        warmUp(stub, convs.get(0));
      } else {
        System.out.println("questions only: the store of " + ws + " was replayed before");
      }
      for (Conversation conv : convs) {
        long t0 = System.nanoTime();
        if (replay) {
          replay(stub, conv);
        }
        long waited = awaitVectors(sidecar, admin);
        ask(stub, sessions, conv);
        countFacts(stub, conv);
        System.out.printf(
            Locale.ROOT,
            "%s: %d turns replayed in %.1f s (then %.1f s until every message and record had its"
                + " vector)%n",
            conv.id(),
            conv.turns().size(),
            Figures.seconds(System.nanoTime() - t0 - waited),
            Figures.seconds(waited));
      }
      print(turns);
      System.out.println("sidecar exit code after SIGTERM: " + sidecar.terminate());
      if (replay && options.keep != null) {
        Files.writeString(replayed, options.data.locomo + "\n");
      }
    } finally {
      if (options.keep == null) {
        Figures.deleteTree(ws);
      }
    }
  }

  /** The first session of the first conversation on throw-away workspaces, untimed. */
  private void warmUp(MemoryServiceBlockingStub stub, Conversation conv) {
    Session s = conv.sessions().get(0);
    for (int i = 0; i < s.turns().size(); i++) {
      stub.endRun(endRun("warmup", conv, s, i));
      stub.remember(remember("warmup-raw", s.turns().get(i)));
    }
  }

  private void replay(MemoryServiceBlockingStub stub, Conversation conv)
      throws InterruptedException {
    if (options.userAndAgent) {
      replayExchanges(stub, conv);
      return;
    }
    for (Session s : conv.sessions()) {
      for (int i = 0; i < s.turns().size(); i++) {
        EndRunRequest end = endRun(conv.id(), conv, s, i);
        long t0 = System.nanoTime();
        stub.endRun(end);
        endRunNanos.add(System.nanoTime() - t0);
        RememberRequest raw = remember("raw-" + conv.id(), s.turns().get(i));
        t0 = System.nanoTime();
        stub.remember(raw);
        rememberNanos.add(System.nanoTime() - t0);
      }
    }
  }

  /** Turn {@code i} of a session as the README's agent loop ends its run. */
  private static EndRunRequest endRun(String workspace, Conversation conv, Session s, int i) {
    Turn t = s.turns().get(i);
    Turn next = i + 1 < s.turns().size() ? s.turns().get(i + 1) : null;
    String reply = next != null && !next.speaker().equals(t.speaker()) ? next.text() : "";
    String other = otherSpeaker(conv, t.speaker());
    return EndRunRequest.newBuilder()
        .setScope(
            Scope.newBuilder()
                .setWorkspaceId(workspace)
                .setUserId(id(t.speaker()))
                .setAgentId("bench")
                .setSessionId(id(conv.id() + "-s" + s.number())))
        .setRunId(id(conv.id() + "-" + t.diaId()))
        .setInput(t.text())
        .setOutput(reply)
        .putMetadata("session_date", s.date())
        .putMetadata("user_name", t.speaker())
        .putMetadata("agent_name", other)
        .build();
  }

  /**
   * The conversation as a chat of its first speaker (the user) with the other (the agent): per
   * exchange a BeginRun, then an EndRun, as the README's loop; every turn also remembered verbatim.
   */
  private void replayExchanges(MemoryServiceBlockingStub stub, Conversation conv)
      throws InterruptedException {
    String user = conv.turns().get(0).speaker();
    String agent = otherSpeaker(conv, user);
    for (Session s : conv.sessions()) {
      List<Turn> turns = s.turns();
      int i = 0;
      while (i < turns.size()) {
        String runId = id(conv.id() + "-" + turns.get(i).diaId());
        List<String> said = new ArrayList<>();
        List<String> answered = new ArrayList<>();
        for (; i < turns.size() && turns.get(i).speaker().equals(user); i++) {
          said.add(turns.get(i).text());
          rememberVerbatim(stub, conv, turns.get(i));
        }
        for (; i < turns.size() && !turns.get(i).speaker().equals(user); i++) {
          answered.add(turns.get(i).text());
          rememberVerbatim(stub, conv, turns.get(i));
        }
        Scope scope =
            Scope.newBuilder()
                .setWorkspaceId(conv.id())
                .setUserId(id(user))
                .setAgentId("bench")
                .setSessionId(id(conv.id() + "-s" + s.number()))
                .build();
        Map<String, String> metadata =
            Map.of("session_date", s.date(), "user_name", user, "agent_name", agent);
        String input = String.join("\n", said);
        if (options.pauseMillis > 0) {
          Thread.sleep(options.pauseMillis);
        }
        long t0 = System.nanoTime();
        stub.beginRun(
            BeginRunRequest.newBuilder()
                .setScope(scope)
                .setRunId(runId)
                .setInput(input)
                .setTopK(TOP_K)
                .putAllMetadata(metadata)
                .build());
        loopBeginRunNanos.add(System.nanoTime() - t0);
        t0 = System.nanoTime();
        stub.endRun(
            EndRunRequest.newBuilder()
                .setScope(scope)
                .setRunId(runId)
                .setInput(input)
                .setOutput(String.join("\n", answered))
                .putAllMetadata(metadata)
                .build());
        endRunNanos.add(System.nanoTime() - t0);
      }
    }
  }

  private void rememberVerbatim(MemoryServiceBlockingStub stub, Conversation conv, Turn t) {
    RememberRequest raw = remember("raw-" + conv.id(), t);
    long t0 = System.nanoTime();
    stub.remember(raw);
    rememberNanos.add(System.nanoTime() - t0);
  }

  private static RememberRequest remember(String workspace, Turn t) {
    return RememberRequest.newBuilder()
        .setScope(Scope.newBuilder().setWorkspaceId(id(workspace)).setUserId(RAW_USER))
        .setProfile("user")
        .setContent(t.line() + " (session date: " + t.date() + ")")
        .build();
  }

  /**
   * Waits until the sidecar has made the vectors of every message appended and of every record
   * written (both made behind the write: an agent asking later finds them); returns how long that
   * took.
   */
  private static long awaitVectors(SidecarProcess sidecar, AdminServiceBlockingStub admin)
      throws InterruptedException, TimeoutException {
    long t0 = System.nanoTime();
    while (admin.getStatus(GetStatusRequest.getDefaultInstance()).getSessionVectorsPending() > 0) {
      Thread.sleep(50);
    }
    sidecar.awaitVectors(Duration.ofHours(1));
    return System.nanoTime() - t0;
  }

  private void ask(
      MemoryServiceBlockingStub stub, SessionServiceBlockingStub sessions, Conversation conv) {
    int n = 0;
    for (Question q : conv.questions()) {
      Set<String> answer = new LinkedHashSet<>(Terms.keywords(q.answer()));
      if (answer.isEmpty()) {
        continue;
      }
      BeginRunRequest begin =
          BeginRunRequest.newBuilder()
              .setScope(
                  Scope.newBuilder()
                      .setWorkspaceId(conv.id())
                      .setUserId(
                          id(
                              options.userAndAgent
                                  ? conv.turns().get(0).speaker()
                                  : asker(conv, q.text())))
                      .setAgentId("bench")
                      .setSessionId(id(conv.id() + "-questions")))
              .setRunId(id(conv.id() + "-q" + n++ + "-" + askedAt))
              .setInput(q.text())
              .setTopK(TOP_K)
              .putMetadata("memoryWrite", "false")
              .build();
      long t0 = System.nanoTime();
      BeginRunResponse got = stub.beginRun(begin);
      beginRunNanos.add(System.nanoTime() - t0);
      // What the agent reads: the lines of the two sections (a fact, or who, when and what).
      List<String> texts = new ArrayList<>();
      for (PromptSection section : got.getSectionsList()) {
        if (section.getId().equals("recalled_memory")
            || section.getId().equals("session_evidence")) {
          section.getBody().lines().filter(l -> !l.isBlank()).forEach(texts::add);
        }
      }
      evidenceShare[0] += got.getRecalledCount();
      evidenceShare[1] += got.getEvidenceCount();
      SearchRequest search =
          SearchRequest.newBuilder()
              .setScope(
                  Scope.newBuilder().setWorkspaceId(id("raw-" + conv.id())).setUserId(RAW_USER))
              .setQuery(q.text())
              .setTopK(TOP_K)
              .build();
      t0 = System.nanoTime();
      List<SearchHit> raw = stub.search(search).getHitsList();
      searchNanos.add(System.nanoTime() - t0);
      List<String> found = new ArrayList<>();
      sessions
          .searchSessions(
              SearchSessionsRequest.newBuilder()
                  .setScope(begin.getScope())
                  .setQuery(q.text())
                  .setTopK(TOP_K)
                  .build())
          .getHitsList()
          .forEach(h -> found.add(h.getMessage().getName() + ": " + h.getMessage().getContent()));
      texts.stream().limit(TOP_K).forEach(t -> charsRead[0] += t.length());
      raw.stream().limit(TOP_K).forEach(h -> charsRead[1] += h.getMemory().getContent().length());
      double system = Locomo.coverage(texts, TOP_K, answer);
      double evidenceOnly = Locomo.coverage(found, TOP_K, answer);
      double verbatim =
          Locomo.coverage(
              raw.stream().map(h -> h.getMemory().getContent()).toList(), TOP_K, answer);
      if (q.category() == options.showCategory) {
        show(q, system, verbatim, evidenceOnly, texts, raw, found);
      }
      double[] mine = perConversation.computeIfAbsent(conv.id(), k -> new double[5]);
      mine[0] += system;
      mine[1] += verbatim;
      mine[2]++;
      for (int c : new int[] {0, q.category()}) {
        recall[0][c] += system;
        recall[1][c] += verbatim;
        recall[2][c] += evidenceOnly;
        questions[c]++;
      }
    }
  }

  /** The question, the lines BeginRun gave and the verbatim store's, with their scores. */
  private static void show(
      Question q,
      double system,
      double verbatim,
      double evidenceOnly,
      List<String> texts,
      List<SearchHit> raw,
      List<String> found) {
    StringBuilder out = new StringBuilder();
    out.append(
        String.format(
            Locale.ROOT,
            "%n### %s%nanswer: %s%nscores: BeginRun %.2f, verbatim %.2f, SearchSessions %.2f%n"
                + "BeginRun:%n",
            q.text(),
            q.answer(),
            system,
            verbatim,
            evidenceOnly));
    texts.forEach(t -> out.append("  ").append(t).append('\n'));
    out.append("verbatim:\n");
    raw.forEach(
        h ->
            out.append(
                String.format(
                    Locale.ROOT, "  %.3f %s%n", h.getScore(), h.getMemory().getContent())));
    out.append("SearchSessions:\n");
    found.forEach(t -> out.append("  ").append(t).append('\n'));
    System.out.print(out);
  }

  /** Active facts of both speakers' user profiles and of the workspace profile. */
  private void countFacts(MemoryServiceBlockingStub stub, Conversation conv) {
    Set<String> speakers = new LinkedHashSet<>();
    conv.turns().forEach(t -> speakers.add(t.speaker()));
    List<Memory> kept = new ArrayList<>();
    for (String speaker : speakers) {
      kept.addAll(Memories.all(stub, scope(conv.id(), id(speaker)), "user", false));
    }
    kept.addAll(Memories.all(stub, scope(conv.id(), ""), "workspace", false));
    facts += kept.size();
    double[] mine = perConversation.computeIfAbsent(conv.id(), k -> new double[5]);
    mine[3] = kept.size();
    mine[4] = conv.turns().size();
    for (int i = 0; i < kept.size() && factSample.size() < options.facts; i += 17) {
      factSample.add(kept.get(i).getContent());
    }
  }

  private void print(int turns) {
    System.out.printf(
        Locale.ROOT,
        "%n## Answer recall@%d, turn by turn as the README's agent loop calls%n%n| category |"
            + " questions | recalled + evidence | verbatim store | SearchSessions alone |%n"
            + "|---|---|---|---|---|%n",
        TOP_K);
    for (int c = 0; c < CATEGORY.length; c++) {
      if (questions[c] > 0) {
        System.out.printf(
            Locale.ROOT,
            "| %s | %d | %.3f | %.3f | %.3f |%n",
            CATEGORY[c],
            questions[c],
            recall[0][c] / questions[c],
            recall[1][c] / questions[c],
            recall[2][c] / questions[c]);
      }
    }
    System.out.printf(
        Locale.ROOT,
        "%n| conversation | questions | recalled + evidence | verbatim store | facts per turn |%n"
            + "|---|---|---|---|---|%n");
    perConversation.forEach(
        (id, c) ->
            System.out.printf(
                Locale.ROOT,
                "| %s | %.0f | %.3f | %.3f | %.3f |%n",
                id,
                c[2],
                c[0] / Math.max(1, c[2]),
                c[1] / Math.max(1, c[2]),
                c[3] / Math.max(1, c[4])));
    System.out.printf(
        Locale.ROOT,
        "%nslots: %d recalled facts, %d evidence messages (%.1f%% evidence)%n",
        evidenceShare[0],
        evidenceShare[1],
        100.0 * evidenceShare[1] / Math.max(1, evidenceShare[0] + evidenceShare[1]));
    System.out.printf(
        Locale.ROOT,
        "characters read per question: %.0f (recalled + evidence lines), %.0f (verbatim hits)%n",
        (double) charsRead[0] / Math.max(1, questions[0]),
        (double) charsRead[1] / Math.max(1, questions[0]));
    System.out.printf(
        Locale.ROOT,
        "facts kept: %d for %d turns (%.3f per turn)%n",
        facts,
        turns,
        (double) facts / turns);
    latency("EndRun", endRunNanos);
    latency("BeginRun before each EndRun (top 10)", loopBeginRunNanos);
    latency("BeginRun (read-only, top 10)", beginRunNanos);
    latency("Remember (verbatim store)", rememberNanos);
    latency("Search (verbatim store, top 10)", searchNanos);
    System.out.printf(Locale.ROOT, "%nsample of kept facts:%n");
    factSample.forEach(f -> System.out.println("- " + f));
  }

  private static void latency(String what, List<Long> nanos) {
    long[] sorted = nanos.stream().mapToLong(Long::longValue).toArray();
    if (sorted.length == 0) {
      return;
    }
    Arrays.sort(sorted);
    System.out.printf(
        Locale.ROOT,
        "%s: %d calls, p50 %.2f ms, p99 %.2f ms%n",
        what,
        sorted.length,
        Figures.millis(Figures.percentile(sorted, 50)),
        Figures.millis(Figures.percentile(sorted, 99)));
  }

  /** The speaker a question names (the first, if both), else the conversation's first speaker. */
  private static String asker(Conversation conv, String question) {
    Set<String> speakers = new LinkedHashSet<>();
    conv.turns().forEach(t -> speakers.add(t.speaker()));
    Set<String> words = new LinkedHashSet<>(Terms.of(question));
    for (String s : speakers) {
      if (words.contains(s.toLowerCase(Locale.ROOT))) {
        return s;
      }
    }
    return speakers.iterator().next();
  }

  private static String otherSpeaker(Conversation conv, String speaker) {
    for (Turn t : conv.turns()) {
      if (!t.speaker().equals(speaker)) {
        return t.speaker();
      }
    }
    return "";
  }

  private static Scope scope(String workspace, String user) {
    return Scope.newBuilder().setWorkspaceId(workspace).setUserId(user).build();
  }

  /** {@code text} as an id: characters outside {@code [A-Za-z0-9._-]} become '-'. */
  private static String id(String text) {
    String out = NOT_ID.matcher(text).replaceAll("-");
    return out.length() <= 64 ? out : out.substring(0, 64);
  }

  @Command(description = "LoCoMo turn by turn as the README's agent loop calls: answer recall.")
  private static final class Options {
    @Mixin SidecarJar sidecar;

    @Mixin Locomo.Data data;

    @Option(names = "--facts", paramLabel = "N", description = "kept facts to print")
    int facts = 20;

    @Option(
        names = "--show-category",
        paramLabel = "C",
        description = "print each question of category C with the lines of both (0: none)")
    int showCategory;

    @Option(
        names = "--keep",
        paramLabel = "DIR",
        description =
            "run the sidecar on this workspace and keep it; when a run kept it before, ask the"
                + " questions of the store it holds without replaying (to compare recall of"
                + " builds that differ only in how they read)")
    Path keep;

    @Option(
        names = "--user-and-agent",
        description =
            "replay each conversation as a chat of its first speaker (the user) with the other"
                + " (the agent): one BeginRun and EndRun per exchange, every question asked by"
                + " the user")
    boolean userAndAgent;

    @Option(
        names = "--pause-ms",
        paramLabel = "MS",
        description =
            "with --user-and-agent, wait this long before each exchange's BeginRun (the user"
                + " writing the next message); 0 calls at once")
    long pauseMillis;
  }
}
