package dev.memsidecar.language;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.language.dedupe.DedupeRules;
import dev.memsidecar.language.dedupe.Relation;
import dev.memsidecar.language.dedupe.TextRelation;
import dev.memsidecar.language.dedupe.ValueScan;
import dev.memsidecar.language.dedupe.ValueType;
import dev.memsidecar.language.en.English;
import dev.memsidecar.language.extraction.ExtractionRules;
import dev.memsidecar.language.lowvalue.LowValueFilter;
import dev.memsidecar.language.lowvalue.LowValueRules;
import dev.memsidecar.language.prohibition.ObjectScan;
import dev.memsidecar.language.prohibition.Prohibition;
import dev.memsidecar.language.prohibition.ProhibitionRules;
import dev.memsidecar.language.prohibition.Prohibitions;
import dev.memsidecar.language.tool.ToolArguments;
import dev.memsidecar.language.tool.ToolNouns;
import dev.memsidecar.language.tool.ToolWords;
import dev.memsidecar.language.zh.Chinese;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The rules are written once and never name a language: English and Chinese text reach their own
 * class sets, and a third language is one more class set handed to {@link TextRules}.
 */
class TestLanguages {
  @Test
  void englishAndChineseTextReachTheirOwnClassSets() {
    Language english = Languages.of("Never email Sarah at sarah@example.com.");
    Language chinese = Languages.of("永远不要给张三发邮件。");
    assertEquals("en", english.tag());
    assertEquals("zh", chinese.tag());
    assertSame(Languages.byDefault(), english);
    assertNotEquals(english.prohibitions().getClass(), chinese.prohibitions().getClass());
    assertNotEquals(english.dedupe().getClass(), chinese.dedupe().getClass());
    assertEquals(".", english.prohibitions().fullStop());
    assertEquals("。", chinese.prohibitions().fullStop());
    assertEquals(Optional.of("email"), word(english, "emails"));
    assertEquals(Optional.of("email"), word(chinese, "邮件"));
    assertEquals(Optional.empty(), word(english, "邮件"));
    assertEquals(List.of(english, chinese), TextRules.standard().languages());
  }

  @Test
  void eachLanguageFindsProhibitionsInItsOwnWords() {
    TextRules rules = TextRules.standard();
    Prohibition en = rules.prohibitions("Never email Sarah at sarah@example.com.").get(0);
    Prohibition zh = rules.prohibitions("永远不要给张三发邮件").get(0);
    assertEquals("email", en.noun());
    assertEquals("email", zh.noun());
    assertEquals("永远不要给张三发邮件。", zh.sentence());
    assertEquals(List.of("张三"), zh.objects());
  }

  @Test
  void aThirdLanguageIsOneClassSet() {
    TextRules rules = new TextRules(List.of(new English(), new Chinese(), new Esperanto()));

    Prohibition p = rules.prohibitions("Neniam retpoŝtu Sarah ĉe sarah@example.com.").get(0);
    assertEquals("Neniam retpoŝtu Sarah ĉe sarah@example.com.", p.sentence());
    assertEquals("email", p.noun());
    assertEquals(List.of("sarah@example.com", "sarah"), p.objects());
    assertTrue(p.enforceable());
    assertEquals(List.of("send_email"), rules.toolsFor(p.noun(), List.of("send_email", "bash")));
    assertEquals(List.of("send_email"), rules.toolsFor("retpoŝto", List.of("send_email")));
    assertEquals(
        Optional.of("sarah@example.com"),
        rules.matchToolCall(
            "send_email", p.objects(), ToolArguments.of(Map.of("to", "sarah@example.com"))));
    // English still reads every sentence: each language finds its own.
    assertEquals(
        List.of("Neniam retpoŝtu Sarah.", "Never email Bob."),
        rules.prohibitions("Neniam retpoŝtu Sarah. Never email Bob.").stream()
            .map(Prohibition::sentence)
            .toList());

    assertEquals(Optional.of(LowValueFilter.GREETING), rules.lowValueReason("Saluton!"));
    assertEquals(
        Optional.of(LowValueFilter.FRAGMENT), TextRules.standard().lowValueReason("Saluton!"));

    TextRelation changed =
        rules
            .dedupeCandidate("La tago de deploy nun estas ĵaŭdo")
            .relationTo("La tago de deploy estas mardo", false)
            .orElseThrow();
    assertEquals(Relation.SUPERSEDES, changed.relation());
    assertTrue(changed.reason().startsWith("new value ĵaŭdo for: "), changed.reason());
    assertEquals(
        Optional.empty(),
        TextRules.standard()
            .dedupeCandidate("La tago de deploy nun estas ĵaŭdo")
            .relationTo("La tago de deploy estas mardo", false));
  }

  private static Optional<String> word(Language language, String word) {
    return language.toolWords().word(word).map(ToolNouns.Word::noun);
  }

