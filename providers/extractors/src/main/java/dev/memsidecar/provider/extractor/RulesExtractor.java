package dev.memsidecar.provider.extractor;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.ExtractionRequest;
import dev.memsidecar.api.Extractor;
import dev.memsidecar.api.MemoryCandidate;
import dev.memsidecar.api.Validity;
import dev.memsidecar.language.Languages;
import dev.memsidecar.language.ReferenceTime;
import dev.memsidecar.language.Sentences;
import dev.memsidecar.language.Terms;
import dev.memsidecar.language.extraction.AnyLanguage;
import dev.memsidecar.language.extraction.Attachments;
import dev.memsidecar.language.extraction.CommandLines;
import dev.memsidecar.language.extraction.DatePhrases;
import dev.memsidecar.language.extraction.ExtractionLexicon;
import dev.memsidecar.language.extraction.ExtractionRules;
import dev.memsidecar.language.extraction.Instructions;
import dev.memsidecar.language.extraction.Punctuation;
import dev.memsidecar.language.extraction.SessionDates;
import dev.memsidecar.language.extraction.Statement;
import dev.memsidecar.language.extraction.Utterance;
import dev.memsidecar.language.extraction.WorkspaceTokens;
import dev.memsidecar.provider.extractor.Transcript.Role;
import dev.memsidecar.provider.extractor.Transcript.Turn;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The {@code rules} extractor: offline, deterministic, English and Chinese. It reads the run's
 * input as turns ({@code Speaker: text} lines, or one turn of the user), splits each turn into
 * sentences and sorts every sentence by the first rule that fires:
 *
 * <ol>
 *   <li>{@code explicit}: "remember ...", "please remember that ...", "don't forget ...", "记住 ...",
 *       "请记住..." — the rest of the sentence, cleaned, is the memory; {@code explicit=true};
 *   <li>{@code correction}: "actually, X is Y", "no, it's ...", "correction: ...", "不对，...",
 *       "其实..." — the corrected fact ("it's Thursday" after "the deploy day is Tuesday" becomes
 *       "The deploy day is Thursday.");
 *   <li>{@code procedure}: a command line (backticked, or a known tool with a subcommand, flag or
 *       path: {@code npm run check:rules}, {@code mvn -pl core test}, {@code kubectl ...}), "to
 *       deploy, run ...", "always run X before Y", "先...再...", "运行 ..." — procedural, owned by the
 *       workspace, the command kept verbatim in backticks;
 *   <li>{@code workspace-fact}: in an agent run, a statement holding canonical tokens
 *       (ALL_CAPS_TOKENS, URLs, e-mail addresses, hosts, versions, paths, ports) and not about the
 *       speaker — semantic, owned by the workspace;
 *   <li>the informative statements of a turn ({@code identity}: "my name is", "I am a ...", "I work
 *       at", "I live in", "我叫", "我是", "我在...工作"; {@code preference}: "I prefer", "I like", "I
 *       hate", "my favourite", "我喜欢", "我不喜欢"; {@code event}: something done or dated; {@code plan}:
 *       something intended; {@code statement}: anything else with substance) — in a conversation
 *       between named people, and for a user named by metadata {@value #USER_NAME}, joined into ONE
 *       candidate per turn and scored as a person's turn (far fewer records than turns), for an
 *       unnamed user of an agent run one candidate per statement; owned by the user (or, in an
 *       agent run, by the workspace when nobody in it is the speaker). A named user is otherwise
 *       the user of an agent run: the rules above (instructions, corrections, procedures, workspace
 *       facts) read them as such.
 * </ol>
 *
 * Small talk is dropped: greetings, thanks, goodbyes, questions that ask, reactions ("That's
 * great!", "Sounds fun"), remarks about the listener ("You'd be a great counselor"), and sentences
 * with fewer than two content words (words that are neither stopwords nor evaluative fillers such
 * as "really", "awesome", "feel"). What is stated is kept however it is phrased: a tag question
 * ("Sunflowers mean warmth and happiness, right?", "向日葵代表温暖和快乐，对吧？"), the statement before a
 * question in the same sentence ("Spider-Man has always been a favorite of mine - who doesn't love
 * him?"), a verdict on what the speaker has just told ("We went camping last summer. It was a
 * really peaceful experience."), a verdict or a piece of advice that names things ("It was
 * inspiring - so many people wanted to create loving homes for children", "You can use coconut oil
 * instead of butter"); see {@link dev.memsidecar.language.extraction.Questions}. Kept statements
 * are rewritten to stand alone: "I"/"my"/"we" become the speaker's name ("Caroline went ..."; for
 * the user, metadata {@value #USER_NAME} when given, else "the user" / "用户"), "you"/"your" the
 * addressee's when known, relative dates ("yesterday", "last week", "next month", "this Saturday",
 * "two days ago", "昨天", "上周六") gain their absolute date in parentheses after the phrase, read on
 * the session date: the run's {@link ReferenceTime} (metadata {@code session_date}, {@code date} or
 * {@code time} in any common form, else a timestamp leading the input, which is never content),
 * else a {@code [session date: ...]} header line, else {@link ExtractionRequest#now()}, all in
 * {@link ExtractionRequest#zone()}. In a session with a date, a turn of a named person, and an
 * event or plan of the user, ends with "(said on 8 May 2023)", after the dates of its dropped
 * sentences ("Last night was amazing! We celebrated ..." keeps "last night: 13 August 2023"). The
 * agent's output only yields commands, procedures and canonical-token facts it states itself, never
 * a restatement of the input.
 *
 * <h2>Scores (the write gate keeps 7.0 and up; weights 0.3/0.1/0.2/0.2/0.1/0.1)</h2>
 *
 * <ul>
 *   <li><b>importance</b> by rule: explicit 9, identity 9, preference 8, correction 8, procedure 8,
 *       workspace-fact 8 with canonical tokens, else 7 when technical or specific and 6 otherwise.
 *       A turn between named people weighs what its most specific sentence names: specifics (names,
 *       numbers, dates) and <em>concrete</em> words (content words that are not feelings, verdicts,
 *       abstractions or light verbs: "kickboxing", "clay", "mental health", not "progress",
 *       "rewarding", "keep": word lists of the language module): event 8 when dated, 7 about the
 *       speaker with two concrete words or a specific, or with four concrete words, else 5 about
 *       the speaker and 6 otherwise; plan 8 when dated, 7 with three concrete words (two with a
 *       specific), else 6; preference 8 with two concrete words or a specific, else 5; statement 7
 *       with three concrete words (four when not about the speaker) or a specific beside one, else
 *       5 (6 with four content words when not about the speaker). An image the turn presents as the
 *       speaker's ("Here's my painting", "Take a look at this") counts with its caption: 7 with two
 *       concrete words, else 6; any other image alone is 6. In an agent run: event 8 when dated, 7
 *       about the speaker or with a specific, else 6; plan 8 when dated, 7 with five content words
 *       or a specific, else 6; statement 7 about the speaker with four content words or with a
 *       specific, 6 with four content words, else 5. What only holds now loses 1, or is 5 with
 *       fewer than three content words, unless it is specific (three concrete words, or a specific
 *       besides its date: "currently reading The Lean Startup");
 *   <li><b>novelty</b> 7: the extractor cannot see the store (dedupe judges repeats); 8 for
 *       corrections; 6 for the agent's output;
 *   <li><b>relevance</b> 9 when the statement is about its speaker (first person, or a sentence
 *       whose subject was left out: "Gonna continue my edu"), explicit, or an image the speaker
 *       presents as theirs; 7 for what a named person says of their circle ("They loved the
 *       exhibit"); 8 for procedures and technical workspace facts; 6 otherwise;
 *   <li><b>credibility</b> 9 for explicit instructions and corrections, 8 for direct statements, 7
 *       for the agent's output, 6 when every statement hedges ("maybe", "I think", "可能");
 *   <li><b>granularity</b> 4, plus one per specific (a number, a proper name, a date; at most
 *       four), two per command or canonical token, one from six content words and one more from
 *       twelve (between named people: one for a sentence with three concrete words and one from
 *       eight concrete words in the turn); at most 10;
 *   <li><b>timeliness</b> 9 for durable facts (identity, preference, procedure, workspace facts,
 *       explicit, correction), 8 for events, 7 for statements, 6 for plans (they go stale), 3 for
 *       what only holds now ("today", "this week", "right now", "目前") unless it tells of something
 *       done — those are also {@link Validity#SHORT_TERM}.
 * </ul>
 *
 * <p>Examples: "Please remember that the deploy day is Thursday." 8.4 (explicit); "I prefer tabs
 * over spaces." 7.8; "To deploy, run `npm run deploy:prod`." 7.9; "Caroline: I went to a LGBTQ
 * support group yesterday." becomes "Caroline went to a LGBTQ support group yesterday (7 May 2023).
 * (said on 8 May 2023)" at 8.0; "Jon: I'm swamped this week." 6.4, short-term, rejected; "John:
 * They offer yoga, kickboxing and circuit training." 7.0; "Jon: I'm feeling confident and won't
 * give up." 6.7, rejected; "Wow, that's so cool! How was it?" and "I'll keep pushing!" are not
 * proposed at all. Every candidate's {@code reason} starts with the rule that fired ({@code rule
 * explicit: ...}, see {@link #RULES}). Stateless and thread-safe; the same request always gives the
 * same candidates.
 *
 * <p>The text rules (sentences, word lists, date phrases, the third person) are the language
 * module's ({@code dev.memsidecar.language}): each sentence is read by the rules of the language
 * that reads it ({@link Languages#of}), and what holds for text in any language is asked of every
 * language at once. This class keeps the order of the rules and the turns; {@link Candidates}
 * builds and scores the candidates.
 *
 * <p>Limits: it knows no synonyms, coreference beyond "I"/"you"/"we" and "it" after a correction,
 * nor sarcasm; a fact stated only by the agent is kept only when it carries a command or a
 * canonical token; a question that asks is never a memory, even one that reveals a fact ("Did I
 * tell you I moved to Paris?"); concreteness is read from word lists, so a vague sentence in rare
 * words can pass for a specific one and a specific one in common words can be scored as vague.
 */
public final class RulesExtractor implements Extractor {

  /** The rule names that start every candidate's reason ({@code rule <name>: ...}). */
  public static final Set<String> RULES =
      Set.of(
          "explicit",
          "correction",
          "procedure",
          "workspace-fact",
          "identity",
          "preference",
          "event",
          "plan",
          "statement",
          "attachment",
          "agent-procedure",
          "agent-fact");

  /** The metadata key naming the user, written instead of "the user" in what they said. */
  public static final String USER_NAME = "user_name";

  /** The longest user name taken; a longer one is ignored. */
  private static final int MAX_USER_NAME_CHARS = 64;

  /** The extractor; it has no settings. */
  public RulesExtractor() {}

  @Override
  public List<MemoryCandidate> extract(ExtractionRequest request) {
    requireNonNull(request, "request is null");
    ReferenceTime reference =
        ReferenceTime.of(request.metadata(), request.input(), request.now(), request.zone());
    boolean dated =
        reference.dated()
            || ReferenceTime.METADATA_KEYS.stream()
                .anyMatch(k -> !request.metadata().getOrDefault(k, "").isBlank());
    String userName = userName(request.metadata());
    // The input's leading timestamp is the session's date, never a statement.
    Transcript input = Transcript.parse(reference.input(), Role.USER, dated, userName);
    // The output of a conversation's run may be the other person's turn ("Melanie: ...").
    Transcript output =
        Transcript.parse(
            request.output(), Role.AGENT, dated || !input.people().isEmpty(), userName);
    LocalDate day =
        reference.dated()
            ? reference.date()
            : SessionDates.parse(input.sessionDate(), request.zone());
    boolean sessionDated = day != null;
    if (day == null) {
      day = SessionDates.today(request.now(), request.zone());
    }
    Candidates run = new Candidates(day, sessionDated);
    List<Turn> turns = input.turns();
    List<String> people = input.people();
    for (int i = 0; i < turns.size(); i++) {
      Turn turn = turns.get(i);
      String before = i > 0 ? turns.get(i - 1).text() : "";
      if (turn.role() == Role.AGENT) {
        agentTurn(run, turn, Set.of());
      } else {
        humanTurn(run, turn, addressee(turns, i, people), before);
      }
    }
    Set<String> inputWords = new HashSet<>(Terms.keywords(reference.input()));
    List<Turn> all = new ArrayList<>(turns);
    all.addAll(output.turns());
    List<String> everyone = new ArrayList<>(people);
    output.people().stream().filter(p -> !everyone.contains(p)).forEach(everyone::add);
    for (int i = turns.size(); i < all.size(); i++) {
      Turn turn = all.get(i);
      if (turn.role() == Role.PERSON) {
        humanTurn(run, turn, addressee(all, i, everyone), i > 0 ? all.get(i - 1).text() : "");
      } else {
        agentTurn(run, turn, inputWords);
      }
    }
    return run.candidates();
  }

  /** The request's {@value #USER_NAME}, stripped, or null when absent, blank or unusable. */
  private static String userName(Map<String, String> metadata) {
    String name = metadata.getOrDefault(USER_NAME, "").strip();
    if (name.isEmpty()
        || name.length() > MAX_USER_NAME_CHARS
        || name.chars().anyMatch(Character::isISOControl)) {
      return null;
    }
    return name;
  }

  /** Who a person's "you" means: the speaker before, else after, else the only other person. */
  private static String addressee(List<Turn> turns, int i, List<String> people) {
    Turn turn = turns.get(i);
    if (turn.role() != Role.PERSON) {
      return null;
    }
    for (int j = i - 1; j >= 0; j--) {
      if (turns.get(j).role() == Role.PERSON && !turns.get(j).speaker().equals(turn.speaker())) {
        return turns.get(j).speaker();
      }
    }
    for (int j = i + 1; j < turns.size(); j++) {
      if (turns.get(j).role() == Role.PERSON && !turns.get(j).speaker().equals(turn.speaker())) {
        return turns.get(j).speaker();
      }
    }
    return null;
  }

  // ---------------------------------------------------------------------------------------------
  // A person's turn (the user's, or a named speaker's)

  private void humanTurn(Candidates run, Turn turn, String addressee, String before) {
    // A person of a conversation: "remember" and "actually" are said to the other person, and
    // nothing they say is the workspace's. A named speaker (a person, or a user named by
    // user_name): what they tell of their life is read and scored as a person's turn.
    boolean person = turn.role() == Role.PERSON;
    boolean named = turn.named();
    List<String> sentences = Sentences.split(turn.text());
    List<Statement> kept = new ArrayList<>();
    List<String> attachments = new ArrayList<>();
    String context = lastSentence(before);
    boolean pendingExplicit = false;
    boolean pendingCorrection = false;
    List<String> droppedDates = new ArrayList<>();
    String lastKeptRaw = null;
    Utterance utterance = new Utterance(turn.speaker(), addressee, named, run.day());
    for (int k = 0; k < sentences.size(); k++) {
      String raw = Punctuation.normalize(sentences.get(k));
      if (raw.isEmpty()) {
        continue;
      }
      ExtractionRules language = Languages.of(raw).extraction();
      if (Attachments.isMarker(raw)) {
        attachments.add(raw);
        continue;
      }
      if (pendingExplicit) {
        pendingExplicit = false;
        run.explicit(turn, addressee, raw, person);
        continue;
      }
      String remembered = Instructions.rest(raw, language.lexicon(), person);
      if (remembered != null) {
        if (remembered.isBlank()) {
          pendingExplicit = true;
        } else {
          run.explicit(turn, addressee, remembered, person);
        }
        continue;
      }
      String corrected = pendingCorrection ? raw : language.lexicon().correctionRest(raw);
      if (corrected != null) {
        pendingCorrection = corrected.isBlank();
        if (!pendingCorrection) {
          // Drop what is corrected: "The deploy day is Tuesday. No, it's Thursday."
          if (!kept.isEmpty() && context.equals(lastKeptRaw)) {
            kept.remove(kept.size() - 1);
          } else {
            run.dropLastFactIfFrom(context);
          }
          run.correction(turn, addressee, corrected, context, person);
        }
        context = raw;
        continue;
      }
      List<String> commands = CommandLines.of(raw);
      boolean imperative = !person && language.lexicon().isProcedure(raw);
      if (!commands.isEmpty() || imperative) {
        run.procedure(turn, addressee, withLead(sentences, k, raw), commands, false);
        context = raw;
        continue;
      }
      if (Punctuation.endsWithColon(raw)
          && k + 1 < sentences.size()
          && !CommandLines.of(sentences.get(k + 1)).isEmpty()) {
        continue; // the lead of the command that follows
      }
      List<String> tokens = WorkspaceTokens.of(raw);
      if (!person && !tokens.isEmpty() && !language.lexicon().isFirstPerson(raw)) {
        run.workspaceFact(turn, raw, tokens, false);
        context = raw;
        continue;
      }
      Statement s = language.statements().read(raw, utterance, !kept.isEmpty());
      if (s != null) {
        kept.add(s);
        lastKeptRaw = raw;
      } else {
        // "Last night was amazing! We celebrated ...": the date of a dropped sentence still
        // dates the turn.
        droppedDates.addAll(DatePhrases.phrases(raw, run.day()));
      }
      context = raw;
    }
    if (!named) {
      // An agent's user states few facts at a time, each worth its own record: a preference, the
      // user's job and a plan dedupe, supersede and recall apart.
      for (Statement s : kept) {
        run.turn(turn, List.of(s), List.of(), droppedDates, sentences.size());
      }
    } else if (!kept.isEmpty() || !attachments.isEmpty()) {
      // A conversation between people: one record per turn keeps far fewer records than turns.
      run.turn(turn, kept, attachments, droppedDates, sentences.size());
    }
  }

  /**
   * Sentence {@code k} ({@code raw}) after the sentence before it when that one leads it ("Run:").
   */
  private static String withLead(List<String> sentences, int k, String raw) {
    String lead = k > 0 ? Punctuation.normalize(sentences.get(k - 1)) : "";
    return Punctuation.endsWithColon(lead) ? lead + " " + raw : raw;
  }

  private static String lastSentence(String text) {
    List<String> s = Sentences.split(text);
    return s.isEmpty() ? "" : Punctuation.normalize(s.get(s.size() - 1));
  }

  // ---------------------------------------------------------------------------------------------
  // The agent's output

  private void agentTurn(Candidates run, Turn turn, Set<String> inputWords) {
    List<String> sentences = Sentences.split(turn.text());
    for (int k = 0; k < sentences.size(); k++) {
      String raw = Punctuation.normalize(sentences.get(k));
      if (raw.isEmpty() || AnyLanguage.isAcknowledgement(raw) || Punctuation.endsAsking(raw)) {
        continue;
      }
      ExtractionLexicon lexicon = Languages.of(raw).extraction().lexicon();
      List<String> commands = CommandLines.of(raw);
      List<String> tokens = WorkspaceTokens.of(raw);
      boolean procedure = !commands.isEmpty() || lexicon.isProcedure(raw);
      if (!procedure && tokens.isEmpty()) {
        continue;
      }
      if (echoes(raw, commands, tokens, inputWords)) {
        continue;
      }
      if (procedure) {
        run.procedure(turn, null, withLead(sentences, k, raw), commands, true);
      } else {
        run.workspaceFact(turn, raw, tokens, true);
      }
    }
  }

  /**
   * Whether the agent only repeats the input: every command and canonical token it states is in the
   * input already, or (without any) it adds few new words.
   */
  private static boolean echoes(
      String raw, List<String> commands, List<String> tokens, Set<String> inputWords) {
    if (inputWords.isEmpty()) {
      return false;
    }
    Set<String> words = new LinkedHashSet<>(Terms.keywords(raw));
    for (String c : commands) {
      if (!inputWords.containsAll(Terms.keywords(c))) {
        return false;
      }
    }
    for (String t : tokens) {
      if (!inputWords.containsAll(Terms.keywords(t))) {
        return false;
      }
    }
    if (!commands.isEmpty() || !tokens.isEmpty()) {
      return true; // "The sentinel EASYNET_... is now stored": nothing the input did not say
    }
    long fresh = words.stream().filter(w -> !inputWords.contains(w)).count();
    return fresh <= Math.max(1, words.size() / 4);
  }
}
