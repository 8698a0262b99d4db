package dev.memsidecar.provider.extractor;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.ExtractionRequest;
import dev.memsidecar.api.Extractor;
import dev.memsidecar.api.GateScores;
import dev.memsidecar.api.MemoryCandidate;
import dev.memsidecar.api.MemoryCandidate.Owner;
import dev.memsidecar.api.MemoryKind;
import dev.memsidecar.api.Validity;
import dev.memsidecar.language.Terms;
import dev.memsidecar.provider.extractor.Transcript.Role;
import dev.memsidecar.provider.extractor.Transcript.Turn;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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
 *       between named people joined into ONE candidate per turn (far fewer records than turns), in
 *       an agent run one candidate per statement; owned by the user (or, in an agent run, by the
 *       workspace when nobody in it is the speaker).
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
 * instead of butter"); see {@link Questions}. Kept statements are rewritten to stand alone:
 * "I"/"my"/"we" become the speaker's name ("Caroline went ..."; "the user" / "用户" for an unnamed
 * user), "you"/"your" the addressee's when known, relative dates ("yesterday", "last week", "next
 * month", "this Saturday", "two days ago", "昨天", "上周六") gain their absolute date in parentheses
 * after the phrase, read on the session date (a {@code [session date: ...]} header line, else
 * metadata {@code session_date}, {@code date} or {@code time}, else {@link ExtractionRequest#now()}
 * in {@link ExtractionRequest#zone()}); a turn of a conversation with a session date ends with
 * "(said on 8 May 2023)", after the dates of its dropped sentences ("Last night was amazing! We
 * celebrated ..." keeps "last night: 13 August 2023"). The agent's output only yields commands,
 * procedures and canonical-token facts it states itself, never a restatement of the input.
 *
 * <h2>Scores (the write gate keeps 7.0 and up; weights 0.3/0.1/0.2/0.2/0.1/0.1)</h2>
 *
 * <ul>
 *   <li><b>importance</b> by rule: explicit 9, identity 9, preference 8, correction 8, procedure 8,
 *       workspace-fact 8 with canonical tokens, else 7 when technical or specific and 6 otherwise.
 *       A turn between named people weighs what its most specific sentence names: specifics (names,
 *       numbers, dates) and <em>concrete</em> words (content words that are not feelings, verdicts,
 *       abstractions or light verbs: "kickboxing", "clay", "mental health", not "progress",
 *       "rewarding", "keep"; see {@link Lexicon#GENERIC}): event 8 when dated, 7 about the speaker
 *       with two concrete words or a specific, or with four concrete words, else 5 about the
 *       speaker and 6 otherwise; plan 8 when dated, 7 with three concrete words (two with a
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

  private static final Set<String> SESSION_DATE_KEYS = Set.of("session_date", "date", "time");
  private static final Pattern ATTACHMENT =
      Pattern.compile(
          "(?i)^[\\[(](?:image|photo|picture|pic|shares?|shared|attachment|图片|照片)(?![A-Za-z]).*[\\])]$");
  private static final Pattern QUESTION_END = Pattern.compile("[?？]\\W*$");
  private static final Pattern ACKNOWLEDGEMENT =
      Pattern.compile(
          "(?i)^(?:i'll remember|i will remember|i've (?:noted|saved|stored|remembered|updated)|i"
              + " have (?:noted|saved|stored|remembered)|noted|got"
              + " it|understood|sure|ok|okay|done|memory (?:stored|saved|updated)|saved|stored|will"
              + " do|no problem|you're welcome|好的|收到|记住了|已记住|我记住了|明白|了解|没问题)\\b?");
  private static final Pattern IT_IS =
      Pattern.compile(
          "(?i)^(?:it|that|this)(?:'s|\\s+is|\\s+was|\\s+should be|\\s+will be)\\s+(.+)$");
  private static final Pattern SUBJECT_IS =
      Pattern.compile(
          "(?i)^(?:the\\s+|our\\s+|my\\s+)?(.{2,60}?)\\s+(is|are|was|were|will be)\\s+.+$");
  private static final Pattern PAST_TENSE =
      Pattern.compile(
          "(?i)\\b(?:was|were|went|did|had|got|made|took|saw|ran|met|bought|found|won(?!')|lost|spent"
              + "|visited|started|finished|joined|adopted|painted|tried|learned|moved|graduated"
              + "|\\w{3,}ed)\\b|了|过");

  /** The extractor; it has no settings. */
  public RulesExtractor() {}

  @Override
  public List<MemoryCandidate> extract(ExtractionRequest request) {
    requireNonNull(request, "request is null");
    boolean dated =
        SESSION_DATE_KEYS.stream().anyMatch(k -> !request.metadata().getOrDefault(k, "").isBlank());
    Transcript input = Transcript.parse(request.input(), Role.USER, dated);
    // The output of a conversation's run may be the other person's turn ("Melanie: ...").
    Transcript output =
        Transcript.parse(request.output(), Role.AGENT, dated || !input.people().isEmpty());
    LocalDate day = sessionDay(request, input);
    boolean sessionDated = dated || (input.sessionDate() != null && day != null);
    if (day == null) {
      day = DatePhrases.today(request.now(), request.zone());
    }
    Run run = new Run(day, sessionDated);
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
    Set<String> inputWords = new HashSet<>(Terms.keywords(request.input()));
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
    return List.copyOf(run.out);
  }

  private static LocalDate sessionDay(ExtractionRequest request, Transcript input) {
    LocalDate day = DatePhrases.parseSessionDate(input.sessionDate(), request.zone());
    for (String key : List.of("session_date", "date", "time")) {
      if (day != null) {
        break;
      }
      day = DatePhrases.parseSessionDate(request.metadata().get(key), request.zone());
    }
    return day;
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

  /** The candidates of one request being built, with the run-wide facts. */
  private static final class Run {
    final LocalDate day;
    final boolean sessionDated;
    final List<MemoryCandidate> out = new ArrayList<>();
    final Set<String> seen = new HashSet<>();

    /** The sentence the last candidate (a workspace fact) came from, while it is the last. */
    String lastFactRaw;

    Run(LocalDate day, boolean sessionDated) {
      this.day = day;
      this.sessionDated = sessionDated;
    }

    void add(MemoryCandidate c) {
      String key = String.join(" ", Terms.of(c.content()));
      lastFactRaw = null;
      if (!key.isEmpty() && seen.add(key)) {
        out.add(c);
      }
    }
  }

  private enum Category {
    STATEMENT,
    PLAN,
    EVENT,
    PREFERENCE,
    IDENTITY
  }

  /**
   * One informative sentence of a turn, rewritten.
   *
   * @param text the sentence as it will be stored
   * @param category what it tells
   * @param contentWords its content words
   * @param concreteWords its content words that name a specific thing (not "progress", "fun")
   * @param specifics numbers, names and dates it holds
   * @param aboutSpeaker whether it is in the first person (or its subject was left out)
   * @param hedged whether it hedges
   * @param shortTerm whether it only holds now
   * @param dated whether it names a date
   * @param verdict whether it only judges what the turn told before it ("It was so peaceful"): it
   *     adds its words, not its weight
   */
  private record Statement(
      String text,
      Category category,
      int contentWords,
      int concreteWords,
      int specifics,
      boolean aboutSpeaker,
      boolean hedged,
      boolean shortTerm,
      boolean dated,
      boolean verdict) {}

  // ---------------------------------------------------------------------------------------------
  // A person's turn (the user's, or a named speaker's)

  private void humanTurn(Run run, Turn turn, String addressee, String before) {
    boolean named = turn.role() == Role.PERSON;
    List<String> sentences = Sentences.split(turn.text());
    List<Statement> kept = new ArrayList<>();
    List<String> attachments = new ArrayList<>();
    String context = lastSentence(before);
    boolean pendingExplicit = false;
    boolean pendingCorrection = false;
    List<String> droppedDates = new ArrayList<>();
    String lastKeptRaw = null;
    for (int k = 0; k < sentences.size(); k++) {
      String raw = normalize(sentences.get(k));
      if (raw.isEmpty()) {
        continue;
      }
      boolean zh = Language.isChinese(raw);
      if (ATTACHMENT.matcher(raw).matches()) {
        attachments.add(raw);
        continue;
      }
      if (pendingExplicit) {
        pendingExplicit = false;
        explicit(run, turn, addressee, raw, named);
        continue;
      }
      String remembered = explicitRest(raw, zh, named);
      if (remembered != null) {
        if (remembered.isBlank()) {
          pendingExplicit = true;
        } else {
          explicit(run, turn, addressee, remembered, named);
        }
        continue;
      }
      String corrected = pendingCorrection ? raw : correctionRest(raw, zh);
      if (corrected != null) {
        pendingCorrection = corrected.isBlank();
        if (!pendingCorrection) {
          // Drop what is corrected: "The deploy day is Tuesday. No, it's Thursday."
          if (!kept.isEmpty() && context.equals(lastKeptRaw)) {
            kept.remove(kept.size() - 1);
          } else if (context.equals(run.lastFactRaw) && !run.out.isEmpty()) {
            run.out.remove(run.out.size() - 1);
          }
          correction(run, turn, addressee, corrected, context, named);
        }
        context = raw;
        continue;
      }
      List<String> commands = Lexicon.commands(raw);
      boolean imperative = !named && isProcedure(raw, zh);
      if (!commands.isEmpty() || imperative) {
        String lead = k > 0 ? normalize(sentences.get(k - 1)) : "";
        boolean leads = lead.endsWith(":") || lead.endsWith("：");
        procedure(run, turn, addressee, leads ? lead + " " + raw : raw, commands, false);
        context = raw;
        continue;
      }
      if ((raw.endsWith(":") || raw.endsWith("：")) && k + 1 < sentences.size()) {
        List<String> next = Lexicon.commands(sentences.get(k + 1));
        if (!next.isEmpty()) {
          continue; // the lead of the command that follows
        }
      }
      List<String> tokens = Lexicon.canonicalTokens(raw);
      if (!named && !tokens.isEmpty() && !firstPerson(raw, zh)) {
        int size = run.out.size();
        workspaceFact(run, turn, raw, tokens);
        run.lastFactRaw = run.out.size() > size ? raw : null;
        context = raw;
        continue;
      }
      Statement s =
          zh
              ? chineseStatement(raw, turn, addressee, run)
              : englishStatement(raw, turn, addressee, run, !kept.isEmpty());
      if (s != null) {
        kept.add(s);
        lastKeptRaw = raw;
      } else {
        // "Last night was amazing! We celebrated ...": the date of a dropped sentence still
        // dates the turn.
        droppedDates.addAll(DatePhrases.phrases(raw, run.day));
      }
      context = raw;
    }
    if (!named) {
      // An agent's user states few facts at a time, each worth its own record: a preference, the
      // user's job and a plan dedupe, supersede and recall apart.
      for (Statement s : kept) {
        turnCandidate(run, turn, List.of(s), List.of(), droppedDates, sentences.size());
      }
    } else if (!kept.isEmpty() || !attachments.isEmpty()) {
      // A conversation between people: one record per turn keeps far fewer records than turns.
      turnCandidate(run, turn, kept, attachments, droppedDates, sentences.size());
    }
  }

  private static final Pattern ATTACHMENT_BODY =
      Pattern.compile(
          "(?i)^[\\[(](?:image|photo|picture|pic|shares?|shared|attachment|图片|照片)\\s*[:：]?\\s*(.*?)[\\])]$");

  /** "a photo of a cup" of "[image: a photo of a cup]". */
  private static String attachmentBody(String attachment) {
    Matcher m = ATTACHMENT_BODY.matcher(attachment);
    return m.matches() ? m.group(1).strip() : attachment;
  }

  /** "[image: a photo of a cup]" as "Melanie shared a photo of a cup." */
  private static String attachmentText(String attachment, String speaker, boolean zh) {
    Matcher m = ATTACHMENT_BODY.matcher(attachment);
    String body = m.matches() ? m.group(1).strip() : attachment;
    if (zh) {
      return speaker + "分享了图片：" + body + "。";
    }
    boolean described = body.matches("(?i)^(?:a|an|the)\\s.*");
    return terminate(speaker + " shared " + (described ? body : "an image: " + body), false);
  }

  /** Who "we" is: for the user of an agent run, their team; for a named person, null. */
  private static String group(Turn turn, boolean zh) {
    return turn.role() == Role.USER ? (zh ? "团队" : "the team") : null;
  }

  /**
   * Whether {@code s} speaks of its speaker: the first person, but for the user of an agent run
   * only the singular ("we deploy on Thursdays" is the team's, a workspace fact).
   */
  private static boolean aboutSpeaker(String s, boolean zh, Turn turn) {
    if (turn.role() == Role.USER) {
      return zh
          ? s.replace("我们", "").contains("我")
          : Lexicon.FIRST_PERSON_SINGULAR_EN.matcher(s).find();
    }
    return firstPerson(s, zh);
  }

  private static String normalize(String s) {
    return s.replace('\u2019', '\'').replace('\u2018', '\'').replaceAll("[ \\t]+", " ").strip();
  }

  private static String lastSentence(String text) {
    List<String> s = Sentences.split(text);
    return s.isEmpty() ? "" : normalize(s.get(s.size() - 1));
  }

  private static boolean firstPerson(String s, boolean zh) {
    return zh ? s.contains("我") || s.contains("咱们") : Lexicon.FIRST_PERSON_EN.matcher(s).find();
  }

  private static boolean isProcedure(String s, boolean zh) {
    if (zh) {
      return !s.contains("我") && !s.contains("你") && Lexicon.PROCEDURE_ZH.matcher(s).matches();
    }
    return Lexicon.PROCEDURE_EN.matcher(s).find();
  }

  // --- explicit ---------------------------------------------------------------------------------

  private static final Pattern NAMED_EXPLICIT =
      Pattern.compile(
          "(?i)^(?:\\w+[,!]?\\s+)?(?:please|pls|plz|kindly|(?:can|could|would|will) you)\\b"
              + "|^(?:remember|memori[sz]e|note)(?:\\s+this)?\\s*:");
  private static final Pattern EXPLICIT_NOT =
      Pattern.compile(
          "(?i)^(?:when|how|what|who|where|the time|that time|those|back when|me\\b|us\\b)");

  /** What follows "remember", "" when the memory is the next sentence, null when not explicit. */
  private static String explicitRest(String raw, boolean zh, boolean named) {
    Matcher m = (zh ? Lexicon.EXPLICIT_ZH : Lexicon.EXPLICIT_EN).matcher(raw);
    if (!m.matches()) {
      return null;
    }
    String rest = m.group(1).strip();
    if (!zh && (EXPLICIT_NOT.matcher(rest).lookingAt() || named && raw.endsWith("?"))) {
      return null;
    }
    if (named && !zh && !NAMED_EXPLICIT.matcher(raw).lookingAt()) {
      // Between people "Remember, I'm here for you" is advice, not an instruction to the memory.
      return null;
    }
    rest =
        rest.replaceAll(
            "(?i)[\\s,]*(?:for me|please|thanks|thank you|for later|for the future|going"
                + " forward|from now on)?[\\s.!?。！？]*$",
            "");
    rest = rest.replaceAll("^[\"'“「]|[\"'”」]$", "").strip();
    if (zh) {
      rest = rest.replaceAll("[哦哈吧啊呀噢。！!]+$", "").strip();
    }
    if (rest.isEmpty() && (raw.endsWith(":") || raw.endsWith("："))) {
      return "";
    }
    return rest.length() < 3 ? null : rest;
  }

  private void explicit(Run run, Turn turn, String addressee, String rest, boolean named) {
    boolean zh = Language.isChinese(rest);
    List<String> commands = Lexicon.commands(rest);
    boolean preference = preference(rest, zh);
    boolean identity = identity(rest, zh);
    boolean first = firstPerson(rest, zh);
    Owner owner =
        named
                || first
                || preference
                || identity
                || !technical(rest) && commands.isEmpty() && !hasTokens(rest)
            ? Owner.USER
            : Owner.WORKSPACE;
    if (!commands.isEmpty()) {
      owner = Owner.WORKSPACE;
    }
    String text = rewrite(quoteCommands(rest, commands), turn, addressee, run.day, zh);
    Specifics sp = specifics(rest, zh, turn, addressee);
    boolean shortTerm = shortTerm(rest);
    List<String> tags = new ArrayList<>(List.of("explicit"));
    if (preference) {
      tags.add("preference");
    }
    if (identity) {
      tags.add("identity");
    }
    if (!commands.isEmpty()) {
      tags.add("procedure");
    }
    GateScores scores =
        new GateScores(
            9, 7, 9, 9, granularity(sp.count + 2 * commands.size(), sp.content), shortTerm ? 3 : 9);
    run.add(
        new MemoryCandidate(
            text,
            commands.isEmpty() ? MemoryKind.SEMANTIC : MemoryKind.PROCEDURAL,
            owner,
            "",
            scores,
            true,
            shortTerm ? Validity.SHORT_TERM : Validity.LONG_TERM,
            tags,
            turn.raw(),
            "rule explicit: " + turn.speaker() + " asked for this to be remembered"));
  }

  // --- correction -------------------------------------------------------------------------------

  /** The corrected statement, "" when the marker stands alone, null when not a correction. */
  private static String correctionRest(String raw, boolean zh) {
    Matcher m = (zh ? Lexicon.CORRECTION_ZH : Lexicon.CORRECTION_EN).matcher(raw);
    if (!m.matches()) {
      return null;
    }
    String rest = m.group(1).strip();
    if (zh && raw.startsWith("其实") && rest.length() < 4) {
      return null;
    }
    return rest.replaceAll("^[,，:：\\s]+", "");
  }

  private void correction(
      Run run, Turn turn, String addressee, String rest, String context, boolean named) {
    boolean zh = Language.isChinese(rest);
    String fact = resolveIt(rest, context, zh);
    List<String> commands = Lexicon.commands(fact);
    // "Our deploy day is now Thursday" corrects a team fact: the workspace's, like the original.
    boolean first = aboutSpeaker(fact, zh, turn);
    Owner owner =
        named || first || preference(fact, zh) || identity(fact, zh) ? Owner.USER : Owner.WORKSPACE;
    String text = rewrite(quoteCommands(fact, commands), turn, addressee, run.day, zh);
    Specifics sp = specifics(fact, zh, turn, addressee);
    if (sp.content < 1 && commands.isEmpty()) {
      return;
    }
    GateScores scores =
        new GateScores(8, 8, 9, 9, granularity(sp.count + 2 * commands.size(), sp.content), 9);
    run.add(
        new MemoryCandidate(
            text,
            commands.isEmpty() ? MemoryKind.SEMANTIC : MemoryKind.PROCEDURAL,
            owner,
            "",
            scores,
            false,
            Validity.LONG_TERM,
            List.of("correction"),
            turn.raw(),
            "rule correction: " + turn.speaker() + " corrected an earlier statement"));
  }

  /** "it's Thursday" after "The deploy day is Tuesday." becomes "The deploy day is Thursday". */
  private static String resolveIt(String rest, String context, boolean zh) {
    if (context == null || context.isBlank()) {
      return rest;
    }
    if (zh) {
      if (rest.startsWith("是") && context.contains("是")) {
        String subject = context.substring(0, context.indexOf('是'));
        subject = subject.replaceAll("^.*[，,：:]", "").strip();
        if (!subject.isEmpty() && subject.length() <= 20) {
          return subject + rest;
        }
      }
      return rest;
    }
    Matcher it = IT_IS.matcher(rest);
    if (!it.matches()) {
      return rest;
    }
    Matcher subj = SUBJECT_IS.matcher(context.replaceAll("[.!?]+$", ""));
    if (!subj.matches() || Lexicon.FIRST_PERSON_EN.matcher(subj.group(1)).find()) {
      return rest;
    }
    String subject = context.substring(0, subj.start(2)).strip();
    String verb = subj.group(2).toLowerCase(Locale.ROOT);
    return subject
        + " "
        + (verb.equals("was") || verb.equals("were") ? "is" : verb)
        + " "
        + it.group(1);
  }

  // --- procedures and workspace facts -----------------------------------------------------------

  private void procedure(
      Run run, Turn turn, String addressee, String raw, List<String> commands, boolean agent) {
    boolean zh = Language.isChinese(raw);
    String cleaned = stripChatter(raw);
    if (cleaned.isEmpty()) {
      cleaned = raw;
    }
    String text = rewrite(quoteCommands(cleaned, commands), turn, addressee, run.day, zh);
    Specifics sp = specifics(cleaned, zh, turn, addressee);
    List<String> tags = commands.isEmpty() ? List.of("procedure") : List.of("procedure", "command");
    GateScores scores =
        new GateScores(
            8,
            agent ? 6 : 7,
            8,
            agent ? 7 : 8,
            granularity(sp.count + 2 * commands.size(), sp.content),
            9);
    String who = agent ? "the agent" : turn.speaker();
    run.add(
        new MemoryCandidate(
            text,
            MemoryKind.PROCEDURAL,
            Owner.WORKSPACE,
            "",
            scores,
            false,
            Validity.LONG_TERM,
            tags,
            turn.raw(),
            (agent ? "rule agent-procedure: " : "rule procedure: ")
                + (commands.isEmpty()
                    ? who + " stated a procedure"
                    : who + " gave the command " + String.join(", ", commands))));
  }

  private void workspaceFact(Run run, Turn turn, String raw, List<String> tokens) {
    workspaceFact(run, turn, raw, tokens, false);
  }

  private void workspaceFact(Run run, Turn turn, String raw, List<String> tokens, boolean agent) {
    boolean zh = Language.isChinese(raw);
    String cleaned = stripChatter(raw);
    if (cleaned.isEmpty()) {
      cleaned = raw;
    }
    String text = rewrite(cleaned, turn, null, run.day, zh);
    Specifics sp = specifics(cleaned, zh, turn, null);
    boolean shortTerm = shortTerm(cleaned);
    GateScores scores =
        new GateScores(
            8,
            agent ? 6 : 7,
            8,
            agent ? 7 : 8,
            granularity(sp.count + 2 * tokens.size(), sp.content),
            shortTerm ? 3 : 9);
    run.add(
        new MemoryCandidate(
            text,
            MemoryKind.SEMANTIC,
            Owner.WORKSPACE,
            "",
            scores,
            false,
            shortTerm ? Validity.SHORT_TERM : Validity.LONG_TERM,
            List.of("fact"),
            turn.raw(),
            (agent ? "rule agent-fact: " : "rule workspace-fact: ")
                + "states "
                + String.join(", ", new LinkedHashSet<>(tokens))));
  }

  /** Wraps each command in backticks (once) so rewriting never touches it. */
  private static String quoteCommands(String text, List<String> commands) {
    String out = text;
    for (String c : commands) {
      if (!out.contains("`" + c + "`") && !out.contains("`" + c)) {
        int at = out.indexOf(c);
        if (at >= 0) {
          out = out.substring(0, at) + "`" + c + "`" + out.substring(at + c.length());
        }
      }
    }
    return out;
  }

  // --- the agent's output
  // -------------------------------------------------------------------------

  private void agentTurn(Run run, Turn turn, Set<String> inputWords) {
    List<String> sentences = Sentences.split(turn.text());
    for (int k = 0; k < sentences.size(); k++) {
      String raw = normalize(sentences.get(k));
      if (raw.isEmpty()
          || ACKNOWLEDGEMENT.matcher(raw).lookingAt()
          || QUESTION_END.matcher(raw).find()) {
        continue;
      }
      boolean zh = Language.isChinese(raw);
      List<String> commands = Lexicon.commands(raw);
      List<String> tokens = Lexicon.canonicalTokens(raw);
      boolean procedure = !commands.isEmpty() || isProcedure(raw, zh);
      if (!procedure && tokens.isEmpty()) {
        continue;
      }
      if (echoes(raw, commands, tokens, inputWords)) {
        continue;
      }
      if (procedure) {
        String lead = k > 0 ? normalize(sentences.get(k - 1)) : "";
        boolean leads = lead.endsWith(":") || lead.endsWith("：");
        procedure(run, turn, null, leads ? lead + " " + raw : raw, commands, true);
      } else {
        workspaceFact(run, turn, raw, tokens, true);
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

  // --- informative statements -------------------------------------------------------------------

  /** "Gina, you won't believe it" without "Gina, " (also a short form such as "Mel,"). */
  private static String stripVocative(String s, String addressee) {
    if (addressee == null) {
      return s;
    }
    String out = s;
    Matcher m = VOCATIVE.matcher(out);
    if (m.lookingAt() && addressee.startsWith(m.group(1))) {
      out = out.substring(m.end()).strip();
    }
    // "The kids look so cute, Mel!": a name at the end is the listener's, not a specific.
    Matcher end = TRAILING_VOCATIVE.matcher(out);
    if (end.find() && end.start() > 0 && addressee.startsWith(end.group(1))) {
      out = out.substring(0, end.start()) + end.group(2);
    }
    return out;
  }

  private static final Pattern VOCATIVE = Pattern.compile("^(\\p{Lu}\\p{Ll}{1,20})\\s*[,!]\\s+");
  private static final Pattern TRAILING_VOCATIVE =
      Pattern.compile(",\\s*(\\p{Lu}\\p{Ll}{1,20})\\s*([.!?]*)$");

  private static String stripChatter(String s) {
    String out = s;
    for (int i = 0; i < 4; i++) {
      Matcher m = Lexicon.LEADING_CHATTER.matcher(out);
      if (!m.lookingAt() || m.end() == 0) {
        break;
      }
      out = out.substring(m.end()).strip();
    }
    return out;
  }

  /**
   * One English sentence of a person's turn as a statement, or null when it is small talk.
   *
   * @param continues whether a statement of this turn was kept before it: the speaker is telling of
   *     their own things, so "It was a really peaceful experience" describes what they told, not
   *     the listener's news
   */
  private Statement englishStatement(
      String raw, Turn turn, String addressee, Run run, boolean continues) {
    String s = stripVocative(stripChatter(raw), addressee);
    if (s.length() < 3) {
      return null;
    }
    s = Questions.statedEnglish(s);
    if (s == null || Lexicon.CLOSER_EN.matcher(s).lookingAt()) {
      return null;
    }
    boolean first = aboutSpeaker(s, false, turn);
    boolean elided = Lexicon.ELIDED_SUBJECT.matcher(s).lookingAt() || gerundStart(s);
    Specifics sp = specifics(s, false, turn, addressee);
    boolean named = turn.role() == Role.PERSON;
    // A verdict after the speaker's own news is about that news; one addressed to the listener
    // ("You're so brave", "Your kids look cute") is not.
    boolean ownVerdict = named && continues && !ADDRESSES_LISTENER.matcher(s).lookingAt();
    // "You can use dairy-free margarine or coconut oil instead of butter", "Barcelona is a
    // must-visit city": advice and verdicts that name things are kept; "Keep it up", "The kids
    // look so cute" are not.
    boolean tells = named && informativeBesideVerdict(s, turn, addressee);
    if (Lexicon.REACTION_EN.matcher(s).lookingAt()
        && !first
        && sp.count == 0
        && !ownVerdict
        && !tells) {
      return null;
    }
    if (named && Lexicon.EXHORTATION.matcher(s).lookingAt() && !tells
        || named
            && !first
            && Lexicon.EVALUATION.matcher(s).find()
            && sp.count == 0
            && !ownVerdict
            && !tells) {
      // "Let's keep going", "Don't give up", "The kids look so cute": advice and opinions.
      return null;
    }
    boolean about = first || elided;
    // A named speaker's third-person statements are mostly about their own circle ("They loved
    // the dinosaur exhibit"); in an agent run such a statement needs a specific or more words.
    boolean stated = about && (identity(s, false) || preference(s, false)); // "I'm a nurse."
    boolean informative =
        about || named
            ? sp.content >= 2 || (sp.count >= 1 || stated || ownVerdict) && sp.content >= 1
            : sp.count >= 1 && sp.content >= 2
                || sp.content >= 5
                || technical(s) && sp.content >= 2;
    boolean verdict =
        ownVerdict
            && !first
            && sp.count == 0
            && (Lexicon.REACTION_EN.matcher(s).lookingAt() || Lexicon.EVALUATION.matcher(s).find());
    if (!informative) {
      return null;
    }
    String text = s;
    if (elided) {
      String head = s.split("\\s+", 2)[0].toLowerCase(Locale.ROOT);
      boolean progressive = head.endsWith("ing") || head.equals("gonna") || head.equals("off");
      text = (progressive ? "I am " : "I ") + Character.toLowerCase(s.charAt(0)) + s.substring(1);
    }
    String dated = DatePhrases.annotate(text, run.day);
    boolean hasDate = !dated.equals(text) || ABSOLUTE_DATE.matcher(s).find();
    text = Voice.english(dated, turn.speaker(), addressee, group(turn, false));
    text = terminate(text, false);
    Category category = category(s, false, hasDate);
    boolean hedged = Lexicon.HEDGE.matcher(s).find();
    boolean shortTerm = shortTerm(s) && !pastEvent(s);
    return new Statement(
        text,
        category,
        sp.content,
        sp.concrete,
        sp.count + (hasDate && sp.dates == 0 ? 1 : 0),
        about,
        hedged,
        shortTerm,
        hasDate,
        verdict);
  }

  private static final Pattern ADDRESSES_LISTENER =
      Pattern.compile("(?i)^(?:you|your|yours|you're|you've|you'd|you'll|u|ur)\\b");

  private static final Pattern CLAUSE = Pattern.compile("\\s+[-–—]+\\s+|[;,:]\\s+");

  /**
   * Whether a sentence holding a verdict, a reaction or advice also tells something: three concrete
   * words beside the verdict ("It was inspiring - so many people wanted to create loving homes for
   * children", "You can use coconut oil instead of butter"; not "The kids look so cute", "Keep it
   * up").
   */
  private static boolean informativeBesideVerdict(String s, Turn turn, String addressee) {
    int concrete = 0;
    for (String clause : CLAUSE.split(Lexicon.EVALUATION.matcher(s).replaceAll(" "))) {
      String c = clause.strip();
      // "That's so cool" tells nothing; "You can use coconut oil instead of butter" may.
      if (!Lexicon.REACTION_EN.matcher(c).lookingAt()
          || ADDRESSES_LISTENER.matcher(c).lookingAt()) {
        concrete += specifics(clause, false, turn, addressee).concrete;
      }
    }
    return concrete >= SPECIFIC_WORDS;
  }

  private static final Pattern GERUND_START =
      Pattern.compile(
          "^(?!(?:Some|Any|No|Every)thing\\b|(?:Morning|Evening|Spring|String|Ceiling|Thing)\\b)"
              + "[A-Z][a-z]{2,}ing\\s+(?!(?:is|was|has|can|could|will|would|makes|made|helps|helped|gives"
              + "|gave|keeps|kept|brings|brought|means|seems|sounds|looks|feels|really|always|never|your"
              + "|my|our|his|her|their|the|a|an|this|that|these|those|it|you|them|with|to|for|at)\\b)"
              + "[a-z]");

  private static final Pattern FINITE_VERB =
      Pattern.compile(
          "(?i)\\b(?:is|was|are|were|must|must've|can|will|would|could|should|makes|made|gives|gave"
              + "|helps|helped|means|meant|brings|brought|keeps|kept|has|had|takes|took|does|did"
              + "|doesn't|didn't|isn't|wasn't|aren't|can't|won't|couldn't|wouldn't|shouldn't|hasn't"
              + "|hadn't|needs|seems|works|fails|breaks|happens|happened|looks|sounds|feels)\\b");

  /**
   * "Researching adoption agencies — it's been a dream" (the speaker left out), not "Running is
   * fun" nor "Meeting him must've been awesome" (the gerund is the subject of a later verb in its
   * first clause).
   */
  private static boolean gerundStart(String s) {
    if (!GERUND_START.matcher(s).lookingAt()) {
      return false;
    }
    // The verb of a gerund subject may come after a list: "Creating community and supporting
    // each other, especially for kids, is really important". A verb after a clause with a
    // subject of its own ("Researching agencies - it's been a dream") says nothing of the gerund.
    String beforeSubject = NEW_SUBJECT.split(s, 2)[0];
    return !FINITE_VERB.matcher(beforeSubject).find();
  }

  private static final Pattern NEW_SUBJECT =
      Pattern.compile(
          "(?:[,;:—–]|\\s-|\\b(?i:and|but|so|because))\\s*(?i:it|that|this|he|she|they|we|i|you"
              + "|there)\\b");

  private static final Pattern ZH_FILLER =
      Pattern.compile("[的了是在我你他她它们也都很就还吧呢吗啊呀哦嗯这那个有和与及或但而且所以因为如果会要能可以一不没真太好挺超特别非常觉得感觉]");

  private Statement chineseStatement(String raw, Turn turn, String addressee, Run run) {
    String s = raw.replaceAll("^(?:嗯+|哈+|哇+|啊+|哦+|噢+|好的|好吧|对了|另外|还有|其实)[，,!！。～~]*", "").strip();
    s = s.isEmpty() ? null : Questions.statedChinese(s);
    if (s == null) {
      return null;
    }
    if (Lexicon.ZH_SMALL_TALK.matcher(s).matches()) {
      return null;
    }
    boolean first = aboutSpeaker(s, true, turn);
    Specifics sp = specifics(s, true, turn, addressee);
    boolean named = turn.role() == Role.PERSON;
    boolean informative =
        first || named ? sp.content >= 2 : sp.count >= 1 && sp.content >= 2 || sp.content >= 6;
    if (!informative) {
      return null;
    }
    String dated = DatePhrases.annotate(s, run.day);
    boolean hasDate = !dated.equals(s) || ABSOLUTE_DATE.matcher(s).find();
    String text =
        terminate(Voice.chinese(dated, turn.speaker(), addressee, group(turn, true)), true);
    Category category = category(s, true, hasDate);
    boolean hedged = Lexicon.HEDGE.matcher(s).find();
    boolean shortTerm = shortTerm(s) && !pastEvent(s);
    return new Statement(
        text,
        category,
        sp.content,
        sp.concrete,
        sp.count + (hasDate && sp.dates == 0 ? 1 : 0),
        first,
        hedged,
        shortTerm,
        hasDate,
        false);
  }

  private static final Pattern ABSOLUTE_DATE =
      Pattern.compile(
          "(?i)\\b(?:\\d{1,2}(?:st|nd|rd|th)?\\s+(?:of\\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov"
              + "|dec)[a-z]*|(?:january|february|march|april|june|july|august|september|october"
              + "|november|december)(?:\\s+\\d{1,2}(?:st|nd|rd|th)?)?|(?:in|since|of|by)\\s+(?:19|20)\\d\\d"
              + "|\\d{4}-\\d{2}-\\d{2})\\b|\\d{1,4}年|\\d{1,2}月\\d{1,2}[日号]");

  private static final Pattern FUTURE_DATE =
      Pattern.compile(
          "(?i)\\b(?:tomorrow|next"
              + " (?:week|month|year|weekend|monday|tuesday|wednesday|thursday|friday|saturday|sunday|summer|winter|spring|fall|autumn)|this"
              + " coming|upcoming|in \\d+ (?:days|weeks|months))\\b|明天|后天|下周|下星期|下个|下月|明年|以后|之后");

  private static Category category(String s, boolean zh, boolean hasDate) {
    if (identity(s, zh)) {
      return Category.IDENTITY;
    }
    if (preference(s, zh)) {
      return Category.PREFERENCE;
    }
    boolean future = DatePhrases.isFuture(s) || FUTURE_DATE.matcher(s).find();
    if (future) {
      return Category.PLAN;
    }
    if (hasDate || pastEvent(s)) {
      return Category.EVENT;
    }
    return Category.STATEMENT;
  }

  private static final Pattern STATE_PARTICIPLE =
      Pattern.compile(
          "(?i)\\b(?:am|is|are|'m|'re|'s|be|been|being|feel|feeling|felt|get|getting|got|seem|seems"
              + "|so|really|very|pretty|super|totally|kinda|bit|little)\\s+\\w+ed\\b");

  /** Whether {@code s} tells of something done ("went", "finished"), not a state ("swamped"). */
  private static boolean pastEvent(String s) {
    return PAST_TENSE.matcher(STATE_PARTICIPLE.matcher(s).replaceAll(" ")).find();
  }

  private static boolean preference(String s, boolean zh) {
    return (zh ? Lexicon.PREFERENCE_ZH : Lexicon.PREFERENCE_EN).matcher(s).find();
  }

  private static boolean identity(String s, boolean zh) {
    return (zh ? Lexicon.IDENTITY_ZH : Lexicon.IDENTITY_EN).matcher(s).find();
  }

  private static boolean technical(String s) {
    return Lexicon.TECHNICAL.matcher(s).find();
  }

  private static boolean hasTokens(String s) {
    return !Lexicon.canonicalTokens(s).isEmpty();
  }

  private static boolean shortTerm(String s) {
    return Lexicon.SHORT_TERM.matcher(s).find();
  }

  private static String terminate(String text, boolean zh) {
    String t = text.strip().replaceAll("[!！~～]+$", "");
    if (t.isEmpty()) {
      return t;
    }
    char last = t.charAt(t.length() - 1);
    if (zh) {
      return ".。!?！？`".indexOf(last) >= 0 ? t : t + "。";
    }
    return ".!?`\"'".indexOf(last) >= 0 ? t : t + ".";
  }

  private static String rewrite(
      String text, Turn turn, String addressee, LocalDate day, boolean zh) {
    String dated = DatePhrases.annotate(text, day);
    String voiced =
        zh
            ? Voice.chinese(dated, turn.speaker(), addressee, group(turn, true))
            : Voice.english(dated, turn.speaker(), addressee, group(turn, false));
    return terminate(voiced, zh);
  }

  private void turnCandidate(
      Run run,
      Turn turn,
      List<Statement> kept,
      List<String> attachments,
      List<String> droppedDates,
      int sentenceCount) {
    boolean zh = Language.isChinese(turn.text());
    boolean named = turn.role() == Role.PERSON;
    Category top = Category.STATEMENT;
    Set<Category> seen = EnumSet.noneOf(Category.class);
    int content = 0;
    int concrete = 0;
    int maxConcrete = 0;
    int specifics = 0;
    boolean about = false;
    boolean hedged = true;
    boolean shortTerm = true;
    boolean dated = false;
    StringBuilder text = new StringBuilder();
    for (Statement s : kept) {
      if (!text.isEmpty() && !zh) {
        text.append(' ');
      }
      text.append(s.text);
      if (s.verdict) {
        continue;
      }
      seen.add(s.category);
      if (s.category.compareTo(top) > 0) {
        top = s.category;
      }
      content += s.contentWords;
      concrete += s.concreteWords;
      maxConcrete = Math.max(maxConcrete, s.concreteWords);
      specifics += s.specifics;
      about |= s.aboutSpeaker;
      hedged &= s.hedged;
      shortTerm &= s.shortTerm;
      dated |= s.dated;
    }
    int attachmentWords = 0;
    int attachmentConcrete = 0;
    for (String a : attachments) {
      if (!text.isEmpty() && !zh) {
        text.append(' ');
      }
      text.append(attachmentText(a, turn.speaker(), zh));
      Specifics sp = specifics(attachmentBody(a), zh, turn, null);
      attachmentWords += sp.content;
      attachmentConcrete += sp.concrete;
    }
    // "Here's my painting [image: a painting of a sunset]": the image shows the speaker's own
    // thing.
    boolean presents =
        !attachments.isEmpty()
            && Lexicon.PRESENTS
                .matcher(Lexicon.ATTACHMENTS.matcher(turn.text()).replaceAll(" "))
                .find();
    if (presents) {
      concrete += attachmentConcrete;
      maxConcrete = Math.max(maxConcrete, attachmentConcrete);
    }
    if (kept.isEmpty()) {
      // Only an image: what a person shows is mostly theirs, but a caption is not their word
      // unless the turn presents it as theirs.
      seen.add(Category.EVENT);
      top = Category.EVENT;
      content = attachmentWords;
      hedged = false;
      shortTerm = false;
      about = presents;
    }
    Owner owner = named || about ? Owner.USER : Owner.WORKSPACE;
    boolean episodic = seen.contains(Category.EVENT) || seen.contains(Category.PLAN);
    MemoryKind kind;
    if (owner == Owner.WORKSPACE) {
      kind = MemoryKind.SEMANTIC;
    } else if (episodic) {
      kind = MemoryKind.EPISODIC;
    } else if (top == Category.IDENTITY || top == Category.PREFERENCE) {
      kind = MemoryKind.SEMANTIC;
    } else {
      kind = MemoryKind.EPISODIC;
    }
    List<String> notes = new ArrayList<>(dated ? List.of() : droppedDates);
    if (run.sessionDated && named) {
      notes.add(
          zh ? "说于" + DatePhrases.chinese(run.day) : "said on " + DatePhrases.english(run.day));
    }
    if (!notes.isEmpty()) {
      dated |= !droppedDates.isEmpty();
      text.append(zh ? "（" + String.join("；", notes) + "）" : " (" + String.join("; ", notes) + ")");
    }
    boolean technical = owner == Owner.WORKSPACE && technical(turn.text());
    float importance =
        named
            ? chatImportance(top, kept.isEmpty(), about, dated, specifics, content, maxConcrete)
            : switch (top) {
              case IDENTITY -> 9;
              case PREFERENCE -> 8;
              case EVENT -> dated ? 8 : about || specifics > 0 ? 7 : 6;
              case PLAN -> dated ? 8 : content >= 5 || specifics > 0 ? 7 : 6;
              case STATEMENT -> (about && content >= 4) || specifics > 0 ? 7 : content >= 4 ? 6 : 5;
            };
    if (owner == Owner.WORKSPACE) {
      importance = technical || specifics > 0 ? 7 : 6;
    }
    // The date of "this week" does not make a mood specific.
    boolean specific = specifics > (dated ? 1 : 0) || maxConcrete >= SPECIFIC_WORDS;
    if (shortTerm && !specific) {
      // What only holds now matters less, and a bare mood ("swamped this week") hardly at all;
      // "currently reading The Lean Startup" still tells what.
      importance = content >= 3 ? importance - 1 : 5;
    }
    float relevance =
        about ? 9 : named && !kept.isEmpty() ? 7 : owner == Owner.WORKSPACE && technical ? 8 : 6;
    float credibility = hedged ? 6 : 8;
    float timeliness =
        shortTerm
            ? 3
            : switch (top) {
              case IDENTITY, PREFERENCE -> 9;
              case EVENT -> 8;
              case PLAN -> 6;
              default -> owner == Owner.WORKSPACE ? 9 : 7;
            };
    GateScores scores =
        new GateScores(
            importance,
            7,
            relevance,
            credibility,
            named
                ? chatGranularity(specifics, maxConcrete, concrete)
                : granularity(specifics, content),
            timeliness);
    List<String> tags = new ArrayList<>();
    for (Category c :
        List.of(Category.IDENTITY, Category.PREFERENCE, Category.EVENT, Category.PLAN)) {
      if (seen.contains(c)) {
        tags.add(c.name().toLowerCase(Locale.ROOT));
      }
    }
    if (owner == Owner.WORKSPACE) {
      tags.add("fact");
    }
    String rule =
        owner == Owner.WORKSPACE
            ? "workspace-fact"
            : kept.isEmpty() ? "attachment" : top.name().toLowerCase(Locale.ROOT);
    String reason =
        String.format(
            Locale.ROOT,
            "rule %s: turn of %s, %d of %d sentences kept (%s)",
            rule,
            turn.speaker(),
            kept.size(),
            sentenceCount,
            String.join(", ", seen.stream().map(c -> c.name().toLowerCase(Locale.ROOT)).toList()));
    run.add(
        new MemoryCandidate(
            text.toString(),
            kind,
            owner,
            "",
            scores,
            false,
            shortTerm ? Validity.SHORT_TERM : Validity.LONG_TERM,
            tags,
            turn.raw(),
            reason));
  }

  /** Concrete words in one sentence that make it specific without a name or a number. */
  private static final int SPECIFIC_WORDS = 3;

  /**
   * The importance of a turn between people (see the class comment). What decides is how specific
   * its most specific sentence is: names, numbers and dates ({@code specifics}) and words that name
   * things, activities or objects ({@code maxConcrete}, in one sentence: "kickboxing and circuit
   * training", "a cup with a dog face") rather than feelings and verdicts ("so rewarding", "never
   * give up"). Dated events and plans are 8; specific ones 7; vague ones 5 or 6, below the gate.
   */
  private static float chatImportance(
      Category top,
      boolean imageOnly,
      boolean about,
      boolean dated,
      int specifics,
      int content,
      int maxConcrete) {
    boolean hasNames = specifics > 0;
    if (imageOnly) {
      // The caption of an image the speaker presents as theirs ("Here's my painting").
      return about && maxConcrete >= 2 ? 7 : 6;
    }
    return switch (top) {
      case IDENTITY -> 9;
      case PREFERENCE -> maxConcrete >= 2 || hasNames ? 8 : 5;
      case EVENT -> {
        if (dated) {
          yield 8;
        }
        if (about) {
          yield maxConcrete >= 2 || hasNames ? 7 : 5;
        }
        yield maxConcrete >= SPECIFIC_WORDS + 1 || hasNames ? 7 : 6;
      }
      case PLAN ->
          dated ? 8 : maxConcrete >= SPECIFIC_WORDS || hasNames && maxConcrete >= 2 ? 7 : 6;
      case STATEMENT -> {
        if (about) {
          yield maxConcrete >= SPECIFIC_WORDS || hasNames && maxConcrete >= 1 ? 7 : 5;
        }
        yield maxConcrete >= SPECIFIC_WORDS + 1 || hasNames && maxConcrete >= 1
            ? 7
            : content >= 4 ? 6 : 5;
      }
    };
  }

  /**
   * 4, one per specific (at most four), one for a specific sentence, one from eight concrete words.
   */
  private static float chatGranularity(int specifics, int maxConcrete, int concrete) {
    return Math.min(
        10,
        4
            + Math.min(specifics, 4)
            + (maxConcrete >= SPECIFIC_WORDS ? 1 : 0)
            + (concrete >= 8 ? 1 : 0));
  }

  private static float granularity(int specifics, int content) {
    int g = 4 + Math.min(specifics, 4) + (content >= 6 ? 1 : 0) + (content >= 12 ? 1 : 0);
    return Math.min(10, g);
  }

  // --- specifics --------------------------------------------------------------------------------

  /** How specific a sentence is: its content words and its specifics (numbers, names, dates). */
  private record Specifics(int content, int count, int dates, int concrete) {}

  private static final Pattern NUMBER = Pattern.compile("\\d+(?:[.,:]\\d+)*");
  private static final Pattern PROPER =
      Pattern.compile("(?<=[\\s(\"'“])(?:[A-Z][a-z]+(?:[A-Z][a-z]+)*|[A-Z]{2,}[a-z]?)\\b");
  private static final Pattern DATE_WORDS =
      Pattern.compile(
          "(?i)\\b(?:january|february|march|april|june|july|august|september|october|november"
              + "|december|monday|tuesday|wednesday|thursday|friday|saturday|sunday|yesterday"
              + "|tomorrow|weekend|(?:19|20)\\d\\d)\\b|[年月日号]|周[一二三四五六日天]|星期");
  private static final Set<String> NOT_PROPER =
      Lexicon.words(
          "I", "I'm", "I've", "I'd", "I'll", "OK", "Ok", "TV", "Mom", "Dad", "God", "Oh", "Hey",
          "Wow", "Yes", "No", "Thanks", "Thank", "The", "A", "An", "And", "But", "So", "Also", "It",
          "My", "We", "You", "He", "She", "They", "This", "That", "LOL", "OMG");

  private static Specifics specifics(String s, boolean zh, Turn turn, String addressee) {
    Set<String> names = new HashSet<>();
    names.add(turn.speaker().toLowerCase(Locale.ROOT));
    if (addressee != null) {
      names.add(addressee.toLowerCase(Locale.ROOT));
    }
    int content;
    int concrete;
    if (zh) {
      String han = s.replaceAll("[^\\p{IsHan}]", "");
      content = (ZH_FILLER.matcher(han).replaceAll("").length() + 1) / 2;
      // Words (two characters each, as for content) that are neither filler nor feelings:
      // "吉他", "香菜", "爬山" name things.
      concrete =
          (ZH_FILLER.matcher(Lexicon.GENERIC_ZH.matcher(han).replaceAll("")).replaceAll("").length()
                  + 1)
              / 2;
      for (String w : Terms.keywords(s.replaceAll("\\p{IsHan}", " "))) {
        if (!Lexicon.FILLER.contains(w) && w.length() > 1) {
          content++;
          concrete++;
        }
      }
    } else {
      content = 0;
      concrete = 0;
      for (String w : Terms.keywords(s)) {
        if (w.length() > 1
            && !Lexicon.FILLER.contains(w)
            && !names.contains(w)
            && !w.chars().allMatch(Character::isDigit)) {
          content++;
          if (!Lexicon.GENERIC.contains(w)) {
            concrete++;
          }
        }
      }
    }
    int numbers = 0;
    Matcher n = NUMBER.matcher(s);
    while (n.find()) {
      numbers++;
    }
    int proper = 0;
    if (!zh) {
      Matcher p = PROPER.matcher(" " + s);
      Set<String> distinct = new HashSet<>();
      while (p.find()) {
        String w = p.group();
        if (!NOT_PROPER.contains(w)
            && !names.contains(w.toLowerCase(Locale.ROOT))
            && !DATE_WORDS.matcher(w).matches()) {
          distinct.add(w);
        }
      }
      // The first word is capitalised anyway; count it only when it is an acronym.
      String firstWord = s.split("[\\s,.!?]+", 2)[0];
      if (distinct.contains(firstWord) && !firstWord.equals(firstWord.toUpperCase(Locale.ROOT))) {
        distinct.remove(firstWord);
      }
      proper = Math.min(2, distinct.size());
    } else {
      Matcher latin = Pattern.compile("\\b[A-Za-z][\\w-]+\\b").matcher(s);
      while (latin.find() && proper < 2) {
        proper++;
      }
    }
    int dates = 0;
    Matcher d = DATE_WORDS.matcher(s);
    while (d.find()) {
      dates++;
    }
    dates = Math.min(dates, 2);
    int tokens = Lexicon.canonicalTokens(s).size();
    return new Specifics(
        content, Math.min(numbers, 2) + proper + (dates > 0 ? 1 : 0) + 2 * tokens, dates, concrete);
  }
}
