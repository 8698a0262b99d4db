package dev.memsidecar.language.en;

import dev.memsidecar.language.ProtectedSpans;
import dev.memsidecar.language.extraction.Punctuation;
import dev.memsidecar.language.extraction.Voice;
import dev.memsidecar.language.extraction.WordSets;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Writes an English statement so that it stands alone: the first person becomes the speaker's name
 * ("I went" -> "Caroline went", "my kids" -> "Melanie's kids", "I'm" -> "Caroline is", "I like" ->
 * "Caroline likes"), the second person the addressee's when known ("your dog" -> "Melanie's dog"),
 * "we"/"our" the speaker and others (or the team). Commands, code spans, URLs, e-mail addresses and
 * quoted text are never touched. Stateless and thread-safe.
 */
final class EnglishVoice implements Voice {
  private static final Pattern TOKEN =
      Pattern.compile("[A-Za-z]+(?:'[A-Za-z]+)*|\\uE000\\d+\\uE001|\\s+|.", Pattern.DOTALL);

  /** Adverbs between "I" and its verb: "I also like". */
  private static final Set<String> ADVERBS =
      WordSets.of(
          """
          also just still always never really even only often sometimes usually actually definitely
          totally absolutely already finally recently both all too kinda sorta truly especially
          personally then now once ever rarely seldom almost mostly simply so currently generally
          normally certainly honestly probably maybe seriously literally def totes typically mainly
          basically clearly obviously particularly secretly sometime lately soon again each somehow
          constantly barely hardly nearly
          """);

  /** Verbs the same after "I" and "she": modals, the past tense. */
  private static final Set<String> UNCHANGED =
      WordSets.of(
          """
          can could will would shall should may might must did didn't can't cannot couldn't won't
          wouldn't shouldn't mustn't had hadn't was wasn't used ought went got made took saw felt
          found thought bought came left met ran began brought built caught chose drew drove ate
          fell fought flew forgot gave grew heard held kept knew led lost meant paid put read rode
          said sang sat sent set shot showed slept spent spoke stood swam taught told threw
          understood woke wore won wrote became hit hurt let quit cut lit bet dug sold shut stuck
          struck sought swore tore hung overcame drank rang sank shook forgave fed bled bent dealt
          dreamt leant learnt spelt burnt lent wept crept 'd gotta gonna wanna is has does goes
          """);

  /** Past participles that are no "-ed" form: "I'd never felt" is "I had". */
  private static final Set<String> PARTICIPLES =
      WordSets.of(
          """
          been had done seen gone felt known made taken given got gotten heard met found thought
          told left lost won read written forgotten eaten driven ridden run become come begun
          """);

  @Override
  public String thirdPerson(String sentence, String speaker, String addressee, String group) {
    List<String> saved = new ArrayList<>();
    String masked = ProtectedSpans.mask(sentence, saved);
    List<String> tokens = new ArrayList<>();
    Matcher m = TOKEN.matcher(masked);
    while (m.find()) {
      tokens.add(m.group());
    }
    StringBuilder out = new StringBuilder();
    String possessive = possessive(speaker);
    String others = group != null ? group : speaker + " and others";
    String ourPossessive = group != null ? possessive(group) : possessive;
    String prevWord = null;
    for (int i = 0; i < tokens.size(); i++) {
      String t = tokens.get(i);
      if (!isWord(t)) {
        out.append(t);
        if (!t.isBlank()) {
          prevWord = t.strip();
        }
        continue;
      }
      String lw = t.toLowerCase(Locale.ROOT);
      String replacement = null;
      switch (lw) {
        case "i" -> {
          replacement = speaker;
          conjugateNext(tokens, i);
        }
        case "i'm", "im" -> replacement = speaker + " is";
        case "i've", "ive" -> replacement = speaker + " has";
        case "i'd" -> replacement = speaker + (hadFollows(tokens, i) ? " had" : " would");
        case "i'll" -> replacement = speaker + " will";
        case "me" -> replacement = speaker;
        case "myself", "ourselves" -> replacement = "themselves";
        case "my", "mine" -> replacement = possessive;
        case "we" -> {
          replacement = others;
          if (group != null) {
            conjugateNext(tokens, i);
          }
        }
        case "us" -> replacement = others;
        case "we're" -> replacement = others + (group != null ? " is" : " are");
        case "we've" -> replacement = others + (group != null ? " has" : " have");
        case "we'll" -> replacement = others + " will";
        case "we'd" -> replacement = others + " would";
        case "our", "ours" -> replacement = ourPossessive;
        default -> {
          if (addressee != null) {
            replacement = second(lw, tokens, i, addressee, prevWord);
          }
        }
      }
      out.append(replacement == null ? t : replacement);
      prevWord = t;
    }
    return ProtectedSpans.unmask(capitalize(out.toString()), saved);
  }

  private static String second(
      String lw, List<String> tokens, int i, String addressee, String prevWord) {
    return switch (lw) {
      case "you" -> {
        if (nextWordIs(tokens, i, "know", "guys", "all", "see")) {
          yield null;
        }
        if (isClauseStart(prevWord)) {
          conjugateBe(tokens, i);
        }
        yield addressee;
      }
      case "you're", "youre" -> addressee + " is";
      case "you've" -> addressee + " has";
      case "you'll" -> addressee + " will";
      case "you'd" -> addressee + " would";
      case "your", "yours" -> possessive(addressee);
      case "yourself" -> addressee;
      default -> null;
    };
  }

