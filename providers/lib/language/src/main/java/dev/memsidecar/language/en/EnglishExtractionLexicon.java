package dev.memsidecar.language.en;

import dev.memsidecar.language.Terms;
import dev.memsidecar.language.extraction.ExtractionLexicon;
import dev.memsidecar.language.extraction.SharedLexicon;
import dev.memsidecar.language.extraction.WordCount;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The English sentence patterns of the rules extractor. Stateless and thread-safe. */
final class EnglishExtractionLexicon implements ExtractionLexicon {

  // --- explicit instructions and corrections --------------------------------------------------

  private static final Pattern EXPLICIT =
      Pattern.compile(
          "(?i)^(?:(?:hey|ok|okay|also|and|oh|so|btw|by the"
              + " way)[,!]?\\s+)?(?:(?:please|pls|plz|kindly)\\s+)?(?:(?:can|could|would|will)"
              + " you\\s+(?:please\\s+)?)?(?:remember|memori[sz]e|keep in mind|don't forget|do not"
              + " forget|never forget|make a note|take note|save (?:this|that|it) (?:to|in) (?:your"
              + " )?memory|note for (?:the )?future|for future reference)(?:\\s+(?:this|that|the"
              + " following))?\\s*(?:[:,-]|that\\b)?\\s*(.*)$");

  /** Between people, only a plain request is an instruction to the memory. */
  private static final Pattern NAMED_EXPLICIT =
      Pattern.compile(
          "(?i)^(?:\\w+[,!]?\\s+)?(?:please|pls|plz|kindly|(?:can|could|would|will) you)\\b"
              + "|^(?:remember|memori[sz]e|note)(?:\\s+this)?\\s*:");

  /** "Remember when ...", "remember me": recalling, not instructing. */
  private static final Pattern EXPLICIT_NOT =
      Pattern.compile(
          "(?i)^(?:when|how|what|who|where|the time|that time|those|back when|me\\b|us\\b)");

  private static final String COURTESY_WORDS =
      "for me|please|thanks|thank you|for later|for the future|going forward|from now on";

  private static final Pattern CORRECTION =
      Pattern.compile(
          "(?i)^(?:correction\\s*[:,-]|to correct (?:myself|that|you)[:,]?|sorry,?\\s+(?:i meant|i"
              + " mean|my mistake)[:,]?|i meant[:,]?|my"
              + " mistake[:,.!]?|wait,?\\s+(?:no|actually)[:,]?|no,\\s+(?=(?:it|that|the|this|it's|that's)\\b)|nope,\\s+|that's"
              + " (?:wrong|not right|incorrect)[.!,:]?|that is (?:wrong|not"
              + " right|incorrect)[.!,:]?|actually,?\\s+(?=(?:it's|it is|that's|that is)\\b)"
              + "|actually,?\\s+(?=(?!i\\b|i'm\\b|i've\\b|we\\b|my\\b)[\\w'`-]+(?:\\s+[\\w'`-]+){0,4}\\s+(?:is|are|was|were|'s|should"
              + " be|must be|will be)\\b))\\s*(.*)$");

  private static final Pattern IT_IS =
      Pattern.compile(
          "(?i)^(?:it|that|this)(?:'s|\\s+is|\\s+was|\\s+should be|\\s+will be)\\s+(.+)$");
  private static final Pattern SUBJECT_IS =
      Pattern.compile(
          "(?i)^(?:the\\s+|our\\s+|my\\s+)?(.{2,60}?)\\s+(is|are|was|were|will be)\\s+.+$");

  // --- preferences, identity, the first person ------------------------------------------------

