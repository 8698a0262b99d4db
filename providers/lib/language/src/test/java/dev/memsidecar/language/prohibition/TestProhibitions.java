package dev.memsidecar.language.prohibition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.language.TextRules;
import java.util.List;
import org.junit.jupiter.api.Test;

class TestProhibitions {
  private static final Prohibitions PROHIBITIONS =
      new Prohibitions(TextRules.standard().languages());

  private static Prohibition only(String text) {
    List<Prohibition> found = PROHIBITIONS.find(text);
    assertEquals(1, found.size(), text + " -> " + found);
    return found.get(0);
  }

  private static void assertNone(List<String> texts) {
    for (String text : texts) {
      assertEquals(List.of(), PROHIBITIONS.find(text), text);
    }
  }

  @Test
  void theSarahCaseKeepsTheRuleItsNounAndBothObjects() {
    assertEquals(
        new Prohibition(
            "Never email Sarah at sarah@example.com.",
            "email",
            "email",
            List.of("sarah@example.com", "sarah"),
            true),
        only("Never email Sarah at sarah@example.com."));
  }

  @Test
  void everyEnglishTriggerIsAProhibition() {
    assertEquals("Don't email Bob.", only("Don't email Bob.").sentence());
    assertEquals("Do not email Bob.", only("do not email Bob").sentence());
    assertEquals("NEVER email Bob.", only("NEVER email Bob!").sentence());
    Prohibition stop = only("Stop emailing Bob Smith.");
    assertEquals("email", stop.verb());
    assertEquals(List.of("bob smith"), stop.objects());
    assertEquals(
        "You must not touch /etc/passwd.", only("You must not touch /etc/passwd.").sentence());
    assertEquals("You must never deploy.", only("You must never deploy.").sentence());
    assertEquals("You mustn't deploy.", only("You mustn't deploy.").sentence());
    assertEquals(
        "We should never use the shell.", only("We should never use the shell").sentence());
    assertEquals(
        "You are not allowed to push to main.",
        only("You are not allowed to push to main.").sentence());
    Prohibition noMore = only("No more emails to Alice, ok?");
    assertEquals("No more emails to Alice.", noMore.sentence());
    assertEquals("email", noMore.noun());
    assertEquals(List.of("alice"), noMore.objects());
  }

  @Test
  void linkingWordsBeforeTheTriggerAreDroppedAndSeveralSentencesGiveSeveralRules() {
    List<Prohibition> found =
        PROHIBITIONS.find(
            "Please draft the quarterly report. And also, never email Sarah at"
                + " sarah@example.com, she left the company. Thanks! From now on please don't"
                + " use the shell and never push to main.");
    assertEquals(
        List.of(
            "Never email Sarah at sarah@example.com.",
            "Don't use the shell.",
            "Never push to main."),
        found.stream().map(Prohibition::sentence).toList());
    assertEquals(List.of("email", "shell", "git"), found.stream().map(Prohibition::noun).toList());
  }

  @Test
  void statementsIdiomsAndQuestionsAreNotProhibitions() {
    assertNone(
        List.of(
            "I never said that.",
            "Don't worry about it.",
            "Don't forget to email Bob.",
            "Never mind.",
            "Never mind, email Sarah.",
            "Don't hesitate to email Sarah.",
            "Should I never email Sarah?",
            "Bob never emails me.",
            "I don't email Sarah.",
            "She said don't email him.",
            "He told me to never use the shell.",
            "Don't be late.",
            "Don't run the tests.",
            "Don't you think we should email Sarah?",
            "Can you make sure we never email Sarah?",
            "Don't use Markdown.",
            "Stop using emojis.",
            "Don't include the appendix in the summary."));
  }

  @Test
  void chineseProhibitions() {
    assertEquals(
        new Prohibition(
            "永远不要给 sarah@example.com 的 Sarah 发邮件。",
            "发邮件",
            "email",
            List.of("sarah@example.com", "sarah"),
            true),
        only("永远不要给 sarah@example.com 的 Sarah 发邮件。"));
    assertEquals(
        new Prohibition("不要给张三发邮件。", "发邮件", "email", List.of("张三"), true), only("请不要给张三发邮件"));
    Prohibition delete = only("不要把 /etc/passwd 删掉。");
    assertEquals("delete", delete.noun());
    assertEquals(List.of("/etc/passwd"), delete.objects());
    Prohibition push = only("别推送到 main 分支。");
    assertEquals("git", push.noun());
    // Pushing to main: the branch and the act, so a checkout of main is not a push.
    assertEquals(List.of("main", "action:push"), push.objects());
    assertEquals(List.of("王五", "李四"), only("请不要联系王五和李四。").objects());
    assertEquals("shell", only("不要用终端").noun());
    List<Prohibition> two = PROHIBITIONS.find("禁止删除数据库，也不要执行 rm -rf /tmp。");
    assertEquals(
        List.of("禁止删除数据库。", "不要执行 rm -rf /tmp。"), two.stream().map(Prohibition::sentence).toList());
    assertEquals(List.of("rm -rf /tmp"), two.get(1).objects());
    assertEquals("shell", two.get(1).noun());
  }

