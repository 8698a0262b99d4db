package dev.memsidecar.provider.extractor;

import dev.memsidecar.api.GateScores;
import dev.memsidecar.api.MemoryCandidate;
import dev.memsidecar.api.MemoryCandidate.Owner;
import dev.memsidecar.api.MemoryKind;
import dev.memsidecar.api.Validity;
import dev.memsidecar.language.Languages;
import dev.memsidecar.language.Terms;
import dev.memsidecar.language.extraction.AnyLanguage;
import dev.memsidecar.language.extraction.Attachments;
import dev.memsidecar.language.extraction.Category;
import dev.memsidecar.language.extraction.CommandLines;
import dev.memsidecar.language.extraction.DatePhrases;
import dev.memsidecar.language.extraction.ExtractionLexicon;
import dev.memsidecar.language.extraction.ExtractionRules;
import dev.memsidecar.language.extraction.Specifics;
import dev.memsidecar.language.extraction.Statement;
import dev.memsidecar.language.extraction.Voice;
import dev.memsidecar.language.extraction.WorkspaceTokens;
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

/**
 * The candidates of one request to the {@code rules} extractor, being built: each rule's candidate
 * ({@link #explicit}, {@link #correction}, {@link #procedure}, {@link #workspaceFact}, {@link
 * #turn}) written to stand alone in its language and scored as {@link RulesExtractor} describes; a
 * candidate whose words repeat an earlier one's is dropped. Not thread-safe: one per request.
 */
final class Candidates {
  private final LocalDate day;
  private final boolean sessionDated;
  private final List<MemoryCandidate> out = new ArrayList<>();
  private final Set<String> seen = new HashSet<>();

  /** The sentence the last candidate (a workspace fact) came from, while it is the last. */
  private String lastFactRaw;

  /**
   * Candidates read on {@code day}.
   *
   * @param sessionDated whether the day is the conversation's own (a turn of a named person, and an
   *     event or plan of the user, then ends "(said on ...)"), not the day the run ends
   */
  Candidates(LocalDate day, boolean sessionDated) {
    this.day = day;
    this.sessionDated = sessionDated;
  }

  /** The day relative dates are read on. */
  LocalDate day() {
    return day;
  }

  /** The candidates built so far, in order. */
  List<MemoryCandidate> candidates() {
    return List.copyOf(out);
  }

  private void add(MemoryCandidate c) {
    String key = String.join(" ", Terms.of(c.content()));
    lastFactRaw = null;
    if (!key.isEmpty() && seen.add(key)) {
      out.add(c);
    }
  }

  /** Drops the last candidate when it is the workspace fact stated by {@code sentence}. */
  void dropLastFactIfFrom(String sentence) {
    if (sentence.equals(lastFactRaw) && !out.isEmpty()) {
      out.remove(out.size() - 1);
    }
  }

