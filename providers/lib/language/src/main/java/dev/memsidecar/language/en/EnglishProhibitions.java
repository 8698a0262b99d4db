package dev.memsidecar.language.en;

import dev.memsidecar.language.Scripts;
import dev.memsidecar.language.prohibition.ObjectScan;
import dev.memsidecar.language.prohibition.Prohibition;
import dev.memsidecar.language.prohibition.ProhibitionRules;
import dev.memsidecar.language.prohibition.Prohibitions;
import dev.memsidecar.language.tool.RuleObjects;
import dev.memsidecar.language.tool.ToolActions;
import dev.memsidecar.language.tool.ToolNouns.Kind;
import dev.memsidecar.language.tool.ToolNouns.Word;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * How a prohibition is said in English (the contract is {@link Prohibitions}'): a trigger ("never",
 * "don't"/"do not", "stop <i>verb</i>ing", "no more <i>noun</i>", "(you/we) must not/never",
 * "mustn't", "should not/never", "shouldn't", "may not", "(you are) not allowed to") at the start
 * of a clause, after nothing but linking words ("and", "also", "please", "but", "so", "from now
 * on", "in the future"); not after a subject ("I never said that", "Bob never emails me"), not in
 * an idiom ("never mind", "don't worry", "don't forget to ...", "don't hesitate") or with a verb
 * that names no act on a tool ("don't be late"). It runs to the end of its sentence, to the next
 * trigger, or to a clause no longer about it ("but ...", "because ...", ", I'll ..."). Its verb is
 * given in its base form ("emailing" gives "email": the known verb whose -ing spellings have the
 * word's stem, by the one {@link EnglishStemmer}). Read on every sentence, whatever its script.
 * Immutable and thread-safe.
 *
 * <p>One file of about 850 lines because it is one language's half of a single contract ({@link
 * ProhibitionRules}), as {@code ChineseProhibitions} is the other's: the English word lists
 * (triggers, idioms, verbs, objects, acts) mean nothing apart from the reader that walks a sentence
 * with them, and a third language adds one such file.
 */
final class EnglishProhibitions implements ProhibitionRules {
  private static final Set<String> INTRO =
      words(
          "and also but so please pls plz kindly plus oh ok okay alright now remember important "
              + "note seriously btw hey listen just then from on going forward in the future again "
              + "one more thing by way additionally finally lastly also, and, therefore hence rule "
              + "reminder ps p.s");

  /** Tags that make a statement look like a question: "Never email Sarah, ok?". */
  private static final List<String> TAG_QUESTIONS =
      List.of(
          ", ok?",
          ", okay?",
          ", alright?",
          ", got it?",
          ", understood?",
          ", right?",
          ", yeah?",
          ", ok？");

