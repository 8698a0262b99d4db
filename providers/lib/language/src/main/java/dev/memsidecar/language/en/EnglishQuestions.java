package dev.memsidecar.language.en;

import dev.memsidecar.language.extraction.Punctuation;
import dev.memsidecar.language.extraction.Questions;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What an English sentence ending in a question mark states: a tag question ("Sunflowers mean
 * warmth and happiness, right?") states what it asks to confirm; a statement followed by a question
 * in the same sentence ("Spider-Man has always been a favorite of mine - I mean, who doesn't love
 * him?") states its first clause; a declarative sentence read with a rising tone ("While roses
 * stand for love and beauty?") states itself, unless it is about the listener ("You went to
 * Paris?"), lacks its subject ("Seen any good movies lately?"), asks about "any" or is shorter than
 * five words. A sentence that opens with a question word or an inverted auxiliary ("What ...", "Did
 * you ...", "Any plans ...") asks: nothing is stated. Stateless and thread-safe.
 */
final class EnglishQuestions implements Questions {

  private static final String AUX =
      "(?:is|are|was|were|do|does|did|have|has|had|can|could|will|would|should)";
  private static final String PRONOUN = "(?:it|they|he|she|we|you|i|that|there|those|these)";

  /** "..., right?", "..., isn't it?", "..., you know?": a confirmation asked of a statement. */
  private static final Pattern TAG =
      Pattern.compile(
          "(?i)(?:[,;]\\s*(?:"
              + String.join(
                  "|",
                  "you know",
                  "ya know",
                  "y'know",
                  "huh",
                  "eh",
                  "no",
                  "yeah",
                  "yes",
                  "true",
                  "correct",
                  "agreed",
                  "am i right",
                  "or not",
                  "you see",
                  "isn't that so",
                  "ain't it",
                  AUX + "\\s+" + PRONOUN)
              + ")|[,;]?\\s*\\b(?:"
              + String.join(
                  "|",
                  "right",
                  "don't you think",
                  "wouldn't you say",
                  "don't you agree",
                  AUX + "n't\\s+" + PRONOUN)
              + "))\\s*[?？][?？!！.\\s]*$");

  /** The first words of a sentence (or clause) that asks. */
  private static final Pattern ASKS =
      Pattern.compile(
          "(?i)^(?:(?:so|and|but|or|well|oh|hey|then|also|plus|anyway|i mean|i wonder|just curious"
              + "|quick question|btw|by the way|out of curiosity|maybe|perhaps)[,!]?\\s+)*(?:"
              + String.join(
                  "|",
                  "what|what's|whats|who|who's|whom|whose|where|where's|when|when's|why|why's",
                  "how|how's|hows|which|whatcha|any|anything|anyone|anybody|ever|got any",
                  "am|" + AUX + "|shall|may|might|" + AUX + "n't|isn't|aren't|wasn't|weren't",
                  "don't|doesn't|didn't|haven't|hasn't|hadn't|can't|couldn't|won't|wouldn't",
                  "you|your|you're|you've|you'd|you'll|u|ur|r u|y'all|yall|ya",
                  "care to|mind|guess what|know what|thoughts|ideas|tips|suggestions|same|really",
                  "seriously|want|wanna|need|like to|feel like|got")
              + ")\\b");

  /** Where a second clause may start: a dash, a semicolon, a colon, a comma. */
  private static final Pattern CLAUSE_BREAK = Pattern.compile("\\s+[-–—]+\\s+|[;:,]\\s+");

  private static final Pattern ELLIPTIC =
      Pattern.compile(
          "(?i)^(?:been|seen|heard|tried|had|got|gotten|done|gone|met|read|watched)\\b");
  private static final Pattern ANY =
      Pattern.compile("(?i)\\b(?:any|anything|anyone|anybody|ever|yet)\\b");

  private static final int MIN_DECLARATIVE_WORDS = 5;

  @Override
  public String stated(String s) {
    if (!Punctuation.isQuestion(s)) {
      return s;
    }
    Matcher tag = TAG.matcher(s);
    if (tag.find() && tag.start() > 0) {
      String rest = s.substring(0, tag.start()).strip();
      return ASKS.matcher(rest).lookingAt() || rest.isEmpty() ? null : rest + ".";
    }
    String body = s.replaceAll("[?？!！.\\s]+$", "");
    if (ASKS.matcher(body).lookingAt()) {
      return null;
    }
    // "X - who doesn't love Y?", "I did X; have you?": keep what comes before the question.
    Matcher b = CLAUSE_BREAK.matcher(body);
    int lastStatement = -1;
    while (b.find()) {
      if (ASKS.matcher(body.substring(b.end())).lookingAt()) {
        lastStatement = b.start();
        break;
      }
    }
    if (lastStatement > 0) {
      return body.substring(0, lastStatement).strip() + ".";
    }
    // A statement read with a rising tone; a short one ("For walking or running?"), one without
    // its subject ("Seen any good movies lately?") or one about "any" asks.
    boolean asks =
        body.split("\\s+").length < MIN_DECLARATIVE_WORDS
            || ELLIPTIC.matcher(body).lookingAt()
            || ANY.matcher(body).find();
    return asks ? null : body + ".";
  }
}
