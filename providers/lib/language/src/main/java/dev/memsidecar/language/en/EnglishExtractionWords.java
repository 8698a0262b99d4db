package dev.memsidecar.language.en;

import dev.memsidecar.language.extraction.WordSets;
import java.util.Set;

/**
 * The English word lists of the rules extractor: which words carry no fact ({@link #FILLER}), which
 * name nothing specific ({@link #GENERIC}), which are prose that ends a command ({@link
 * #PROSE_STOP}) and which capitalised words are no proper names ({@link #NOT_PROPER}). Immutable.
 */
final class EnglishExtractionWords {
  private EnglishExtractionWords() {}

  /** Evaluative and discourse words that carry no fact on their own. */
  static final Set<String> FILLER =
      WordSets.of(
          """
          really so very super totally truly definitely absolutely pretty quite just also even still
          always never ever actually honestly literally kinda sorta much many lot lots bit little
          great good nice cool awesome amazing wonderful fantastic incredible beautiful lovely cute
          sweet fun funny exciting excited happy glad proud grateful thankful thanks thank
          appreciate appreciated feel felt feeling feelings think thought thinking know knew guess
          hope hoping wish mean means meant sure yeah wow hey oh thing things stuff something
          anything everything nothing way ways tough hard easy important special powerful inspiring
          inspired inspiration inspire motivated motivating motivation support supportive supported
          help helped helps helpful keep kept going get gets getting got make makes making take
          takes taking go goes do doing done been being can could would should shall may might must
          one well right true agree world life people someone everyone anyone others other gonna
          wanna gotta let lets ll ve re don didn isn wasn doesn s t d m im ive id yes yep no not
          like love loved loves enjoy enjoyed time times day days today now back again sounds sound
          looks look looking seems seem see seeing saw hear heard hearing say said tell told share
          shared sharing talk talking sorry okay ok want wanted need needed us all some any more
          most too here than out up about over off only own same such can't cant won't wont don't
          doesn't didn't i'm it's that's there's what's you're we're they're i've you've i'd i'll
          you'll we'll he she him her his hers myself yourself ourselves mine yours ours its am had
          did having has new big huge tons ton blast worth keen best better perfect crazy wild
          insane pumped stoked thrilled blessed lucky fortunate journey moment moments memories
          memory experience experiences reminds remind reminded joy peace passion passionate dream
          dreams vibe vibes deal matter matters reason kind sort type bunch part whole ready
          together anyway anyways maybe probably though although yet already soon lately recently
          especially mostly almost cheers ya yo yea huh um uh hmm haha lol omg luck congrats bye
          """);

  /**
   * Words that tell no specific thing on their own: abstract nouns ("progress", "difference"),
   * verdicts ("rewarding", "scary"), light verbs ("give", "find", "keep") and function words that
   * are no stopwords ("those", "each"). A statement whose content words are all of these is a
   * sentiment, not a fact; names, places, numbers, activities and objects are what make one
   * specific.
   */
  static final Set<String> GENERIC =
      WordSets.of(
          """
          difference differences impact effect effects kindness compassion positivity progress
          dedication effort efforts courage strength strengths determination success successes goal
          goals growth challenge challenges challenging opportunity opportunities encouragement
          reminder reminders gift reward rewards balance confidence patience perseverance resilience
          happiness beauty creativity care caring meaning meaningful purpose sense idea ideas vision
          adventure adventures ride process path step steps future past change changes power energy
          fulfillment fulfilment satisfaction connection connections bond bonds trust admiration
          respect pride doubt doubts fear fears stress pressure struggle struggles attitude mindset
          spirit heart soul mind comfort relief emotion emotions self lives situation situations
          part reason reasons chance chances outlook potential ability abilities skills talent
          hardship hardships obstacle obstacles setback setbacks victory achievement achievements
          accomplishment accomplishments habit habits mood feeling freedom importance understanding
          acceptance love kinds lot lots level levels bit rewarding fulfilling uplifting enjoyable
          satisfying frustrating refreshing heartwarming impressive impressed interesting positive
          negative strong safe free real full different bigger small smaller large serious delicious
          yum yummy fancy bright neat rough intense emotional empowering calming relaxing peaceful
          relaxed calm cozy comfortable fresh sad scary scared nervous worried stressed tired
          exhausted busy happier healthier stronger easier harder cool coolest greatest favorite
          favourite fave true genuine honest whole entire unique similar certain various several
          possible impossible incredible awesome fantastic wonderful lovely great good bad nice give
          gives giving gave given bring brings bringing brought show shows showing showed find finds
          finding found stay stays staying stayed try tries trying tried reach reaching reached
          remember remembering cherish cherished motivate motivates motivating grow grows growing
          grew happen happens happening happened come comes coming came put puts putting figure
          figured encourage encourages encouraging encouraged supporting spread spreading achieve
          achieving achieved pursue pursuing push pushes pushing pushed quit celebrate celebrating
          continue continuing believe believes believing believed matter mattered work works working
          worked use using used start starting started end ending ended keep keeping seem seemed
          become becomes becoming became learn learns learning learned learnt appreciate
          appreciating realize realized understand understood deserve deserves handle handled manage
          managed stick sticking able unable those each both every ones around through after before
          since down forward themselves sometimes hopefully long far often while during throughout
          without within toward towards among everybody somebody nobody somewhere anywhere
          everywhere whatever whenever however photo photos photography picture pictures pic pics
          image images
          """);

  /**
   * Words of prose that end a command's arguments: "kubectl port-forward over exposing debug ports"
   * stops at "over".
   */
  static final Set<String> PROSE_STOP =
      WordSets.of(
          """
          before after to when first then and if so because or whenever each every once until while
          for on in with from as but which that it again instead always never please the a an is are
          was will should must you we i they this these those there here now later since whether
          otherwise unless at by into onto of over than like via about without using through where
          who what how why not just also only really very rather me us them my your our their his
          her its
          """);

  /** Capitalised words that are no proper names: pronouns, interjections, family words. */
  static final Set<String> NOT_PROPER =
      WordSets.of(
          """
          I I'm I've I'd I'll OK Ok TV Mom Dad God Oh Hey Wow Yes No Thanks Thank The A An And But
          So Also It My We You He She They This That LOL OMG
          """);
}
