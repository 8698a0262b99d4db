package dev.memsidecar.language.en;

import dev.memsidecar.language.Terms;
import dev.memsidecar.language.extraction.AnyLanguage;
import dev.memsidecar.language.extraction.Specifics;
import dev.memsidecar.language.extraction.Statement;
import dev.memsidecar.language.extraction.StatementReader;
import dev.memsidecar.language.extraction.Utterance;
import dev.memsidecar.language.extraction.WordSets;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads one English sentence of a person's turn into a statement. Dropped as small talk: closers
 * ("Talk soon", "Glad to hear"), reactions that name nothing ("That's great!"), advice and verdicts
 * between people that name nothing ("Keep it up", "The kids look so cute"), questions that ask,
 * sentences with too few content words, and any of these with a name said to the listener ("Thanks,
 * Caroline!", "Morning, Mel!", "Sure thing, Mel!": the name is no specific). Kept however it is
 * phrased: what a question states, a verdict on what the speaker has just told ("It was a really
 * peaceful experience"), advice or a verdict beside three concrete words ("You can use coconut oil
 * instead of butter"), a sentence whose subject (the speaker) was left out ("Gonna continue my
 * edu", "Researching adoption agencies"). Stateless and thread-safe.
 */
final class EnglishStatements implements StatementReader {
  private final EnglishExtractionLexicon lexicon = new EnglishExtractionLexicon();
  private final EnglishQuestions questions = new EnglishQuestions();
  private final EnglishVoice voice = new EnglishVoice();

  /**
   * Closers and replies that tell nothing: "Talk soon", "Glad to hear", "Sounds fun", "Well see you
   * later", "I'll see you soon" (not "I'll see you at the conference in Paris"), "Haven't seen you
   * since we last talked", "Can't wait!", "I'll keep you posted", "Bet it feels great", "Must've
   * taken you ages".
   */
  private static final Pattern CLOSER =
      Pattern.compile(
          "(?i)^(?:(?:well|ok|okay|alright|all right|so|anyway|anyways)\\s+)?(?:talk (?:to you"
              + " )?(?:soon|later)|ttyl|later\\b|see (?:you|ya)|(?:i'll|i will|we'll|we will) see"
              + " (?:you|ya)(?: (?:soon|later|then|tomorrow|around|next time))?\\W*$|haven't"
              + " (?:seen|talked to|heard from|chatted with) you (?:in (?:a while|ages|forever|so"
              + " long|a long time)|for (?:a while|ages|so long)|since (?:we|our|the last"
              + " time)[^,;]*)\\W*$|bye|goodbye|take care|catch (?:you|ya)|have a"
              + " (?:good|great|nice|wonderful|lovely|fun)|good night|goodnight|good luck|best of"
              + " luck|enjoy|hope you|hope all|hope it|hope that|i hope you|i hope it|i hope"
              + " that|hope your|glad to hear|glad you|glad it|i'm glad|i am glad|so glad|good to"
              + " (?:see|hear|know)|great to (?:see|hear|know)|nice to (?:see|hear|know)|(?:i"
              + " )?can't wait(?: (?:too|either|for it|for that))?\\W*$|(?:i )?can't wait to"
              + " (?:hear|see|catch up|chat|talk)|(?:i'll|i will|will) keep (?:you|ya|u)"
              + " (?:posted|updated|in the loop)|(?:i )?bet (?:it|that|you)|must(?:'ve| have)"
              + " (?:been|taken|felt)|let me know|keep (?:it up|up the|going|me posted|at"
              + " it|pushing|rocking|shining|doing)|you (?:got|can do) this|you've got this|no"
              + " worries|no problem|you're welcome|my pleasure|likewise|same here|me too|me"
              + " neither|thanks|thank you|thx|cheers|congrats|congratulations|way to go|well"
              + " done|good job|great job|nice job|sounds"
              + " (?:good|great|fun|awesome|amazing|like|lovely|wonderful|cool|interesting|exciting)|looks"
              + " (?:good|great|fun|awesome|amazing|like|lovely|wonderful|cool|beautiful)|that"
              + " (?:sounds|looks|seems|must|must've|would|'d)|i'm (?:so )?happy for|i'm (?:so"
              + " )?proud of you|i'm here for you|i'm sorry to hear|sorry to hear|i bet|i agree|i"
              + " totally agree|i completely agree|i couldn't agree|you're right|you are"
              + " right|you're so right|agreed|absolutely|exactly|totally|for sure|of course|love"
              + " (?:it|that|this)\\W*$|i love (?:it|that|this)\\W*$|i (?:can|could) imagine|i"
              + " understand|i hear you|i feel you|i get (?:it|that|you))");

  /** Reactions: dropped unless they speak of the speaker or hold a specific. */
  private static final Pattern REACTION =
      Pattern.compile(
          "(?i)^(?:that's|that is|that was|that'd|that would|what a|how"
              + " (?:cool|nice|great|awesome|amazing|wonderful|lovely|sweet|fun|exciting|special|inspiring)|so"
              + " (?:cool|nice|great|awesome|amazing|sweet|fun|inspiring)|such a|it's"
              + " (?:so|really|great|awesome|amazing|cool|nice|good|important|key|true|all"
              + " about|crucial|vital|essential|okay|ok|fine|hard|tough)|it is"
              + " (?:so|really|great|important|key|true)|this is"
              + " (?:so|really|great|awesome|amazing)|wow|awesome|amazing|cool|nice|great|you|your|you're|you've|you'd|you'll|u"
              + " |ur )");

  /** Advice and exhortation between people: "Let's ...", "Don't give up", "Keep it up". */
  private static final Pattern EXHORTATION =
      Pattern.compile(
          "(?i)^(?:let's|let us|lets|never give up|keep (?:going|it up|pushing|at"
              + " it|up|on|rocking|shining|trying|believing|doing|chasing|working|fighting|me"
              + " posted)|hang in|believe in|don't (?:give"
              + " up|worry|let|stop|forget|be|hesitate|lose)|do not (?:give up|worry|let|stop)|stay"
              + " (?:positive|strong|focused|motivated|safe|tuned|hopeful|true)|remember"
              + " (?:that|to|,)|take (?:a look|care|it easy)|check (?:it|this|that|them|'em)"
              + " out|trust (?:me|yourself|the process)|try (?:it|this|to)|go for it|make sure|you"
              + " should|you can|you will|you'll|you deserve|you got|you've got|here's to|good for"
              + " you|imagine|think about|be (?:proud|kind|yourself|sure|careful|brave))\\b");

  /** A verdict on something: "X is so awesome", "They look cute", "Music's amazing". */
  private static final Pattern EVALUATION =
      Pattern.compile(
          "(?i)(?:\\b(?:is|are|was|were|looks?|looked|sounds?|sounded|seems?|seemed|must be|must"
              + " have been)|\\w['’]s)\\s+"
              + "(?:(?:so|really|super|totally|just|very|pretty|truly|such|incredibly|absolutely|amazingly"
              + "|simply|quite|always)\\s+)*(?:a\\s+|an\\s+)?(?:(?:great|good|real|total)\\s+)?(?:awesome|amazing|great|cool|cute|nice|lovely|beautiful"
              + "|wonderful|incredible|fantastic|sweet|adorable|gorgeous|impressive|inspiring|key|important"
              + "|vital|essential|crucial|special|powerful|fun|fulfilling|rewarding|exciting|brave|strong"
              + "|awesome|stunning|breathtaking|peaceful|relaxing|hilarious|funny|inspirational|magical"
              + "|perfect|tough|hard|rough|scary|challenging|unreal|blast|dream|must|priceless|huge)\\b");

  /** A sentence that begins with its verb, its subject (the speaker) left out. */
  private static final Pattern ELIDED_SUBJECT =
      Pattern.compile(
          "(?i)^(?:gonna|going to|just (?:got|had|finished|started|did|made|bought|went|came|found|"
              + "signed|joined|moved|booked|adopted|painted|ran|took|watched|read|tried|saw|visited|"
              + "learned|picked|won|hit|wrapped|launched|received|completed|graduated|wrote|met|"
              + "celebrated|returned|started)|been|got|had|went|made|took|started|finished|bought|"
              + "found|spent|tried|learned|visited|joined|signed|picked|met|ran|did|love|loved|thinking|working|planning|trying|hoping|looking|heading|off"
              + " to|can't wait|cant wait|wanna|gotta|need"
              + " to|needed|feeling|felt|doing|taking|getting|saw|watched|read|"
              + "finally|recently|currently|still)\\b");

  private static final Pattern ADDRESSES_LISTENER =
      Pattern.compile("(?i)^(?:you|your|yours|you're|you've|you'd|you'll|u|ur)\\b");
  private static final Pattern CLAUSE = Pattern.compile("\\s+[-–—]+\\s+|[;,:]\\s+");
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
  private static final Pattern NEW_SUBJECT =
      Pattern.compile(
          "(?:[,;:—–]|\\s-|\\b(?i:and|but|so|because))\\s*(?i:it|that|this|he|she|they|we|i|you"
              + "|there)\\b");
  private static final Pattern VOCATIVE = Pattern.compile("^(\\p{Lu}\\p{Ll}{1,20})\\s*[,!]\\s+");
  private static final Pattern ANY_VOCATIVE =
      Pattern.compile("^(\\p{Lu}\\p{Ll}{1,20})(?:\\s+\\p{Lu}\\p{Ll}{1,20})?\\s*(?:[,!]+\\s*|$)");

  /** Capitalised words that open a sentence before a comma and are no names. */
  private static final Set<String> NOT_NAMES =
      WordSets.of(
          """
          overall anyway anyways besides also still however meanwhile otherwise plus yes yeah no
          well so now then today tonight tomorrow yesterday sometimes lately recently currently
          though although luckily unfortunately thankfully sadly hopefully seriously okay alright
          right sure wait look listen oh wow hey hi hello thanks please sorry again first second
          next last finally later earlier afterwards instead actually basically literally
          """);

  private static final Pattern ANY_TRAILING_VOCATIVE =
      Pattern.compile(",\\s*\\p{Lu}\\p{Ll}{1,20}(?:\\s+\\p{Lu}\\p{Ll}{1,20})?\\s*[.!?~]*$");
  private static final Pattern TRAILING_VOCATIVE =
      Pattern.compile(",\\s*(\\p{Lu}\\p{Ll}{1,20})\\s*([.!?]*)$");

  @Override
  public Statement read(String sentence, Utterance utterance, boolean continues) {
    Statement statement = readAsSaid(sentence, utterance, continues);
    if (statement == null) {
      return null;
    }
    // "Morning, Mel!", "Sure thing, Caroline!": a name said to the listener is no specific, so a
    // sentence that is small talk without it is small talk. The statement keeps the name.
    String said = AnyLanguage.stripLeadingChatter(sentence);
    String unaddressed = withoutAnyVocative(said);
    if (unaddressed.length() < said.length()
        && (unaddressed.isBlank() || readAsSaid(unaddressed, utterance, continues) == null)) {
      return null;
    }
    return statement;
  }

  private Statement readAsSaid(String sentence, Utterance utterance, boolean continues) {
    String speaker = utterance.speaker();
    String addressee = utterance.addressee();
    boolean named = utterance.named();
    String s = stripVocative(AnyLanguage.stripLeadingChatter(sentence), addressee);
    if (s.length() < 3) {
      return null;
    }
    s = questions.stated(s);
    if (s == null || CLOSER.matcher(s).lookingAt()) {
      return null;
    }
    boolean first = lexicon.isAboutSpeaker(s, named);
    boolean elided = ELIDED_SUBJECT.matcher(s).lookingAt() || gerundStart(s);
    Specifics sp = Specifics.of(s, lexicon, speaker, addressee);
    // A verdict after the speaker's own news is about that news; one addressed to the listener
    // ("You're so brave", "Your kids look cute") is not.
    boolean ownVerdict = named && continues && !ADDRESSES_LISTENER.matcher(s).lookingAt();
    // "You can use dairy-free margarine or coconut oil instead of butter", "Barcelona is a
    // must-visit city": advice and verdicts that name things are kept; "Keep it up", "The kids
    // look so cute" are not.
    boolean tells = named && informativeBesideVerdict(s, speaker, addressee);
    if (REACTION.matcher(s).lookingAt() && !first && sp.count() == 0 && !ownVerdict && !tells) {
      return null;
    }
    if (named && EXHORTATION.matcher(s).lookingAt() && !tells
        || named
            && !first
            && EVALUATION.matcher(s).find()
            && sp.count() == 0
            && !ownVerdict
            && !tells) {
      // "Let's keep going", "Don't give up", "The kids look so cute": advice and opinions.
      return null;
    }
    boolean about = first || elided;
    // A named speaker's third-person statements are mostly about their own circle ("They loved
    // the dinosaur exhibit"); in an agent run such a statement needs a specific or more words.
    boolean stated = about && (lexicon.isIdentity(s) || lexicon.isPreference(s)); // "I'm a nurse."
    boolean informative =
        about || named
            ? sp.content() >= 2 || (sp.count() >= 1 || stated || ownVerdict) && sp.content() >= 1
            : sp.count() >= 1 && sp.content() >= 2
                || sp.content() >= 5
                || AnyLanguage.isTechnical(s) && sp.content() >= 2;
    boolean verdict =
        ownVerdict
            && !first
            && sp.count() == 0
            && (REACTION.matcher(s).lookingAt() || EVALUATION.matcher(s).find());
    if (!informative) {
      return null;
    }
    String wording = s;
    if (elided) {
      String head = s.split("\\s+", 2)[0].toLowerCase(Locale.ROOT);
      boolean progressive = head.endsWith("ing") || head.equals("gonna") || head.equals("off");
      // "Been running longer" is "I have been running longer", never "I been".
      String subject = progressive ? "I am " : head.equals("been") ? "I have " : "I ";
      wording = subject + Character.toLowerCase(s.charAt(0)) + s.substring(1);
    }
    return Statement.of(s, wording, sp, utterance, lexicon, voice, about, verdict);
  }

  /**
   * {@code s} without a name that opens it before a comma or "!" ("Mel, ...", "Caroline! ...") or
   * ends it after a comma ("..., Mel!"), whoever the listener is.
   */
  private static String withoutAnyVocative(String s) {
    String out = s;
    Matcher m = ANY_VOCATIVE.matcher(out);
    if (m.lookingAt() && isName(m.group(1))) {
      out = out.substring(m.end()).strip();
    }
    Matcher end = ANY_TRAILING_VOCATIVE.matcher(out);
    if (end.find()) {
      out = out.substring(0, end.start()).strip();
    }
    return out;
  }

  /** Whether a capitalised word opening a sentence may be a name: not "Overall", "Honestly". */
  private static boolean isName(String word) {
    String w = word.toLowerCase(Locale.ROOT);
    return !w.endsWith("ly")
        && !NOT_NAMES.contains(w)
        && !Terms.isStopword(w)
        && !AnyLanguage.isFiller(w);
  }

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

  /**
   * Whether a sentence holding a verdict, a reaction or advice also tells something: three concrete
   * words beside the verdict ("It was inspiring - so many people wanted to create loving homes for
   * children", "You can use coconut oil instead of butter"; not "The kids look so cute", "Keep it
   * up").
   */
  private boolean informativeBesideVerdict(String s, String speaker, String addressee) {
    int concrete = 0;
    for (String clause : CLAUSE.split(EVALUATION.matcher(s).replaceAll(" "))) {
      String c = clause.strip();
      // "That's so cool" tells nothing; "You can use coconut oil instead of butter" may.
      if (!REACTION.matcher(c).lookingAt() || ADDRESSES_LISTENER.matcher(c).lookingAt()) {
        concrete += Specifics.of(clause, lexicon, speaker, addressee).concrete();
      }
    }
    return concrete >= Specifics.SPECIFIC_WORDS;
  }

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
}