  /** A toy Esperanto: a handful of words, enough to show every rule asks it. */
  private static final class Esperanto implements Language {
    @Override
    public String tag() {
      return "eo";
    }

    @Override
    public boolean claims(String text) {
      return text.contains("ĉ") || text.contains("ŝ") || text.contains("ĵ");
    }

    @Override
    public String stem(String word) {
      return word;
    }

    @Override
    public Set<String> stopwords() {
      return Set.of("la", "de");
    }

    @Override
    public ProhibitionRules prohibitions() {
      return new EsperantoProhibitions();
    }

    @Override
    public ToolWords toolWords() {
      return word ->
          word.startsWith("retpoŝt")
              ? Optional.of(new ToolNouns.Word(word, "email", ToolNouns.Kind.STRONG_VERB))
              : Optional.empty();
    }

    @Override
    public DedupeRules dedupe() {
      return new EsperantoDedupe();
    }

    /** "Saluton" greets; "ĉu" starts a question. */
    @Override
    public LowValueRules lowValue() {
      return new LowValueRules.Table(
          LowValueRules.phrases(LowValueFilter.GREETING, true, "saluton"),
          LowValueRules.NOTHING,
          LowValueRules.NOTHING,
          LowValueRules.NOTHING,
          Pattern.compile("^ĉu\\b"),
          LowValueRules.NOTHING,
          "",
          Set.of(),
          "");
    }

    @Override
    public Set<String> abbreviations() {
      return Set.of("ekz");
    }

    /** The toy reads what the rules extractor reads with English's rules. */
    @Override
    public ExtractionRules extraction() {
      return Languages.byDefault().extraction();
    }
  }

  /** "Neniam <verb> ...": never. */
  private static final class EsperantoProhibitions implements ProhibitionRules {
    @Override
    public boolean reads(String sentence) {
      return sentence.toLowerCase(Locale.ROOT).startsWith("neniam ");
    }

    @Override
    public List<Prohibition> find(String sentence, Prohibitions finder) {
      String[] words = sentence.split(" ");
      String verb = words.length > 1 ? words[1].toLowerCase(Locale.ROOT) : "";
      String noun = new Esperanto().toolWords().word(verb).map(ToolNouns.Word::noun).orElse("");
      int from = "neniam ".length();
      ObjectScan objects = finder.objects(sentence, from, sentence.length());
      objects.scan();
      objects.names(from, Prohibitions.CONTACT_NOUNS.contains(noun));
      List<String> found = objects.list();
      return List.of(
          new Prohibition(
              finder.asRule(sentence),
              verb,
              noun,
              found,
              Prohibitions.enforceable(false, false, noun, found, false)));
    }

    @Override
    public String fullStop() {
      return ".";
    }

    @Override
    public List<String> tagQuestions() {
      return List.of(", ĉu ne?");
    }

    @Override
    public String questionParticles() {
      return "";
    }

    @Override
    public boolean isRunVerb(String word) {
      return word.equals("rulu");
    }

    @Override
    public boolean excludesName(String word) {
      return word.equals("neniam");
    }

    @Override
    public boolean precedesName(String word) {
      return word.equals("al");
    }

    @Override
    public boolean excludesTarget(String word) {
      return false;
    }

    @Override
    public boolean isCondition(String word) {
      return word.equals("se");
    }
  }

  /** "nun" marks a change; day names are values. */
  private static final class EsperantoDedupe implements DedupeRules {
    private static final Map<String, String> DAYS = Map.of("mardo", "tuesday", "ĵaŭdo", "thursday");

    @Override
    public String stem(String word) {
      return word;
    }

    @Override
    public boolean marksChange(Set<String> terms, String lower) {
      return terms.contains("nun");
    }

    @Override
    public boolean negates(Set<String> terms, String lower) {
      return terms.contains("ne");
    }

    @Override
    public boolean links(Set<String> terms, String lower) {
      return terms.contains("estas");
    }

    @Override
    public boolean isNegation(String term) {
      return false;
    }

    @Override
    public boolean isFiller(String word) {
      return word.equals("nun") || word.equals("ne");
    }

    @Override
    public String concept(String stem) {
      return null;
    }

    @Override
    public String subjectText(String text) {
      return text;
    }

    @Override
    public void findDates(ValueScan scan) {}

    @Override
    public void findTimes(ValueScan scan) {}

    @Override
    public void findDays(ValueScan scan) {
      String text = scan.current();
      for (int[] w : ValueScan.wordRuns(text)) {
        String word = text.substring(w[0], w[1]);
        String day = DAYS.get(word.toLowerCase(Locale.ROOT));
        if (day != null) {
          scan.add(ValueType.DAY, day, word, w[0], w[1]);
        }
      }
    }
  }
}
