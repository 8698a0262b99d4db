package dev.memsidecar.provider.extractor;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.memsidecar.api.ExtractionRequest;
import dev.memsidecar.api.Extractor;
import dev.memsidecar.api.MemoryCandidate;
import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.api.ScoredRecord;
import dev.memsidecar.api.SearchQuery;
import dev.memsidecar.language.Terms;
import dev.memsidecar.toolkit.HashEmbedder;
import dev.memsidecar.toolkit.HybridIndex;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A development harness, not a test: how much of LoCoMo's answers the {@code rules} extractor
 * keeps, against the raw turns. Per conversation it runs every session through the extractor (one
 * request per session, again one request per pair of turns, and again one request per turn as an
 * agent loop sends it: the turn's text as input, {@code session_date} and {@code user_name} (the
 * speaker) in metadata), keeps the candidates the write gate would admit (weighted score 7.0 and
 * up, or explicit), indexes them (content, with the evidence as context) in a {@link HybridIndex}
 * with the {@link HashEmbedder}, and for each question of categories 1-4 measures the fraction of
 * the answer's words (lower case, stopwords dropped) found in the contents of the top 10 hits. The
 * baseline indexes the raw turns instead, each as {@code Speaker: text (session date)}. Also
 * printed: records per turn, and how many evidence turns gave an admitted candidate.
 *
 * <p>Run from {@code providers/extractors} after {@code mvn -o -q test-compile}:
 *
 * <pre>
 * java -cp target/classes:target/test-classes:$(cat target/cp.txt) \
 *     dev.memsidecar.provider.extractor.ExtractionQualityBench [path/to/locomo.json] [--no-captions] \
 *     [--dump N] [--worse CATEGORY]
 * </pre>
 *
 * {@code --dump N} lists up to N evidence turns that gave no admitted candidate; {@code --worse C}
 * lists the questions of category C where the candidates cover less of the answer than the raw
 * turns, with their evidence turns and candidates. Captions of shared images are appended to a
 * turn's text as {@code [image: ...]} unless {@code --no-captions}.
 *
 * <p>({@code mvn -o -q dependency:build-classpath -Dmdep.outputFile=target/cp.txt} writes the class
 * path.) The default data file is {@code /work/shared/bench/locomo-dev.json}.
 */
public final class ExtractionQualityBench {
  private static final int TOP_K = 10;
  private static final Namespace NS = Namespace.of("bench");
  private static final Instant T0 = Instant.parse("2024-01-01T00:00:00Z");

  private ExtractionQualityBench() {}

  /** One turn as the bench feeds it. */
  private record Turn(String diaId, String speaker, String text, String date) {
    String line() {
      return speaker + ": " + text;
    }
  }

  /** The figures of one way of indexing, per category. */
  private static final class Tally {
    final Map<Integer, double[]> byCategory = new TreeMap<>(); // sum, count

    void add(int category, double coverage) {
      double[] t = byCategory.computeIfAbsent(category, k -> new double[2]);
      t[0] += coverage;
      t[1]++;
      double[] all = byCategory.computeIfAbsent(0, k -> new double[2]);
      all[0] += coverage;
      all[1]++;
    }

    String cell(int category) {
      double[] t = byCategory.get(category);
      return t == null ? "   -  " : String.format(Locale.ROOT, "%6.3f", t[0] / t[1]);
    }

    int count(int category) {
      double[] t = byCategory.get(category);
      return t == null ? 0 : (int) t[1];
    }
  }

