package dev.memsidecar.core.run;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.core.AccessPolicy;
import dev.memsidecar.core.MemoryHit;
import dev.memsidecar.core.Recall;
import dev.memsidecar.core.RequestOptions;
import dev.memsidecar.core.Scope;
import dev.memsidecar.core.sessions.SessionHit;
import dev.memsidecar.core.sessions.SessionMessage;
import dev.memsidecar.core.sessions.SessionService;
import dev.memsidecar.language.Terms;
import dev.memsidecar.language.extraction.DatePhrases;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What BeginRun recalls for a run: the facts of the stores and the evidence of the user's sessions
 * in one budget, and how the evidence reads in the prompt. Thread-safe.
 */
final class RecallBlend {
  /** Of an evidence line in the session_evidence section, at most this many characters. */
  static final int MAX_EVIDENCE_LINE_CHARS = 600;

  /**
   * Of a message shown around an evidence line (the one it answers, the answer to it), at most this
   * many characters.
   */
  static final int MAX_CONTEXT_CHARS = 200;

  /**
   * How many session messages the blend reads per slot of {@code top_k}: the turns that recalled
   * facts were extracted from are found (and quoted) more often, and when some messages join a
   * fact's slot or repeat a kept line, the next ones fill the slots. On LoCoMo's dev half replayed
   * turn by turn, 2 raised answer recall@10 from 0.775 to 0.778 for ~125 more characters per
   * question.
   */
  static final int EVIDENCE_PER_SLOT = 2;

  /**
   * What a message's score gains against a fact's when the two compete for a slot. A fact is one
   * reading of a turn, written with its speaker's name for "I" and "my", which lifts it for every
   * query that names that person; the turn holds what the reading left out. Chosen on LoCoMo's dev
   * half replayed turn by turn: 0.02, 0.03 and 0.05 all raised answer recall@10 (0.778 to 0.779,
   * multi-hop 0.581 to 0.582-0.587, open-domain 0.229 to 0.232-0.234, temporal unchanged), -0.03
   * lowered it (0.773).
   */
  static final float EVIDENCE_LEAN = 0.03f;

  private final Recall recall;
  private final SessionService sessions;
  private final AccessPolicy access;

  RecallBlend(Recall recall, SessionService sessions, AccessPolicy access) {
    this.recall = requireNonNull(recall, "recall is null");
    this.sessions = requireNonNull(sessions, "sessions is null");
    this.access = requireNonNull(access, "access is null");
  }

  /** Starts embedding the query {@link #blend} will search with, while the caller does more. */
  void prefetch(String q) {
    recall.prefetch(q);
  }

  /**
   * What BeginRun recalls: facts and session evidence, {@code topK} together, and, by the index of
   * a recalled fact, the turn it was extracted from when that turn ranked too (the two share the
   * fact's slot: the line shows the fact and quotes the turn).
   */
  record Blend(
      List<MemoryHit> recalled, List<SessionHit> evidence, Map<Integer, SessionHit> quotes) {
    static final Blend NONE = new Blend(List.of(), List.of(), Map.of());

    Blend {
      recalled = List.copyOf(recalled);
      evidence = List.copyOf(evidence);
      quotes = Map.copyOf(quotes);
    }
  }

