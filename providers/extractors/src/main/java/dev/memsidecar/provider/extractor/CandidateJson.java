package dev.memsidecar.provider.extractor;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.memsidecar.api.GateScores;
import dev.memsidecar.api.MemoryCandidate;
import dev.memsidecar.api.MemoryCandidate.Owner;
import dev.memsidecar.api.MemoryKind;
import dev.memsidecar.api.Validity;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A model's answer as memory candidates: tolerant in what it reads, strict in what it keeps.
 *
 * <p>Reading: {@code <think>...</think>} blocks are dropped; the first {@code ```json} (or {@code
 * ```}) fence is used when there is one; otherwise the first JSON value found in the text (prose
 * around it is ignored). The value may be an array of candidates, an object holding one (any field
 * whose value is an array of objects, e.g. {@code "memories"}), or a single candidate object.
 *
 * <p>Keeping: each item needs a non-empty {@code content}, a {@code kind} (semantic, episodic,
 * procedural) and an {@code owner} (user, agent, session, workspace), case-insensitive; {@code
 * scores} with the six dimensions each 0..10 (also accepted at the item's top level); {@code
 * explicit} a boolean, {@code validity} long_term or short_term, {@code tags} strings. An invalid
 * item is dropped with a reason; a {@code profile} the run cannot write to is cleared (the engine
 * then routes by owner). Stateless and thread-safe.
 */
final class CandidateJson {
  private CandidateJson() {}

  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final JsonFactory FACTORY = MAPPER.getFactory();
  private static final Pattern THINK = Pattern.compile("(?is)<think>.*?</think>");
  private static final Pattern FENCE = Pattern.compile("(?s)```[a-zA-Z]*\\s*\\n?(.*?)```");
  static final List<String> DIMENSIONS =
      List.of("importance", "novelty", "relevance", "credibility", "granularity", "timeliness");

  /** An answer that holds no usable JSON; its message says why, without the answer. */
  static final class UnusableAnswer extends Exception {
    private static final long serialVersionUID = 1L;

    UnusableAnswer(String message) {
      super(message);
    }
  }

  /**
   * The candidates of an answer and the items dropped.
   *
   * @param candidates the valid items, in order
   * @param dropped one line per invalid item: its index and why
   */
  record Parsed(List<MemoryCandidate> candidates, List<String> dropped) {}

  /**
   * Parses {@code answer}.
   *
   * @param profiles the ids of the profiles the run may write to
   * @param evidence what a candidate without its own evidence gets
   * @throws UnusableAnswer when it holds no JSON of the expected shape, or items that all fail
   */
  static Parsed parse(String answer, Set<String> profiles, String evidence) throws UnusableAnswer {
    if (answer == null || answer.isBlank()) {
      throw new UnusableAnswer("the answer is empty");
    }
    String text = THINK.matcher(answer).replaceAll("");
    JsonNode root = null;
    Matcher fence = FENCE.matcher(text);
    if (fence.find()) {
      root = firstValue(fence.group(1));
    }
    if (root == null) {
      root = firstValue(text);
    }
    if (root == null) {
      throw new UnusableAnswer("the answer holds no JSON array or object");
    }
    List<JsonNode> items = items(root);
    if (items == null) {
      throw new UnusableAnswer(
          "the JSON is "
              + root.getNodeType().name().toLowerCase(Locale.ROOT)
              + ", not an array of candidates or an object holding one");
    }
    List<MemoryCandidate> out = new ArrayList<>();
    List<String> dropped = new ArrayList<>();
    for (int i = 0; i < items.size(); i++) {
      try {
        out.add(candidate(items.get(i), profiles, evidence));
      } catch (IllegalArgumentException e) {
        dropped.add("item " + i + ": " + e.getMessage());
      }
    }
    if (out.isEmpty() && !dropped.isEmpty()) {
      throw new UnusableAnswer("no item is valid: " + String.join("; ", dropped));
    }
    return new Parsed(List.copyOf(out), List.copyOf(dropped));
  }

  /** The first JSON array or object in {@code text}, or null. */
  private static JsonNode firstValue(String text) {
    int tries = 0;
    for (int i = 0; i < text.length() && tries < 20; i++) {
      char c = text.charAt(i);
      if (c != '[' && c != '{') {
        continue;
      }
      tries++;
      try (JsonParser p = FACTORY.createParser(text.substring(i))) {
        JsonNode node = MAPPER.readTree(p);
        if (node != null && (node.isArray() || node.isObject())) {
          return node;
        }
      } catch (JsonProcessingException e) {
        // not JSON from here; try the next bracket
      } catch (IOException e) {
        return null;
      }
    }
    return null;
  }