  public static void main(String[] args) throws Exception {
    Path path = Path.of("/work/shared/bench/locomo-dev.json");
    boolean captions = true;
    int dump = 0;
    int worse = 0;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--no-captions" -> captions = false;
        case "--dump" -> dump = Integer.parseInt(args[++i]);
        case "--worse" -> worse = Integer.parseInt(args[++i]);
        default -> path = Path.of(args[i]);
      }
    }
    JsonNode data = new ObjectMapper().readTree(Files.readString(path));
    Extractor extractor = new RulesExtractor();
    HashEmbedder embedder = new HashEmbedder();
    Tally baseline = new Tally();
    Tally session = new Tally();
    Tally sessionNoEvidence = new Tally();
    Tally pairs = new Tally();
    Tally perTurn = new Tally();
    long turnsTotal = 0;
    long proposedSession = 0;
    long admittedSession = 0;
    long proposedPairs = 0;
    long admittedPairs = 0;
    long proposedTurns = 0;
    long admittedTurns = 0;
    long evidenceTurns = 0;
    long evidenceKept = 0;
    long nanos = 0;
    int sessionCount = 0;
    List<String> dropped = new ArrayList<>();
    for (JsonNode conv : data) {
      String sample = conv.path("sample_id").asText();
      List<List<Turn>> sessions = sessions(conv.path("conversation"), captions);
      List<Turn> all = sessions.stream().flatMap(List::stream).toList();
      turnsTotal += all.size();

      List<MemoryCandidate> bySession = new ArrayList<>();
      List<MemoryCandidate> byPair = new ArrayList<>();
      List<MemoryCandidate> byTurn = new ArrayList<>();
      for (List<Turn> s : sessions) {
        String date = s.get(0).date();
        StringBuilder input = new StringBuilder("[session date: " + date + "]\n");
        for (Turn t : s) {
          input.append(t.line()).append('\n');
        }
        long start = System.nanoTime();
        List<MemoryCandidate> got = extractor.extract(request(sample, input.toString(), Map.of()));
        nanos += System.nanoTime() - start;
        sessionCount++;
        proposedSession += got.size();
        bySession.addAll(admitted(got));
        for (int i = 0; i < s.size(); i += 2) {
          String pair = s.get(i).line() + (i + 1 < s.size() ? "\n" + s.get(i + 1).line() : "");
          List<MemoryCandidate> p =
              extractor.extract(request(sample, pair, Map.of("session_date", date)));
          proposedPairs += p.size();
          byPair.addAll(admitted(p));
        }
        for (Turn t : s) {
          // The agent loop: one request per turn, its speaker as the user.
          List<MemoryCandidate> p =
              extractor.extract(
                  request(
                      sample, t.text(), Map.of("session_date", date, "user_name", t.speaker())));
          proposedTurns += p.size();
          byTurn.addAll(admitted(p));
        }
      }
      admittedSession += bySession.size();
      admittedPairs += byPair.size();
      admittedTurns += byTurn.size();

      Map<String, Turn> byId = new java.util.HashMap<>();
      for (Turn t : all) {
        byId.put(t.diaId(), t);
      }
      Set<String> keptLines = new HashSet<>();
      for (MemoryCandidate c : bySession) {
        keptLines.addAll(List.of(c.evidence().split("\n")));
      }

      HybridIndex raw = new HybridIndex(embedder.dimensions());
      int n = 0;
      for (Turn t : all) {
        String content = t.line() + " (" + t.date() + ")";
        raw.put(record("t" + n++, content, ""), embedder.embed(content));
      }
      HybridIndex sessionIndex = index(bySession, embedder, true);
      HybridIndex sessionIndexNoEvidence = index(bySession, embedder, false);
      HybridIndex pairIndex = index(byPair, embedder, true);
      HybridIndex turnIndex = index(byTurn, embedder, true);

      for (JsonNode qa : conv.path("qa")) {
        int category = qa.path("category").asInt();
        if (category < 1 || category > 4 || !qa.has("answer")) {
          continue;
        }
        Set<String> answer = new LinkedHashSet<>(Terms.keywords(qa.path("answer").asText()));
        if (answer.isEmpty()) {
          continue;
        }
        String question = qa.path("question").asText();
        double b = coverage(raw, question, answer, embedder);
        double x = coverage(sessionIndex, question, answer, embedder);
        baseline.add(category, b);
        session.add(category, x);
        if (category == worse && x < b) {
          System.out.printf(
              Locale.ROOT,
              "WORSE %.2f<%.2f %s -> %s %s%n",
              x,
              b,
              question,
              answer,
              qa.path("evidence"));
          for (JsonNode e : qa.path("evidence")) {
            Turn t = byId.get(e.asText().strip());
            if (t != null) {
              String kept =
                  bySession.stream()
                      .filter(c -> c.evidence().contains(t.line()))
                      .map(MemoryCandidate::content)
                      .findFirst()
                      .orElse("(none)");
              System.out.println("   turn: " + t.line() + "\n   cand: " + kept);
            }
          }
        }
        sessionNoEvidence.add(
            category, coverage(sessionIndexNoEvidence, question, answer, embedder));
        pairs.add(category, coverage(pairIndex, question, answer, embedder));
        perTurn.add(category, coverage(turnIndex, question, answer, embedder));
        for (JsonNode e : qa.path("evidence")) {
          Turn t = byId.get(e.asText().strip());
          if (t == null) {
            continue;
          }
          evidenceTurns++;
          if (keptLines.contains(t.line())) {
            evidenceKept++;
          } else if (dropped.size() < dump) {
            dropped.add(
                sample + " " + t.diaId() + " [" + qa.path("answer").asText() + "] " + t.line());
          }
        }
      }
    }
    System.out.printf(Locale.ROOT, "data: %s (captions %s)%n", path, captions ? "on" : "off");
    System.out.printf(
        Locale.ROOT,
        "turns %d; session requests: %d proposed, %d admitted (%.1f%% of turns); pair requests: %d"
            + " proposed, %d admitted (%.1f%% of turns)%n",
        turnsTotal,
        proposedSession,
        admittedSession,
        100.0 * admittedSession / turnsTotal,
        proposedPairs,
        admittedPairs,
        100.0 * admittedPairs / turnsTotal);
    System.out.printf(
        Locale.ROOT,
        "turn requests (session_date and user_name in metadata): %d proposed, %d admitted (%.1f%%"
            + " of turns)%n",
        proposedTurns,
        admittedTurns,
        100.0 * admittedTurns / turnsTotal);
    System.out.printf(
        Locale.ROOT,
        "evidence turns with an admitted candidate (session requests): %d of %d (%.1f%%)%n",
        evidenceKept,
        evidenceTurns,
        100.0 * evidenceKept / Math.max(1, evidenceTurns));
    System.out.printf(
        Locale.ROOT,
        "rules extraction: %.2f ms per session request (%d sessions, first pass, JIT cold)%n",
        nanos / 1e6 / sessionCount,
        sessionCount);
    System.out.println();
    System.out.println("answer-word coverage in the top " + TOP_K + " (higher is better)");
    System.out.println(
        "category          questions  raw turns  sessions  sessions(content only)  pairs   turns");
    String[] names = {"all", "1 multi-hop", "2 temporal", "3 open-domain", "4 single-hop"};
    for (int c : new int[] {1, 2, 3, 4, 0}) {
      System.out.printf(
          Locale.ROOT,
          "%-17s %9d     %s    %s    %s                 %s  %s%n",
          names[c],
          baseline.count(c),
          baseline.cell(c),
          session.cell(c),
          sessionNoEvidence.cell(c),
          pairs.cell(c),
          perTurn.cell(c));
    }
    if (!dropped.isEmpty()) {
      System.out.println();
      System.out.println("evidence turns without an admitted candidate:");
      dropped.forEach(System.out::println);
    }
  }

  private static List<List<Turn>> sessions(JsonNode conversation, boolean captions) {
    List<List<Turn>> out = new ArrayList<>();
    for (int s = 1; ; s++) {
      JsonNode turns = conversation.get("session_" + s);
      if (turns == null) {
        if (s > 60) {
          break;
        }
        continue;
      }
      String date = conversation.path("session_" + s + "_date_time").asText();
      List<Turn> session = new ArrayList<>();
      for (Iterator<JsonNode> it = turns.elements(); it.hasNext(); ) {
        JsonNode t = it.next();
        String text = t.path("text").asText().replace('\n', ' ').strip();
        if (captions && t.hasNonNull("blip_caption")) {
          text = text + " [image: " + t.path("blip_caption").asText() + "]";
        }
        session.add(new Turn(t.path("dia_id").asText(), t.path("speaker").asText(), text, date));
      }
      if (!session.isEmpty()) {
        out.add(session);
      }
    }
    return out;
  }

  private static ExtractionRequest request(String run, String input, Map<String, String> metadata) {
    return new ExtractionRequest(
        run, input, "", List.of(), metadata, List.of(), T0, ZoneOffset.UTC);
  }

  private static List<MemoryCandidate> admitted(List<MemoryCandidate> candidates) {
    return candidates.stream().filter(c -> c.explicit() || c.scores().weighted() >= 7.0f).toList();
  }

  private static HybridIndex index(
      List<MemoryCandidate> candidates, HashEmbedder embedder, boolean withEvidence) {
    HybridIndex index = new HybridIndex(embedder.dimensions());
    int n = 0;
    for (MemoryCandidate c : candidates) {
      String context = withEvidence ? c.evidence() : "";
      MemoryRecord r = record("c" + n++, c.content(), context);
      index.put(r, embedder.embed(r.indexedText()));
    }
    return index;
  }

  private static MemoryRecord record(String id, String content, String context) {
    return MemoryRecord.builder()
        .id(id)
        .namespace(NS)
        .profile("bench")
        .content(content)
        .context(context)
        .createTime(T0)
        .updateTime(T0)
        .build();
  }

  private static double coverage(
      HybridIndex index, String question, Set<String> answer, HashEmbedder embedder) {
    SearchQuery query = new SearchQuery(question, null, TOP_K, Set.of(), List.of(), 0f, T0);
    Set<String> found = new HashSet<>();
    for (ScoredRecord hit : index.search(query, embedder.embed(question))) {
      found.addAll(Terms.of(hit.record().content()));
    }
    long hits = answer.stream().filter(found::contains).count();
    return (double) hits / answer.size();
  }
}
