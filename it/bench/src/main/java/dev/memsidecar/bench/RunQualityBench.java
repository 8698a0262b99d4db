package dev.memsidecar.bench;

import dev.memsidecar.api.ExtractionRequest;
import dev.memsidecar.api.Extractor;
import dev.memsidecar.api.ExtractorProvider;
import dev.memsidecar.api.MemoryCandidate;
import dev.memsidecar.api.Settings;
import dev.memsidecar.bench.BenchArguments.SidecarJar;
import dev.memsidecar.bench.Locomo.Conversation;
import dev.memsidecar.bench.Locomo.Question;
import dev.memsidecar.bench.Locomo.Session;
import dev.memsidecar.bench.Locomo.Turn;
import dev.memsidecar.language.Terms;
import dev.memsidecar.proto.v1.EndRunRequest;
import dev.memsidecar.proto.v1.EndRunResponse;
import dev.memsidecar.proto.v1.Memory;
import dev.memsidecar.proto.v1.MemoryServiceGrpc;
import dev.memsidecar.proto.v1.MemoryServiceGrpc.MemoryServiceBlockingStub;
import dev.memsidecar.proto.v1.MemoryStatus;
import dev.memsidecar.proto.v1.RememberRequest;
import dev.memsidecar.proto.v1.RememberResponse;
import dev.memsidecar.proto.v1.Scope;
import dev.memsidecar.proto.v1.SearchHit;
import dev.memsidecar.proto.v1.SearchRequest;
import dev.memsidecar.proto.v1.WriteDecision;
import dev.memsidecar.proto.v1.WriteOutcome;
import dev.memsidecar.sidecar.bench.Figures;
import dev.memsidecar.sidecar.bench.SidecarProcess;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Is what EndRun keeps as good as the raw turns, with far fewer records? Runs LoCoMo through the
 * built sidecar jar over loopback gRPC, default configuration (rules extractor), fresh temporary
 * workspace, one client thread:
 *
 * <ul>
 *   <li><b>EndRun arm</b>: per conversation, scope {@code {workspace_id: <conv>, user_id: u}}; per
 *       session in order one EndRun, {@code run_id <conv>-s<k>}, input {@code [session date: ...]}
 *       then one {@code Speaker: text} line per turn (a shared image's caption appended as {@code
 *       [image: ...]}), no output. Records are the active ones of the {@code user} and {@code
 *       workspace} profiles.
 *   <li><b>Raw arm</b> (baseline): scope {@code {workspace_id: raw-<conv>, user_id: u}}, one
 *       Remember per turn into the {@code user} profile, content {@code Speaker: text (session
 *       date: ...)}.
 * </ul>
 *
 * Then every question of categories 1-4 (5, adversarial, has no answer) is a Search (top 10, same
 * scope) in each arm. Answer coverage at k: the share of the answer's keywords ({@link
 * Terms#keywords}: lower case, punctuation and stopwords dropped) found among the words of the top
 * k contents. Evidence hit at k: a top-k record holds an evidence turn (raw arm: it is that turn;
 * EndRun arm: the candidate of that turn was stored as, or merged into, that record).
 *
 * <p>To say what the pipeline loses, each session is also run through the {@code rules} extractor
 * in-process (deterministic, the same as the sidecar's), so decision {@code i} of an EndRun is
 * traced to candidate {@code i} and the turn it came from. Prints the EndRun decisions (outcomes,
 * REJECTED reasons, MERGED reasons), the fate of every evidence turn (no candidate, rejected and
 * why, merged, stored and later superseded, stored), the questions where EndRun covers less of the
 * answer than the raw turns (why: lost before storage, stored but not ranked in the top 10, or
 * ranked but worded without the answer), a sample of them, and one table.
 *
 * <pre>
 * java -cp it/bench/target/memsidecar-bench.jar dev.memsidecar.bench.RunQualityBench
 *     [--jar sidecar/target/memsidecar.jar] [--launcher sidecar/bin/memsidecar]
 *     [--locomo /work/shared/bench/locomo-dev.json] [--conversations N] [--no-captions]
 *     [--worse 10] [--merges 10] [--warmup 20]
 * </pre>
 *
 * <p>One file of about 1,000 lines because it is one diagnostic program: the tracing of decisions
 * to turns, the tallies and every printed table read the same run's state, and a reader follows one
 * question from replay to verdict without leaving it.
 */
public final class RunQualityBench {
  private static final int TOP_K = 10;
  private static final int SMALL_K = 5;
  private static final String USER = "u";
  private static final Pattern UUID_TEXT =
      Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
  private static final Pattern RULE = Pattern.compile("^rule ([a-z-]+):");
  private static final String[] CATEGORY = {
    "all", "1 multi-hop", "2 temporal", "3 open-domain", "4 single-hop"
  };

  private final Options options;

  private RunQualityBench(Options options) {
    this.options = options;
  }

  public static void main(String[] args) throws Exception {
    Options options = BenchArguments.parseOrExit(new Options(), args);
    options.sidecar.requireBuiltOrExit();
    new RunQualityBench(options).run();
  }

  // ---------------------------------------------------------------- data

  private static String endRunInput(Session session) {
    StringBuilder input = new StringBuilder("[session date: " + session.date() + "]\n");
    for (Turn t : session.turns()) {
      input.append(t.line()).append('\n');
    }
    return input.toString();
  }

  // ---------------------------------------------------------------- tracing

  /** One EndRun decision and the candidate (and turns) it came from. */
  private record Traced(WriteDecision decision, String candidate, List<String> turnKeys) {
    String outcome() {
      if (decision.getOutcome() == WriteOutcome.WRITE_OUTCOME_STORED
          && decision.getReason().contains("; supersedes ")) {
        return "STORED, superseding a record";
      }
      return decision.getOutcome().name().substring("WRITE_OUTCOME_".length());
    }
  }

  /** The kind of reason, without ids, scores and values, for counting. */
  static String reasonClass(WriteDecision d) {
    String r = UUID_TEXT.matcher(d.getReason()).replaceAll("<id>");
    String rule = rule(d.getMemory());
    return switch (d.getOutcome()) {
      case WRITE_OUTCOME_MERGED -> {
        String why = r.replaceFirst("^merged into <id>: ", "");
        if (why.startsWith("same canonical token")) {
          yield "same canonical token";
        }
        yield why.replaceAll("^\\d+\\.\\d+ ", "");
      }
      case WRITE_OUTCOME_REJECTED -> {
        if (r.startsWith("rejected: ")) {
          yield "below the gate threshold (" + rule + ")";
        }
        yield r;
      }
      case WRITE_OUTCOME_STORED -> {
        int at = r.indexOf("; supersedes <id>: ");
        if (at < 0) {
          yield "stored";
        }
        String why = r.substring(at + "; supersedes <id>: ".length());
        yield "supersedes: " + (why.startsWith("new value") ? "new value" : why.split(":")[0]);
      }
      default -> r;
    };
  }

  private static String band(float score) {
    return score >= 6.5f ? "6.5 - 6.9" : score >= 6.0f ? "6.0 - 6.4" : "below 6.0";
  }

  private static String rule(Memory m) {
    Matcher match = RULE.matcher(m.getMetadataOrDefault("extracted_by", ""));
    return match.find() ? "rule " + match.group(1) : "no rule";
  }

  private static Extractor rulesExtractor() {
    for (ExtractorProvider p : ServiceLoader.load(ExtractorProvider.class)) {
      if (p.name().equals("rules")) {
        return p.open(new Settings("extractor 'rules'", Map.of()));
      }
    }
    throw new IllegalStateException("no 'rules' ExtractorProvider on the class path");
  }

  // ---------------------------------------------------------------- run

  private void run() throws Exception {
    List<Conversation> convs = options.data.load();
    int turnCount = convs.stream().mapToInt(c -> c.turns().size()).sum();
    int sessionCount = convs.stream().mapToInt(c -> c.sessions().size()).sum();
    int questionCount = convs.stream().mapToInt(c -> c.questions().size()).sum();
    System.out.printf(
        Locale.ROOT,
        "run quality bench: jar %s, data %s (%d conversations, %d sessions, %d turns, %d questions"
            + " of categories 1-4, captions %s)%n",
        options.sidecar.jar.toAbsolutePath().normalize(),
        options.data.locomo,
        convs.size(),
        sessionCount,
        turnCount,
        questionCount,
        options.data.noCaptions ? "off" : "on");
    Extractor rules = rulesExtractor();
    Path ws = Files.createTempDirectory("memsidecar-run-quality");
    if (options.gate != null) {
      Files.writeString(
          ws.resolve("memsidecar.yaml"),
          "memory:\n  gate: { threshold: " + options.gate + " }\n",
          StandardCharsets.UTF_8);
      System.out.println("NOT the default configuration: memory.gate.threshold " + options.gate);
    }
    try (SidecarProcess sidecar =
        SidecarProcess.start(options.sidecar.jar, options.sidecar.launcher, ws)) {
      System.out.printf(
          Locale.ROOT, "sidecar listening after %.0f ms%n", Figures.millis(sidecar.startNanos()));
      MemoryServiceBlockingStub stub = MemoryServiceGrpc.newBlockingStub(sidecar.channel());
      warmUp(stub, convs.get(0));
      measure(sidecar, stub, rules, convs, turnCount);
      int exit = sidecar.terminate();
      System.out.println("sidecar exit code after SIGTERM: " + exit);
    } finally {
      Figures.deleteTree(ws);
    }
  }

  /** Warms both JVMs up on throw-away workspaces, so the first sessions are not all JIT. */
  private void warmUp(MemoryServiceBlockingStub stub, Conversation conv) {
    Scope scope = Scope.newBuilder().setWorkspaceId("warmup").setUserId(USER).build();
    int n = 0;
    for (Session s : conv.sessions()) {
      if (n++ >= options.warmup) {
        break;
      }
      endRun(stub, scope, "warmup-s" + s.number(), endRunInput(s));
      for (Turn t : s.turns()) {
        remember(stub, scope, t);
      }
      for (Turn t : s.turns()) {
        search(stub, scope, t.text());
      }
    }
    System.out.printf(Locale.ROOT, "warmed up on %d sessions%n", Math.min(n, options.warmup));
  }

  private void measure(
      SidecarProcess sidecar,
      MemoryServiceBlockingStub stub,
      Extractor rules,
      List<Conversation> convs,
      int turnCount)
      throws InterruptedException, TimeoutException {
    // ---- EndRun arm
    List<Long> endRunNanos = new ArrayList<>();
    Map<String, List<Traced>> byTurn = new HashMap<>();
    Map<String, Set<String>> recordTurns = new HashMap<>();
    List<Traced> all = new ArrayList<>();
    int untraced = 0;
    int contentMismatch = 0;
    long t0 = System.nanoTime();
    for (Conversation conv : convs) {
      Scope scope = runScope(conv);
      long c0 = System.nanoTime();
      for (Session s : conv.sessions()) {
        String runId = conv.id() + "-s" + s.number();
        String input = endRunInput(s);
        long start = System.nanoTime();
        EndRunResponse r = endRun(stub, scope, runId, input);
        endRunNanos.add(System.nanoTime() - start);
        List<MemoryCandidate> candidates =
            rules.extract(
                new ExtractionRequest(
                    runId,
                    input,
                    "",
                    List.of(),
                    Map.of(),
                    List.of(),
                    Instant.now(),
                    ZoneId.systemDefault()));
        Map<String, String> keyOfLine = new HashMap<>();
        for (Turn t : s.turns()) {
          keyOfLine.putIfAbsent(t.line().strip(), t.key());
        }
        boolean traceable = candidates.size() == r.getDecisionsCount();
        if (!traceable) {
          untraced += r.getDecisionsCount();
        }
        for (int i = 0; i < r.getDecisionsCount(); i++) {
          WriteDecision d = r.getDecisions(i);
          String candidate = "";
          List<String> keys = List.of();
          if (traceable) {
            MemoryCandidate c = candidates.get(i);
            candidate = c.content().strip();
            if (d.getOutcome() != WriteOutcome.WRITE_OUTCOME_MERGED
                && !d.getMemory().getContent().equals(candidate)) {
              contentMismatch++;
            }
            keys = turnsOf(c.evidence(), keyOfLine, s);
          }
          Traced traced = new Traced(d, candidate, keys);
          all.add(traced);
          for (String k : keys) {
            byTurn.computeIfAbsent(k, x -> new ArrayList<>()).add(traced);
            if (d.getOutcome() != WriteOutcome.WRITE_OUTCOME_REJECTED) {
              recordTurns.computeIfAbsent(d.getMemory().getId(), x -> new HashSet<>()).add(k);
            }
          }
        }
      }
      System.out.printf(
          Locale.ROOT,
          "EndRun arm: %s, %d sessions in %.1f s%n",
          conv.id(),
          conv.sessions().size(),
          Figures.seconds(System.nanoTime() - c0));
    }
    long endRunWall = System.nanoTime() - t0;

    // ---- raw arm
    Map<String, String> rawTurnOf = new HashMap<>();
    long r0 = System.nanoTime();
    for (Conversation conv : convs) {
      Scope scope = rawScope(conv);
      for (Turn t : conv.turns()) {
        RememberResponse r = remember(stub, scope, t);
        rawTurnOf.put(r.getDecision().getMemory().getId(), t.key());
      }
      System.out.printf(
          Locale.ROOT, "raw arm: %s, %d turns remembered%n", conv.id(), conv.turns().size());
    }
    long rawWall = System.nanoTime() - r0;
    // Both arms' records are acknowledged before their vectors are made: search once they are.
    System.out.printf(
        Locale.ROOT,
        "every record had its vector %.1f s after the last write%n",
        Figures.seconds(sidecar.awaitVectors(Duration.ofHours(1))));

    // ---- what is stored
    Set<String> activeIds = new HashSet<>();
    int runActive = 0;
    int runInactive = 0;
    int rawActive = 0;
    for (Conversation conv : convs) {
      for (String profile : List.of("user", "workspace")) {
        for (Memory m : Memories.all(stub, runScope(conv), profile, true)) {
          if (m.getStatus() == MemoryStatus.MEMORY_STATUS_ACTIVE) {
            runActive++;
            activeIds.add(m.getId());
          } else {
            runInactive++;
          }
        }
        for (Memory m : Memories.all(stub, rawScope(conv), profile, true)) {
          if (m.getStatus() == MemoryStatus.MEMORY_STATUS_ACTIVE) {
            rawActive++;
          }
        }
      }
    }

    // ---- questions
    Tally tally = new Tally();
    List<Worse> worse = new ArrayList<>();
    Set<String> evidenceTurns = new LinkedHashSet<>();
    Map<String, Turn> turnsByKey = new HashMap<>();
    for (Conversation c : convs) {
      for (Turn t : c.turns()) {
        turnsByKey.put(t.key(), t);
      }
    }
    List<String> answerWords = new ArrayList<>();
    long q0 = System.nanoTime();
    for (Conversation conv : convs) {
      for (Question q : conv.questions()) {
        Set<String> answer = new LinkedHashSet<>(Terms.keywords(q.answer()));
        if (answer.isEmpty()) {
          continue;
        }
        List<SearchHit> raw = search(stub, rawScope(conv), q.text());
        List<SearchHit> run = search(stub, runScope(conv), q.text());
        double raw10 = coverage(raw, TOP_K, answer);
        double run10 = coverage(run, TOP_K, answer);
        tally.add("raw cov@5", q.category(), coverage(raw, SMALL_K, answer));
        tally.add("run cov@5", q.category(), coverage(run, SMALL_K, answer));
        tally.add("raw cov@10", q.category(), raw10);
        tally.add("run cov@10", q.category(), run10);
        Set<String> evidence = new HashSet<>(q.evidenceKeys());
        evidenceTurns.addAll(q.evidenceKeys());
        if (!evidence.isEmpty()) {
          tally.add("raw hit@5", q.category(), rawRank(raw, rawTurnOf, evidence) < SMALL_K ? 1 : 0);
          tally.add("raw hit@10", q.category(), rawRank(raw, rawTurnOf, evidence) < TOP_K ? 1 : 0);
          int runRank = runRank(run, recordTurns, evidence);
          tally.add("run hit@5", q.category(), runRank < SMALL_K ? 1 : 0);
          tally.add("run hit@10", q.category(), runRank < TOP_K ? 1 : 0);
        }
        for (String k : evidence) {
          answerWords.addAll(answerWordFates(k, answer, turnsByKey, byTurn, activeIds));
        }
        if (run10 < raw10) {
          worse.add(new Worse(q, answer, raw10, run10, run, raw));
        }
      }
    }
    long questionWall = System.nanoTime() - q0;
    System.out.printf(
        Locale.ROOT,
        "questions: %d asked in each arm in %.1f s%n",
        tally.count("raw cov@10", 0),
        Figures.seconds(questionWall));

    // ---- diagnosis
    System.out.println();
    System.out.println(
        "## EndRun decisions (rules extractor, gate "
            + (options.gate == null ? "7.0, the default" : options.gate)
            + ")");
    System.out.println();
    printCounts(
        "outcome", all.stream().map(Traced::outcome).toList(), all.size(), "of all decisions");
    printCounts(
        "REJECTED reason",
        all.stream()
            .filter(t -> t.decision().getOutcome() == WriteOutcome.WRITE_OUTCOME_REJECTED)
            .map(t -> reasonClass(t.decision()))
            .toList(),
        all.size(),
        "of all decisions");
    printCounts(
        "rule -> outcome",
        all.stream().map(t -> rule(t.decision().getMemory()) + " -> " + t.outcome()).toList(),
        all.size(),
        "of all decisions");
    printCounts(
        "gate score of a gate-REJECTED candidate",
        all.stream()
            .filter(t -> t.decision().getReason().startsWith("rejected: "))
            .map(t -> band(t.decision().getGateScore()))
            .toList(),
        all.size(),
        "of all decisions");
    printCounts(
        "MERGED reason",
        all.stream()
            .filter(t -> t.decision().getOutcome() == WriteOutcome.WRITE_OUTCOME_MERGED)
            .map(t -> reasonClass(t.decision()))
            .toList(),
        all.size(),
        "of all decisions");
    printCounts(
        "superseding reason",
        all.stream()
            .filter(t -> t.outcome().startsWith("STORED, superseding"))
            .map(t -> reasonClass(t.decision()))
            .toList(),
        all.size(),
        "of all decisions");
    long turnsWithoutCandidate =
        convs.stream()
            .flatMap(c -> c.turns().stream())
            .filter(t -> !byTurn.containsKey(t.key()))
            .count();
    System.out.printf(
        Locale.ROOT,
        "turns that gave no candidate at all: %d of %d (%.1f%%); decisions not traced to a"
            + " candidate: %d; stored contents differing from the in-process candidate: %d%n%n",
        turnsWithoutCandidate,
        turnCount,
        100.0 * turnsWithoutCandidate / turnCount,
        untraced,
        contentMismatch);

    System.out.println("## Fate of the evidence turns of the questions (categories 1-4)");
    System.out.println();
    List<String> fates = new ArrayList<>();
    for (String key : evidenceTurns) {
      fates.add(fate(key, byTurn, activeIds));
    }
    printCounts("evidence turn", fates, fates.size(), "of evidence turns");
    System.out.println(
        "Answer keywords that an evidence turn contains, and whether a kept (active, stored or"
            + " merged) record of that turn still contains them, per question and turn:");
    System.out.println();
    printCounts(
        "answer keyword of an evidence turn", answerWords, answerWords.size(), "of those keywords");

    System.out.printf(
        Locale.ROOT,
        "## Questions where EndRun covers less of the answer than the raw turns (top %d): %d of"
            + " %d%n%n",
        TOP_K,
        worse.size(),
        tally.count("raw cov@10", 0));
    List<String> why = new ArrayList<>();
    Set<String> worseTurns = new LinkedHashSet<>();
    for (Worse w : worse) {
      why.add(worseCause(w, turnsByKey, byTurn, recordTurns, activeIds));
      worseTurns.addAll(w.question().evidenceKeys());
    }
    printCounts("why", why, worse.size(), "of these questions");
    List<String> worseFates = new ArrayList<>();
    for (String key : worseTurns) {
      worseFates.add(fate(key, byTurn, activeIds));
    }
    printCounts("their evidence turn", worseFates, worseFates.size(), "of their evidence turns");

    printExamples(worse, convs, byTurn, rawTurnOf, activeIds);
    printMerges(all, evidenceTurns, convs);

    // ---- the table
    long[] sortedEndRun = endRunNanos.stream().mapToLong(Long::longValue).sorted().toArray();
    System.out.println();
    System.out.println(
        "| measure | n | raw turns (1 Remember per turn) | EndRun (1 per session, rules) |");
    System.out.println("|---|---:|---:|---:|");
    for (String metric : List.of("cov@5", "cov@10")) {
      for (int c : new int[] {1, 2, 3, 4, 0}) {
        System.out.printf(
            Locale.ROOT,
            "| answer coverage@%s, %s | %d | %.3f | %.3f |%n",
            metric.substring(4),
            CATEGORY[c],
            tally.count("raw " + metric, c),
            tally.mean("raw " + metric, c),
            tally.mean("run " + metric, c));
      }
    }
    for (String metric : List.of("hit@5", "hit@10")) {
      for (int c : new int[] {1, 2, 3, 4, 0}) {
        System.out.printf(
            Locale.ROOT,
            "| evidence %s, %s | %d | %.3f | %.3f |%n",
            metric,
            CATEGORY[c],
            tally.count("raw " + metric, c),
            tally.mean("raw " + metric, c),
            tally.mean("run " + metric, c));
      }
    }
    System.out.printf(
        Locale.ROOT,
        "| records (active) / turns | %d | %d (%.1f%%) | %d (%.1f%%; %d more superseded) |%n",
        turnCount,
        rawActive,
        100.0 * rawActive / turnCount,
        runActive,
        100.0 * runActive / turnCount,
        runInactive);
    System.out.printf(
        Locale.ROOT,
        "| ingest time, 1 client | | %.1f s (%d Remember) | %.1f s (%d EndRun) |%n",
        Figures.seconds(rawWall),
        turnCount,
        Figures.seconds(endRunWall),
        sortedEndRun.length);
    System.out.printf(
        Locale.ROOT,
        "| EndRun per session p50 / p99 / max (ms) | %d | - | %.1f / %.1f / %.1f |%n",
        sortedEndRun.length,
        Figures.millis(Figures.percentile(sortedEndRun, 50)),
        Figures.millis(Figures.percentile(sortedEndRun, 99)),
        Figures.millis(sortedEndRun.length == 0 ? 0 : sortedEndRun[sortedEndRun.length - 1]));
  }

  // ---------------------------------------------------------------- diagnosis helpers

  private record Worse(
      Question question,
      Set<String> answer,
      double raw,
      double run,
      List<SearchHit> runHits,
      List<SearchHit> rawHits) {}

  /** The turns of a session a candidate's evidence quotes. */
  private static List<String> turnsOf(String evidence, Map<String, String> keyOfLine, Session s) {
    List<String> keys = new ArrayList<>();
    for (String line : evidence.split("\n")) {
      String k = keyOfLine.get(line.strip());
      if (k != null && !keys.contains(k)) {
        keys.add(k);
      }
    }
    if (keys.isEmpty() && !evidence.isBlank()) {
      for (Turn t : s.turns()) {
        if (evidence.contains(t.line().strip()) || t.line().contains(evidence.strip())) {
          keys.add(t.key());
        }
      }
    }
    return keys;
  }

  /** What became of one turn, best outcome first: stored, merged, rejected, nothing. */
  private static String fate(String key, Map<String, List<Traced>> byTurn, Set<String> activeIds) {
    List<Traced> decisions = byTurn.getOrDefault(key, List.of());
    if (decisions.isEmpty()) {
      return "no candidate (the extractor dropped the turn)";
    }
    String best = null;
    int rank = Integer.MAX_VALUE;
    for (Traced t : decisions) {
      WriteDecision d = t.decision();
      boolean active = activeIds.contains(d.getMemory().getId());
      String f;
      int r;
      switch (d.getOutcome()) {
        case WRITE_OUTCOME_STORED -> {
          f = active ? "stored, active" : "stored, later superseded";
          r = active ? 0 : 3;
        }
        case WRITE_OUTCOME_MERGED -> {
          f = "merged (" + reasonClass(d) + ")" + (active ? "" : " into a record later superseded");
          r = active ? 1 : 4;
        }
        default -> {
          f = "rejected: " + reasonClass(d);
          r = 5;
        }
      }
      if (r < rank) {
        rank = r;
        best = f;
      }
    }
    return best;
  }

  /** Why EndRun covers less of one answer than the raw turns. */
  private static String worseCause(
      Worse w,
      Map<String, Turn> turns,
      Map<String, List<Traced>> byTurn,
      Map<String, Set<String>> recordTurns,
      Set<String> activeIds) {
    Set<String> evidence = new HashSet<>(w.question().evidenceKeys());
    if (evidence.isEmpty()) {
      return "no usable evidence ids";
    }
    boolean cut = false;
    boolean kept = false;
    for (String k : evidence) {
      for (String f : answerWordFates(k, w.answer(), turns, byTurn, activeIds)) {
        cut |= f.startsWith("cut");
      }
      kept |= !keptContents(k, byTurn, activeIds).isEmpty();
    }
    if (runRank(w.runHits(), recordTurns, evidence) < TOP_K) {
      return cut
          ? "evidence record in the top 10, but extraction cut answer words the turn had"
          : "evidence record in the top 10 with the turn's answer words; raw top 10 had more"
              + " answer words from other turns";
    }
    if (kept) {
      return cut
          ? "evidence kept but not in the top 10, and extraction cut answer words"
          : "evidence kept, with the turn's answer words, but not ranked in the top 10";
    }
    return "no evidence turn kept (dropped, rejected or superseded)";
  }

  /** The contents of the active records an evidence turn was stored as or merged into. */
  private static List<String> keptContents(
      String key, Map<String, List<Traced>> byTurn, Set<String> activeIds) {
    List<String> out = new ArrayList<>();
    for (Traced t : byTurn.getOrDefault(key, List.of())) {
      WriteDecision d = t.decision();
      if (d.getOutcome() != WriteOutcome.WRITE_OUTCOME_REJECTED
          && activeIds.contains(d.getMemory().getId())) {
        out.add(d.getMemory().getContent());
      }
    }
    return out;
  }

  /**
   * For each answer keyword the evidence turn contains: "kept" when a kept record of the turn
   * contains it too, "cut ..." when the turn has kept records without it, else the turn's fate.
   */
  private static List<String> answerWordFates(
      String key,
      Set<String> answer,
      Map<String, Turn> turns,
      Map<String, List<Traced>> byTurn,
      Set<String> activeIds) {
    Turn turn = turns.get(key);
    if (turn == null) {
      return List.of();
    }
    Set<String> inTurn = new HashSet<>(Terms.of(turn.line()));
    List<String> kept = keptContents(key, byTurn, activeIds);
    Set<String> keptWords = new HashSet<>();
    for (String c : kept) {
      keptWords.addAll(Terms.of(c));
    }
    List<String> out = new ArrayList<>();
    for (String a : answer) {
      if (!inTurn.contains(a)) {
        continue;
      }
      if (keptWords.contains(a)) {
        out.add("kept");
      } else if (!kept.isEmpty()) {
        out.add("cut from the kept record (sentence or caption dropped, or reworded)");
      } else {
        out.add("lost with the turn: " + fate(key, byTurn, activeIds));
      }
    }
    return out;
  }

  private void printExamples(
      List<Worse> worse,
      List<Conversation> convs,
      Map<String, List<Traced>> byTurn,
      Map<String, String> rawTurnOf,
      Set<String> activeIds) {
    if (worse.isEmpty() || options.worse == 0) {
      return;
    }
    Map<String, Turn> turns = new HashMap<>();
    for (Conversation c : convs) {
      for (Turn t : c.turns()) {
        turns.put(t.key(), t);
      }
    }
    System.out.printf(
        Locale.ROOT,
        "## %d of them, evenly spread (coverage raw vs EndRun, top %d)%n%n",
        Math.min(options.worse, worse.size()),
        TOP_K);
    double step = Math.max(1.0, (double) worse.size() / options.worse);
    for (int n = 0; n < options.worse && Math.round(n * step) < worse.size(); n++) {
      Worse w = worse.get((int) Math.round(n * step));
      Question q = w.question();
      System.out.printf(
          Locale.ROOT,
          "%d. [%s, %s] %s%n   answer: %s (keywords %s); coverage raw %.2f, EndRun %.2f%n",
          n + 1,
          q.conv(),
          CATEGORY[q.category()],
          q.text(),
          q.answer(),
          w.answer(),
          w.raw(),
          w.run());
      int best = -1;
      double bestCover = -1;
      for (int i = 0; i < w.runHits().size(); i++) {
        double c = coverage(List.of(w.runHits().get(i)), 1, w.answer());
        if (c > bestCover) {
          bestCover = c;
          best = i;
        }
      }
      if (best >= 0) {
        System.out.printf(
            Locale.ROOT,
            "   best EndRun hit (#%d, covers %.2f): %s%n",
            best + 1,
            bestCover,
            w.runHits().get(best).getMemory().getContent());
      } else {
        System.out.println("   EndRun returned no hit");
      }
      int rawRank = rawRank(w.rawHits(), rawTurnOf, new HashSet<>(q.evidenceKeys()));
      System.out.println(
          "   raw arm: evidence turn "
              + (rawRank >= TOP_K ? "not in its top 10" : "at #" + (rawRank + 1)));
      for (String k : q.evidenceKeys()) {
        Turn t = turns.get(k);
        System.out.println("   evidence " + k + ": " + (t == null ? "(unknown)" : t.line()));
        for (Traced tr : byTurn.getOrDefault(k, List.of())) {
          WriteDecision d = tr.decision();
          String id = d.getMemory().getId();
          int rank = -1;
          for (int i = 0; i < w.runHits().size(); i++) {
            if (w.runHits().get(i).getMemory().getId().equals(id)) {
              rank = i;
            }
          }
          String where =
              d.getOutcome() == WriteOutcome.WRITE_OUTCOME_REJECTED
                  ? ""
                  : !activeIds.contains(id)
                      ? ", record no longer active"
                      : rank < 0 ? ", not in the top 10" : ", at #" + (rank + 1);
          System.out.printf(
              Locale.ROOT,
              "     -> %s (%.1f, %s%s): %s%n",
              tr.outcome(),
              d.getGateScore(),
              reasonClass(d),
              where,
              tr.candidate());
          if (d.getOutcome() == WriteOutcome.WRITE_OUTCOME_MERGED) {
            System.out.println("        merged into: " + d.getMemory().getContent());
          }
        }
        if (!byTurn.containsKey(k)) {
          System.out.println("     -> no candidate");
        }
      }
      System.out.println();
    }
  }

  /** Merges of evidence turns: the candidate against the record it was folded into. */
  private void printMerges(List<Traced> all, Set<String> evidenceTurns, List<Conversation> convs) {
    if (options.merges == 0) {
      return;
    }
    List<Traced> merges =
        all.stream()
            .filter(t -> t.decision().getOutcome() == WriteOutcome.WRITE_OUTCOME_MERGED)
            .filter(t -> t.turnKeys().stream().anyMatch(evidenceTurns::contains))
            .toList();
    System.out.printf(
        Locale.ROOT,
        "## Merges of evidence turns: %d (first %d: candidate -> record it was merged into)%n%n",
        merges.size(),
        Math.min(options.merges, merges.size()));
    for (Traced t : merges.stream().limit(options.merges).toList()) {
      System.out.printf(
          Locale.ROOT,
          "- %s [%s]%n    candidate: %s%n    record:    %s%n",
          t.turnKeys(),
          reasonClass(t.decision()),
          t.candidate(),
          t.decision().getMemory().getContent());
    }
    System.out.println();
  }

  private static void printCounts(String what, List<String> values, int total, String of) {
    Map<String, Integer> counts = new LinkedHashMap<>();
    for (String v : values) {
      counts.merge(v, 1, Integer::sum);
    }
    System.out.println("| " + what + " | count | share " + of + " |");
    System.out.println("|---|---:|---:|");
    counts.entrySet().stream()
        .sorted(Map.Entry.<String, Integer>comparingByValue(Comparator.reverseOrder()))
        .forEach(
            e ->
                System.out.printf(
                    Locale.ROOT,
                    "| %s | %d | %.1f%% |%n",
                    e.getKey(),
                    e.getValue(),
                    100.0 * e.getValue() / Math.max(1, total)));
    System.out.println();
  }

  // ---------------------------------------------------------------- scoring

  /** Means per metric and category (0 = all). */
  private static final class Tally {
    private final Map<String, double[]> sums = new HashMap<>();

    void add(String metric, int category, double value) {
      for (int c : new int[] {category, 0}) {
        double[] s = sums.computeIfAbsent(metric + "|" + c, k -> new double[2]);
        s[0] += value;
        s[1]++;
      }
    }

    double mean(String metric, int category) {
      double[] s = sums.get(metric + "|" + category);
      return s == null ? Double.NaN : s[0] / s[1];
    }

    int count(String metric, int category) {
      double[] s = sums.get(metric + "|" + category);
      return s == null ? 0 : (int) s[1];
    }
  }

  /** The share of the answer's keywords among the words of the top {@code k} contents. */
  static double coverage(List<SearchHit> hits, int k, Set<String> answer) {
    return Locomo.coverage(hits.stream().map(h -> h.getMemory().getContent()).toList(), k, answer);
  }

  /** The rank of the first raw hit that is an evidence turn, or MAX_VALUE. */
  private static int rawRank(
      List<SearchHit> hits, Map<String, String> rawTurnOf, Set<String> evidence) {
    for (int i = 0; i < hits.size(); i++) {
      if (evidence.contains(rawTurnOf.get(hits.get(i).getMemory().getId()))) {
        return i;
      }
    }
    return Integer.MAX_VALUE;
  }

  /** The rank of the first EndRun hit holding an evidence turn, or MAX_VALUE. */
  private static int runRank(
      List<SearchHit> hits, Map<String, Set<String>> recordTurns, Set<String> evidence) {
    for (int i = 0; i < hits.size(); i++) {
      Set<String> turns = recordTurns.getOrDefault(hits.get(i).getMemory().getId(), Set.of());
      for (String k : turns) {
        if (evidence.contains(k)) {
          return i;
        }
      }
    }
    return Integer.MAX_VALUE;
  }

  // ---------------------------------------------------------------- calls

  private static Scope runScope(Conversation conv) {
    return Scope.newBuilder().setWorkspaceId(conv.id()).setUserId(USER).build();
  }

  private static Scope rawScope(Conversation conv) {
    return Scope.newBuilder().setWorkspaceId("raw-" + conv.id()).setUserId(USER).build();
  }

  private static EndRunResponse endRun(
      MemoryServiceBlockingStub stub, Scope scope, String runId, String input) {
    return stub.withDeadlineAfter(120, TimeUnit.SECONDS)
        .endRun(EndRunRequest.newBuilder().setScope(scope).setRunId(runId).setInput(input).build());
  }

  private static RememberResponse remember(MemoryServiceBlockingStub stub, Scope scope, Turn t) {
    return stub.withDeadlineAfter(60, TimeUnit.SECONDS)
        .remember(
            RememberRequest.newBuilder()
                .setScope(scope)
                .setProfile("user")
                .setContent(t.line() + " (session date: " + t.date() + ")")
                .build());
  }

  private static List<SearchHit> search(MemoryServiceBlockingStub stub, Scope scope, String q) {
    return stub.withDeadlineAfter(60, TimeUnit.SECONDS)
        .search(SearchRequest.newBuilder().setScope(scope).setQuery(q).setTopK(TOP_K).build())
        .getHitsList();
  }

  // ---------------------------------------------------------------- options

  @Command(description = "LoCoMo through EndRun and through raw Remember, then Search: coverage.")
  private static final class Options {
    @Mixin SidecarJar sidecar;

    @Mixin Locomo.Data data;

    @Option(names = "--worse", paramLabel = "N", description = "questions where EndRun does worse")
    int worse = 10;

    @Option(names = "--merges", paramLabel = "N", description = "merges of evidence turns to print")
    int merges = 10;

    @Option(
        names = "--warmup",
        paramLabel = "N",
        description = "sessions of the first conversation run first on a throw-away workspace")
    int warmup = 20;

    @Option(
        names = "--gate",
        paramLabel = "X",
        description = "what-if: the workspace's memory.gate.threshold (default: not set, so 7.0)")
    Double gate;
  }
}
