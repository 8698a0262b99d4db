package dev.memsidecar.sidecar.bench;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A LoCoMo file (Maharana et al., ACL 2024: {@code locomo10.json} or a part of it) as the memories
 * and questions {@code bench locomo} sends. Immutable.
 *
 * <p>A turn's memory: content {@code speaker: text}, then {@code [image: caption]} when the turn
 * shares an image, then {@code (session date: ...)}; context the previous and the next turn of the
 * same session as {@code speaker: text} lines; {@code dia_id} kept. A question's evidence: the
 * {@code D<session>:<turn>} ids its {@code evidence} strings hold (also the malformed ones such as
 * {@code "D8:6; D9:17"}) that name a turn of its conversation; a question left with none cannot be
 * scored.
 *
 * @param conversations in file order
 */
record LocomoData(List<Conversation> conversations) {
  private static final Pattern SESSION = Pattern.compile("session_(\\d+)");
  private static final Pattern DIA_ID = Pattern.compile("D\\d+:\\d+");
  private static final Pattern ID = Pattern.compile("[A-Za-z0-9._-]{1,64}");

  LocomoData {
    conversations = List.copyOf(conversations);
  }

  /** One conversation: its own workspace. */
  record Conversation(String workspaceId, List<Turn> turns, List<Question> questions) {
    Conversation {
      turns = List.copyOf(turns);
      questions = List.copyOf(questions);
    }
  }

  /** One dialog turn as a memory. */
  record Turn(String diaId, String content, String context) {}

  /**
   * One question.
   *
   * @param category 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop, 5 adversarial
   * @param evidence the dia_ids of the turns that hold the answer; empty: cannot be scored
   */
  record Question(String text, int category, Set<String> evidence) {
    Question {
      evidence = Set.copyOf(evidence);
    }
  }

  int turnCount() {
    return conversations.stream().mapToInt(c -> c.turns().size()).sum();
  }

  int questionCount() {
    return conversations.stream().mapToInt(c -> c.questions().size()).sum();
  }

  /** The first {@code n} conversations (all when {@code n} is 0 or more than there are). */
  LocomoData first(int n) {
    return n <= 0 || n >= conversations.size() ? this : new LocomoData(conversations.subList(0, n));
  }

  /**
   * Reads a LoCoMo file.
   *
   * @throws IllegalArgumentException when it is not LoCoMo JSON; the message says where
   */
  static LocomoData read(Path file) throws IOException {
    try {
      return parse(Files.readString(file, StandardCharsets.UTF_8));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
    }
  }

  /** Parses LoCoMo JSON text (an array of conversations). */
  static LocomoData parse(String json) {
    JsonNode root;
    try {
      root = new ObjectMapper().readTree(json);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("not JSON: " + e.getOriginalMessage(), e);
    }
    if (root == null || !root.isArray()) {
      throw new IllegalArgumentException("not a LoCoMo file: expected an array of conversations");
    }
    List<Conversation> out = new ArrayList<>();
    Set<String> workspaces = new HashSet<>();
    int index = 0;
    for (JsonNode sample : root) {
      index++;
      JsonNode conversation = sample.path("conversation");
      if (!conversation.isObject()) {
        throw new IllegalArgumentException(
            "conversation " + index + " has no 'conversation' object");
      }
      String workspaceId = workspaceId(sample.path("sample_id").asText(""), index, workspaces);
      List<Turn> turns = turns(conversation);
      Set<String> known = new HashSet<>();
      for (Turn t : turns) {
        known.add(t.diaId());
      }
      List<Question> questions = new ArrayList<>();
      for (JsonNode qa : sample.path("qa")) {
        String text = qa.path("question").asText("").strip();
        if (text.isEmpty()) {
          continue;
        }
        Set<String> evidence = new LinkedHashSet<>();
        for (JsonNode raw : qa.path("evidence")) {
          Matcher m = DIA_ID.matcher(raw.asText(""));
          while (m.find()) {
            if (known.contains(m.group())) {
              evidence.add(m.group());
            }
          }
        }
        questions.add(new Question(text, qa.path("category").asInt(0), evidence));
      }
      out.add(new Conversation(workspaceId, turns, questions));
    }
    return new LocomoData(out);
  }

  private static List<Turn> turns(JsonNode conversation) {
    TreeMap<Integer, JsonNode> sessions = new TreeMap<>();
    for (Map.Entry<String, JsonNode> e : conversation.properties()) {
      Matcher m = SESSION.matcher(e.getKey());
      if (m.matches() && e.getValue().isArray()) {
        sessions.put(Integer.parseInt(m.group(1)), e.getValue());
      }
    }
    List<Turn> turns = new ArrayList<>();
    for (Map.Entry<Integer, JsonNode> session : sessions.entrySet()) {
      String date = conversation.path("session_" + session.getKey() + "_date_time").asText("");
      List<JsonNode> raw = new ArrayList<>();
      session.getValue().forEach(raw::add);
      for (int i = 0; i < raw.size(); i++) {
        JsonNode t = raw.get(i);
        StringBuilder content = new StringBuilder(line(t));
        String caption = t.path("blip_caption").asText("").strip();
        if (!caption.isEmpty()) {
          content.append(" [image: ").append(caption).append(']');
        }
        if (!date.isBlank()) {
          content.append(" (session date: ").append(date.strip()).append(')');
        }
        StringBuilder context = new StringBuilder();
        if (i > 0) {
          context.append(line(raw.get(i - 1)));
        }
        if (i + 1 < raw.size()) {
          if (!context.isEmpty()) {
            context.append('\n');
          }
          context.append(line(raw.get(i + 1)));
        }
        turns.add(
            new Turn(t.path("dia_id").asText("").strip(), content.toString(), context.toString()));
      }
    }
    return turns;
  }

  /** {@code speaker: text}, the text on one line. */
  private static String line(JsonNode turn) {
    return turn.path("speaker").asText("").strip()
        + ": "
        + turn.path("text").asText("").replaceAll("\\s+", " ").strip();
  }

  /** The sample id when it is a valid scope id not used yet, else {@code conv-<index>}. */
  private static String workspaceId(String sampleId, int index, Set<String> used) {
    String id =
        ID.matcher(sampleId).matches() && !sampleId.equals(".") && !sampleId.equals("..")
            ? sampleId
            : String.format(Locale.ROOT, "conv-%d", index);
    while (!used.add(id)) {
      id = id + "-" + index;
    }
    return id;
  }
}
