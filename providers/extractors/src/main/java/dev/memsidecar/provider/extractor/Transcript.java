package dev.memsidecar.provider.extractor;

import dev.memsidecar.language.Languages;
import dev.memsidecar.language.extraction.SessionDates;
import dev.memsidecar.language.extraction.TranscriptWords;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * A run's text as turns: {@code Speaker: text} lines (a line without a speaker continues the turn
 * before it), an optional header line such as {@code [session date: 1:56 pm on 8 May, 2023]}. Text
 * that is not a conversation is one turn in the default voice (the user's for input, the agent's
 * for output). Immutable.
 *
 * <p>A line counts as a speaker line when its label is a name (1..3 capitalised words, or 1..4 Han
 * characters) and either one label heads two or more lines, the text has a session header or date,
 * the request is a conversation (a session date, or people speaking in the input), a speaker line
 * speaks in the first person ({@code Caroline: I went ...}), or the label is a role ({@code User},
 * {@code Assistant}, {@code 用户}, {@code 助手}, ...), so a lone {@code Note: ...} line stays text.
 * What a label, a role and a header look like comes from every language's {@link TranscriptWords};
 * the user is named by the request's {@code user_name} when given, and any other unnamed speaker in
 * the language of the turn ("the user", "用户").
 *
 * @param turns the turns in order
 * @param sessionDate the header's date text, or null
 */
record Transcript(List<Turn> turns, String sessionDate) {

  /** Who speaks a turn. */
  enum Role {
    /** The user of an agent run (no name, or {@code User}). */
    USER,
    /** A named person of a conversation. */
    PERSON,
    /** The agent (the run's output, or {@code Assistant}). */
    AGENT
  }

  /**
   * One turn.
   *
   * @param role who speaks
   * @param speaker the name to write instead of "I" (the name, or "the user"/"用户" for the user)
   * @param named whether the speaker is known by name: a person of a conversation, or the user
   *     named by the request's {@code user_name}; a named speaker's statements are read as a
   *     person's turn
   * @param text what was said
   * @param raw the turn as given, for evidence
   */
  record Turn(Role role, String speaker, boolean named, String text, String raw) {}

  /** Every language's transcript words, the default last. */
  private static final List<TranscriptWords> WORDS =
      Languages.all().stream().map(l -> l.extraction().transcript()).toList();

  private static final Pattern HEADER =
      Pattern.compile(
          "(?i)^\\s*\\[\\s*(?:"
              + alternation(TranscriptWords::headerLabels)
              + ")\\s*[:：=]\\s*(.+?)\\s*\\]\\s*$");
  private static final Pattern BARE_HEADER =
      Pattern.compile("^\\s*\\[\\s*([^\\[\\]]{6,60})\\s*\\]\\s*$");
  private static final Pattern SPEAKER_LINE =
      Pattern.compile(
          "^\\s*(?:\\*\\*)?("
              + alternation(TranscriptWords::speakerLabel)
              + ")(?:\\*\\*)?\\s*[:：]\\s*(.*)$");

  private static final Set<String> USER_ROLES = labels(TranscriptWords::userLabels);
  private static final Set<String> AGENT_ROLES = labels(TranscriptWords::agentLabels);
  private static final Set<String> NOT_NAMES = labels(TranscriptWords::notSpeakerLabels);

  private static String alternation(Function<TranscriptWords, String> part) {
    return WORDS.stream().map(part).filter(p -> !p.isEmpty()).collect(Collectors.joining("|"));
  }

  private static Set<String> labels(Function<TranscriptWords, Set<String>> part) {
    return WORDS.stream()
        .flatMap(w -> part.apply(w).stream())
        .collect(Collectors.toUnmodifiableSet());
  }

  /** Whether a line speaks in the first person, in some language. */
  private static boolean speaksOfSelf(String text) {
    return WORDS.stream().anyMatch(w -> w.speaksOfSelf(text));
  }