  /**
   * Recalled facts and session evidence in one ranking: both are scored by the one hybrid score
   * (the stores' for facts, {@link SessionService} the same formula for messages), merged best
   * first (a message's score plus {@link #EVIDENCE_LEAN}; a tie goes to the fact), and the first
   * {@code topK} kept. A fact and the turn it was extracted from (same run, most words shared)
   * never take two slots: the fact, which says it with the names and dates resolved, takes the slot
   * of the first of the two to rank, and quotes the turn when the search found it (among the {@link
   * #EVIDENCE_PER_SLOT} messages per slot it reads) and it says more than the fact (the words
   * extraction left out: the fact is the reading, the turn what was said). Nothing that a line of
   * {@code shown} already says (nine in ten of its words in that line) takes a slot: the curated
   * section holds it. Evidence answers to the flag recall answers to: none when LangMem.read is
   * off.
   *
   * @param q the recall query of the run's input, not blank
   * @param shown lines the run's prompt already holds (the curated files)
   */
  Blend blend(Scope scope, String q, int topK, RequestOptions options, List<String> shown) {
    // Evidence first: its word search runs while the query's vector is made (see prefetch).
    List<SessionHit> evidence =
        access.recordsReadable()
            ? sessions.evidence(scope, q, topK * EVIDENCE_PER_SLOT)
            : List.of();
    List<MemoryHit> facts =
        recall.search(scope, q, List.of(), topK, Set.of(), List.of(), 0f, options);
    return merge(facts, evidence, topK, shown);
  }

  /**
   * {@link #blend} once the facts and messages are found, each list best first: at most {@code
   * topK} of the two together, a message ranked by its score plus {@link #EVIDENCE_LEAN}.
   */
  static Blend merge(
      List<MemoryHit> facts, List<SessionHit> evidence, int topK, List<String> shown) {
    List<Said> factItems = facts.stream().map(Said::of).toList();
    List<Said> evidenceItems = evidence.stream().map(Said::of).toList();
    List<MemoryHit> keptFacts = new ArrayList<>();
    List<Said> keptFactItems = new ArrayList<>();
    List<SessionHit> keptEvidence = new ArrayList<>();
    Map<Integer, SessionHit> quotes = new HashMap<>();
    List<Said> kept = new ArrayList<>();
    List<Said> shownItems = new ArrayList<>();
    for (String line : shown) {
      Said said = Said.of(line);
      kept.add(said);
      if (!said.words.isEmpty()) {
        shownItems.add(said);
      }
    }
    boolean[] used = new boolean[facts.size()];
    int f = 0;
    int e = 0;
    while (keptFacts.size() + keptEvidence.size() < topK) {
      while (f < facts.size() && used[f]) {
        f++;
      }
      if (f >= facts.size() && e >= evidence.size()) {
        break;
      }
      if (e >= evidence.size()
          || (f < facts.size()
              && facts.get(f).score() >= evidence.get(e).score() + EVIDENCE_LEAN)) {
        used[f] = true;
        if (!factItems.get(f).repeats(kept)) {
          keptFacts.add(facts.get(f));
          keptFactItems.add(factItems.get(f));
          kept.add(factItems.get(f));
        }
        continue;
      }
      SessionHit message = evidence.get(e);
      Said said = evidenceItems.get(e++);
      // A fact kept already that was extracted from this turn: the turn joins its slot.
      int standing = -1;
      for (int j = 0; j < keptFactItems.size() && standing < 0; j++) {
        if (keptFactItems.get(j).sameTurn(said)) {
          standing = j;
        }
      }
      if (standing >= 0) {
        quote(quotes, shownItems, standing, keptFactItems.get(standing), message, said);
        continue;
      }
      // The fact extracted from this turn, further down, says it with the names and dates
      // resolved: it takes the turn's slot, and quotes the turn.
      int stand = -1;
      for (int j = f; j < facts.size() && stand < 0; j++) {
        if (!used[j] && factItems.get(j).sameTurn(said)) {
          stand = j;
        }
      }
      if (stand >= 0) {
        used[stand] = true;
        if (!factItems.get(stand).repeats(kept)) {
          keptFacts.add(facts.get(stand));
          keptFactItems.add(factItems.get(stand));
          kept.add(factItems.get(stand));
          quote(quotes, shownItems, keptFacts.size() - 1, factItems.get(stand), message, said);
        }
      } else if (!said.repeats(kept)) {
        keptEvidence.add(message);
        kept.add(said);
      }
    }
    // A fact that took its slot before its turn was reached quotes that turn all the same when the
    // search found it.
    for (int j = 0; j < keptFacts.size(); j++) {
      for (int k = 0; k < evidence.size() && !quotes.containsKey(j); k++) {
        SessionHit message = evidence.get(k);
        Said said = evidenceItems.get(k);
        if (!keptEvidence.contains(message) && keptFactItems.get(j).sameTurn(said)) {
          quote(quotes, shownItems, j, keptFactItems.get(j), message, said);
        }
      }
    }
    return new Blend(keptFacts, keptEvidence, quotes);
  }

