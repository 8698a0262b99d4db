package dev.memsidecar.core.skills;

import dev.memsidecar.core.Limits;
import dev.memsidecar.language.Sentences;
import dev.memsidecar.language.Terms;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The default synthesizer: deterministic and offline, the same evidence gives the same draft.
 *
 * <p>It takes the candidate's representative procedure — the memory taught by the most runs (the
 * earliest stored on a tie), else the earliest accepted task's request — as the description. Its
 * steps are that procedure cut at its sequence words ("To X, first A, then B; after that C" gives
 * A, B, C, with their leading "always", "first", "then" dropped); for a candidate of tasks alone,
 * the tools the accepted runs called, in order, then the answer the accepted run gave. Then the
 * tools the accepted runs used, and the evidence, every piece with its runs and sessions. It knows
 * no synonyms and writes no new words: a reviewer edits the draft, or a model does it better.
 * Stateless.
 */
public final class OfflineSynthesizer implements SkillSynthesizer {
  public static final String NAME = "offline";

  /** The longest description it writes. */
  static final int MAX_DESCRIPTION_CHARS = 300;

  /** Of each piece of evidence, at most this many characters are quoted. */
  static final int MAX_QUOTE_CHARS = 400;

  /** Pieces of evidence the draft lists at most; the candidate holds them all. */
  static final int MAX_LISTED = 20;

  /** "To X, ...", "Before X: ...": the goal, then the procedure. */
  private static final Pattern GOAL =
      Pattern.compile(
          "(?i)^(?:please\\s+)?(to|before|when(?:ever)?|after|once|if|for)\\s+([^,:;]{2,100})[,:;]\\s*(.+)$",
          Pattern.DOTALL);

  /** Where one step ends and the next begins. */
  private static final Pattern STEP_BREAK =
      Pattern.compile(
          "(?i)\\s*(?:;|(?<=[a-z0-9`)'\"])\\.\\s+|,?\\s+(?:and\\s+)?then\\s+|,\\s*(?:and\\s+)?next,?\\s+|,?\\s*(?:and\\s+)?after"
              + " that,?\\s+|,?\\s*(?:and\\s+)?afterwards,?\\s+"
              + "|,?\\s*(?:and\\s+)?finally,?\\s+)\\s*");

  /** Words a step opens with that say nothing about what to do. */
  private static final Pattern LEADING =
      Pattern.compile(
          "(?i)^(?:and|also|always|first(?:ly)?|then|next|finally|afterwards)[,:]?\\s+");

  /** The most words a derived skill name has. */
  static final int MAX_NAME_WORDS = 4;

  @Override
  public Draft draft(String workspaceId, String name, List<CandidateEvidence> evidence) {
    if (evidence.isEmpty()) {
      throw new IllegalArgumentException("a draft needs evidence");
    }
    CandidateEvidence rep = representative(evidence);
    String description = description(rep);
    StringBuilder body = new StringBuilder();
    body.append("# ").append(name).append("\n\n");
    body.append(useWhen(rep)).append("\n\n## Steps\n\n");
    List<String> steps = steps(rep, evidence);
    for (int i = 0; i < steps.size(); i++) {
      body.append(i + 1).append(". ").append(steps.get(i)).append('\n');
    }
    List<String> tools = tools(evidence);
    if (!tools.isEmpty()) {
      body.append("\n## Tools\n\nThe accepted runs called ");
      body.append(String.join(", ", tools.stream().map(t -> "`" + t + "`").toList()));
      body.append(".\n");
    }
    body.append("\n## Evidence\n\n").append(summary(evidence)).append("\n\n");
    for (CandidateEvidence e : evidence.subList(0, Math.min(MAX_LISTED, evidence.size()))) {
      body.append("- ").append(line(e)).append('\n');
    }
    if (evidence.size() > MAX_LISTED) {
      body.append("- ... and ")
          .append(evidence.size() - MAX_LISTED)
          .append(" more (ListSkillCandidates shows the candidate's evidence)\n");
    }
    return new Draft(description, SkillMarkdown.render(name, description, body.toString()), NAME);
  }

  /**
   * The skill name a candidate of this evidence proposes: the words of its representative's goal
   * ("To release the billing service, ..." gives {@code release-billing-service}), at most {@value
   * #MAX_NAME_WORDS}, lower case, joined by {@code -}; {@code skill} when it has none.
   */
  public static String nameFor(List<CandidateEvidence> evidence) {
    CandidateEvidence rep = representative(evidence);
    String text = rep.kind() == CandidateEvidence.Kind.MEMORY ? rep.text() : asked(rep);
    Matcher m = GOAL.matcher(firstSentence(text));
    List<String> words = words(m.matches() ? m.group(2) : text);
    if (words.isEmpty()) {
      words = words(text);
    }
    String name = String.join("-", words.subList(0, Math.min(MAX_NAME_WORDS, words.size())));
    return name.isEmpty() ? "skill" : name;
  }

  /** The memory taught by the most runs, the earliest on a tie; else the earliest task. */
  static CandidateEvidence representative(List<CandidateEvidence> evidence) {
    Comparator<CandidateEvidence> order =
        Comparator.comparing((CandidateEvidence e) -> e.kind() != CandidateEvidence.Kind.MEMORY)
            .thenComparing(e -> -e.runIds().size())
            .thenComparing(CandidateEvidence::time)
            .thenComparing(CandidateEvidence::subject);
    return evidence.stream().min(order).orElseThrow();
  }