  @Test
  void chineseIdiomsStatementsAndQuestionsAreNotProhibitions() {
    assertNone(
        List.of(
            "不要紧。",
            "别担心，我来处理。",
            "别客气！",
            "别忘了给张三发邮件。",
            "不要忘记备份。",
            "我不要咖啡。",
            "你可以给李四发邮件吗？",
            "要不要给李四发邮件？",
            "别的工具可以用。",
            "特别注意这个文件。",
            "别人不要的东西。",
            "我们不得不给张三发邮件。",
            "不得不给张三发邮件。",
            "别管了。"));
    assertEquals("禁止管理员删除数据库。", only("禁止管理员删除数据库。").sentence());
  }

  @Test
  void objectsAreAddressesNamesPathsHostsCommandsAndChannels() {
    assertEquals(
        List.of("/etc/passwd", "~/.ssh"),
        only("You must not touch /etc/passwd or ~/.ssh.").objects());
    assertEquals(
        List.of("c:/users/bob/documents"),
        only("Never delete files in C:\\Users\\bob\\Documents.").objects());
    assertEquals(
        List.of("prod.db.acme.test", "config.yaml"),
        only("Don't touch config.yaml or prod.db.acme.test.").objects());
    assertEquals(
        List.of("evil.example.com/admin", "example.org"),
        only("Never browse https://evil.example.com/admin or visit www.example.org.").objects());
    Prohibition backticks = only("Don't run `rm -rf /` on the server.");
    assertEquals(List.of("rm -rf /"), backticks.objects());
    assertEquals("shell", backticks.noun());
    Prohibition run = only("Never run git push --force to main.");
    assertEquals(List.of("git push --force"), run.objects());
    assertEquals("shell", run.noun());
    assertEquals(List.of("#general"), only("Don't send messages to #general.").objects());
    assertEquals(List.of("@bob"), only("Don't DM @bob on Slack.").objects());
    assertEquals(
        List.of("mallory"),
        only("Do not, under any circumstances, wire money to Mallory.").objects());
    assertEquals(List.of("smith"), only("Never ever email Dr. Smith.").objects());
    assertEquals(
        List.of("prod.db.acme.test"), only("Never run commands on prod.db.acme.test.").objects());
  }

  @Test
  void outsideContactANameNeedsAPrepositionOrAPossessive() {
    assertEquals(List.of("bob"), only("Don't share files with Bob.").objects());
    assertEquals(List.of("acme corp"), only("Don't touch Acme Corp's database.").objects());
    assertEquals(List.of(), only("Never use the Terminal app.").objects());
  }

  @Test
  void aBareToolProhibitionHasNoObjects() {
    Prohibition shell = only("Never use the shell.");
    assertEquals("shell", shell.noun());
    assertEquals(List.of(), shell.objects());
    assertTrue(shell.enforceable());
    Prohibition anyone = only("Never email anyone.");
    assertEquals(List.of(), anyone.objects());
    assertTrue(anyone.enforceable());
  }

  @Test
  void nounsComeFromTheVerbThenTheObjectThenWeakerWords() {
    assertEquals("message", only("Don't text Bob.").noun());
    assertEquals("message", only("Don't send messages to #general.").noun());
    assertEquals("database", only("Don't delete the production database.").noun());
    assertEquals("delete", only("Never delete files in /var/lib.").noun());
    assertEquals("deploy", only("Don't touch production.").noun());
    assertEquals("payment", only("Never pay Bob.").noun());
    assertEquals("browser", only("Never browse example.org.").noun());
    assertEquals("calendar", only("Never invite Bob.").noun());
    assertEquals("file", only("Don't touch ~/.ssh.").noun());
    assertEquals("", only("Never contact Sarah.").noun());
  }

