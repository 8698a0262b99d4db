package dev.memsidecar.language.en;

import dev.memsidecar.language.tool.ToolNouns;
import dev.memsidecar.language.tool.ToolNouns.Kind;
import dev.memsidecar.language.tool.ToolNouns.Word;
import dev.memsidecar.language.tool.ToolWords;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The English words of the tool nouns ({@link ToolNouns}): "email", "emails", "e-mail" point at
 * {@code email}, "push" and "repo" at {@code git}, "delete" (weakly) at {@code delete}. Immutable
 * and thread-safe.
 */
final class EnglishToolWords implements ToolWords {
  /** English verbs (lower-case, base form) to their noun and kind. */
  static final Map<String, Word> VERBS;

  /** English nouns (lower-case) to their noun and kind. */
  static final Map<String, Word> NOUNS;

  private static final Map<String, Word> VERBS_BUILDING = new HashMap<>();
  private static final Map<String, Word> NOUNS_BUILDING = new HashMap<>();

  static {
    // noun, strong verbs, strong nouns, weak verbs, weak nouns; the first noun a word is given wins
    words(
        "email",
        "email mail e-mail",
        "emails e-mails mail mails gmail inbox outlook email",
        "",
        "");
    words(
        "message",
        "message text dm slack ping msg",
        "message messages msg msgs dm dms slack sms chat whatsapp telegram discord",
        "",
        "");
    words(
        "shell",
        "ssh",
        "shell shells terminal command commands bash sh zsh cli console script scripts sudo"
            + " powershell",
        "",
        "");
    words("delete", "", "", "delete remove rm erase wipe unlink trash purge shred", "");
    words(
        "file", "", "", "", "file files folder folders directory directories dir filesystem disk");
    words(
        "deploy",
        "deploy release ship rollout redeploy",
        "deploy deploys deployment deployments release releases rollout rollouts",
        "",
        "production prod");
    words(
        "database",
        "",
        "database databases db dbs sql table tables postgres postgresql mysql sqlite mongodb",
        "",
        "");
    words(
        "browser",
        "browse visit navigate",
        "browser web url urls website websites webpage webpages internet",
        "",
        "site sites page pages link links");
    words(
        "calendar",
        "invite schedule book",
        "calendar calendars meeting meetings invite invites invitation invitations appointment"
            + " appointments event events",
        "",
        "");
    words(
        "payment",
        "pay transfer wire buy purchase refund charge spend",
        "payment payments money transfer transfers wire wires purchase purchases refund refunds"
            + " invoice invoices",
        "",
        "");
    words(
        "git",
        "push commit merge rebase force-push",
        "git github gitlab repo repository repositories commit commits push pushes",
        "",
        "branch branches");
    words("phone", "call phone dial ring", "phone phones call calls", "", "");
    VERBS = Collections.unmodifiableMap(VERBS_BUILDING);
    NOUNS = Collections.unmodifiableMap(NOUNS_BUILDING);
  }

  private static void words(
      String noun, String strongVerbs, String strongNouns, String weakVerbs, String weakNouns) {
    add(VERBS_BUILDING, strongVerbs, noun, Kind.STRONG_VERB);
    add(NOUNS_BUILDING, strongNouns, noun, Kind.STRONG_NOUN);
    add(VERBS_BUILDING, weakVerbs, noun, Kind.WEAK_VERB);
    add(NOUNS_BUILDING, weakNouns, noun, Kind.WEAK_NOUN);
  }

  private static void add(Map<String, Word> map, String list, String noun, Kind kind) {
    for (String w : ToolNouns.words(list)) {
      map.putIfAbsent(w, new Word(w, noun, kind));
    }
  }

  /** As a noun when the word is one ("email", "emails"), else as a verb ("deploy"). */
  @Override
  public Optional<Word> word(String word) {
    return Optional.ofNullable(NOUNS.getOrDefault(word, VERBS.get(word)));
  }
}