  private static final String ADV =
      "(?:really|also|just|absolutely|totally|truly|still|do|much|definitely|kinda|sorta|generally"
          + "|usually|always|actually|especially|particularly|personally|honestly|very|so)\\s+";
  private static final Pattern PREFERENCE =
      Pattern.compile(
          "(?i)(?:\\b(?:i|we)\\s+(?:"
              + ADV
              + ")*(?:prefer|like|love|enjoy|adore|hate|dislike|loathe|can't stand|cannot"
              + " stand|don't like|do not like|don't enjoy|don't want|am into|am a (?:big |huge"
              + " )?fan of)\\b|\\bi'm\\s+(?:"
              + ADV
              + ")*(?:into|a (?:big |huge )?fan of|passionate about|obsessed with|allergic to)\\b"
              + "|\\bi am\\s+(?:"
              + ADV
              + ")*(?:passionate about|obsessed with|allergic to)\\b"
              + "|\\b(?:my|our)\\s+(?:all-time\\s+)?(?:favou?rite|fave|preferred|go-to)\\b"
              + "|\\b(?:is|are)\\s+my\\s+(?:favou?rite|fave)\\b)"
              + "(?!\\s+(?:it|that|this|them|you|to hear|hearing|the idea)\\s*[.!]*$)");
  private static final Pattern IDENTITY =
      Pattern.compile(
          "(?i)\\bmy name(?:'s| is)\\b|\\bcall me\\b|\\bi'm called\\b|\\bi(?:'m|"
              + " am)\\s+(?:a|an)\\s+(?!(?:bit|little|lot|big fan|huge"
              + " fan|fan|part|few|couple|great|good|bad|real|total)\\b)\\w|\\bi(?:'m|"
              + " am)\\s+\\d{1,3}\\s*(?:years?[- ]old|yo)\\b|\\bi(?:\\s+(?:still|currently|now|also"
              + "))?\\s+(?:work|worked)\\s+(?:at|for|as|in)\\b|\\bi(?:'m|"
              + " am)\\s+(?:working|employed)\\s+(?:at|for|as)\\b|\\bi(?:\\s+(?:still|currently|now|also))?\\s+(?:live|lived)\\s+in\\b|\\bi(?:'m|"
              + " am)\\s+(?:originally\\s+)?from\\b|\\bi\\s+(?:grew up|was born|was"
              + " raised)\\s+in\\b|\\bi(?:'m|"
              + " am)\\s+(?:based|located)\\s+in\\b|\\bi\\s+(?:study|studied|major|majored)\\b|\\bi(?:'m|"
              + " am)\\s+(?:studying|majoring)\\b"
              + "|\\bmy\\s+(?:wife|husband|partner|boyfriend|girlfriend|fianc[ée]e?|son|daughter|kids?|children"
              + "|mom|mother|dad|father|brother|sister|dog|cat|pet|job|role|title|email|e-mail|phone"
              + "|address|birthday|age|hometown|team|manager|boss)(?:'s)?\\s+(?:is|are|was|named|called)\\b"
              + "|\\bi\\s+have\\s+(?:a|an|one|two|three|four|five|\\d+)\\s+(?:\\w+\\s+)?(?:dogs?|cats?|kids|"
              + "children|sons?|daughters?|brothers?|sisters?|pets?|siblings?)\\b");

  /** Words of the first person. */
  private static final Pattern FIRST_PERSON =
      Pattern.compile(
          "(?i)\\b(?:i|me|my|mine|myself|we|us|our|ours|ourselves|i'm|im|i've|i'd|i'll|we're|we've|we'll|we'd)\\b");

  /** Words of the first person singular. */
  private static final Pattern FIRST_PERSON_SINGULAR =
      Pattern.compile("(?i)\\b(?:i|me|my|mine|myself|i'm|im|i've|i'd|i'll)\\b");

  // --- procedures and workspaces --------------------------------------------------------------