  /**
   * The turns of {@code text}.
   *
   * @param defaultRole the role of text without a speaker (USER for input, AGENT for output)
   * @param conversationHint whether the request says it is a conversation (a session date in its
   *     metadata), which lets a single speaker line count
   * @param userName the user's name (metadata {@code user_name}), written instead of "the user";
   *     null when not given
   */
  static Transcript parse(
      String text, Role defaultRole, boolean conversationHint, String userName) {
    String[] lines = text.replace("\r\n", "\n").replace('\r', '\n').split("\n", -1);
    String header = null;
    List<String> body = new ArrayList<>();
    for (String line : lines) {
      Matcher h = HEADER.matcher(line);
      if (h.matches()) {
        if (header == null) {
          header = h.group(1);
        }
        continue;
      }
      Matcher b = BARE_HEADER.matcher(line);
      if (header == null && b.matches() && SessionDates.parse(b.group(1), ZoneOffset.UTC) != null) {
        header = b.group(1);
        continue;
      }
      body.add(line);
    }
    // Which lines are speaker lines, by the rules in the class Javadoc.
    Map<Integer, Matcher> candidates = new HashMap<>();
    Map<String, Integer> labels = new HashMap<>();
    int speakerLines = 0;
    boolean roleSeen = false;
    boolean firstPerson = false;
    boolean inFence = false;
    for (int i = 0; i < body.size(); i++) {
      String line = body.get(i);
      if (line.strip().startsWith("```")) {
        inFence = !inFence;
        continue;
      }
      if (inFence) {
        continue;
      }
      Matcher m = SPEAKER_LINE.matcher(line);
      if (!m.matches() || m.group(2).isBlank()) {
        continue;
      }
      String label = m.group(1).strip();
      String key = label.toLowerCase(Locale.ROOT);
      if (USER_ROLES.contains(key) || AGENT_ROLES.contains(key)) {
        roleSeen = true;
      } else if (NOT_NAMES.contains(key) || NOT_NAMES.contains(key.split(" ")[0])) {
        continue;
      }
      candidates.put(i, m);
      labels.merge(label, 1, Integer::sum);
      speakerLines++;
      firstPerson |= speaksOfSelf(m.group(2));
    }
    boolean repeated = labels.values().stream().anyMatch(n -> n >= 2);
    boolean conversation =
        roleSeen
            || repeated
            || (speakerLines >= 1 && (header != null || conversationHint || firstPerson));
    List<Turn> turns = new ArrayList<>();
    Role role = defaultRole;
    String speaker = null;
    StringBuilder current = new StringBuilder();
    StringBuilder raw = new StringBuilder();
    for (int i = 0; i < body.size(); i++) {
      String line = body.get(i);
      Matcher m = conversation ? candidates.get(i) : null;
      if (m != null) {
        flush(turns, role, speaker, current, raw, userName);
        String label = m.group(1).strip();
        String key = label.toLowerCase(Locale.ROOT);
        if (USER_ROLES.contains(key)) {
          role = Role.USER;
          speaker = null;
        } else if (AGENT_ROLES.contains(key)) {
          role = Role.AGENT;
          speaker = null;
        } else {
          role = Role.PERSON;
          speaker = label;
        }
        current.append(m.group(2));
        raw.append(line.strip());
      } else {
        if (!current.isEmpty() || !line.isBlank()) {
          if (!raw.isEmpty()) {
            current.append('\n');
            raw.append('\n');
          }
          current.append(line);
          raw.append(line);
        }
      }
    }
    flush(turns, role, speaker, current, raw, userName);
    return new Transcript(List.copyOf(turns), header);
  }

  private static void flush(
      List<Turn> turns,
      Role role,
      String speaker,
      StringBuilder text,
      StringBuilder raw,
      String userName) {
    String t = text.toString().strip();
    if (!t.isEmpty()) {
      String name = speaker;
      boolean named = role == Role.PERSON;
      if (name == null && role == Role.USER && userName != null) {
        name = userName;
        named = true;
      } else if (name == null) {
        TranscriptWords words = Languages.of(t).extraction().transcript();
        name = role == Role.AGENT ? words.agentName() : words.userName();
      }
      turns.add(new Turn(role, name, named, t, raw.toString().strip()));
    }
    text.setLength(0);
    raw.setLength(0);
  }

  /** The distinct named speakers, in order of appearance. */
  List<String> people() {
    Set<String> out = new LinkedHashSet<>();
    for (Turn t : turns) {
      if (t.role() == Role.PERSON) {
        out.add(t.speaker());
      }
    }
    return List.copyOf(out);
  }
}