  /**
   * The turn a kept fact was extracted from joins the fact's line, unless the fact already holds
   * nine in ten of its words (a fact taught in the words it was said in), quotes a turn, the turn
   * is quoted by another fact (two facts of one turn), or the turn says what a line the prompt
   * already shows says (nine in ten of that line's words in the turn: the curated files hold it).
   */
  private static void quote(
      Map<Integer, SessionHit> quotes,
      List<Said> shown,
      int fact,
      Said factSaid,
      SessionHit turn,
      Said turnSaid) {
    if (!quotes.containsKey(fact)
        && !quotes.containsValue(turn)
        && !turnSaid.within(factSaid)
        && shown.stream().noneMatch(line -> line.within(turnSaid.alone()))) {
      quotes.put(fact, turn);
    }
  }

  /**
   * What a recalled fact or message says, for the blend: the runs it came from (a fact's source
   * refs {@code run:<id>}, a message's run), its words, and the words its line shows (a message's
   * line shows the end of the message it answers and the start of the answer to it too).
   */
  private record Said(Set<String> runs, Set<String> words, Set<String> shown) {
    static Said of(String line) {
      Set<String> words = Set.copyOf(Terms.keywords(line));
      return new Said(Set.of(), words, words);
    }

    static Said of(MemoryHit hit) {
      Set<String> runs = new HashSet<>();
      for (String ref : hit.memory().record().sourceRefs()) {
        if (ref.startsWith("run:")) {
          runs.add(ref.substring("run:".length()));
        }
      }
      Set<String> words = Set.copyOf(Terms.keywords(hit.memory().record().content()));
      return new Said(runs, words, words);
    }

    static Said of(SessionHit hit) {
      String run = hit.message().runId();
      Set<String> words = Set.copyOf(Terms.keywords(hit.message().content()));
      Set<String> shown = words;
      if (hit.replyTo() != null) {
        shown = new HashSet<>(words);
        shown.addAll(Terms.keywords(end(hit.replyTo().content())));
      }
      if (hit.answeredBy() != null) {
        shown = new HashSet<>(shown);
        shown.addAll(Terms.keywords(start(hit.answeredBy().content())));
      }
      return new Said(run.isEmpty() ? Set.of() : Set.of(run), words, shown);
    }

    /** The same without the messages around it (a quoted turn shows only itself). */
    Said alone() {
      return new Said(runs, words, words);
    }

    /** Same run, and at least half of the shorter one's words in the other. */
    boolean sameTurn(Said other) {
      if (runs.stream().noneMatch(other.runs::contains)) {
        return false;
      }
      Set<String> small = words.size() <= other.words.size() ? words : other.words;
      Set<String> large = small == words ? other.words : words;
      return small.isEmpty() || shared(small, large) * 2 >= small.size();
    }

    /**
     * Whether a kept item already says this: the same turn, or nine in ten of its words (a fact
     * taught again, a message repeated).
     */
    boolean repeats(List<Said> kept) {
      for (Said k : kept) {
        if (sameTurn(k) || (!words.isEmpty() && within(k))) {
          return true;
        }
      }
      return false;
    }

    /** Whether nine in ten of these words are among those the other's line shows. */
    boolean within(Said other) {
      return words.isEmpty() || shared(words, other.shown) * 10 >= words.size() * 9;
    }

    private static long shared(Set<String> a, Set<String> b) {
      return a.stream().filter(b::contains).count();
    }
  }