  private static final Set<String> CONJUNCTIONS = Set.of("and", "but", "so", "or", "then");
  private static final Set<String> TAGS =
      words("ok okay alright right yeah understood thanks please");
  private static final Set<String> SUBJECTS =
      words(
          "i i'm i'll i've i'd she he they we it she's he's they're we're it's that's there's "
              + "you're you'll");
  private static final Set<String> ENDERS =
      words("but because since although though whereas however otherwise cause 'cause cos");
  private static final Set<String> FILLERS =
      words("ever again please even just actually really you dare");
  private static final Set<String> STOP_VERBS =
      words(
          "be worry forget mind hesitate know think care understand get feel panic apologize"
              + " apologise fret stress sweat mean need want have like see look recall remember"
              + " matter hurry rush bother laugh cry judge lie do go give wait expect assume"
              + " believe doubt say blame count quit stop miss lose take make let ask repeat"
              + " explain");
  private static final Set<String> VERB_BASES =
      words(
          "send run use execute delete remove touch modify edit write create drop post share"
              + " forward contact upload download install uninstall update change move rename"
              + " publish approve close cancel access read truncate format tweet reboot restart"
              + " kill open merge force invoke type copy overwrite reset rotate expose leak reveal"
              + " disclose print log store save commit notify schedule book invite spend order sign"
              + " submit grant revoke disable enable shut message email text call deploy push pay"
              + " browse visit release purge erase wipe charge purchase transfer wire refund dial"
              + " phone ping mail navigate ship rebase query exec launch chat dm shred unlink trash"
              + " automate retry scrape crawl fetch curl ssh sudo rollout redeploy cc bcc reply"
              + " respond answer");
  private static final Set<String> BLANKET_VERBS =
      words(
          "use run execute exec touch access open call invoke launch send post contact visit "
              + "browse connect go do");
  private static final Set<String> QUANTIFIERS =
      words(
          "all any anything anymore ever again whatsoever more single one ones either stuff things"
              + " thing else every such kind kinds sort type types new yourself ok okay just it"
              + " them those these");
  private static final Set<String> CONTACT_VERBS =
      words(
          "contact tell reply respond answer share invite cc bcc forward pay call meet notify ping "
              + "dm message text email mail send wire transfer phone dial book schedule refund "
              + "charge add mention tag follow introduce talk write");
  private static final Set<String> NAME_PREPS =
      Set.of("to", "with", "from", "for", "at", "about", "by", "of", "cc");
  private static final Set<String> RUN_VERBS = words("run execute exec use type invoke launch");
  private static final Set<String> CMD_STOP =
      words(
          "on in at against to for from with without unless when while because again anymore "
              + "ever or and but please if before after until inside into onto anywhere here there "
              + "yourself as under outside during except even");
  private static final Set<String> PRE_CONDITIONS =
      words("if unless when whenever while until before after once");
  private static final Set<String> CONDITIONS =
      words(
          "if unless until without before after when whenever while during except outside today"
              + " tonight tomorrow yet currently temporarily night nights morning mornings evening"
              + " evenings weekend weekends holiday holidays weekday weekdays monday tuesday"
              + " wednesday thursday friday saturday sunday mondays tuesdays wednesdays thursdays"
              + " fridays saturdays sundays than exceeding unapproved unreviewed");
  private static final Set<String> UNNAMED =
      words(
          "me us him her them my our his their your someone somebody people customers customer "
              + "clients client colleagues colleague team boss manager family wife husband mom dad "
              + "friends friend coworkers coworker users user");
  private static final Set<String> TARGET_STOP =
      words("the a an any it them this that my our your me");
  private static final Set<String> NOT_NAMES =
      words(
          "i i'm i'll i've i'd me my mine you your yours he she it we they him her his hers its our"
              + " us them their the a an this that these those any anyone anybody anything everyone"
              + " everybody everything someone somebody something nobody nothing no not never don't"
              + " do please and or but also to from at in on of for with about by as if unless when"
              + " ever again okay ok yes hi hello hey dear thanks mr mrs ms miss dr prof sir madam"
              + " monday tuesday wednesday thursday friday saturday sunday mondays tuesdays"
              + " wednesdays thursdays fridays saturdays sundays january february march april may"
              + " june july august september october november december today tomorrow tonight"
              + " production prod staging dev api ai llm gpt chatgpt openai google chrome firefox"
              + " safari slack gmail outlook github gitlab whatsapp telegram discord teams zoom aws"
              + " azure gcp stripe paypal venmo jira confluence notion linux windows mac macos ios"
              + " android docker kubernetes postgres postgresql mysql sqlite redis mongodb"
              + " terraform english chinese internet web email e-mail sms sql bash shell terminal"
              + " python java javascript node friday's ceo cto hr it's that's under circumstances");
  private static final String LEAD = "\"'“‘([{<*_";
  private static final String TRAIL = ".,;:!?)]}\"'”’>*_…。，；：！？、";

  /**
   * Every known verb under the stems of its -ing spellings ("emailing", "emailling"; "using";
   * "running"; "dming"), so that the one stemmer finds a verb's base form.
   */
  private static final Map<String, String> VERBS_BY_ING_STEM = verbsByIngStem();

  /** The words of a space-separated list, as a set. */
  private static Set<String> words(String list) {
    return Set.of(list.split(" "));
  }