  private static final Pattern PROCEDURE =
      Pattern.compile(
          "(?i)^(?:please\\s+)?(?:(?:always|never|first|then|next|finally)\\s+(?:run|use|execute|check|build|test|deploy|restart|rebuild|clear|update|call|bump|tag|verify|make"
              + " sure)\\b|(?:to|before|after|when(?:ever)?|once)\\s+[^,]{2,60},\\s*(?:always\\s+|first\\s+)?(?:run|use|execute|call|do|restart|rebuild|check|make"
              + " sure|set)\\b"
              + "|(?:run|execute|use)\\s+.{2,80}\\s+(?:before|after|to|whenever|when)\\s+\\w+)");

  /** Words that mark a statement as about the workspace (a project, a system), not a person. */
  private static final Pattern TECHNICAL =
      Pattern.compile(
          "(?i)\\b(?:repo|repository|build|deploy(?:ment|s|ed)?|server|api|endpoint|config(?:uration)?|branch"
              + "|release|test(?:s)?|port|database|db|service|cluster|version|pipeline|ci|cd|staging"
              + "|production|prod|module|package|library|dependency|schema|migration|container|image"
              + "|namespace|bucket|queue|topic|token|key|secret|env|environment|variable|script|command|commit|merge|pull"
              + " request|pr|code|project|workspace|sentinel|host|url|domain|backend"
              + "|frontend|sdk|cli|runtime|model|index|cache|log|logs|monitor|alert|dashboard|on-call"
              + "|oncall|sprint|ticket|jira|issue)\\b");

  // --- hedges, tense, dates ---------------------------------------------------------------------

  /** Words that make a statement uncertain: lower credibility. */
  private static final Pattern HEDGE =
      Pattern.compile(
          "(?i)\\b(?:maybe|perhaps|probably|possibly|might|i think|i guess|not sure|i'm not sure|i"
              + " suppose|kind of|sort of|i believe|seems like|apparently)\\b");

  /** States bound to the present moment: short-term. */
  private static final Pattern SHORT_TERM =
      Pattern.compile(
          "(?i)\\b(?:today|tonight|this (?:morning|afternoon|evening|week)|right now|at the moment"
              + "|currently|for now|this session|these days)\\b");

  private static final Pattern PAST_TENSE =
      Pattern.compile(
          "(?i)\\b(?:was|were|went|did|had|got|made|took|saw|ran|met|bought|found|won(?!')|lost|spent"
              + "|visited|started|finished|joined|adopted|painted|tried|learned|moved|graduated"
              + "|\\w{3,}ed)\\b");

  /** A participle after a verb of state or an intensifier ("I'm swamped", "so tired"): no event. */
  private static final Pattern STATE_PARTICIPLE =
      Pattern.compile(
          "(?i)\\b(?:am|is|are|'m|'re|'s|be|been|being|feel|feeling|felt|get|getting|got|seem|seems"
              + "|so|really|very|pretty|super|totally|kinda|bit|little)\\s+\\w+ed\\b");

  private static final Pattern FUTURE_DATE =
      Pattern.compile(
          "(?i)\\b(?:tomorrow|next"
              + " (?:week|month|year|weekend|monday|tuesday|wednesday|thursday|friday|saturday|sunday|summer|winter|spring|fall|autumn)|this"
              + " coming|upcoming|in \\d+ (?:days|weeks|months))\\b");

  private static final Pattern ABSOLUTE_DATE =
      Pattern.compile(
          "(?i)\\b(?:\\d{1,2}(?:st|nd|rd|th)?\\s+(?:of\\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov"
              + "|dec)[a-z]*|(?:january|february|march|april|june|july|august|september|october"
              + "|november|december)(?:\\s+\\d{1,2}(?:st|nd|rd|th)?)?|(?:in|since|of|by)\\s+(?:19|20)\\d\\d"
              + "|\\d{4}-\\d{2}-\\d{2})\\b");

  private static final Pattern DATE_WORDS =
      Pattern.compile(
          "(?i)\\b(?:january|february|march|april|june|july|august|september|october|november"
              + "|december|monday|tuesday|wednesday|thursday|friday|saturday|sunday|yesterday"
              + "|tomorrow|weekend|(?:19|20)\\d\\d)\\b");

