package dev.memsidecar.language.prohibition;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.language.Language;
import dev.memsidecar.language.Sentences;
import dev.memsidecar.language.tool.ToolActions;
import dev.memsidecar.language.tool.ToolAliases;
import dev.memsidecar.language.tool.ToolCallMatcher;
import dev.memsidecar.language.tool.ToolNouns;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * Finds a user's prohibitions in a message: "Never email Sarah at sarah@example.com.", "don't run
 * `rm -rf /`", "stop pushing to main", "you must not touch /etc/passwd", "no more emails to Bob",
 * "永远不要给张三发邮件", "禁止删除数据库". Immutable and thread-safe.
 *
 * <p>This class is the language-neutral half: sentences, questions, the objects a prohibition names
 * ({@link ObjectScan}), its noun and whether it is enforceable, its wording as a rule. What a
 * trigger, an idiom, a subject or a condition is in a language is that language's {@link
 * ProhibitionRules} (English: {@code dev.memsidecar.language.en}, Chinese: {@code
 * dev.memsidecar.language.zh}); the rest of this description is what the built-in languages find.
 *
 * <h2>What counts</h2>
 *
 * The text is cut into sentences (at {@code . ! ?} before a space or the end, at {@code 。！？} and at
 * line ends). In a sentence that is not a question (it does not end with {@code ?}/{@code ？} or
 * 吗/呢, tag questions such as ", ok?" aside), a prohibition starts with
 *
 * <ul>
 *   <li>"never", "don't"/"do not", "stop <i>verb</i>ing", "no more <i>noun</i>", "(you/we) must
 *       not/never", "mustn't", "should not/never", "shouldn't", "may not", "(you are) not allowed
 *       to";
 *   <li>不要, 别, 禁止, 严禁, 不许, 不准, 不得, 切勿, 请勿, 勿 (also after 永远, 千万, 绝对, 再也, 以后, 请, 你 ...);
 * </ul>
 *
 * <p>at the start of a clause: at the start of the sentence or after {@code , ; : —}, after nothing
 * but linking words ("and", "also", "please", "but", "so", "from now on", "in the future", 请, 也,
 * 另外, 还有 ...). So a subject before it makes it a statement, not an order: "I never said that", "Bob
 * never emails me", "She said don't", 我不要 are not prohibitions; nor are idioms ("never mind",
 * "don't worry", "don't forget to ...", "don't hesitate", 不要紧, 别担心, 别客气, 别忘了, 别的, 别人) or a verb
 * that names no act on a tool ("don't be late": be, worry, forget, know, think, say ...). A
 * prohibition runs to the end of its sentence, to the next prohibition, or to a clause that is no
 * longer about it ("but ...", "because ...", ", I'll ...", 但是, 因为, "，我 ...").
 *
 * <p>A prohibition is kept only when it names a tool-ish noun or at least one object: "don't use
 * the shell" and "never contact Sarah" are kept, "don't run the tests" is not.
 *
 * <h2>What a prohibition holds</h2>
 *
 * <ul>
 *   <li>{@code sentence}: the words from the trigger to the end of the prohibition, linking words
 *       before it dropped, the first letter capitalised, ending with a period ({@code 。} after
 *       Chinese): "and please never email Sarah at sarah@example.com" gives "Never email Sarah at
 *       sarah@example.com."; 永远, 千万, 绝对 ... stay ("永远不要给张三发邮件。");
 *   <li>{@code verb}: the act, lower-case base form ("email", "send", "run", "delete"; "emailing"
 *       gives "email"), or the Chinese verb found (发邮件, 删除), or empty;
 *   <li>{@code noun}: the canonical tool noun ({@code email}, {@code message}, {@code shell},
 *       {@code delete}, {@code file}, {@code deploy}, {@code database}, {@code browser}, {@code
 *       calendar}, {@code payment}, {@code git}, {@code phone}; see {@link ToolAliases}), or empty.
 *       The verb decides when it is one ("email", "deploy", "push", 发邮件), else the first noun after
 *       it ("send emails", "touch the production database" is the database), else a weaker verb or
 *       noun ("delete", "files", "production"), else the objects (an address is email, a path a
 *       file, a command the shell, a channel a message, a URL the browser);
 *   <li>{@code objects}, lower-cased, most precise first: e-mail addresses; hosts and URLs (as
 *       {@code host/path}); paths ({@code /etc/passwd}, {@code ~/.ssh}, {@code C:\...}) and file
 *       names with a known extension ({@code config.yaml}); commands (in backticks, or a known
 *       program or a word with flags after run/execute/use: {@code rm -rf /}, {@code git push
 *       --force}); channels ({@code #general}) and handles ({@code @bob}); person names
 *       (capitalised words after the verb that are no function word, weekday, month, product or
 *       tool word, joined when adjacent: "Bob Smith"; Chinese names after 给/跟/向/对/和 before the verb
 *       or after 发给/联系/通知: 张三); and the branch or environment after "to"/"into"/"on" (到) when the
 *       noun is git or deploy ("push to main" gives {@code main}); last, the acts it forbids beside
 *       its tool ({@link dev.memsidecar.language.tool.ToolActions}), as {@code action:<key>}:
 *       "Don't use the shell to delete files." gives {@code action:delete-files}, "never drop
 *       tables" {@code action:drop-tables}, "push to main" {@code main} and {@code action:push},
 *       不要用终端安装软件包 {@code action:install-packages} (an act that is all its tool does, such as
 *       deleting for a delete tool, adds none: "never delete files" binds the delete tool whole).
 *       An object whose form would read as another kind carries a {@code kind:} prefix (see {@link
 *       ToolCallMatcher}). A bare "never use the shell" has none: the whole tool is prohibited;
 *   <li>{@code enforceable}: false when denying calls by its objects (or, with none, every call of
 *       the tool) would block calls the user did not forbid: the prohibition carries a condition,
 *       an amount or a time ("if", "unless", "without asking", "before", "after 6pm", "more than
 *       $100", "on Fridays", "today", "for now", 如果, 除非, 之前, 周末, 今天, 先, 暂时, ...; a condition before
 *       the trigger stays in the sentence: "If the build fails, don't deploy."); or it forbids
 *       contacting someone it does not name ("don't email me", "never pay him", "don't message my
 *       manager", 不要给我发邮件); or, having no object but its act, it narrows the act or the tool in
 *       words no object can hold ("don't delete the production database" is not every drop; "don't
 *       commit secrets"; "don't delete old files"; "don't use the shell to mine bitcoin", "don't
 *       use the browser to buy anything": an act the vocabulary does not know; 不要用 shell 挖矿). Such
 *       a rule should still be shown to the agent, but not enforced: matching it would deny calls
 *       the user allowed.
 * </ul>
 *
 * <p>Limits: no parsing beyond these patterns; a prohibition phrased positively ("only email Bob"),
 * or in other words ("keep away from prod"), is not found; names are recognised by capitals, except
 * a lower-case word right after a verb of contact ("never email sarah" names {@code sarah}); the
 * scope of a condition is not understood, only noticed.
 */
public final class Prohibitions {
  /** The nouns whose prohibitions are about contacting someone ("never email Sarah"). */
  public static final Set<String> CONTACT_NOUNS =
      Set.of("email", "message", "phone", "calendar", "payment");

  private final List<Language> languages;

  /**
   * @param languages the languages that read a message, the default first: each reads the sentences
   *     it {@link ProhibitionRules#reads}, in this order; a rule takes the full stop of the first
   *     other language that reads it, else the default's
   */
  public Prohibitions(List<Language> languages) {
    this.languages = List.copyOf(requireNonNull(languages, "languages is null"));
    if (this.languages.isEmpty()) {
      throw new IllegalArgumentException("languages is empty");
    }
  }

  /** The prohibitions in {@code text}, in order; empty when there is none. */
  public List<Prohibition> find(String text) {
    requireNonNull(text, "text is null");
    List<Prohibition> out = new ArrayList<>();
    Set<String> seen = new LinkedHashSet<>();
    for (String sentence : Sentences.split(text)) {
      if (isQuestion(sentence)) {
        continue;
      }
      List<Prohibition> found = new ArrayList<>();
      for (Language language : languages) {
        ProhibitionRules rules = language.prohibitions();
        if (rules.reads(sentence)) {
          found.addAll(rules.find(sentence, this));
        }
      }
      for (Prohibition p : found) {
        if (seen.add(p.sentence().toLowerCase(Locale.ROOT))) {
          out.add(p);
        }
      }
    }
    return List.copyOf(out);
  }

  private boolean isQuestion(String sentence) {
    String s = sentence.strip();
    String lower = s.toLowerCase(Locale.ROOT);
    for (Language language : languages) {
      for (String tag : language.prohibitions().tagQuestions()) {
        if (lower.endsWith(tag)) {
          return false;
        }
      }
    }
    int end = s.length();
    while (end > 0 && "\"'”’)]".indexOf(s.charAt(end - 1)) >= 0) {
      end--;
    }
    if (end == 0) {
      return false;
    }
    char last = s.charAt(end - 1);
    if (last == '?' || last == '？') {
      return true;
    }
    if (last == '。' || last == '！' || last == '.' || last == '!') {
      end--;
    }
    if (end == 0) {
      return false;
    }
    for (Language language : languages) {
      if (language.prohibitions().questionParticles().indexOf(s.charAt(end - 1)) >= 0) {
        return true;
      }
    }
    return false;
  }

  // ------------------------------------------------------------------ for the languages' rules

  /** A scan for the objects of one prohibition, in {@code sentence[from, to)}. */
  public ObjectScan objects(String sentence, int from, int to) {
    return new ObjectScan(this, sentence, from, to);
  }

  /** Whether some language takes {@code word} (lower-case) for a condition ("if", "today"). */
  public boolean isCondition(String word) {
    for (Language language : languages) {
      if (language.prohibitions().isCondition(word)) {
        return true;
      }
    }
    return false;
  }

  /** The vocabulary entry of {@code word} (lower-case) in the first language that knows it. */
  public Optional<ToolNouns.Word> toolWord(String word) {
    for (Language language : languages) {
      Optional<ToolNouns.Word> known = language.toolWords().word(word);
      if (known.isPresent()) {
        return known;
      }
    }
    return Optional.empty();
  }

  boolean isRunVerb(String word) {
    for (Language language : languages) {
      if (language.prohibitions().isRunVerb(word)) {
        return true;
      }
    }
    return false;
  }

  boolean excludesName(String word) {
    for (Language language : languages) {
      if (language.prohibitions().excludesName(word)) {
        return true;
      }
    }
    return false;
  }

  boolean precedesName(String word) {
    for (Language language : languages) {
      if (language.prohibitions().precedesName(word)) {
        return true;
      }
    }
    return false;
  }

  boolean excludesTarget(String word) {
    for (Language language : languages) {
      if (language.prohibitions().excludesTarget(word)) {
        return true;
      }
    }
    return false;
  }

  /**
   * {@code raw} as a rule that stands alone: stripped, without trailing punctuation, the first
   * letter capitalised, ending with the full stop of the language it is written in (the first
   * language after the default that reads it, else the default).
   */
  public String asRule(String raw) {
    String s = raw.strip();
    int end = s.length();
    while (end > 0
        && (".,;:!?…。，；：！？、".indexOf(s.charAt(end - 1)) >= 0
            || Character.isWhitespace(s.charAt(end - 1)))) {
      end--;
    }
    s = s.substring(0, end);
    if (s.isEmpty()) {
      return s;
    }
    s = Character.toUpperCase(s.charAt(0)) + s.substring(1);
    return s + fullStop(s);
  }

  private String fullStop(String rule) {
    for (Language language : languages.subList(1, languages.size())) {
      if (language.prohibitions().reads(rule)) {
        return language.prohibitions().fullStop();
      }
    }
    return languages.get(0).prohibitions().fullStop();
  }

  /**
   * The noun of a prohibition: the verb's when the verb is itself the act ("email", "deploy"), else
   * the first strong noun after it ("send emails"), else the verb's weaker one, else the first weak
   * noun ("files", "production"), else the one its objects imply (an address is email, a path a
   * file, ...); empty when none is known.
   */
  public static String chooseNoun(
      String fromVerb, ToolNouns.Kind verbKind, String strong, String weak, String implied) {
    if (!fromVerb.isEmpty() && verbKind == ToolNouns.Kind.STRONG_VERB) {
      return fromVerb;
    }
    if (!strong.isEmpty()) {
      return strong;
    }
    if (!fromVerb.isEmpty()) {
      return fromVerb;
    }
    if (!weak.isEmpty()) {
      return weak;
    }
    return implied;
  }

  /**
   * Whether act {@code key} ({@link ToolActions}) is all that the tools of {@code noun} do, so that
   * a prohibition of it needs no act object: "never delete files" on a {@code delete} tool, "never
   * deploy" on a {@code deploy} tool; but "never drop tables" on a database tool keeps its act.
   */
  public static boolean actIsTheTool(String key, String noun) {
    return ToolActions.of(key).map(a -> a.whole() && a.noun().equals(noun)).orElse(false);
  }

  /**
   * Whether a prohibition may be enforced: it has no condition, is not narrowed in words no object
   * holds ({@code qualified}), and, about contacting someone, names whom (an object) when it speaks
   * of someone unnamed ("my manager", 老板).
   */
  public static boolean enforceable(
      boolean conditional, boolean qualified, String noun, List<String> objects, boolean unnamed) {
    return !conditional
        && !qualified
        && !(CONTACT_NOUNS.contains(noun) && objects.isEmpty() && unnamed);
  }
}