  private static Map<String, String> verbsByIngStem() {
    Map<String, String> out = new HashMap<>();
    Stream.of(
            VERB_BASES.stream(),
            EnglishToolWords.VERBS.keySet().stream(),
            STOP_VERBS.stream(),
            BLANKET_VERBS.stream(),
            CONTACT_VERBS.stream(),
            RUN_VERBS.stream())
        .flatMap(s -> s)
        .sorted()
        .forEach(
            verb -> {
              for (String ing : ingSpellings(verb)) {
                out.putIfAbsent(EnglishStemmer.looseStem(ing), verb);
              }
            });
    return Map.copyOf(out);
  }

  /** "email": emailing, emailling; "use": useing, using. */
  private static List<String> ingSpellings(String verb) {
    char last = verb.charAt(verb.length() - 1);
    if (last == 'e' && !verb.endsWith("ee")) {
      return List.of(verb + "ing", verb.substring(0, verb.length() - 1) + "ing");
    }
    if ("aeiouwxy".indexOf(last) < 0) {
      return List.of(verb + "ing", verb + last + "ing");
    }
    return List.of(verb + "ing");
  }

  /**
   * The base form of an -ing word: "emailing" gives "email", "running" "run", "using" "use",
   * "deleting" "delete" (the known verb with the word's stem); an unknown verb loses its "-ing"
   * ("frobbing": "frobb"). Any other word comes back unchanged.
   */
  static String baseForm(String ing) {
    if (!ing.endsWith("ing") || ing.length() <= 4) {
      return ing;
    }
    String known = VERBS_BY_ING_STEM.get(EnglishStemmer.looseStem(ing));
    return known != null ? known : ing.substring(0, ing.length() - 3);
  }

  @Override
  public boolean reads(String sentence) {
    return true;
  }

  @Override
  public String fullStop() {
    return ".";
  }

  @Override
  public List<String> tagQuestions() {
    return TAG_QUESTIONS;
  }

  @Override
  public String questionParticles() {
    return "";
  }

  @Override
  public boolean isRunVerb(String word) {
    return RUN_VERBS.contains(word);
  }

  @Override
  public boolean excludesName(String word) {
    return NOT_NAMES.contains(word)
        || EnglishToolWords.VERBS.containsKey(word)
        || EnglishToolWords.NOUNS.containsKey(word)
        || VERB_BASES.contains(word);
  }

  @Override
  public boolean precedesName(String word) {
    return NAME_PREPS.contains(word);
  }

  @Override
  public boolean excludesTarget(String word) {
    return TARGET_STOP.contains(word) || CONDITIONS.contains(word) || CMD_STOP.contains(word);
  }

  @Override
  public boolean isCondition(String word) {
    return CONDITIONS.contains(word);
  }

  /** A word of a sentence: its core without surrounding punctuation, and what follows it. */
  private static final class Tok {
    final int start;
    final int end;
    final String core;
    final String lower;
    final boolean code;
    boolean clauseEnd;
    boolean hardEnd;

    Tok(int start, int end, String core, boolean code) {
      this.start = start;
      this.end = end;
      this.core = core;
      this.lower = core.toLowerCase(Locale.ROOT).replace('’', '\'');
      this.code = code;
    }
  }

  private static List<Tok> tokens(String s) {
    List<Tok> toks = new ArrayList<>();
    int n = s.length();
    int i = 0;
    while (i < n) {
      char c = s.charAt(i);
      if (Character.isWhitespace(c)) {
        i++;
        continue;
      }
      if (c == '`') {
        int close = s.indexOf('`', i + 1);
        if (close > i) {
          int j = close + 1;
          while (j < n && !Character.isWhitespace(s.charAt(j))) {
            j++;
          }
          Tok t = new Tok(i, close + 1, s.substring(i + 1, close), true);
          mark(t, s.substring(close + 1, j));
          toks.add(t);
          i = j;
          continue;
        }
      }
      int j = i + 1; // at least one character, also an unclosed backtick
      while (j < n && !Character.isWhitespace(s.charAt(j)) && s.charAt(j) != '`') {
        j++;
      }
      int a = i;
      int b = j;
      while (a < b && LEAD.indexOf(s.charAt(a)) >= 0) {
        a++;
      }
      while (b > a && TRAIL.indexOf(s.charAt(b - 1)) >= 0) {
        b--;
      }
      String trail = s.substring(b, j);
      if (a == b) {
        String chunk = s.substring(i, j);
        if (!toks.isEmpty() && chunk.chars().anyMatch(ch -> ",;:—–-".indexOf(ch) >= 0)) {
          mark(toks.get(toks.size() - 1), chunk);
          toks.get(toks.size() - 1).clauseEnd = true;
        }
      } else {
        Tok t = new Tok(a, b, s.substring(a, b), false);
        mark(t, trail);
        toks.add(t);
      }
      i = j;
    }
    return toks;
  }