  // --- what a sentence says besides its facts ---------------------------------------------------

  private static final Pattern ACKNOWLEDGEMENT =
      Pattern.compile(
          "(?i)^(?:i'll remember|i will remember|i've (?:noted|saved|stored|remembered|updated)|i"
              + " have (?:noted|saved|stored|remembered)|noted|got"
              + " it|understood|sure|ok|okay|done|memory (?:stored|saved|updated)|saved|stored|will"
              + " do|no problem|you're welcome)\\b?");

  /**
   * A turn that shows the speaker's own thing with its image: "Here's my painting", "This is what I
   * made", "Check it out", "Take a look at this".
   */
  private static final Pattern PRESENTS =
      Pattern.compile(
          "(?i)\\b(?:"
              + String.join(
                  "|",
                  "here(?:'s|s| is| are)",
                  "here (?:it|they) (?:is|are|go)",
                  "this is (?:my|our|what|how|where|the one|it|mine)",
                  "these are (?:my|our|mine|ours|the ones)",
                  "(?:check|look at) (?:it|this|these|them|that|those|out)",
                  "take a look",
                  "have a look",
                  "look what",
                  "(?:i|we|i've|we've) (?:just"
                      + " )?(?:made|painted|drew|took|built|baked|cooked|knitted"
                      + "|wrote|designed|got|bought|found|did|finished|created|planted|grew)"
                      + " (?:this|these|it|them)",
                  "(?:this|these|that|those) (?:is|are) (?:all )?(?:mine|ours)",
                  "(?:pic|picture|photo|shot|snap)s? (?:i|we) (?:took|got|made)",
                  "(?:pic|picture|photo|shot|snap)s? of (?:my|our|me|us)")
              + ")\\b");

  /** Leading interjections and forms of address, stripped before a sentence is judged. */
  private static final Pattern LEADING_CHATTER =
      Pattern.compile(
          "(?i)^(?:(?:hey|hi|hello|yo|oh|ooh|wow|whoa|woah|aw+|yeah|yea|yep|yes|yup|no|nah|nope|ok|okay|alright|all"
              + " right|got it|gotcha|sure"
              + " thing|sure|well|so|hmm+|haha+|hah|lol|omg|gosh|ah+|um+|uh+|thanks|thank"
              + " you|ty|cool|nice|great"
              + "|awesome|sweet|totally|absolutely|definitely|exactly|true|right|indeed|congrats|congratulations|btw|by"
              + " the way|anyway|anyways|on another note|on a different note|speaking of"
              + " which|speaking of that|also|plus|and|but|honestly|basically|ha|hey there|good to"
              + " see you|great to hear from you|good to hear from you|nice to hear from you|long"
              + " time no (?:see|chat|talk|speak)|i know|you know|i see|guess what|fun fact|funny"
              + " enough|for sure|of course|oh man|man|dude|buddy|bro|friend|haha yeah|yeah"
              + " yeah|omg yes|oh yeah|oh wow|wow,? that's|aww+|yay|whew|phew)(?:\\s+(?:so much|a"
              + " lot|again|too|indeed|man|dude|buddy))?(?:\\s*,?\\s*(?-i:\\p{Lu}\\p{Ll}+))?"
              + "\\s*[,!.:;~-]+\\s*)+");

  private static final String ATTACHMENT_NOUNS =
      "image|photo|picture|pic|shares?|shared|attachment";
  private static final String PORT = "\\bport\\s+\\d{2,5}\\b";

  /** English's share of the rules read in every language at once. */
  static final SharedLexicon SHARED =
      new SharedLexicon(
          TECHNICAL,
          HEDGE,
          SHORT_TERM,
          PAST_TENSE,
          STATE_PARTICIPLE,
          FUTURE_DATE,
          ABSOLUTE_DATE,
          DATE_WORDS,
          ACKNOWLEDGEMENT,
          PRESENTS,
          LEADING_CHATTER,
          EnglishExtractionWords.PROSE_STOP,
          COURTESY_WORDS,
          ATTACHMENT_NOUNS,
          PORT);