  private static boolean isClauseStart(String prevWord) {
    if (prevWord == null) {
      return true;
    }
    String p = prevWord.toLowerCase(Locale.ROOT);
    return Set.of(",", ";", ":", "-", "and", "but", "that", "when", "if", "because", "so", "as")
        .contains(p);
  }

  private static boolean nextWordIs(List<String> tokens, int i, String... words) {
    for (int j = i + 1; j < tokens.size(); j++) {
      String t = tokens.get(j);
      if (t.isBlank()) {
        continue;
      }
      String lw = t.toLowerCase(Locale.ROOT);
      for (String w : words) {
        if (lw.equals(w)) {
          return true;
        }
      }
      return false;
    }
    return false;
  }

  /** After a third-person subject, "are"/"have"/"do" become "is"/"has"/"does". */
  private static void conjugateBe(List<String> tokens, int i) {
    int j = nextWord(tokens, i);
    if (j < 0) {
      return;
    }
    String lw = tokens.get(j).toLowerCase(Locale.ROOT);
    String v =
        switch (lw) {
          case "are" -> "is";
          case "were" -> "was";
          case "have" -> "has";
          case "do" -> "does";
          case "don't" -> "doesn't";
          case "haven't" -> "hasn't";
          case "aren't" -> "isn't";
          case "weren't" -> "wasn't";
          default -> null;
        };
    if (v != null) {
      tokens.set(j, v);
    }
  }

  /** The verb after "I" (past adverbs) in the third person singular. */
  private static void conjugateNext(List<String> tokens, int i) {
    int j = i;
    while (true) {
      j = nextWord(tokens, j);
      if (j < 0) {
        return;
      }
      String lw = tokens.get(j).toLowerCase(Locale.ROOT);
      if (ADVERBS.contains(lw) || (lw.endsWith("ly") && lw.length() > 4)) {
        continue;
      }
      int after = nextWord(tokens, j);
      if (lw.equals("no")
          && after >= 0
          && tokens.get(after).toLowerCase(Locale.ROOT).equals("longer")) {
        j = after; // "I no longer drink": "the user no longer drinks"
        continue;
      }
      String v = thirdPersonVerb(lw);
      if (v != null) {
        tokens.set(j, v);
      }
      return;
    }
  }

  /** Whether "I'd" is "I had": a past participle follows ("I'd never felt"). */
  private static boolean hadFollows(List<String> tokens, int i) {
    int j = i;
    while (true) {
      j = nextWord(tokens, j);
      if (j < 0) {
        return false;
      }
      String lw = tokens.get(j).toLowerCase(Locale.ROOT);
      if (ADVERBS.contains(lw) || lw.equals("never") || lw.equals("ever")) {
        continue;
      }
      return lw.endsWith("ed") || PARTICIPLES.contains(lw);
    }
  }

  /** Index of the next word token after {@code i} with only spaces between, or -1. */
  private static int nextWord(List<String> tokens, int i) {
    for (int j = i + 1; j < tokens.size(); j++) {
      String t = tokens.get(j);
      if (t.isBlank()) {
        continue;
      }
      return isWord(t) ? j : -1;
    }
    return -1;
  }

  /** The third person singular of {@code verb} (lower case), or null to leave it as it is. */
  private static String thirdPersonVerb(String verb) {
    switch (verb) {
      case "am", "are", "be" -> {
        return "is";
      }
      case "were" -> {
        return "was";
      }
      case "have" -> {
        return "has";
      }
      case "do" -> {
        return "does";
      }
      case "don't", "dont" -> {
        return "doesn't";
      }
      case "haven't" -> {
        return "hasn't";
      }
      case "aren't", "ain't" -> {
        return "isn't";
      }
      case "weren't" -> {
        return "wasn't";
      }
      default -> {}
    }
    if (UNCHANGED.contains(verb)
        || verb.contains("'")
        || verb.endsWith("ed")
        || verb.endsWith("ing")
        || verb.length() < 2) {
      return null;
    }
    if (verb.endsWith("s")
        || verb.endsWith("sh")
        || verb.endsWith("ch")
        || verb.endsWith("x")
        || verb.endsWith("z")
        || verb.endsWith("o")) {
      return verb + "es";
    }
    if (verb.endsWith("y")
        && verb.length() > 2
        && "aeiou".indexOf(verb.charAt(verb.length() - 2)) < 0) {
      return verb.substring(0, verb.length() - 1) + "ies";
    }
    return verb + "s";
  }

  @Override
  public String team() {
    return "the team";
  }

  @Override
  public String terminate(String text) {
    return Punctuation.terminate(text, ".!?`\"'", ".");
  }

  @Override
  public String sentenceSeparator() {
    return " ";
  }

  @Override
  public String notes(List<String> notes) {
    return " (" + String.join("; ", notes) + ")";
  }

  @Override
  public String saidOn(LocalDate day) {
    return "said on " + EnglishDatePhrases.english(day);
  }

  @Override
  public String sharedImage(String speaker, String caption) {
    boolean described = caption.matches("(?i)^(?:a|an|the)\\s.*");
    return terminate(speaker + " shared " + (described ? caption : "an image: " + caption));
  }

  /** "Caroline's", "the user's". */
  private static String possessive(String name) {
    return name + "'s";
  }

  private static boolean isWord(String t) {
    return !t.isEmpty() && Character.isLetter(t.charAt(0));
  }

  private static String capitalize(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isLetter(c)) {
        return Character.isLowerCase(c)
            ? s.substring(0, i) + Character.toUpperCase(c) + s.substring(i + 1)
            : s;
      }
      if (c == '\uE000' || !Character.isWhitespace(c) && c != '"' && c != '(') {
        return s;
      }
    }
    return s;
  }
}
