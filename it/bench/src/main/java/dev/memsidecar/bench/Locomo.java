package dev.memsidecar.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.memsidecar.language.Terms;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Option;

/**
 * The LoCoMo conversations the quality benches replay (sessions of dated turns, questions of
 * categories 1-4 with their answers and evidence turns), and the answer coverage they score.
 */
final class Locomo {
  private static final Pattern DIA_ID = Pattern.compile("D\\d+:\\d+");
  private static final Pattern SESSION_KEY = Pattern.compile("session_(\\d+)");

  private Locomo() {}

  /**
   * The options that pick the data: {@code --locomo}, {@code --conversations}, {@code
   * --no-captions}.
   */
  static final class Data {
    @Option(names = "--locomo", paramLabel = "PATH", description = "LoCoMo file")
    Path locomo = Path.of("/work/shared/bench/locomo-dev.json");

    @Option(names = "--conversations", paramLabel = "N", description = "only the first N; 0: all")
    int conversations;

    @Option(names = "--no-captions", description = "leave image captions out of the turns")
    boolean noCaptions;

    List<Conversation> load() throws IOException {
      return Locomo.load(locomo, !noCaptions, conversations);
    }
  }

  record Turn(String key, String diaId, String speaker, String text, String date) {
    String line() {
      return speaker + ": " + text;
    }
  }

  record Session(int number, String date, List<Turn> turns) {}

  record Question(
      String conv, String text, String answer, int category, List<String> evidenceKeys) {}

  record Conversation(String id, List<Session> sessions, List<Question> questions) {
    List<Turn> turns() {
      return sessions.stream().flatMap(s -> s.turns().stream()).toList();
    }
  }

  static List<Conversation> load(Path path, boolean captions, int limit) throws IOException {
    JsonNode data = new ObjectMapper().readTree(Files.readString(path, StandardCharsets.UTF_8));
    List<Conversation> out = new ArrayList<>();
    for (JsonNode conv : data) {
      if (limit > 0 && out.size() >= limit) {
        break;
      }
      String id = conv.path("sample_id").asText();
      JsonNode c = conv.path("conversation");
      TreeMap<Integer, JsonNode> byNumber = new TreeMap<>();
      for (Iterator<String> it = c.fieldNames(); it.hasNext(); ) {
        String name = it.next();
        Matcher m = SESSION_KEY.matcher(name);
        if (m.matches() && c.get(name).isArray()) {
          byNumber.put(Integer.parseInt(m.group(1)), c.get(name));
        }
      }
      List<Session> sessions = new ArrayList<>();
      for (Map.Entry<Integer, JsonNode> e : byNumber.entrySet()) {
        String date = c.path("session_" + e.getKey() + "_date_time").asText();
        List<Turn> turns = new ArrayList<>();
        for (JsonNode t : e.getValue()) {
          String text = t.path("text").asText().replace('\n', ' ').strip();
          if (captions && t.hasNonNull("blip_caption")) {
            text = text + " [image: " + t.path("blip_caption").asText().strip() + "]";
          }
          String dia = t.path("dia_id").asText().strip();
          turns.add(new Turn(id + "/" + dia, dia, t.path("speaker").asText(), text, date));
        }
        if (!turns.isEmpty()) {
          sessions.add(new Session(e.getKey(), date, turns));
        }
      }
      List<Question> questions = new ArrayList<>();
      for (JsonNode qa : conv.path("qa")) {
        int category = qa.path("category").asInt();
        if (category < 1 || category > 4 || !qa.hasNonNull("answer")) {
          continue;
        }
        List<String> evidence = new ArrayList<>();
        for (JsonNode e : qa.path("evidence")) {
          Matcher m = DIA_ID.matcher(e.asText());
          while (m.find()) {
            evidence.add(id + "/" + m.group());
          }
        }
        questions.add(
            new Question(
                id, qa.path("question").asText(), qa.path("answer").asText(), category, evidence));
      }
      out.add(new Conversation(id, sessions, questions));
    }
    return out;
  }

  /** The share of the answer's keywords among the words of the first {@code k} texts. */
  static double coverage(List<String> texts, int k, Set<String> answer) {
    Set<String> found = new HashSet<>();
    for (int i = 0; i < Math.min(k, texts.size()); i++) {
      found.addAll(Terms.of(texts.get(i)));
    }
    long n = answer.stream().filter(found::contains).count();
    return (double) n / answer.size();
  }
}
