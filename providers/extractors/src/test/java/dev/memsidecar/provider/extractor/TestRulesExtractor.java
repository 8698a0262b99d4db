package dev.memsidecar.provider.extractor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.api.ExtractionRequest;
import dev.memsidecar.api.ExtractorProvider;
import dev.memsidecar.api.MemoryCandidate;
import dev.memsidecar.api.MemoryCandidate.Owner;
import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.MemoryKind;
import dev.memsidecar.api.Settings;
import dev.memsidecar.api.Validity;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class TestRulesExtractor {
  private static final Instant NOW = Instant.parse("2024-01-01T10:00:00Z");

  private final RulesExtractor rules = new RulesExtractor();

  private List<MemoryCandidate> extract(String input) {
    return extract(input, "", Map.of());
  }

  private List<MemoryCandidate> extract(String input, String output, Map<String, String> metadata) {
    return rules.extract(
        new ExtractionRequest(
            "run-1", input, output, List.of(), metadata, List.of(), NOW, ZoneOffset.UTC));
  }

  private static MemoryCandidate only(List<MemoryCandidate> candidates) {
    assertEquals(1, candidates.size(), () -> "expected one candidate: " + contents(candidates));
    return candidates.get(0);
  }

  private static List<String> contents(List<MemoryCandidate> candidates) {
    return candidates.stream().map(MemoryCandidate::content).toList();
  }

  private static void assertStored(MemoryCandidate c) {
    assertTrue(c.scores().weighted() >= 7.0f, () -> c.content() + " scored " + c.scores());
  }

  // --- explicit
  // -----------------------------------------------------------------------------------

  @Test
  void aCorrectionOfATeamFactBelongsToTheWorkspaceLikeTheFact() {
    MemoryCandidate fact = only(extract("Our deploy day is Tuesday."));
    MemoryCandidate corrected = only(extract("Correction: our deploy day is now Thursday."));
    MemoryCandidate taught = only(extract("Remember: our deploy day is Tuesday."));
    assertEquals(Owner.WORKSPACE, fact.owner());
    assertEquals(Owner.WORKSPACE, taught.owner(), taught::toString);
    assertEquals(Owner.USER, only(extract("Remember that I prefer window seats.")).owner());
    assertEquals(Owner.USER, only(extract("Remember: our daughter's birthday is 3 May.")).owner());
    assertEquals(Owner.WORKSPACE, corrected.owner(), corrected::toString);
    assertEquals(Owner.USER, only(extract("Actually, my deploy window is Friday.")).owner());
  }

  @Test
  void aLoneSpeakerLineAndAnOutputSpokenByAnotherPersonAreTurnsOfAConversation() {
    List<MemoryCandidate> c =
        extract(
            "Caroline: I went to a support group yesterday and it was so powerful.",
            "Melanie: Wow! I painted a lake sunrise last year, it's my favorite painting.",
            Map.of());
    assertEquals(2, c.size(), () -> contents(c).toString());
    assertTrue(
        c.get(0).content().startsWith("Caroline went to a support group"), c.get(0)::content);
    assertTrue(c.get(1).content().startsWith("Melanie painted a lake sunrise"), c.get(1)::content);
    // A lone label that is not a name stays the user's text: "Note" is not a person.
    for (String content : contents(extract("Note: my laptop is a ThinkPad X1.", "", Map.of()))) {
      assertFalse(content.startsWith("Note's"), content);
    }
  }

  @Test
  void aSentenceWithoutItsSubjectGetsTheSpeakerAndAVerbThatAgrees() {
    List<MemoryCandidate> c =
        extract(
            "Melanie: Been running longer since my last chat - a great way to destress.",
            "",
            Map.of());
    assertEquals(1, c.size(), () -> contents(c).toString());
    assertTrue(c.get(0).content().startsWith("Melanie has been running longer"), c.get(0)::content);
  }

  @Test
  void rememberInstructionKeepsWhatToRememberAsExplicit() {
    MemoryCandidate c = only(extract("Please remember that the deploy day is Thursday."));
    assertEquals("The deploy day is Thursday.", c.content());
    assertTrue(c.explicit());
    assertTrue(c.tags().contains("explicit"));
    assertEquals(Owner.WORKSPACE, c.owner());
    assertTrue(c.reason().startsWith("rule explicit:"), c.reason());
  }

  @Test
  void rememberAboutTheUserIsTheUsersMemoryInTheThirdPerson() {
    MemoryCandidate c = only(extract("Remember: my favourite editor is vim"));
    assertEquals("The user's favourite editor is vim.", c.content());
    assertEquals(Owner.USER, c.owner());
    assertTrue(c.explicit());
    assertTrue(c.tags().contains("preference"));
  }

  @Test
  void chineseRememberInstructionIsExplicit() {
    MemoryCandidate c = only(extract("请记住：部署日是周四。"));
    assertEquals("部署日是周四。", c.content());
    assertTrue(c.explicit());
    MemoryCandidate mine = only(extract("记住我的生日是5月3日"));
    assertEquals("用户的生日是5月3日。", mine.content());
    assertEquals(Owner.USER, mine.owner());
  }

  @Test
  void sentinelTokenTaughtExplicitlyGoesToTheWorkspace() {
    MemoryCandidate c =
        only(extract("Please remember that the EasyNet sentinel is EASYNET_USER_MEMORY_9137."));
    assertEquals("The EasyNet sentinel is EASYNET_USER_MEMORY_9137.", c.content());
    assertEquals(Owner.WORKSPACE, c.owner());
    assertEquals(MemoryKind.SEMANTIC, c.kind());
  }

  // --- preferences and identity
  // -------------------------------------------------------------------

  @Test
  void preferencesAreTheUsersSemanticMemories() {
    for (String input :
        List.of(
            "I prefer tabs over spaces.",
            "I really like short answers with code samples.",
            "I don't like long meetings.",
            "My favourite language is Kotlin.")) {
      MemoryCandidate c = only(extract(input));
      assertEquals(MemoryKind.SEMANTIC, c.kind(), input);
      assertEquals(Owner.USER, c.owner(), input);
      assertTrue(c.tags().contains("preference"), input);
      assertStored(c);
    }
    assertEquals(
        "The user prefers tabs over spaces.",
        only(extract("I prefer tabs over spaces.")).content());
    assertEquals(
        "The user doesn't like long meetings.",
        only(extract("I don't like long meetings.")).content());
  }

  @Test
  void chinesePreferences() {
    MemoryCandidate c = only(extract("我喜欢川菜，不喜欢甜食。"));
    assertEquals("用户喜欢川菜，不喜欢甜食。", c.content());
    assertTrue(c.tags().contains("preference"));
    assertEquals(Owner.USER, c.owner());
    assertStored(c);
    assertTrue(only(extract("我更喜欢用深色主题。")).tags().contains("preference"));
  }

  @Test
  void identityFacts() {
    // An agent's user: one candidate per statement, so each fact dedupes and supersedes apart.
    List<MemoryCandidate> two =
        extract("My name is Alice and I work at Acme as a data engineer. I live in Berlin.");
    assertEquals(
        List.of(
            "The user's name is Alice and the user works at Acme as a data engineer.",
            "The user lives in Berlin."),
        contents(two));
    for (MemoryCandidate c : two) {
      assertTrue(c.tags().contains("identity"));
      assertEquals(MemoryKind.SEMANTIC, c.kind());
      assertStored(c);
    }
    MemoryCandidate nurse = only(extract("I'm a nurse."));
    assertEquals("The user is a nurse.", nurse.content());
    assertStored(nurse);
    MemoryCandidate zh = only(extract("我叫李雷，我在腾讯工作。"));
    assertEquals("用户叫李雷，用户在腾讯工作。", zh.content());
    assertTrue(zh.tags().contains("identity"));
    assertStored(zh);
  }

  // --- procedures
  // ---------------------------------------------------------------------------------

  @Test
  void commandsAreWorkspaceProceduresKeptVerbatim() {
    MemoryCandidate deploy = only(extract("To deploy, run `npm run deploy:prod`."));
    assertEquals("To deploy, run `npm run deploy:prod`.", deploy.content());
    assertEquals(MemoryKind.PROCEDURAL, deploy.kind());
    assertEquals(Owner.WORKSPACE, deploy.owner());
    assertTrue(deploy.tags().contains("procedure"));
    assertStored(deploy);

    MemoryCandidate before = only(extract("Always run mvn -pl core test before pushing."));
    assertEquals("Always run `mvn -pl core test` before pushing.", before.content());
    assertTrue(before.reason().contains("mvn -pl core test"), before.reason());

    MemoryCandidate rules = only(extract("Before merging, run npm run check:rules"));
    assertTrue(rules.content().contains("`npm run check:rules`"), rules.content());

    MemoryCandidate kube =
        only(extract("Restart the API with kubectl rollout restart deploy/api -n prod."));
    assertTrue(
        kube.content().contains("`kubectl rollout restart deploy/api -n prod`"), kube.content());
  }

  @Test
  void chineseProcedures() {
    MemoryCandidate c = only(extract("先运行 npm test 再提交代码。"));
    assertEquals("先运行 `npm test` 再提交代码。", c.content());
    assertEquals(MemoryKind.PROCEDURAL, c.kind());
    assertEquals(Owner.WORKSPACE, c.owner());
    MemoryCandidate steps = only(extract("发布前先跑集成测试，然后再打标签。"));
    assertEquals(MemoryKind.PROCEDURAL, steps.kind());
  }

  @Test
  void everydayWordsAreNotCommands() {
    for (MemoryCandidate c :
        extract("I just got a new bike and I make sure to ride it every day.")) {
      assertEquals(MemoryKind.EPISODIC, c.kind(), c.content());
    }
  }

  // --- corrections
  // --------------------------------------------------------------------------------

  @Test
  void correctionStatesTheCorrectedFactAndDropsTheWrongOne() {
    MemoryCandidate c = only(extract("The deploy day is Tuesday.\nNo, it's Thursday."));
    assertEquals("The deploy day is Thursday.", c.content());
    assertTrue(c.tags().contains("correction"));
    assertEquals(9f, c.scores().credibility());
    assertStored(c);

    MemoryCandidate actually =
        only(extract("Actually, the staging database is db-staging.internal:5432."));
    assertEquals("The staging database is db-staging.internal:5432.", actually.content());
    assertTrue(actually.tags().contains("correction"));
  }

  @Test
  void whatNoLongerHoldsIsWrittenInTheThirdPersonToo() {
    assertEquals(
        "The user no longer drinks coffee.", only(extract("I no longer drink coffee.")).content());
  }

  @Test
  void chineseCorrections() {
    MemoryCandidate c = only(extract("部署日是周二。不对，是周四。"));
    assertEquals("部署日是周四。", c.content());
    assertTrue(c.tags().contains("correction"));
    MemoryCandidate coffee = only(extract("其实我不喝咖啡，只喝茶。"));
    assertEquals("用户不喝咖啡，只喝茶。", coffee.content());
    assertEquals(Owner.USER, coffee.owner());
    assertTrue(coffee.tags().contains("correction"));
  }

  // --- workspace facts
  // ----------------------------------------------------------------------------

  @Test
  void canonicalTokensMakeWorkspaceFacts() {
    MemoryCandidate c =
        only(
            extract(
                "The API lives at https://api.example.com/v2 and the admin email is"
                    + " ops@example.com."));
    assertEquals(MemoryKind.SEMANTIC, c.kind());
    assertEquals(Owner.WORKSPACE, c.owner());
    assertTrue(c.tags().contains("fact"));
    assertStored(c);
    MemoryCandidate zh =
        only(extract("测试环境的地址是 https://test.example.com，令牌变量是 EASYNET_USER_MEMORY_9137。"));
    assertEquals(Owner.WORKSPACE, zh.owner());
    assertTrue(
        zh.reason().contains("https://test.example.com, EASYNET_USER_MEMORY_9137"), zh.reason());
    assertStored(zh);
    MemoryCandidate team = only(extract("We deploy on Thursday."));
    assertEquals("The team deploys on Thursday.", team.content());
    assertEquals(Owner.WORKSPACE, team.owner());
  }

  // --- small talk
  // ---------------------------------------------------------------------------------

  @Test
  void smallTalkGivesNothing() {
    for (String input :
        List.of(
            "Hi! How are you?",
            "Thanks, that's great!",
            "Sounds fun. Talk soon!",
            "Wow, that's so cool! Good luck!",
            "Reply exactly with OK.",
            "你好！谢谢！",
            "好的，没问题。",
            "太棒了！")) {
      assertEquals(List.of(), contents(extract(input)), input);
    }
  }

  @Test
  void greetingsThanksAndSignOffsWithANameAreSmallTalkInEveryVoice() {
    Map<String, String> dated = Map.of("session_date", "2023-05-08", "user_name", "Caroline");
    for (String said :
        List.of(
            "Hey Mel!",
            "Thanks, Caroline!",
            "Bye!",
            "Morning, Mel!",
            "Sure thing, Mel!",
            "Talk to you later, Caroline!",
            "Wow, Caroline!",
            "Yay, Mel!",
            "How are you doing, Caroline?",
            "I'm good, thanks! How about you?",
            "Aww, thanks so much Caroline!! That means a lot!",
            "Well see you later Caroline.",
            "Alright, see you tomorrow.",
            "Got it Mel, I'll see you soon!",
            "Sure thing Mel.",
            "Long time no chat, Mel!",
            "Haven't seen you since we last talked.",
            "Can't wait!",
            "I can't wait too.",
            "I'll keep you posted.",
            "Can't wait to catch up!",
            "Music's amazing.",
            "Bet it feels great to speak your truth.",
            "Must've taken you ages to design it.",
            "你好",
            "谢谢",
            "再见",
            "回头见！",
            "小红，改天聊～",
            "哈哈",
            "嘿，小红！",
            "谢谢你，小红！",
            "早安！",
            "好久不见！")) {
      assertEquals(List.of(), contents(extract(said, "", dated)), said);
      assertEquals(List.of(), contents(extract("Melanie: " + said, "", dated)), said);
    }
  }

  @Test
  void whatFollowsAGreetingIsKept() {
    Map<String, String> dated = Map.of("session_date", "2023-05-08", "user_name", "Caroline");
    assertEquals(
        "Caroline just got a new job at Google. (said on 8 May 2023)",
        only(extract("Long time no chat. I just got a new job at Google.", "", dated)).content());
    // A sign-off that says where and when is a plan.
    assertTrue(
        only(extract(
                "Got it, I'll see you at the pottery fair in Portland next Saturday!", "", dated))
            .content()
            .contains("pottery fair in Portland"));
    assertEquals(
        "Caroline just got a new job at Google. (said on 8 May 2023)",
        only(extract("Hey Mel! I just got a new job at Google.", "", dated)).content());
    assertEquals(
        "Caroline上周（2023年5月1日那一周）换了新工作。（说于2023年5月8日）",
        only(extract("嘿，小红！我上周换了新工作。", "", dated)).content());
    // A capitalised word before a comma is no name said to the listener when it is not one.
    assertTrue(
        contents(
                extract(
                    "John: It was an intense season. Overall, I'd say we did pretty well.",
                    "",
                    dated))
            .get(0)
            .contains("John would say"));
  }

  @Test
  void chitChatScoresBelowTheGate() {
    MemoryCandidate swamped = only(extract("I'm swamped this week."));
    assertTrue(swamped.scores().weighted() < 7.0f, () -> "scored " + swamped.scores().weighted());
    assertEquals(Validity.SHORT_TERM, swamped.validity());
    MemoryCandidate tired = only(extract("我今天有点累。"));
    assertTrue(tired.scores().weighted() < 7.0f);
  }

  @Test
  void whatOnlyHoldsNowIsShortTermButCanStillBeKept() {
    MemoryCandidate c = only(extract("I'm on call for the payments service this week."));
    assertEquals(Validity.SHORT_TERM, c.validity());
    assertEquals(3f, c.scores().timeliness());
    assertStored(c);
  }

  // --- conversations
  // ------------------------------------------------------------------------------

  @Test
  void conversationTurnNamesItsSpeakerAndDatesItsEvents() {
    List<MemoryCandidate> got =
        extract(
            "[session date: 1:56 pm on 8 May, 2023]\n"
                + "Caroline: Hey Mel! I went to a LGBTQ support group yesterday and it was so"
                + " powerful.\n"
                + "Melanie: Wow, that's cool, Caroline! What happened? Did you hear any inspiring"
                + " stories?\n"
                + "Caroline: Thanks! Talk soon!");
    MemoryCandidate c = only(got);
    assertEquals(
        "Caroline went to a LGBTQ support group yesterday (7 May 2023) and it was so powerful."
            + " (said on 8 May 2023)",
        c.content());
    assertEquals(MemoryKind.EPISODIC, c.kind());
    assertEquals(Owner.USER, c.owner());
    assertTrue(c.evidence().startsWith("Caroline: Hey Mel!"), c.evidence());
    assertTrue(c.reason().startsWith("rule event:"), c.reason());
    assertStored(c);
  }

  @Test
  void oneCandidatePerInformativeTurn() {
    List<MemoryCandidate> got =
        extract(
            "Jon: Hi Gina! I rehearsed with a small group of dancers after work. We do all kinds of"
                + " dances, from contemporary to hip-hop. Can't wait!\n"
                + "Gina: That's awesome, Jon! Your dancers must be so talented.\n"
                + "Jon: Thanks! I'm opening my own dance studio in June.",
            "",
            Map.of("session_date", "2023-01-20"));
    assertEquals(2, got.size(), () -> contents(got).toString());
    assertTrue(
        got.get(0).content().startsWith("Jon rehearsed with a small group of dancers after work."));
    assertTrue(got.get(0).content().contains("Jon and others do all kinds of dances"));
    assertEquals(
        "Jon is opening Jon's own dance studio in June (June 2023). (said on 20 January 2023)",
        got.get(1).content());
  }

  @Test
  void secondPersonBecomesTheAddressee() {
    MemoryCandidate c =
        only(
            extract(
                "Nate: Hey Joanna, what's up?\n"
                    + "Joanna: I finished your script notes and sent them to my agent yesterday.",
                "",
                Map.of("session_date", "2022-03-18")));
    assertEquals(
        "Joanna finished Nate's script notes and sent them to Joanna's agent yesterday (17 March"
            + " 2022). (said on 18 March 2022)",
        c.content());
  }

  @Test
  void relativeDatesResolveFromTheSessionDate() {
    Map<String, String> monday = Map.of("session_date", "19 June 2023"); // a Monday
    assertTrue(
        only(extract("Jon: I took a short trip to Rome last week.", "", monday))
            .content()
            .contains("last week (the week of 12 June 2023)"));
    assertTrue(
        only(extract("Jon: I'm hosting a dance competition next month.", "", monday))
            .content()
            .contains("next month (July 2023)"));
    assertTrue(
        only(extract("Jon: I'm performing at the festival this Saturday.", "", monday))
            .content()
            .contains("this Saturday (24 June 2023)"));
    assertTrue(
        only(extract("Jon: I signed the studio lease two days ago.", "", monday))
            .content()
            .contains("two days ago (17 June 2023)"));
    assertTrue(
        only(extract("Jon: I painted that sunrise last year.", "", monday))
            .content()
            .contains("last year (2022)"));
  }

  @Test
  void everyCommonFormOfTheSessionDateDatesRelativeDatesNeverTheWallClock() {
    for (String form :
        List.of(
            "1:56 pm on 8 May, 2023",
            "2023-05-08",
            "2023-05-08T13:56:00Z",
            "May 8, 2023",
            "8 May 2023 13:56",
            "Monday, May 8, 2023 1:56 PM",
            "2023年5月8日")) {
      assertEquals(
          "The user went to a pottery class yesterday (7 May 2023). (said on 8 May 2023)",
          only(extract("I went to a pottery class yesterday.", "", Map.of("session_date", form)))
              .content(),
          form);
    }
  }

  @Test
  void aTimestampLeadingTheInputDatesTheRunAndIsNoContent() {
    for (String input :
        List.of(
            "[8 May 2023] I went to a pottery class last week.",
            "[2023-05-08 13:56]\nI went to a pottery class last week.",
            "[session date: 1:56 pm on 8 May, 2023] I went to a pottery class last week.")) {
      assertEquals(
          "The user went to a pottery class last week (the week of 1 May 2023). (said on 8 May"
              + " 2023)",
          only(extract(input)).content(),
          input);
    }
    MemoryCandidate zh = only(extract("【日期：2023年5月8日】我上周去了巴黎。"));
    assertEquals("用户上周（2023年5月1日那一周）去了巴黎。（说于2023年5月8日）", zh.content());
  }

  @Test
  void theUsersNameNamesTheUserInWhatTheySaid() {
    Map<String, String> caroline =
        Map.of("user_name", "Caroline", "session_date", "1:56 pm on 8 May, 2023");
    assertEquals(
        "Caroline went to the LGBTQ support group yesterday (7 May 2023). (said on 8 May 2023)",
        only(extract("I went to the LGBTQ support group yesterday.", "", caroline)).content());
    assertEquals(
        "Caroline prefers tea over coffee.",
        only(extract("User: I prefer tea over coffee.", "", Map.of("user_name", "Caroline")))
            .content());
    assertEquals(
        "Caroline's favourite author is Ursula K. Le Guin.",
        only(extract("Remember that my favourite author is Ursula K. Le Guin.", "", caroline))
            .content());
    assertEquals(
        "小明昨天（2023年5月7日）去了巴黎。（说于2023年5月8日）",
        only(extract("我昨天去了巴黎。", "", Map.of("user_name", "小明", "session_date", "2023-05-08")))
            .content());
    // A conversation's named speakers keep their own names.
    assertTrue(
        only(extract("Melanie: I painted a lake sunrise last year.", "", caroline))
            .content()
            .startsWith("Melanie painted"));
  }

  @Test
  void aNamedUserIsReadAsAPersonOfAConversationButTeachesTheWorkspaceAsAUserDoes() {
    Map<String, String> jon = Map.of("user_name", "Jon", "session_date", "2023-01-20");
    // One record for the turn, scored as a person's turn: a mood alone stays below the gate.
    MemoryCandidate turn =
        only(
            extract(
                "I rehearsed with a small group of dancers after work. We do all kinds of dances,"
                    + " from contemporary to hip-hop.",
                "",
                jon));
    assertTrue(
        turn.content().startsWith("Jon rehearsed with a small group of dancers after work."));
    assertTrue(turn.content().contains("Jon and others do all kinds of dances"), turn.content());
    MemoryCandidate mood = only(extract("I'm feeling confident and won't give up.", "", jon));
    assertTrue(mood.scores().weighted() < 7.0f, () -> mood.content() + " " + mood.scores());
    // Commands, canonical tokens and instructions are the workspace's as in any agent run.
    MemoryCandidate db =
        only(extract("The staging database is db-staging.internal:5432.", "", jon));
    assertEquals(Owner.WORKSPACE, db.owner());
    MemoryCandidate deploy = only(extract("To deploy, run `npm run deploy:prod`.", "", jon));
    assertEquals(MemoryKind.PROCEDURAL, deploy.kind());
    assertEquals(Owner.WORKSPACE, deploy.owner());
    assertTrue(only(extract("Remember: our deploy day is Tuesday.", "", jon)).explicit());
  }

  @Test
  void anEventOfADatedSessionCarriesTheSessionsDate() {
    Map<String, String> dated = Map.of("session_date", "2023-05-08");
    assertEquals(
        "The user painted a sunrise with the user's kids. (said on 8 May 2023)",
        only(extract("I painted a sunrise with my kids.", "", dated)).content());
    assertEquals(
        "The user painted a sunrise with the user's kids.",
        only(extract("I painted a sunrise with my kids.")).content(),
        "without a session date the run's own day is no conversation's date");
    assertEquals(
        "The user prefers tea over coffee.",
        only(extract("I prefer tea over coffee.", "", dated)).content(),
        "a preference is no event");
  }

  @Test
  void withoutASessionDateTheRunsDayInItsZoneIsUsed() {
    Instant at = Instant.parse("2024-01-01T02:00:00Z");
    String input = "I went to the dentist yesterday.";
    MemoryCandidate shanghai =
        only(
            rules.extract(
                new ExtractionRequest(
                    "r",
                    input,
                    "",
                    List.of(),
                    Map.of(),
                    List.of(),
                    at,
                    ZoneId.of("Asia/Shanghai"))));
    assertEquals("The user went to the dentist yesterday (31 December 2023).", shanghai.content());
    MemoryCandidate losAngeles =
        only(
            rules.extract(
                new ExtractionRequest(
                    "r",
                    input,
                    "",
                    List.of(),
                    Map.of(),
                    List.of(),
                    at,
                    ZoneId.of("America/Los_Angeles"))));
    assertEquals(
        "The user went to the dentist yesterday (30 December 2023).", losAngeles.content());
  }

  @Test
  void chineseConversation() {
    List<MemoryCandidate> got =
        extract(
            "小明：我昨天去爬山了，风景特别好。\n小红：哇，真棒！你去的哪座山？\n小明：香山，下周我还想带我妹妹去。",
            "",
            Map.of("session_date", "2023-05-08"));
    assertEquals(2, got.size(), () -> contents(got).toString());
    assertEquals("小明昨天（2023年5月7日）去爬山了，风景特别好。（说于2023年5月8日）", got.get(0).content());
    assertTrue(got.get(1).content().contains("下周（2023年5月15日那一周）"), got.get(1).content());
    assertEquals(MemoryKind.EPISODIC, got.get(1).kind());
    assertTrue(got.get(1).tags().contains("plan"));
  }

  // --- what a turn states, however it is phrased
  // -----------------------------------------------------------------

  /** A dated conversation between two people, one {@code Speaker: text} line per turn. */
  private List<MemoryCandidate> conversation(String... lines) {
    return extract(
        "[session date: 1:56 pm on 8 May, 2023]\n" + String.join("\n", lines), "", Map.of());
  }

  private static MemoryCandidate turnOf(String speaker, List<MemoryCandidate> candidates) {
    List<MemoryCandidate> theirs =
        candidates.stream()
            .filter(c -> c.evidence().matches("(?s)" + speaker + "\\s*[:：].*"))
            .toList();
    return only(theirs);
  }

  @Test
  void tagQuestionsAndStatementsBeforeAQuestionAreKept() {
    MemoryCandidate sunflowers =
        turnOf(
            "Caroline",
            conversation(
                "Melanie: Here are the flowers from my garden.",
                "Caroline: Thanks Melanie - love the blue vase! Sunflowers mean warmth and"
                    + " happiness, right? What do flowers mean to you?"));
    assertTrue(
        sunflowers.content().contains("Sunflowers mean warmth and happiness."),
        sunflowers::content);
    assertFalse(sunflowers.content().contains("What do flowers"), sunflowers::content);

    MemoryCandidate favorite =
        turnOf(
            "Joanna",
            conversation(
                "Nate: Who's your favorite superhero?",
                "Joanna: Spider-Man has always been a favorite of mine - I mean, who doesn't"
                    + " love Peter Parker? Do you have one?"));
    assertEquals(
        "Spider-Man has always been a favorite of Joanna's. (said on 8 May 2023)",
        favorite.content());
  }

  @Test
  void chineseTagQuestionsAndStatementsBeforeAQuestionAreKept() {
    MemoryCandidate c = turnOf("小明", conversation("小红：你喜欢什么花？", "小明：向日葵代表温暖和快乐，对吧？我上周去了巴黎，你去过吗？"));
    assertEquals("向日葵代表温暖和快乐。小明上周（2023年5月1日那一周）去了巴黎。（说于2023年5月8日）", c.content());
  }

  @Test
  void questionsThatOnlyAskGiveNothing() {
    assertEquals(
        List.of(),
        conversation(
            "Nate: What do flowers mean to you? Have you seen this romantic drama?",
            "Joanna: Seen any good movies lately? For walking or running?",
            "小红：你周末去哪儿了？你去过巴黎吗？",
            "小明：那你呢，最近忙不忙？"));
  }

  @Test
  void aVerdictOnTheSpeakersOwnNewsIsKeptButNotOneOnTheListeners() {
    MemoryCandidate camping =
        turnOf(
            "John",
            conversation(
                "Maria: How was the summer?",
                "John: Max and I had a blast on our camping trip last summer. It was a really"
                    + " peaceful and awesome experience."));
    assertTrue(
        camping.content().contains("It was a really peaceful and awesome experience."),
        camping::content);
    assertStored(camping);

    MemoryCandidate meeting =
        turnOf(
            "Caroline",
            conversation(
                "Melanie: Any news?",
                "Caroline: Last Friday I went to a council meeting for adoption. It was inspiring"
                    + " and emotional - so many people wanted to create loving homes for children"
                    + " in need."));
    assertTrue(meeting.content().contains("create loving homes for children"), meeting::content);

    List<MemoryCandidate> reaction =
        conversation(
            "Melanie: Here are the kids at the beach.",
            "Caroline: The kids look so cute, Mel! I bet they bring lots of joy.");
    assertTrue(
        reaction.stream().noneMatch(c -> c.evidence().startsWith("Caroline:")),
        () -> contents(reaction).toString());
  }

  @Test
  void adviceThatNamesThingsIsKeptButNotEncouragement() {
    MemoryCandidate advice =
        turnOf(
            "Nate",
            conversation(
                "Joanna: What can I use instead of butter?",
                "Nate: You can use dairy-free margarine or coconut oil instead of butter. Good"
                    + " luck!"));
    assertEquals(
        "Joanna can use dairy-free margarine or coconut oil instead of butter. (said on 8 May"
            + " 2023)",
        advice.content());
    List<MemoryCandidate> cheer =
        conversation(
            "Jon: I signed the lease for the studio downtown yesterday.",
            "Gina: Keep it up! You got this! Your hard work will pay off.");
    assertTrue(
        cheer.stream().noneMatch(c -> c.evidence().startsWith("Gina:")),
        () -> contents(cheer).toString());
  }

  @Test
  void specificTurnsPassTheGateAndPureReactionsDoNot() {
    assertStored(
        turnOf(
            "John",
            conversation(
                "Maria: What classes does the gym offer?",
                "John: Yeah, they offer yoga, kickboxing and circuit training.")));
    assertStored(
        turnOf(
            "Nate",
            conversation(
                "Joanna: What do they eat?",
                "Nate: They eat a combination of vegetables, fruits, and insects.")));
    MemoryCandidate mood =
        turnOf(
            "Jon",
            conversation(
                "Gina: How are you?",
                "Jon: I'm feeling confident and won't give up. It's been a wild ride, but I'm"
                    + " feeling good!"));
    assertTrue(mood.scores().weighted() < 7.0f, () -> mood.content() + " " + mood.scores());
  }

  @Test
  void chineseSpecificTurnsPassTheGateAndPureReactionsDoNot() {
    assertStored(turnOf("小明", conversation("小红：周末怎么样？", "小明：我们去了动物园，看了熊猫和长颈鹿。")));
    MemoryCandidate mood = turnOf("小明", conversation("小红：周末怎么样？", "小明：我觉得很开心，也很感动。"));
    assertTrue(mood.scores().weighted() < 7.0f, () -> mood.content() + " " + mood.scores());
  }

  @Test
  void anImageTheSpeakerPresentsAsTheirsIsKept() {
    MemoryCandidate shown =
        turnOf(
            "Caroline",
            conversation(
                "Melanie: Long time no talk!",
                "Caroline: Take a look at this. [image: a photo of a painting of a sunset over a"
                    + " lake]"));
    assertEquals(
        "Caroline shared a photo of a painting of a sunset over a lake. (said on 8 May 2023)",
        shown.content());
    assertTrue(shown.reason().startsWith("rule attachment:"), shown.reason());
    assertStored(shown);
    MemoryCandidate passing =
        turnOf(
            "Jon",
            conversation(
                "Gina: See you at the opening!",
                "Jon: Cool! Can't wait to see you! [image: a photo of two women doing a handstand"
                    + " in a room]"));
    assertTrue(passing.scores().weighted() < 7.0f, () -> passing.scores().toString());
    MemoryCandidate zh = turnOf("小明", conversation("小红：最近在忙什么？", "小明：给你看看这个。[图片：一幅湖边日落的油画]"));
    assertTrue(zh.content().contains("小明分享了图片：一幅湖边日落的油画。"), zh::content);
    assertStored(zh);
  }

  @Test
  void proseAfterAToolsNameIsNoCommand() {
    MemoryCandidate poetry =
        turnOf(
            "Caroline",
            conversation(
                "Melanie: What was the event?",
                "Caroline: It was a transgender poetry reading where transgender people shared"
                    + " their stories through poetry."));
    assertFalse(poetry.content().contains("`"), poetry::content);
    assertEquals(MemoryKind.EPISODIC, poetry.kind());
    MemoryCandidate kube =
        only(extract("I prefer kubectl port-forward over exposing debug ports."));
    assertEquals(
        "The user prefers `kubectl port-forward` over exposing debug ports.", kube.content());
    MemoryCandidate flag =
        only(
            extract(
                "To restart the pods, run kubectl rollout restart deployment/billing -n staging."));
    assertTrue(
        flag.content().contains("`kubectl rollout restart deployment/billing -n staging`"),
        flag::content);
    MemoryCandidate zh = only(extract("我更喜欢用 kubectl port-forward 而不是暴露调试端口。"));
    assertEquals("用户更喜欢用 `kubectl port-forward` 而不是暴露调试端口。", zh.content());
  }

  @Test
  void aCapitalisedNounOpeningASentenceIsNoLeftOutI() {
    MemoryCandidate staging = only(extract("Staging does not reproduce it."));
    assertEquals("Staging does not reproduce it.", staging.content());
    assertEquals(Owner.WORKSPACE, staging.owner());
    for (String input :
        List.of("Something broke in the nightly build.", "Building the image takes ten minutes.")) {
      for (MemoryCandidate c : extract(input)) {
        assertFalse(c.content().contains("The user is"), c.content());
      }
    }
    // A sentence that does leave out its "I" still gets it back.
    MemoryCandidate researching =
        only(extract("Researching adoption agencies - it's been a dream for years."));
    assertTrue(researching.content().startsWith("The user is researching"), researching::content);
  }

  // --- the agent's output
  // -------------------------------------------------------------------------

  @Test
  void agentOutputKeepsOnlyWhatItStatesItself() {
    List<MemoryCandidate> echo =
        extract(
            "Please remember that the EasyNet sentinel is EASYNET_USER_MEMORY_9137.",
            "I'll remember that the EasyNet sentinel is EASYNET_USER_MEMORY_9137. Memory stored."
                + " The sentinel EASYNET_USER_MEMORY_9137 is now saved for later runs.",
            Map.of());
    assertEquals(1, echo.size(), () -> contents(echo).toString());
    assertTrue(echo.get(0).explicit());

    List<MemoryCandidate> answer =
        extract(
            "How do I run the core tests?",
            "Run `mvn -pl core test` from the repository root. Hope that helps! Anything else?",
            Map.of());
    MemoryCandidate c = only(answer);
    assertEquals("Run `mvn -pl core test` from the repository root.", c.content());
    assertEquals(MemoryKind.PROCEDURAL, c.kind());
    assertEquals(Owner.WORKSPACE, c.owner());
    assertTrue(c.reason().startsWith("rule agent-procedure:"), c.reason());
  }

  @Test
  void agentProseWithoutCommandsOrTokensIsNotKept() {
    assertEquals(
        List.of(),
        extract(
            "What is a monad?",
            "A monad is a way to chain computations. It is very useful.",
            Map.of()));
  }

  // --- contract
  // -----------------------------------------------------------------------------------

  @Test
  void everyReasonNamesTheRuleThatFired() {
    List<MemoryCandidate> all =
        extract(
            "Please remember that the deploy day is Thursday. I prefer dark mode. My name is Alice."
                + " To deploy, run `npm run deploy:prod`. Actually, the staging host is"
                + " db2.internal:5432. The sentinel is EASYNET_USER_MEMORY_9137. I went to Rome"
                + " last week.",
            "Run `make release VERSION=1.2.3` to tag.",
            Map.of());
    assertFalse(all.isEmpty());
    Set<String> fired = new TreeSet<>();
    for (MemoryCandidate c : all) {
      String rule = c.reason().replaceFirst("^rule ([a-z-]+): .*$", "$1");
      assertTrue(RulesExtractor.RULES.contains(rule), c.reason());
      fired.add(rule);
    }
    assertTrue(
        fired.containsAll(
            Set.of("explicit", "procedure", "correction", "workspace-fact", "agent-procedure")),
        fired.toString());
  }

  @Test
  void sameRequestGivesTheSameCandidates() {
    String input =
        "[session date: 8 May 2023]\n"
            + "Caroline: I went to a support group yesterday. I love painting!\n"
            + "Melanie: Cool! I'm off to go swimming with the kids. Always run npm test before"
            + " pushing.";
    List<MemoryCandidate> first = extract(input);
    List<MemoryCandidate> second =
        new RulesExtractor()
            .extract(
                new ExtractionRequest(
                    "run-2", input, "", List.of(), Map.of(), List.of(), NOW, ZoneOffset.UTC));
    assertEquals(first, second);
    assertFalse(first.isEmpty());
  }

  @Test
  void providersAreFoundByNameAndRulesRefusesSettings() {
    Map<String, ExtractorProvider> byName =
        ServiceLoader.load(ExtractorProvider.class).stream()
            .map(ServiceLoader.Provider::get)
            .collect(Collectors.toMap(ExtractorProvider::name, p -> p));
    assertTrue(byName.keySet().containsAll(Set.of("rules", "openai")), byName.keySet().toString());
    ExtractorProvider provider = byName.get("rules");
    assertTrue(
        provider.open(new Settings("extractor 'rules'", Map.of())) instanceof RulesExtractor);
    MemoryException e =
        assertThrows(
            MemoryException.class,
            () -> provider.open(new Settings("extractor 'rules'", Map.of("model", "x"))));
    assertEquals(MemoryException.Code.INVALID_ARGUMENT, e.code());
    assertTrue(e.getMessage().contains("model"), e.getMessage());
  }
}