  // --- words
  // --------------------------------------------------------------------------------------

  private static final Pattern PROPER =
      Pattern.compile("(?<=[\\s(\"'“])(?:[A-Z][a-z]+(?:[A-Z][a-z]+)*|[A-Z]{2,}[a-z]?)\\b");

  @Override
  public String instruction(String sentence, boolean named) {
    Matcher m = EXPLICIT.matcher(sentence);
    if (!m.matches()) {
      return null;
    }
    String rest = m.group(1).strip();
    if (EXPLICIT_NOT.matcher(rest).lookingAt() || named && sentence.endsWith("?")) {
      return null;
    }
    if (named && !NAMED_EXPLICIT.matcher(sentence).lookingAt()) {
      // Between people "Remember, I'm here for you" is advice, not an instruction to the memory.
      return null;
    }
    return rest;
  }

  @Override
  public String trimClosingParticles(String rest) {
    return rest;
  }

  @Override
  public String correctionRest(String sentence) {
    Matcher m = CORRECTION.matcher(sentence);
    if (!m.matches()) {
      return null;
    }
    return m.group(1).strip().replaceAll("^[,，:：\\s]+", "");
  }

  @Override
  public String completeCorrection(String rest, String context) {
    Matcher it = IT_IS.matcher(rest);
    if (!it.matches()) {
      return rest;
    }
    Matcher subj = SUBJECT_IS.matcher(context.replaceAll("[.!?]+$", ""));
    if (!subj.matches() || FIRST_PERSON.matcher(subj.group(1)).find()) {
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

  @Override
  public boolean isPreference(String sentence) {
    return PREFERENCE.matcher(sentence).find();
  }

  @Override
  public boolean isIdentity(String sentence) {
    return IDENTITY.matcher(sentence).find();
  }

  @Override
  public boolean isFirstPerson(String sentence) {
    return FIRST_PERSON.matcher(sentence).find();
  }

  @Override
  public boolean isFirstPersonSingular(String sentence) {
    return FIRST_PERSON_SINGULAR.matcher(sentence).find();
  }

  @Override
  public boolean isProcedure(String sentence) {
    return PROCEDURE.matcher(sentence).find();
  }

  @Override
  public WordCount countWords(String sentence, Set<String> names) {
    int content = 0;
    int concrete = 0;
    for (String w : Terms.keywords(sentence)) {
      if (w.length() > 1
          && !EnglishExtractionWords.FILLER.contains(w)
          && !names.contains(w)
          && !w.chars().allMatch(Character::isDigit)) {
        content++;
        if (!EnglishExtractionWords.GENERIC.contains(w)) {
          concrete++;
        }
      }
    }
    return new WordCount(content, concrete);
  }

  @Override
  public int countProperNames(String sentence, Set<String> names) {
    Matcher p = PROPER.matcher(" " + sentence);
    Set<String> distinct = new HashSet<>();
    while (p.find()) {
      String w = p.group();
      if (!EnglishExtractionWords.NOT_PROPER.contains(w)
          && !names.contains(w.toLowerCase(Locale.ROOT))
          && !DATE_WORDS.matcher(w).matches()) {
        distinct.add(w);
      }
    }
    // The first word is capitalised anyway; count it only when it is an acronym. "Music's amazing"
    // opens with "Music" as much as "Music is amazing" does.
    String firstWord = sentence.split("[\\s,.!?]+", 2)[0].replaceFirst("['’]s$", "");
    if (distinct.contains(firstWord) && !firstWord.equals(firstWord.toUpperCase(Locale.ROOT))) {
      distinct.remove(firstWord);
    }
    return Math.min(2, distinct.size());
  }

  @Override
  public boolean isFiller(String word) {
    return EnglishExtractionWords.FILLER.contains(word);
  }
}