  /**
   * One line per message: {@link #evidenceLine}, then, when the search found them and no line of
   * their own shows them, the end of the message it answers ({@code (in reply to Melanie: …what was
   * asked)}) and the start of the answer to a question ({@code (answered by Caroline: what was
   * said…)}), at most {@value #MAX_CONTEXT_CHARS} characters of each.
   */
  static String evidenceBody(List<SessionHit> hits, ZoneId zone) {
    Set<String> ids = new HashSet<>();
    hits.forEach(h -> ids.add(h.message().id()));
    StringBuilder out = new StringBuilder();
    for (SessionHit hit : hits) {
      out.append("- ").append(evidenceLine(hit, zone));
      SessionMessage replyTo = hit.replyTo();
      if (replyTo != null && !ids.contains(replyTo.id())) {
        around(out, "in reply to", replyTo, end(dated(oneLine(replyTo.content()), replyTo, zone)));
      }
      SessionMessage answeredBy = hit.answeredBy();
      if (answeredBy != null && !ids.contains(answeredBy.id())) {
        around(
            out,
            "answered by",
            answeredBy,
            start(dated(oneLine(answeredBy.content()), answeredBy, zone)));
      }
      out.append('\n');
    }
    return out.toString().strip();
  }

  /** Appends {@code " (label Name: text)"}. */
  private static void around(StringBuilder out, String label, SessionMessage m, String text) {
    out.append(" (").append(label).append(' ').append(speaker(m)).append(": ").append(text);
    out.append(')');
  }

  /**
   * A message as the prompt shows it: when, who, what ({@code [8 May 2023, 13:56] Caroline: ...});
   * its relative dates followed by the dates they meant on the day it was said; a long one by its
   * snippet.
   */
  static String evidenceLine(SessionHit hit, ZoneId zone) {
    SessionMessage m = hit.message();
    String text = oneLine(m.content());
    text = dated(text.length() > MAX_EVIDENCE_LINE_CHARS ? hit.snippet() : text, m, zone);
    return "[" + EVIDENCE_TIME.format(m.time().atZone(zone)) + "] " + speaker(m) + ": " + text;
  }

  /** The end of a text, at most {@value #MAX_CONTEXT_CHARS} characters, cut at a space. */
  private static String end(String text) {
    if (text.length() <= MAX_CONTEXT_CHARS) {
      return text;
    }
    int cut = text.indexOf(' ', text.length() - MAX_CONTEXT_CHARS);
    return "…" + text.substring(cut < 0 ? text.length() - MAX_CONTEXT_CHARS : cut + 1);
  }

  /** The start of a text, at most {@value #MAX_CONTEXT_CHARS} characters, cut at a space. */
  private static String start(String text) {
    if (text.length() <= MAX_CONTEXT_CHARS) {
      return text;
    }
    int cut = text.lastIndexOf(' ', MAX_CONTEXT_CHARS);
    return text.substring(0, cut <= 0 ? MAX_CONTEXT_CHARS : cut) + "…";
  }

  /** Who said a message: its name, else its role. */
  private static String speaker(SessionMessage m) {
    return m.name().isEmpty() ? m.role().name().toLowerCase(Locale.ROOT) : m.name();
  }

  /**
   * {@code text} (of message {@code m}), its relative dates followed by the dates they meant on the
   * day {@code m} was said ("yesterday" said on 8 May 2023 reads "yesterday (7 May 2023)").
   */
  private static String dated(String text, SessionMessage m, ZoneId zone) {
    return DatePhrases.annotate(text, m.time().atZone(zone).toLocalDate());
  }

  /** A text on one line: its runs of white space as one space, none at either end. */
  private static String oneLine(String text) {
    return WHITE_SPACE.matcher(text.strip()).replaceAll(" ");
  }

  private static final Pattern WHITE_SPACE = Pattern.compile("\\s+");

  private static final DateTimeFormatter EVIDENCE_TIME =
      DateTimeFormatter.ofPattern("d MMMM yyyy, HH:mm", Locale.ENGLISH);
}
