package dev.memsidecar.provider.extractor;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memsidecar.api.ExtractionRequest;
import dev.memsidecar.api.ExtractionRequest.ProfileGuide;
import dev.memsidecar.api.Extractor;
import dev.memsidecar.api.MemoryCandidate;
import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.MemoryKind;
import dev.memsidecar.api.SkillDraftRequest;
import dev.memsidecar.api.ToolCall;
import dev.memsidecar.language.ReferenceTime;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Extracts with a model behind an OpenAI-compatible {@code /v1/chat/completions} endpoint.
 *
 * <p><b>The prompt.</b> A system message says what to keep (durable, self-contained statements
 * naming who they are about, absolute dates, no small talk, no restating run instructions), how to
 * score the write gate's six dimensions, the profiles the run may write to with their prompts
 * ({@link ExtractionRequest#profiles()}), and the JSON schema of the answer ({@link #SCHEMA}: an
 * array of candidates). The user message holds the run: its date (the run's {@link ReferenceTime}:
 * metadata {@code session_date}, else the input's leading timestamp, else the time it ended), time
 * zone, the user's name (metadata {@code user_name}), metadata, input (without its leading
 * timestamp), output and tool calls. The request is {@code {"model", "temperature", "messages"}}
 * (no {@code response_format}, which not every compatible server accepts).
 *
 * <p><b>The answer</b> is read by {@link CandidateJson}: fences, prose around the JSON and {@code
 * <think>} blocks are tolerated; invalid items are dropped (each logged at WARNING with why, never
 * with its content). An unusable answer (no JSON of the expected shape, or no valid item) gets ONE
 * repair attempt: the model is sent its answer and the parse error and asked for the JSON only.
 *
 * <p><b>Failures</b> are loud: a second unusable answer, a timeout ({@code timeout} per HTTP
 * request), an HTTP status other than 2xx, a refused connection or any I/O error throws {@link
 * MemoryException} UNAVAILABLE naming the endpoint and the cause (never the API key; an error body
 * the server sent is cut to 200 characters with the key masked), so the engine falls back to the
 * {@code rules} extractor and emits {@code memory.extraction.failed}. An interrupted call throws
 * CANCELLED.
 *
 * <p><b>Skill drafts</b> ({@link #draftSkill}): the same endpoint and model are asked to rewrite
 * the engine's own draft of a skill candidate as a SKILL.md ({@link #SKILL_PROMPT}), given the
 * evidence; the answer, without a code fence around it, must open with its front matter ({@code
 * ---}), else UNAVAILABLE and the engine keeps its own draft. No repair attempt: the engine's draft
 * is a good answer too. Immutable and thread-safe; calls may run in parallel.
 */
final class OpenAiExtractor implements Extractor {
  private static final System.Logger LOG =
      System.getLogger("dev.memsidecar.provider.extractor.openai");
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final int MAX_ERROR_BODY = 200;

  /** The JSON schema of the answer, as sent in the prompt. */
  static final String SCHEMA =
      """
      {
        "type": "array",
        "items": {
          "type": "object",
          "required": ["content", "kind", "owner", "scores"],
          "properties": {
            "content": {"type": "string", "minLength": 1,
              "description": "one self-contained statement: names who it is about (never I/you/he), absolute dates"},
            "kind": {"enum": ["semantic", "episodic", "procedural"]},
            "owner": {"enum": ["user", "agent", "session", "workspace"]},
            "profile": {"type": "string", "description": "a profile id from the list, or empty"},
            "scores": {
              "type": "object",
              "required": ["importance", "novelty", "relevance", "credibility", "granularity", "timeliness"],
              "properties": {
                "importance": {"type": "number", "minimum": 0, "maximum": 10},
                "novelty": {"type": "number", "minimum": 0, "maximum": 10},
                "relevance": {"type": "number", "minimum": 0, "maximum": 10},
                "credibility": {"type": "number", "minimum": 0, "maximum": 10},
                "granularity": {"type": "number", "minimum": 0, "maximum": 10},
                "timeliness": {"type": "number", "minimum": 0, "maximum": 10}
              }
            },
            "explicit": {"type": "boolean", "description": "the user asked for it to be remembered"},
            "validity": {"enum": ["long_term", "short_term"]},
            "tags": {"type": "array", "items": {"type": "string"}},
            "evidence": {"type": "string", "description": "the words of the run it comes from"},
            "reason": {"type": "string", "description": "why it is worth remembering"}
          }
        }
      }\
      """;

  private static final String INSTRUCTIONS =
      """
      You extract long-term memories from one run of an AI agent (the user's input and the \
      agent's output), for a memory store that recalls them in later runs.

      Keep what will still matter later: facts about people (identity, jobs, places, relations, \
      preferences, plans, dated events), workspace facts (URLs, hosts, versions, tokens, \
      conventions), reusable procedures and commands (verbatim), corrections of earlier facts, \
      and anything the user explicitly asks to remember (then set "explicit": true). Skip \
      greetings, thanks, small talk, questions, reactions, one-off instructions for this run \
      ("reply exactly ...") and anything the agent merely repeats from the input.

      Write each memory as ONE self-contained statement: name who it is about instead of \
      I/me/you/we (the user is "the user" unless the run names them), turn relative dates \
      ("yesterday", "next month") into absolute dates using the run's date (never today's), end \
      a memory of an event with the date it happened or was told (the run's date), keep numbers, \
      names, commands and tokens verbatim. A correction states the new value and the old one \
      ("The deploy day is Thursday, not Tuesday"). Owner: "user" for a person's life and preferences, "workspace" for project \
      facts and procedures, "agent" for how the agent should behave, "session" for this session \
      only. Kind: "semantic" (facts, preferences), "episodic" (events), "procedural" (how-to). \
      Use "short_term" validity for what only holds now (today, this week).

      Score six dimensions from 0 to 10, honestly: importance, novelty, relevance (to the user \
      or workspace), credibility (direct statement high, hedged low), granularity (specific \
      beats vague), timeliness (durable high, only-for-now low). The store keeps a memory when \
      0.3*importance + 0.1*novelty + 0.2*relevance + 0.2*credibility + 0.1*granularity + \
      0.1*timeliness >= 7, so chit-chat must score below that.

      Answer with JSON only: an array (possibly empty, []) matching this JSON schema:
      """;

  /** The system prompt of a skill draft. */
  static final String SKILL_PROMPT =
      """
      You write SKILL.md files: reusable procedures an AI agent follows. You are given a skill \
      candidate that a memory system found in what its users taught and in tasks they accepted, \
      with the system's own plain draft. Rewrite the draft as a clear SKILL.md:
      - Start with YAML front matter between two lines of three dashes: name (exactly the name \
      given, unchanged) and description (one line, at most 300 characters, saying what the skill \
      does and when to use it, in double quotes).
      - Then a short title, "## Steps" as a numbered list of imperative steps, "## Tools" if the \
      accepted runs used tools, and "## Evidence" listing the evidence you were given.
      - Use only what the evidence says; invent no commands, names or facts.
      Answer with the markdown only: no code fence, no prose before or after it.
      """;

  private final URI endpoint;
  private final String model;
  private final String apiKey;
  private final Duration timeout;
  private final double temperature;
  private final HttpClient client;

  OpenAiExtractor(URI endpoint, String model, String apiKey, Duration timeout, double temperature) {
    this.endpoint = requireNonNull(endpoint, "endpoint is null");
    this.model = requireNonNull(model, "model is null");
    this.apiKey = apiKey;
    this.timeout = requireNonNull(timeout, "timeout is null");
    this.temperature = temperature;
    this.client =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(timeout)
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
  }

  @Override
  public List<MemoryCandidate> extract(ExtractionRequest request) {
    requireNonNull(request, "request is null");
    Set<String> profiles = new LinkedHashSet<>();
    request.profiles().forEach(p -> profiles.add(p.id()));
    String evidence = evidence(request);
    ArrayNode messages = MAPPER.createArrayNode();
    messages.add(message("system", systemPrompt(request)));
    messages.add(message("user", runText(request)));
    String answer = complete(messages);
    CandidateJson.Parsed parsed;
    try {
      parsed = CandidateJson.parse(answer, profiles, evidence);
    } catch (CandidateJson.UnusableAnswer first) {
      LOG.log(
          System.Logger.Level.WARNING,
          "openai extractor: unusable answer from model {0} ({1}); asking once for a repair",
          model,
          first.getMessage());
      messages.add(message("assistant", answer));
      messages.add(
          message(
              "user",
              "Your answer could not be used: "
                  + first.getMessage()
                  + ". Reply with the JSON array only (no prose, no code fence), matching the"
                  + " schema above; [] if nothing is worth remembering."));
      String repaired = complete(messages);
      try {
        parsed = CandidateJson.parse(repaired, profiles, evidence);
      } catch (CandidateJson.UnusableAnswer second) {
        throw MemoryException.unavailable(
            "openai extractor: the answer of model '"
                + model
                + "' at "
                + endpoint
                + " was not usable after one repair attempt: "
                + second.getMessage(),
            null);
      }
    }
    for (String d : parsed.dropped()) {
      LOG.log(System.Logger.Level.WARNING, "openai extractor: dropped {0}", d);
    }
    return parsed.candidates();
  }

  @Override
  public Optional<String> draftSkill(SkillDraftRequest request) {
    requireNonNull(request, "request is null");
    StringBuilder user = new StringBuilder();
    user.append("Skill name: ").append(request.name()).append("\n\nEvidence:\n");
    for (String e : request.evidence()) {
      user.append("- ").append(e.replace('\n', ' ')).append('\n');
    }
    user.append("\nThe system's draft:\n\n").append(request.draft());
    ArrayNode messages = MAPPER.createArrayNode();
    messages.add(message("system", SKILL_PROMPT));
    messages.add(message("user", user.toString()));
    String answer = withoutFence(complete(messages).strip());
    if (!answer.startsWith("---")) {
      throw MemoryException.unavailable(
          "openai extractor: the skill draft of model '"
              + model
              + "' at "
              + endpoint
              + " does not open with its front matter (---)",
          null);
    }
    return Optional.of(answer + "\n");
  }

  /** {@code text} without a code fence around it ({@code ```markdown ... ```}). */
  static String withoutFence(String text) {
    String t = text.replaceAll("(?s)^<think>.*?</think>\\s*", "");
    if (t.startsWith("```")) {
      int nl = t.indexOf('\n');
      int end = t.lastIndexOf("```");
      if (nl > 0 && end > nl) {
        return t.substring(nl + 1, end).strip();
      }
    }
    return t;
  }

  /** The model's answer to {@code messages}: the first choice's message content. */
  private String complete(ArrayNode messages) {
    ObjectNode body = MAPPER.createObjectNode();
    body.put("model", model);
    body.put("temperature", temperature);
    body.put("stream", false);
    body.set("messages", messages);
    HttpRequest.Builder http =
        HttpRequest.newBuilder(endpoint)
            .timeout(timeout)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body.toString(), StandardCharsets.UTF_8));
    if (apiKey != null) {
      http.header("Authorization", "Bearer " + apiKey);
    }
    HttpResponse<String> response;
    try {
      response =
          client.send(http.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    } catch (HttpTimeoutException e) {
      throw MemoryException.unavailable(
          "openai extractor: no answer from " + endpoint + " within " + describe(timeout), e);
    } catch (ConnectException e) {
      throw MemoryException.unavailable(
          "openai extractor: cannot connect to " + endpoint + " (" + safe(e.getMessage()) + ")", e);
    } catch (IOException e) {
      throw MemoryException.unavailable(
          "openai extractor: the request to "
              + endpoint
              + " failed: "
              + e.getClass().getSimpleName()
              + (e.getMessage() == null ? "" : " " + safe(e.getMessage())),
          e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new MemoryException(
          MemoryException.Code.CANCELLED, null, "openai extractor: interrupted", null);
    }
    if (response.statusCode() / 100 != 2) {
      throw MemoryException.unavailable(
          "openai extractor: HTTP "
              + response.statusCode()
              + " from "
              + endpoint
              + errorBody(response.body()),
          null);
    }
    JsonNode root;
    try {
      root = MAPPER.readTree(response.body());
    } catch (IOException e) {
      throw MemoryException.unavailable(
          "openai extractor: " + endpoint + " answered with a body that is not JSON", null);
    }
    JsonNode content =
        root == null ? null : root.path("choices").path(0).path("message").path("content");
    if (content == null || !content.isTextual()) {
      throw MemoryException.unavailable(
          "openai extractor: " + endpoint + " answered without choices[0].message.content", null);
    }
    return content.asText();
  }

  private String errorBody(String body) {
    if (body == null || body.isBlank()) {
      return "";
    }
    String b = safe(body.strip().replaceAll("\\s+", " "));
    return ": " + (b.length() > MAX_ERROR_BODY ? b.substring(0, MAX_ERROR_BODY) + "..." : b);
  }

  /** {@code text} with the API key masked, should a server have echoed it. */
  private String safe(String text) {
    if (text == null) {
      return "";
    }
    return apiKey == null || apiKey.isEmpty() ? text : text.replace(apiKey, "***");
  }

  private static String describe(Duration d) {
    return d.toMillis() % 1000 == 0 ? d.toSeconds() + "s" : d.toMillis() + "ms";
  }

  private static ObjectNode message(String role, String content) {
    ObjectNode m = MAPPER.createObjectNode();
    m.put("role", role);
    m.put("content", content);
    return m;
  }

  static String systemPrompt(ExtractionRequest request) {
    StringBuilder s = new StringBuilder(INSTRUCTIONS).append(SCHEMA).append('\n');
    if (!request.profiles().isEmpty()) {
      s.append("\nProfiles this run may write to (set \"profile\" to one of their ids, or leave it")
          .append(" empty to route by owner); each says what it keeps:\n");
      for (ProfileGuide p : request.profiles()) {
        s.append("- id \"")
            .append(p.id())
            .append("\", owner ")
            .append(p.owner().name().toLowerCase(Locale.ROOT));
        if (!p.description().isBlank()) {
          s.append(": ").append(p.description().strip());
        }
        s.append('\n');
        if (p.prompts().isEmpty()) {
          s.append("    keeps every kind\n");
        }
        for (MemoryKind kind : MemoryKind.values()) {
          String prompt = p.prompts().get(kind);
          if (prompt != null) {
            s.append("    ")
                .append(kind.name().toLowerCase(Locale.ROOT))
                .append(": ")
                .append(prompt.strip().replaceAll("\\s+", " "))
                .append('\n');
          }
        }
      }
    }
    return s.toString();
  }

  static String runText(ExtractionRequest request) {
    ReferenceTime reference =
        ReferenceTime.of(request.metadata(), request.input(), request.now(), request.zone());
    ZonedDateTime now = reference.instant().atZone(request.zone());
    StringBuilder s = new StringBuilder();
    s.append("Run ").append(request.runId()).append('\n');
    s.append(reference.dated() ? "Date and time of the conversation: " : "Date and time: ")
        .append(now)
        .append(" (time zone ")
        .append(request.zone())
        .append(")\n");
    String userName = request.metadata().getOrDefault(RulesExtractor.USER_NAME, "").strip();
    if (!userName.isEmpty()) {
      s.append("The user's name: ")
          .append(userName)
          .append(" (write it instead of \"the user\")\n");
    }
    for (Map.Entry<String, String> e : new java.util.TreeMap<>(request.metadata()).entrySet()) {
      s.append("Metadata ").append(e.getKey()).append(": ").append(e.getValue()).append('\n');
    }
    s.append("\nUser input:\n<<<\n").append(reference.input()).append("\n>>>\n");
    s.append("\nAgent output:\n<<<\n").append(request.output()).append("\n>>>\n");
    if (!request.toolCalls().isEmpty()) {
      s.append("\nTool calls:\n");
      for (ToolCall t : request.toolCalls()) {
        s.append("- ").append(t.toolName()).append(t.ok() ? ": ok" : ": failed");
        if (!t.ok()) {
          s.append(" (").append(t.errorCategory()).append(") ").append(t.errorMessage());
        }
        s.append('\n');
      }
    }
    return s.toString();
  }

  /** A candidate without its own "evidence" gets none: the whole input would only add noise. */
  private static String evidence(ExtractionRequest request) {
    return "";
  }
}