  @Test
  void conditionsTimesUnnamedRecipientsAndQualifiersAreNotEnforceable() {
    for (String text :
        List.of(
            "You must never deploy to production on Fridays.",
            "Never email Sarah without asking me first.",
            "Don't email me after 6pm.",
            "Don't deploy today.",
            "Never pay Bob more than $100.",
            "Don't email my manager.",
            "Don't delete the production database.",
            "Don't commit secrets.",
            "先不要部署到 production。",
            "如果构建失败，不要部署。",
            "不要给我发邮件。")) {
      assertFalse(only(text).enforceable(), text);
    }
    assertEquals(
        "If the build fails, don't deploy.", only("If the build fails, don't deploy.").sentence());
    assertEquals("如果构建失败，不要部署。", only("如果构建失败，不要部署。").sentence());
    assertTrue(only("从现在起不要部署。").enforceable());
    assertTrue(only("From now on, never deploy.").enforceable());
  }

  @Test
  void aLowerCaseNameAfterAVerbOfContactIsStillAnObject() {
    assertEquals(List.of("sarah"), only("never email sarah").objects());
  }

  @Test
  void aProhibitionEndsWhereTheUserTurnsToSomethingElse() {
    Prohibition p = only("Don't email Sarah, I'll talk to Bob.");
    assertEquals("Don't email Sarah.", p.sentence());
    assertEquals(List.of("sarah"), p.objects());
    assertEquals("Don't email Sarah.", only("Don't email Sarah because Bob will.").sentence());
    assertEquals("Never post in #random.", only("Never post in #random, it's noisy.").sentence());
  }

  @Test
  void aProhibitionWithAnActKeepsTheActAsItsObject() {
    Prohibition shell = only("Don't use the shell to delete files.");
    assertEquals("shell", shell.noun());
    assertEquals(List.of("action:delete-files"), shell.objects());
    assertTrue(shell.enforceable());
    Prohibition zh = only("不要用 shell 删除文件");
    assertEquals("shell", zh.noun());
    assertEquals(List.of("action:delete-files"), zh.objects());
    assertTrue(zh.enforceable());
    assertEquals(
        List.of("action:install-packages"),
        only("Don't use the terminal to install packages.").objects());
    assertEquals(List.of("action:install-packages"), only("不要用终端安装软件包").objects());
    assertEquals("shell", only("Never install packages.").noun());
    Prohibition drop = only("Don't drop tables.");
    assertEquals("database", drop.noun());
    assertEquals(List.of("action:drop-tables"), drop.objects());
    assertTrue(drop.enforceable());
    assertEquals(List.of("action:drop-tables"), only("禁止删除数据库").objects());
    assertEquals(List.of("main", "action:push"), only("Never push to main.").objects());
    assertEquals(List.of("action:force-push"), only("Never force push.").objects());
    assertEquals(List.of("action:force-push"), only("永远不要强推").objects());
    assertEquals(
        List.of("/tmp", "action:delete-files"),
        only("Don't use the shell to delete files in /tmp.").objects());
    assertEquals(
        List.of("action:delete-files"), only("Never run commands that delete files.").objects());
    assertEquals(
        List.of("action:delete-files", "action:drop-tables"),
        only("Don't delete files or drop tables.").objects());
    assertEquals(
        List.of("sarah", "action:send-email"),
        only("Don't use the shell to email Sarah.").objects());
  }

  @Test
  void anActThatIsTheWholeToolAddsNoObject() {
    // A delete tool only deletes, a mail tool only mails: the rule binds the tool as before.
    assertEquals(List.of(), only("Never delete files.").objects());
    assertEquals(List.of("sarah"), only("Never email Sarah.").objects());
    assertEquals(List.of(), only("Never deploy.").objects());
    assertEquals(List.of(), only("不要删除文件").objects());
  }

  @Test
  void anActOrAToolNarrowedInWordsNoObjectHoldsIsNotEnforceable() {
    for (String text :
        List.of(
            "Don't use the shell to delete old files.",
            "Don't use the shell to mine bitcoin.",
            "Don't use the shell to run tests.",
            "Don't use the browser to buy anything.",
            "Never commit secrets.",
            "不要用 shell 删除旧文件",
            "不要用 shell 挖矿",
            "禁止删除生产数据库")) {
      assertFalse(only(text).enforceable(), text);
    }
    assertTrue(only("Don't use the shell.").enforceable());
    assertTrue(only("不要用终端").enforceable());
  }
}