  /** "Use this skill to X." from a procedure's goal; a task's request as it was asked. */
  private static String useWhen(CandidateEvidence rep) {
    if (rep.kind() == CandidateEvidence.Kind.MEMORY) {
      Matcher m = GOAL.matcher(firstSentence(rep.text()).replaceAll("\\s+", " ").strip());
      if (m.matches()) {
        return "Use this skill "
            + m.group(1).toLowerCase(Locale.ROOT)
            + " "
            + m.group(2).strip()
            + ".";
      }
      return "Use this skill for: " + description(rep);
    }
    return "Use this skill when asked like this: " + quote(asked(rep));
  }

  private static String description(CandidateEvidence rep) {
    String text = rep.kind() == CandidateEvidence.Kind.MEMORY ? rep.text() : asked(rep);
    String one = firstSentence(text).replaceAll("\\s+", " ").strip();
    if (one.length() > MAX_DESCRIPTION_CHARS) {
      one = one.substring(0, MAX_DESCRIPTION_CHARS - 3).strip() + "...";
    }
    return capitalize(one);
  }

  private static List<String> steps(CandidateEvidence rep, List<CandidateEvidence> evidence) {
    List<String> out = new ArrayList<>();
    if (rep.kind() == CandidateEvidence.Kind.MEMORY) {
      String text = rep.text().replaceAll("\\s+", " ").strip();
      Matcher m = GOAL.matcher(text);
      String procedure = m.matches() ? m.group(3) : text;
      for (String part : STEP_BREAK.split(procedure)) {
        String step = part.strip();
        for (String before = ""; !before.equals(step); ) {
          before = step;
          step = LEADING.matcher(step).replaceFirst("").strip();
        }
        step = step.replaceAll("[.;,]+$", "").strip();
        if (!step.isEmpty()) {
          out.add(capitalize(step) + ".");
        }
      }
    } else {
      for (String tool : tools(evidence)) {
        out.add("Call `" + tool + "`.");
      }
      String answered = answered(rep);
      if (!answered.isEmpty()) {
        out.add("Answer as the accepted run did: " + quote(firstSentence(answered)));
      }
    }
    if (out.isEmpty()) {
      out.add(capitalize(firstSentence(rep.text())));
    }
    return out;
  }

  /** The tools the tasks' runs called, in the order each first appears. */
  private static List<String> tools(List<CandidateEvidence> evidence) {
    Set<String> out = new LinkedHashSet<>();
    evidence.forEach(e -> out.addAll(e.tools()));
    return List.copyOf(out);
  }

  private static String summary(List<CandidateEvidence> evidence) {
    Set<String> sessions = new LinkedHashSet<>();
    evidence.forEach(e -> sessions.addAll(e.sessionIds()));
    long memories =
        evidence.stream().filter(e -> e.kind() == CandidateEvidence.Kind.MEMORY).count();
    long tasks = evidence.size() - memories;
    return String.format(
        Locale.ROOT,
        "Mined from %d procedural %s and %d accepted %s, over %d %s.",
        memories,
        memories == 1 ? "memory" : "memories",
        tasks,
        tasks == 1 ? "task" : "tasks",
        sessions.size(),
        sessions.size() == 1 ? "session" : "sessions");
  }

  private static String line(CandidateEvidence e) {
    String where =
        (e.runIds().isEmpty() ? "" : "runs " + ticks(e.runIds()))
            + (e.sessionIds().isEmpty()
                ? ""
                : (e.runIds().isEmpty() ? "" : "; ") + "sessions " + ticks(e.sessionIds()));
    if (e.kind() == CandidateEvidence.Kind.MEMORY) {
      return "Memory `"
          + e.memoryId()
          + "` of profile `"
          + e.profile()
          + "`"
          + (where.isEmpty() ? "" : " (" + where + ")")
          + ": "
          + quote(e.text());
    }
    return "Task `"
        + e.taskId()
        + "`"
        + (e.userId().isEmpty() ? "" : " of user `" + e.userId() + "`")
        + ", final accepted run `"
        + e.finalRunId()
        + "`"
        + (where.isEmpty() ? "" : " (" + where + ")")
        + ": "
        + quote(e.text());
  }

  /** A task's text: {@code Asked: ...} then {@code Answered: ...}, each on its own line. */
  static String taskText(String asked, String answered) {
    return "Asked: " + oneLine(asked) + "\nAnswered: " + oneLine(answered);
  }

  private static String asked(CandidateEvidence task) {
    return part(task.text(), "Asked: ");
  }

  private static String answered(CandidateEvidence task) {
    return part(task.text(), "Answered: ");
  }

  private static String part(String text, String label) {
    for (String line : text.split("\n")) {
      if (line.startsWith(label)) {
        return line.substring(label.length()).strip();
      }
    }
    return label.startsWith("Asked") ? text.strip() : "";
  }

  private static String oneLine(String s) {
    return s.replaceAll("\\s+", " ").strip();
  }

  private static String quote(String s) {
    String one = oneLine(s);
    return one.length() <= MAX_QUOTE_CHARS
        ? one
        : one.substring(0, MAX_QUOTE_CHARS - 3).strip() + "...";
  }

  private static String ticks(List<String> ids) {
    return String.join(", ", ids.stream().map(i -> "`" + i + "`").toList());
  }

  private static String firstSentence(String text) {
    List<String> sentences = Sentences.split(text.strip());
    return sentences.isEmpty() ? text.strip() : sentences.get(0);
  }

  private static List<String> words(String text) {
    List<String> out = new ArrayList<>();
    for (String w : Terms.keywords(text)) {
      String ascii = w.replaceAll("[^a-z0-9]", "");
      if (!ascii.isEmpty() && !out.contains(ascii) && Limits.utf8Length(ascii) <= 20) {
        out.add(ascii);
      }
    }
    return out;
  }

  private static String capitalize(String s) {
    return s.isEmpty() ? s : s.substring(0, 1).toUpperCase(Locale.ROOT) + s.substring(1);
  }
}