  /** An instruction to remember {@code rest}. */
  void explicit(Turn turn, String addressee, String rest, boolean named) {
    ExtractionRules language = Languages.of(rest).extraction();
    ExtractionLexicon lexicon = language.lexicon();
    List<String> commands = CommandLines.of(rest);
    boolean preference = lexicon.isPreference(rest);
    boolean identity = lexicon.isIdentity(rest);
    // "Remember: our deploy day is Tuesday" is the team's, as its correction will be; "Remember
    // that I prefer tea" is the user's.
    boolean first = lexicon.isAboutSpeaker(rest, named);
    Owner owner =
        named
                || first
                || preference
                || identity
                || !AnyLanguage.isTechnical(rest)
                    && commands.isEmpty()
                    && WorkspaceTokens.of(rest).isEmpty()
            ? Owner.USER
            : Owner.WORKSPACE;
    if (!commands.isEmpty()) {
      owner = Owner.WORKSPACE;
    }
    String text = rewrite(CommandLines.quote(rest, commands), turn, addressee, language);
    Specifics sp = Specifics.of(rest, lexicon, turn.speaker(), addressee);
    boolean shortTerm = AnyLanguage.isShortTerm(rest);
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
            9,
            7,
            9,
            9,
            granularity(sp.count() + 2 * commands.size(), sp.content()),
            shortTerm ? 3 : 9);
    add(
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

  /**
   * A correction stating {@code rest}, made whole with the subject of {@code context}, the sentence
   * before it ("it's Thursday" after "The deploy day is Tuesday.").
   */
  void correction(Turn turn, String addressee, String rest, String context, boolean named) {
    ExtractionRules language = Languages.of(rest).extraction();
    ExtractionLexicon lexicon = language.lexicon();
    String fact =
        context == null || context.isBlank() ? rest : lexicon.completeCorrection(rest, context);
    List<String> commands = CommandLines.of(fact);
    // "Our deploy day is now Thursday" corrects a team fact: the workspace's, like the original.
    boolean first = lexicon.isAboutSpeaker(fact, named);
    Owner owner =
        named || first || lexicon.isPreference(fact) || lexicon.isIdentity(fact)
            ? Owner.USER
            : Owner.WORKSPACE;
    String text = rewrite(CommandLines.quote(fact, commands), turn, addressee, language);
    Specifics sp = Specifics.of(fact, lexicon, turn.speaker(), addressee);
    if (sp.content() < 1 && commands.isEmpty()) {
      return;
    }
    GateScores scores =
        new GateScores(8, 8, 9, 9, granularity(sp.count() + 2 * commands.size(), sp.content()), 9);
    add(
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

  /**
   * A procedure or command line stated in {@code raw}, by a person or ({@code agent}) the agent.
   */
  void procedure(Turn turn, String addressee, String raw, List<String> commands, boolean agent) {
    ExtractionRules language = Languages.of(raw).extraction();
    String cleaned = withoutChatter(raw);
    String text = rewrite(CommandLines.quote(cleaned, commands), turn, addressee, language);
    Specifics sp = Specifics.of(cleaned, language.lexicon(), turn.speaker(), addressee);
    List<String> tags = commands.isEmpty() ? List.of("procedure") : List.of("procedure", "command");
    GateScores scores =
        new GateScores(
            8,
            agent ? 6 : 7,
            8,
            agent ? 7 : 8,
            granularity(sp.count() + 2 * commands.size(), sp.content()),
            9);
    String who = agent ? "the agent" : turn.speaker();
    add(
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

  /**
   * A workspace fact naming {@code tokens}, stated by the user or ({@code agent}) the agent; the
   * user's may be corrected by the next sentence ({@link #dropLastFactIfFrom}).
   */
  void workspaceFact(Turn turn, String raw, List<String> tokens, boolean agent) {
    int size = out.size();
    ExtractionRules language = Languages.of(raw).extraction();
    String cleaned = withoutChatter(raw);
    String text = rewrite(cleaned, turn, null, language);
    Specifics sp = Specifics.of(cleaned, language.lexicon(), turn.speaker(), null);
    boolean shortTerm = AnyLanguage.isShortTerm(cleaned);
    GateScores scores =
        new GateScores(
            8,
            agent ? 6 : 7,
            8,
            agent ? 7 : 8,
            granularity(sp.count() + 2 * tokens.size(), sp.content()),
            shortTerm ? 3 : 9);
    add(
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
    if (!agent) {
      lastFactRaw = out.size() > size ? raw : null;
    }
  }

  /** {@code raw} without its leading interjections, or {@code raw} when that leaves nothing. */
  private static String withoutChatter(String raw) {
    String cleaned = AnyLanguage.stripLeadingChatter(raw);
    return cleaned.isEmpty() ? raw : cleaned;
  }

  /** {@code text} with its dates resolved, in the third person, ended like a sentence. */
  private String rewrite(String text, Turn turn, String addressee, ExtractionRules language) {
    Voice voice = language.voice();
    String dated = DatePhrases.annotate(text, day);
    // Who "we" is: for the user of an agent run, their team; for anyone else, they and others.
    String group = turn.role() == Role.USER ? voice.team() : null;
    return voice.terminate(voice.thirdPerson(dated, turn.speaker(), addressee, group));
  }

  /**
   * The candidate of a person's turn: its kept statements joined (or one of them, for the user of
   * an agent run), its images, and the dates of its dropped sentences.
   */
  void turn(
      Turn turn,
      List<Statement> kept,
      List<String> attachments,
      List<String> droppedDates,
      int sentenceCount) {
    ExtractionRules language = Languages.of(turn.text()).extraction();
    Voice voice = language.voice();
    boolean named = turn.named();
    Category top = Category.STATEMENT;
    Set<Category> categories = EnumSet.noneOf(Category.class);
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
      if (!text.isEmpty()) {
        text.append(voice.sentenceSeparator());
      }
      text.append(s.text());
      if (s.verdict()) {
        continue;
      }
      categories.add(s.category());
      if (s.category().compareTo(top) > 0) {
        top = s.category();
      }
      content += s.contentWords();
      concrete += s.concreteWords();
      maxConcrete = Math.max(maxConcrete, s.concreteWords());
      specifics += s.specifics();
      about |= s.aboutSpeaker();
      hedged &= s.hedged();
      shortTerm &= s.shortTerm();
      dated |= s.dated();
    }
    int attachmentWords = 0;
    int attachmentConcrete = 0;
    for (String a : attachments) {
      if (!text.isEmpty()) {
        text.append(voice.sentenceSeparator());
      }
      String caption = Attachments.caption(a);
      text.append(voice.sharedImage(turn.speaker(), caption));
      Specifics sp = Specifics.of(caption, language.lexicon(), turn.speaker(), null);
      attachmentWords += sp.content();
      attachmentConcrete += sp.concrete();
    }
    // "Here's my painting [image: a painting of a sunset]": the image shows the speaker's own
    // thing.
    boolean presents =
        !attachments.isEmpty() && AnyLanguage.presentsOwnThing(Attachments.remove(turn.text()));
    if (presents) {
      concrete += attachmentConcrete;
      maxConcrete = Math.max(maxConcrete, attachmentConcrete);
    }
    if (kept.isEmpty()) {
      // Only an image: what a person shows is mostly theirs, but a caption is not their word
      // unless the turn presents it as theirs.
      categories.add(Category.EVENT);
      top = Category.EVENT;
      content = attachmentWords;
      hedged = false;
      shortTerm = false;
      about = presents;
    }
    Owner owner = named || about ? Owner.USER : Owner.WORKSPACE;
    boolean episodic = categories.contains(Category.EVENT) || categories.contains(Category.PLAN);
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
    // An event of a dated session carries the session's date, however it was told: "I painted a
    // sunrise" on 8 May 2023 is "... (said on 8 May 2023)", never an undated event.
    if (sessionDated && (named || episodic)) {
      notes.add(voice.saidOn(day));
    }
    if (!notes.isEmpty()) {
      dated |= !droppedDates.isEmpty();
      text.append(voice.notes(notes));
    }
    boolean technical = owner == Owner.WORKSPACE && AnyLanguage.isTechnical(turn.text());
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
    boolean specific = specifics > (dated ? 1 : 0) || maxConcrete >= Specifics.SPECIFIC_WORDS;
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
      if (categories.contains(c)) {
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
            String.join(
                ", ", categories.stream().map(c -> c.name().toLowerCase(Locale.ROOT)).toList()));
    add(
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
        yield maxConcrete >= Specifics.SPECIFIC_WORDS + 1 || hasNames ? 7 : 6;
      }
      case PLAN ->
          dated
              ? 8
              : maxConcrete >= Specifics.SPECIFIC_WORDS || hasNames && maxConcrete >= 2 ? 7 : 6;
      case STATEMENT -> {
        if (about) {
          yield maxConcrete >= Specifics.SPECIFIC_WORDS || hasNames && maxConcrete >= 1 ? 7 : 5;
        }
        yield maxConcrete >= Specifics.SPECIFIC_WORDS + 1 || hasNames && maxConcrete >= 1
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
            + (maxConcrete >= Specifics.SPECIFIC_WORDS ? 1 : 0)
            + (concrete >= 8 ? 1 : 0));
  }

  private static float granularity(int specifics, int content) {
    int g = 4 + Math.min(specifics, 4) + (content >= 6 ? 1 : 0) + (content >= 12 ? 1 : 0);
    return Math.min(10, g);
  }
}
