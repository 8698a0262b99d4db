package dev.memsidecar.provider.extractor;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Rewrites a statement so it stands alone: first person becomes the speaker's name ("I went" ->
 * "Caroline went", "my kids" -> "Melanie's kids", "I'm" -> "Caroline is", "I like" -> "Caroline
 * likes"), second person the addressee's when known ("your dog" -> "Melanie's dog"), "we"/"our" the
 * speaker and others. Chinese: 我/我的/我们 likewise. Commands, code spans, URLs, e-mail addresses and
 * quoted text are never touched. Stateless and thread-safe.
 */
final class Voice {
  private Voice() {}

  /** Spans never rewritten: `code`, "quotes", URLs, e-mail addresses. */
  static final Pattern PROTECTED =
      Pattern.compile(
          "`[^`\\n"
              + "]+`|\"[^\"\\n"
              + "]{1,200}\"|“[^”\\n"
              + "]{1,200}”|https?://[^\\s，。；！？、）)\\]\"'<>]+|[\\w.+-]+@[\\w-]+\\.[\\w.-]+");

  private static final Pattern TOKEN =
      Pattern.compile("[A-Za-z]+(?:'[A-Za-z]+)*|\\uE000\\d+\\uE001|\\s+|.", Pattern.DOTALL);

  private static final Set<String> ADVERBS =
      Lexicon.words(
          "also",
          "just",
          "still",
          "always",
          "never",
          "really",
          "even",
          "only",
          "often",
          "sometimes",
          "usually",
          "actually",
          "definitely",
          "totally",
          "absolutely",
          "already",
          "finally",
          "recently",
          "both",
          "all",
          "too",
          "kinda",
          "sorta",
          "truly",
          "especially",
          "personally",
          "then",
          "now",
          "once",
          "ever",
          "rarely",
          "seldom",
          "almost",
          "mostly",
          "simply",
          "so",
          "currently",
          "generally",
          "normally",
          "certainly",
          "honestly",
          "probably",
          "maybe",
          "seriously",
          "literally",
          "def",
          "totes",
          "usually",
          "typically",
          "mainly",
          "basically",
          "clearly",
          "obviously",
          "particularly",
          "secretly",
          "sometime",
          "lately",
          "soon",
          "again",
          "each",
          "somehow",
          "constantly",
          "barely",
          "hardly",
          "nearly");

  private static final Set<String> UNCHANGED =
      Lexicon.words(
          "can",
          "could",
          "will",
          "would",
          "shall",
          "should",
          "may",
          "might",
          "must",
          "did",
          "didn't",
          "can't",
          "cannot",
          "couldn't",
          "won't",
          "wouldn't",
          "shouldn't",
          "mustn't",
          "had",
          "hadn't",
          "was",
          "wasn't",
          "used",
          "ought",
          "went",
          "got",
          "made",
          "took",
          "saw",
          "felt",
          "found",
          "thought",
          "bought",
          "came",
          "left",
          "met",
          "ran",
          "began",
          "brought",
          "built",
          "caught",
          "chose",
          "drew",
          "drove",
          "ate",
          "fell",
          "fought",
          "flew",
          "forgot",
          "gave",
          "grew",
          "heard",
          "held",
          "kept",
          "knew",
          "led",
          "lost",
          "meant",
          "paid",
          "put",
          "read",
          "rode",
          "said",
          "sang",
          "sat",
          "sent",
          "set",
          "shot",
          "showed",
          "slept",
          "spent",
          "spoke",
          "stood",
          "swam",
          "taught",
          "told",
          "threw",
          "understood",
          "woke",
          "wore",
          "won",
          "wrote",
          "became",
          "hit",
          "hurt",
          "let",
          "quit",
          "cut",
          "won",
          "lit",
          "bet",
          "dug",
          "sold",
          "shut",
          "stuck",
          "struck",
          "sought",
          "swore",
          "tore",
          "hung",
          "overcame",
          "began",
          "drank",
          "rang",
          "sank",
          "shook",
          "forgave",
          "fed",
          "bled",
          "bent",
          "dealt",
          "dreamt",
          "leant",
          "learnt",
          "spelt",
          "burnt",
          "lent",
          "wept",
          "crept",
          "'d",
          "gotta",
          "gonna",
          "wanna",
          "is",
          "has",
          "does",
          "goes");

  /** {@code sentence} in the third person, English; {@code addressee} may be null. */
  static String english(String sentence, String speaker, String addressee) {
    return english(sentence, speaker, addressee, null);
  }

  /**
   * {@code sentence} in the third person, English.
   *
   * @param addressee who "you" is, or null to leave "you" alone
   * @param group who "we" is, spoken of in the singular ("the team deploys"), or null for "the
   *     speaker and others"
   */
  static String english(String sentence, String speaker, String addressee, String group) {
    List<String> saved = new ArrayList<>();
    String masked = mask(sentence, saved);
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
    return unmask(capitalize(out.toString()), saved);
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
      String v = thirdPerson(lw);
      if (v != null) {
        tokens.set(j, v);
      }
      return;
    }
  }

  private static final Set<String> PARTICIPLES =
      Lexicon.words(
          "been",
          "had",
          "done",
          "seen",
          "gone",
          "felt",
          "known",
          "made",
          "taken",
          "given",
          "got",
          "gotten",
          "heard",
          "met",
          "found",
          "thought",
          "told",
          "left",
          "lost",
          "won",
          "read",
          "written",
          "forgotten",
          "eaten",
          "driven",
          "ridden",
          "run",
          "become",
          "come",
          "begun");

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
  static String thirdPerson(String verb) {
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

  /** {@code sentence} in the third person, Chinese; {@code addressee} may be null. */
  static String chinese(String sentence, String speaker, String addressee) {
    return chinese(sentence, speaker, addressee, null);
  }

  /** {@code sentence} in the third person, Chinese; "我们" is {@code group} when given. */
  static String chinese(String sentence, String speaker, String addressee, String group) {
    List<String> saved = new ArrayList<>();
    String s = mask(sentence, saved);
    s = s.replace("自我", "\uE002");
    String we = group != null ? group : speaker + "等人";
    s = s.replace("我们", we).replace("咱们", we);
    s = s.replace("我", speaker);
    if (addressee != null) {
      s = s.replaceAll("你们|您们", addressee + "等人");
      s = s.replaceAll("[你您](?![好])", addressee);
    }
    s = s.replace("\uE002", "自我");
    return unmask(s, saved);
  }

  /** "Caroline's", "the user's". */
  static String possessive(String name) {
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

  static String mask(String text, List<String> saved) {
    Matcher m = PROTECTED.matcher(text.replace('\u2019', '\''));
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      saved.add(m.group());
      m.appendReplacement(out, Matcher.quoteReplacement("\uE000" + (saved.size() - 1) + "\uE001"));
    }
    m.appendTail(out);
    return out.toString();
  }

  static String unmask(String text, List<String> saved) {
    if (saved.isEmpty()) {
      return text;
    }
    Matcher m = Pattern.compile("\\uE000(\\d+)\\uE001").matcher(text);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      m.appendReplacement(out, Matcher.quoteReplacement(saved.get(Integer.parseInt(m.group(1)))));
    }
    m.appendTail(out);
    return out.toString();
  }
}