  private static void mark(Tok t, String trail) {
    for (int k = 0; k < trail.length(); k++) {
      char c = trail.charAt(k);
      if (",;:，；：、".indexOf(c) >= 0) {
        t.clauseEnd = true;
      }
      if (c == ';' || c == '；') {
        t.hardEnd = true;
      }
    }
  }

  /**
   * A trigger: its first token, the token of the verb, and whether it is "stop ...ing"/"no more".
   */
  private record Trigger(int start, int verb, int introStart, String kind) {}

  @Override
  public List<Prohibition> find(String s, Prohibitions finder) {
    List<Tok> toks = tokens(s);
    int n = toks.size();
    List<Trigger> triggers = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Trigger t = trigger(toks, i);
      if (t != null) {
        int intro = introStart(toks, t.start());
        if (intro >= 0) {
          triggers.add(new Trigger(t.start(), t.verb(), intro, t.kind()));
        }
      }
    }
    List<Prohibition> out = new ArrayList<>();
    for (int k = 0; k < triggers.size(); k++) {
      Trigger t = triggers.get(k);
      int limit = k + 1 < triggers.size() ? triggers.get(k + 1).introStart() : n;
      Prohibition p = find(s, toks, t, limit, finder);
      if (p != null) {
        out.add(p);
      }
    }
    return out;
  }

  private static String lower(List<Tok> toks, int i) {
    return i >= 0 && i < toks.size() ? toks.get(i).lower : "";
  }

  private static Trigger trigger(List<Tok> toks, int i) {
    Tok tok = toks.get(i);
    if (tok.code) {
      return null;
    }
    String w = tok.lower;
    String next = lower(toks, i + 1);
    String prev = lower(toks, i - 1);
    boolean subject = prev.equals("you") || prev.equals("we");
    switch (w) {
      case "never":
        return next.equals("mind") ? null : new Trigger(i, i + 1, i, "never");
      case "don't", "dont":
        return new Trigger(i, i + 1, i, "dont");
      case "do":
        return next.equals("not") ? new Trigger(i, i + 2, i, "dont") : null;
      case "stop":
        return next.endsWith("ing") && next.length() > 4 && !toks.get(i + 1).code
            ? new Trigger(i, i + 1, i, "stop")
            : null;
      case "no":
        return next.equals("more") ? new Trigger(i, i + 2, i, "nomore") : null;
      case "must", "should", "may":
        return next.equals("not") || next.equals("never")
            ? new Trigger(subject ? i - 1 : i, i + 2, i, "must")
            : null;
      case "mustn't", "shouldn't":
        return new Trigger(subject ? i - 1 : i, i + 1, i, "must");
      case "not":
        if (next.equals("allowed") && lower(toks, i + 2).equals("to")) {
          int start = i;
          if (prev.equals("are") || prev.equals("you're") || prev.equals("we're")) {
            start = i - 1;
            String before = lower(toks, i - 2);
            if (prev.equals("are") && (before.equals("you") || before.equals("we"))) {
              start = i - 2;
            }
          }
          return new Trigger(start, i + 3, i, "must");
        }
        return null;
      default:
        return null;
    }
  }

  /** Where the clause of a trigger at {@code start} begins (linking words included), or -1. */
  private static int introStart(List<Tok> toks, int start) {
    int j = start - 1;
    while (j >= 0) {
      Tok t = toks.get(j);
      if (t.clauseEnd) {
        return j + 1;
      }
      if (CONJUNCTIONS.contains(t.lower)) {
        return j;
      }
      if (!(INTRO.contains(t.lower) || t.lower.chars().allMatch(Character::isDigit))) {
        return -1;
      }
      j--;
    }
    return 0;
  }

  private static Prohibition find(
      String s, List<Tok> toks, Trigger t, int limit, Prohibitions finder) {
    int n = toks.size();
    int v = t.verb();
    boolean skipped = true;
    while (skipped && v < limit) {
      skipped = false;
      String w = lower(toks, v);
      if (FILLERS.contains(w) && !toks.get(v).code) {
        v++;
        skipped = true;
      } else if ((w.equals("try") || w.equals("attempt")) && lower(toks, v + 1).equals("to")) {
        v += 2;
        skipped = true;
      } else if (w.equals("under")
          && lower(toks, v + 1).equals("any")
          && lower(toks, v + 2).startsWith("circumstance")) {
        v += 3;
        skipped = true;
      } else if (w.equals("at") && lower(toks, v + 1).equals("all")) {
        v += 2;
        skipped = true;
      }
    }
    if (v >= limit || v >= n) {
      return null;
    }
    Tok verbTok = toks.get(v);
    String verb;
    String nounFromVerb = "";
    Kind verbKind = null;
    if (verbTok.code) {
      verb = "";
    } else if (t.kind().equals("stop")) {
      verb = baseForm(verbTok.lower);
    } else if (t.kind().equals("nomore")) {
      String w = verbTok.lower;
      String singular = w.endsWith("s") ? w.substring(0, w.length() - 1) : w;
      Word noun = EnglishToolWords.NOUNS.get(w);
      if (w.endsWith("ing") && w.length() > 4) {
        verb = baseForm(w);
      } else if (noun != null) {
        verb = singular;
        nounFromVerb = noun.noun();
        verbKind = Kind.STRONG_VERB;
      } else {
        return null;
      }
    } else {
      verb = verbTok.lower;
    }
    if (!verbTok.code) {
      if (!verb.chars().allMatch(c -> (c >= 'a' && c <= 'z') || c == '-' || c == '\'')) {
        return null;
      }
      if (STOP_VERBS.contains(verb)) {
        return null;
      }
      if (verb.endsWith("ed")
          && !VERB_BASES.contains(verb)
          && !EnglishToolWords.VERBS.containsKey(verb)) {
        return null;
      }
      Word w = EnglishToolWords.VERBS.get(verb);
      if (w != null && verbKind == null) {
        nounFromVerb = w.noun();
        verbKind = w.kind();
      }
    }
    // The end of the prohibition.
    int end = limit;
    for (int j = v + 1; j < limit; j++) {
      String w = toks.get(j).lower;
      if (toks.get(j - 1).hardEnd
          || ENDERS.contains(w)
          || ((w.equals("and") || w.equals("or") || w.equals("so"))
              && SUBJECTS.contains(lower(toks, j + 1)))
          || (toks.get(j - 1).clauseEnd && SUBJECTS.contains(w))) {
        end = j;
        break;
      }
    }
    // A tag question's tag (", ok?") is not part of it.
    while (end - 1 > v && TAGS.contains(toks.get(end - 1).lower) && toks.get(end - 2).clauseEnd) {
      end--;
    }
    // Condition or time?
    boolean conditional = false;
    int textStart = t.start();
    for (int j = 0; j < t.start(); j++) {
      if (PRE_CONDITIONS.contains(toks.get(j).lower)) {
        conditional = true;
        textStart = Math.min(textStart, j); // "If the build fails, don't deploy." keeps its "if"
      }
    }
    for (int j = v; j < end; j++) {
      String w = toks.get(j).lower;
      if (w.equals("now")) {
        conditional |= !lower(toks, j - 1).equals("from");
      } else if (CONDITIONS.contains(w) || isClockTime(w)) {
        conditional = true;
      } else if (Set.of("over", "above", "under", "below").contains(w)
          && lower(toks, j + 1).matches("[$€£¥]?[0-9].*")) {
        conditional = true;
      } else if (w.equals("for") && lower(toks, j + 1).equals("now")) {
        conditional = true;
      } else if (w.equals("this")
          && Set.of("week", "weekend", "time", "month", "morning", "afternoon", "evening")
              .contains(lower(toks, j + 1))) {
        conditional = true;
      }
    }
    // Noun words after the verb.
    String strongNoun = "";
    String weakNoun = "";
    boolean unnamed = false;
    for (int j = v + 1; j < end; j++) {
      Tok tok = toks.get(j);
      if (tok.code) {
        continue;
      }
      Word w = EnglishToolWords.NOUNS.get(tok.lower);
      if (w != null && w.kind() == Kind.STRONG_NOUN && strongNoun.isEmpty()) {
        strongNoun = w.noun();
      } else if (w != null && w.kind() == Kind.WEAK_NOUN && weakNoun.isEmpty()) {
        weakNoun = w.noun();
      }
      unnamed |= UNNAMED.contains(tok.lower);
    }
    int from = verbTok.start;
    int to = toks.get(end - 1).end;
    ObjectScan objects = finder.objects(s, from, to);
    objects.code();
    commands(objects, toks, v, end);
    objects.scan();
    Acts acts = acts(objects, toks, v, end);
    String implied = objects.impliedNoun();
    if (implied.isEmpty() && !acts.keys().isEmpty()) {
      implied = ToolActions.of(acts.keys().get(0)).orElseThrow().noun();
    }
    String noun =
        objects.ranCommand()
            ? "shell"
            : Prohibitions.chooseNoun(nounFromVerb, verbKind, strongNoun, weakNoun, implied);
    objects.names(
        verbTok.code ? from : verbTok.end,
        Prohibitions.CONTACT_NOUNS.contains(noun)
            || CONTACT_VERBS.contains(verb)
            || acts.keys().contains("send-email"));
    if (noun.equals("git") || noun.equals("deploy")) {
      targets(objects, toks, v, end);
    }
    if (Prohibitions.CONTACT_NOUNS.contains(noun) && verbKind == Kind.STRONG_VERB) {
      lowerCaseRecipient(objects, toks, v, end);
    }
    List<String> named = objects.list();
    for (String key : acts.keys()) {
      // "Don't use the shell to delete files": the act narrows the tool; "never delete files" on a
      // tool that only deletes does not.
      if (!Prohibitions.actIsTheTool(key, noun)) {
        objects.addAction(key, 0, 0);
      }
    }
    List<String> found = objects.list();
    if (noun.isEmpty() && found.isEmpty()) {
      return null;
    }
    String sentence = finder.asRule(s.substring(toks.get(textStart).start, to));
    boolean qualified = false;
    if (!acts.keys().isEmpty() && named.isEmpty()) {
      // The act is what is forbidden: any other word ("old files", "the production database")
      // narrows it in words no object holds.
      qualified = acts.narrowed();
      for (int j = v; j < end && !qualified; j++) {
        qualified = !acts.tokens().contains(j) && narrows(toks.get(j), noun, j == v);
      }
    } else if (found.isEmpty()) {
      qualified =
          !verbTok.code
              && verbKind != Kind.STRONG_VERB
              && !BLANKET_VERBS.contains(verb)
              && !noun.equals(nounFromVerb);
      for (int j = v + 1; j < end && !qualified; j++) {
        qualified = narrows(toks.get(j), noun, false) || purpose(toks, j, v);
      }
    }
    return new Prohibition(
        sentence,
        verb,
        noun,
        found,
        Prohibitions.enforceable(conditional, qualified, noun, found, unnamed));
  }

  /**
   * Whether a word of a prohibition narrows what it forbids in words no object holds: a word of
   * letters that is no tool word, function word, quantifier or (outside contact) unnamed person.
   * The verb itself ({@code verb}) narrows only when it is neither a tool word nor a blanket verb.
   */
  private static boolean narrows(Tok tok, String noun, boolean verb) {
    String w = tok.lower;
    if (verb) {
      return !tok.code
          && !BLANKET_VERBS.contains(w)
          && !EnglishToolWords.VERBS.containsKey(w)
          && !EnglishActions.VERBS.containsKey(baseForm(w))
          && !FILLERS.contains(w);
    }
    return !tok.code
        && w.chars().allMatch(Character::isLetter)
        && !EnglishToolWords.NOUNS.containsKey(w)
        && !EnglishToolWords.VERBS.containsKey(w)
        && !NOT_NAMES.contains(w)
        && !TARGET_STOP.contains(w)
        && !CMD_STOP.contains(w)
        && !QUANTIFIERS.contains(w)
        && !EnglishActions.PURPOSE.contains(w)
        && !(UNNAMED.contains(w) && !Prohibitions.CONTACT_NOUNS.contains(noun));
  }

  /**
   * Whether token {@code j} starts a purpose no act of {@link EnglishActions} holds: "use the
   * browser <b>to buy</b> anything", "use the shell <b>for running</b> tests".
   */
  private static boolean purpose(List<Tok> toks, int j, int v) {
    if (j - 1 <= v || toks.get(j).code) {
      return false;
    }
    String before = toks.get(j - 1).lower;
    if (!before.equals("to") && !before.equals("for")) {
      return false;
    }
    String w = baseForm(toks.get(j).lower);
    return VERB_BASES.contains(w)
        || EnglishToolWords.VERBS.containsKey(w)
        || STOP_VERBS.contains(w)
        || BLANKET_VERBS.contains(w);
  }

  /**
   * The acts of a prohibition ({@link EnglishActions}): its verb's, and any verb's after a word of
   * purpose ("use the shell <b>to</b> delete files", "... <b>or</b> drop tables").
   *
   * @param keys the acts, in order, each once
   * @param tokens the tokens that say them
   * @param narrowed whether a word between a verb and its object narrows it ("delete <b>old</b>
   *     files", "delete the <b>production</b> database")
   */
  private record Acts(List<String> keys, Set<Integer> tokens, boolean narrowed) {}

  private static Acts acts(ObjectScan objects, List<Tok> toks, int v, int end) {
    List<String> keys = new ArrayList<>();
    Set<Integer> used = new HashSet<>();
    boolean narrowed = false;
    for (int j = v; j < end; j++) {
      Tok tok = toks.get(j);
      if (tok.code || !objects.free(tok.start, tok.end)) {
        continue;
      }
      if (j > v && !EnglishActions.PURPOSE.contains(toks.get(j - 1).lower)) {
        continue;
      }
      String two = tok.lower + " " + baseForm(lower(toks, j + 1));
      String phrasal = j + 1 < end ? EnglishActions.PHRASAL.get(two) : null;
      if (phrasal == null) {
        phrasal = EnglishActions.PHRASAL.get(tok.lower);
      }
      if (phrasal != null) {
        addOnce(keys, phrasal);
        used.add(j);
        if (!EnglishActions.PHRASAL.containsKey(tok.lower)) {
          used.add(j + 1);
          j++;
        }
        continue;
      }
      EnglishActions.VerbActs verb = EnglishActions.VERBS.get(baseForm(tok.lower));
      if (verb == null) {
        continue;
      }
      String act = "";
      List<Integer> between = new ArrayList<>();
      int k = j + 1;
      for (; k < end && k <= j + 4; k++) {
        Tok t = toks.get(k);
        if (t.code || !objects.free(t.start, t.end)) {
          break;
        }
        String object = verb.byObject().get(t.lower);
        if (object != null) {
          act = object;
          break;
        }
        if (CMD_STOP.contains(t.lower)
            || EnglishActions.PURPOSE.contains(t.lower)
            || EnglishActions.VERBS.containsKey(baseForm(t.lower))
            || !t.lower.chars().allMatch(c -> Character.isLetter(c) || c == '-')
            || toks.get(k - 1).clauseEnd) {
          break;
        }
        between.add(k);
      }
      if (!act.isEmpty()) {
        used.add(j);
        used.addAll(between);
        used.add(k);
        for (int b : between) {
          narrowed |=
              !EnglishActions.DETERMINERS.contains(toks.get(b).lower)
                  && !QUANTIFIERS.contains(toks.get(b).lower);
        }
        addOnce(keys, act);
        j = k;
      } else if (!verb.alone().isEmpty()) {
        used.add(j);
        addOnce(keys, verb.alone());
      }
    }
    return new Acts(List.copyOf(keys), Set.copyOf(used), narrowed);
  }

  private static void addOnce(List<String> keys, String key) {
    if (!keys.contains(key)) {
      keys.add(key);
    }
  }

  private static boolean isClockTime(String w) {
    int i = 0;
    while (i < w.length() && (Character.isDigit(w.charAt(i)) || w.charAt(i) == ':')) {
      i++;
    }
    return i > 0 && (w.endsWith("am") || w.endsWith("pm")) && i == w.length() - 2;
  }

  /**
   * "never email sarah": a lower-case word right after a verb of contact is taken as the
   * recipient's name when no capitalised name was found (so the rule binds her, not every mail).
   */
  private static void lowerCaseRecipient(ObjectScan objects, List<Tok> toks, int v, int end) {
    if (objects.hasName()) {
      return;
    }
    int k = v + 1;
    if (lower(toks, k).equals("to")) {
      k++;
    }
    if (k >= end) {
      return;
    }
    Tok t = toks.get(k);
    String w = t.lower.endsWith("'s") ? t.lower.substring(0, t.lower.length() - 2) : t.lower;
    if (!t.code
        && w.length() >= 2
        && w.chars().allMatch(Character::isLetter)
        && objects.free(t.start, t.end)
        && !NOT_NAMES.contains(w)
        && !UNNAMED.contains(w)
        && !CONDITIONS.contains(w)
        && !CMD_STOP.contains(w)
        && !TARGET_STOP.contains(w)
        && !EnglishToolWords.VERBS.containsKey(w)
        && !EnglishToolWords.NOUNS.containsKey(w)
        && !VERB_BASES.contains(w)) {
      objects.addName(w, t.start, t.end);
    }
  }

  /** A command after run/execute/use: a known program, or a word with flags. */
  private static void commands(ObjectScan objects, List<Tok> toks, int v, int end) {
    for (int j = v; j < end; j++) {
      Tok tok = toks.get(j);
      int start;
      if (!tok.code && RUN_VERBS.contains(tok.lower) && j + 1 < end) {
        start = j + 1;
      } else if (j == v
          && RuleObjects.PROGRAMS.contains(tok.lower)
          && j + 1 < end
          && !TARGET_STOP.contains(lower(toks, j + 1))
          && !CMD_STOP.contains(lower(toks, j + 1))) {
        start = j;
      } else {
        continue;
      }
      Tok first = toks.get(start);
      if (first.code || !objects.free(first.start, first.end)) {
        continue;
      }
      boolean program =
          RuleObjects.PROGRAMS.contains(first.lower)
              || (first.lower.matches("[a-z][a-z0-9_.-]*")
                  && lower(toks, start + 1).startsWith("-")
                  && !EnglishToolWords.NOUNS.containsKey(first.lower));
      if (!program) {
        continue;
      }
      List<String> words = new ArrayList<>();
      int k = start;
      while (k < end && words.size() < 8) {
        Tok w = toks.get(k);
        if (w.code || (k > start && CMD_STOP.contains(w.lower)) || Scripts.hasHan(w.core)) {
          break;
        }
        words.add(w.lower);
        k++;
        if (w.clauseEnd) {
          break;
        }
      }
      objects.addCommand(String.join(" ", words), first.start, toks.get(k - 1).end);
      j = k - 1;
    }
  }

  /** The branch or environment of a push or deploy: "to main", "into prod", "on staging". */
  private static void targets(ObjectScan objects, List<Tok> toks, int v, int end) {
    for (int j = v + 1; j + 1 < end; j++) {
      String w = toks.get(j).lower;
      if (!(w.equals("to") || w.equals("into") || w.equals("onto") || w.equals("on"))) {
        continue;
      }
      int k = j + 1;
      if (lower(toks, k).equals("the") && k + 1 < end) {
        k++;
      }
      Tok target = toks.get(k);
      objects.addTarget(target.lower, target.start, target.end);
    }
  }
}