  private static List<JsonNode> items(JsonNode root) {
    if (root.isArray()) {
      List<JsonNode> out = new ArrayList<>();
      root.forEach(out::add);
      return out;
    }
    if (root.has("content")) {
      return List.of(root);
    }
    for (Map.Entry<String, JsonNode> field : root.properties()) {
      JsonNode value = field.getValue();
      if (value.isArray() && (value.isEmpty() || value.get(0).isObject())) {
        List<JsonNode> out = new ArrayList<>();
        value.forEach(out::add);
        return out;
      }
    }
    return null;
  }

  private static MemoryCandidate candidate(JsonNode item, Set<String> profiles, String evidence) {
    if (!item.isObject()) {
      throw new IllegalArgumentException("not an object");
    }
    String content = text(item, "content").strip();
    if (content.isEmpty()) {
      throw new IllegalArgumentException("content is missing or empty");
    }
    MemoryKind kind = choice(item, "kind", MemoryKind.class, null);
    Owner owner = choice(item, "owner", Owner.class, null);
    Validity validity = choice(item, "validity", Validity.class, Validity.LONG_TERM);
    JsonNode scoreNode = item.has("scores") ? item.get("scores") : item;
    float[] scores = new float[DIMENSIONS.size()];
    for (int d = 0; d < scores.length; d++) {
      JsonNode v = scoreNode.get(DIMENSIONS.get(d));
      if (v == null || !v.isNumber()) {
        throw new IllegalArgumentException(
            "scores." + DIMENSIONS.get(d) + " is missing or not a number");
      }
      double x = v.asDouble();
      if (!(x >= 0 && x <= 10)) {
        throw new IllegalArgumentException("scores." + DIMENSIONS.get(d) + " must be 0..10: " + x);
      }
      scores[d] = (float) x;
    }
    JsonNode explicitNode = item.get("explicit");
    if (explicitNode != null && !explicitNode.isNull() && !explicitNode.isBoolean()) {
      throw new IllegalArgumentException("explicit must be true or false");
    }
    boolean explicit = explicitNode != null && explicitNode.asBoolean(false);
    List<String> tags = new ArrayList<>();
    JsonNode tagNode = item.get("tags");
    if (tagNode != null && !tagNode.isNull()) {
      if (!tagNode.isArray()) {
        throw new IllegalArgumentException("tags must be an array of strings");
      }
      for (JsonNode t : tagNode) {
        if (!t.isTextual()) {
          throw new IllegalArgumentException("tags must be an array of strings");
        }
        String tag = t.asText().strip().toLowerCase(Locale.ROOT);
        if (!tag.isEmpty() && tag.length() <= 64 && !tags.contains(tag)) {
          tags.add(tag);
        }
      }
    }
    String profile = text(item, "profile").strip();
    if (!profile.isEmpty() && !profiles.contains(profile)) {
      profile = "";
    }
    String reason = text(item, "reason").strip();
    String quoted = text(item, "evidence").strip();
    return new MemoryCandidate(
        content,
        kind,
        owner,
        profile,
        new GateScores(scores[0], scores[1], scores[2], scores[3], scores[4], scores[5]),
        explicit,
        validity,
        tags.size() > 32 ? tags.subList(0, 32) : tags,
        quoted.isEmpty() ? evidence : quoted,
        "model: " + (reason.isEmpty() ? "no reason given" : reason));
  }

  private static String text(JsonNode item, String field) {
    JsonNode v = item.get(field);
    if (v == null || v.isNull()) {
      return "";
    }
    if (!v.isTextual()) {
      throw new IllegalArgumentException(field + " must be a string");
    }
    return v.asText();
  }

  private static <E extends Enum<E>> E choice(
      JsonNode item, String field, Class<E> type, E fallback) {
    String raw = text(item, field).strip();
    if (raw.isEmpty()) {
      if (fallback != null) {
        return fallback;
      }
      throw new IllegalArgumentException(field + " is missing");
    }
    String name = raw.toUpperCase(Locale.ROOT).replace('-', '_').replace(' ', '_');
    try {
      return Enum.valueOf(type, name);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          field + " must be one of " + lower(type.getEnumConstants()) + ": " + raw);
    }
  }

  private static <E extends Enum<E>> List<String> lower(E[] values) {
    List<String> out = new ArrayList<>();
    for (E v : values) {
      out.add(v.name().toLowerCase(Locale.ROOT));
    }
    return out;
  }
}
