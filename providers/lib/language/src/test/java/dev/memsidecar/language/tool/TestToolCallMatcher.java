package dev.memsidecar.language.tool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.memsidecar.language.TextRules;
import dev.memsidecar.language.prohibition.Prohibitions;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class TestToolCallMatcher {
  private static final ToolCallMatcher MATCHER = new ToolCallMatcher();
  private static final Prohibitions PROHIBITIONS =
      new Prohibitions(TextRules.standard().languages());

  /** What the engine parses a call's arguments_json with (strict: no duplicate key, no tail). */
  private static final ObjectMapper JSON =
      JsonMapper.builder()
          .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .build();

  /** A rule as the matcher sees it: its tool and objects. */
  private record Rule(String toolName, List<String> objects) {}

  private static Rule rule(String tool, List<String> objects) {
    return new Rule(tool, objects);
  }

  private static Rule rule(List<String> objects) {
    return rule("tool", objects);
  }

  private static ToolArguments parse(String json) {
    if (json.isBlank()) {
      return ToolArguments.none();
    }
    try {
      return ToolArguments.of(JSON.readValue(json, Object.class));
    } catch (Exception e) {
      return ToolArguments.malformed(json);
    }
  }

  private static Optional<String> match(Rule rule, ToolArguments arguments) {
    return MATCHER.match(rule.toolName(), rule.objects(), arguments);
  }

  private static Optional<String> match(Rule rule, String json) {
    return match(rule, parse(json));
  }

  private static void assertHit(String object, List<String> objects, String json) {
    assertEquals(Optional.of(object), match(rule(objects), json), json);
  }

  private static void assertMiss(List<String> objects, String json) {
    assertEquals(Optional.empty(), match(rule(objects), json), json);
  }

  @Test
  void theSarahCase() {
    Rule sarah =
        rule(
            "send_email",
            PROHIBITIONS.find("Never email Sarah at sarah@example.com.").get(0).objects());
    assertEquals(
        Optional.of("sarah@example.com"),
        match(sarah, "{\"to\":\"sarah@example.com\",\"subject\":\"hi\"}"));
    assertEquals(Optional.empty(), match(sarah, "{\"to\":\"bob@example.com\"}"));
    assertEquals(
        Optional.of("sarah@example.com"),
        match(sarah, "{\"to\":[\"Bob <bob@x.io>\",\"Sarah <SARAH@example.com>\"]}"));
  }

  @Test
  void anAddressMatchesOnlyThatAddress() {
    List<String> objects = List.of("sarah@example.com");
    assertHit("sarah@example.com", objects, "{\"cc\":{\"list\":[\"mailto:Sarah@Example.com\"]}}");
    assertHit("sarah@example.com", objects, "{\"to\":\"sarah+news@example.com\"}");
    assertMiss(objects, "{\"to\":\"xsarah@example.com\"}");
    assertMiss(objects, "{\"to\":\"sarah@example.com.au\"}");
    assertMiss(objects, "{\"to\":\"sarah@example.org\"}");
  }

  @Test
  void aNameMatchesWholeWordsOutsideFreeText() {
    List<String> objects = List.of("sarah");
    assertHit("sarah", objects, "{\"to\":\"Sarah Connor\"}");
    assertHit("sarah", objects, "{\"to\":\"sarah.connor@work.io\"}");
    assertMiss(objects, "{\"to\":\"sarahjane@example.com\"}");
    assertMiss(objects, "{\"to\":\"bob@sarah.com\"}");
    assertMiss(objects, "{\"to\":\"bob@example.com\",\"subject\":\"Lunch with Sarah\"}");
    assertMiss(objects, "{\"to\":\"bob@example.com\",\"body\":\"Sarah says hi\"}");
    assertHit("bob smith", List.of("bob smith"), "{\"attendees\":[\"Bob  Smith\"]}");
    assertMiss(List.of("bob smith"), "{\"attendees\":[\"Bob Jones\",\"Ann Smith\"]}");
    assertHit("张三", List.of("张三"), "{\"to\":\"张三 <zs@x.cn>\"}");
  }

  @Test
  void aPathMatchesItselfAndWhatIsUnderIt() {
    List<String> passwd = List.of("/etc/passwd");
    assertHit("/etc/passwd", passwd, "{\"path\":\"/etc/passwd\"}");
    assertHit("/etc/passwd", passwd, "{\"command\":\"cat /etc/passwd | head\"}");
    assertHit("/etc/passwd", passwd, "{\"url\":\"file:///etc//passwd\"}");
    assertMiss(passwd, "{\"path\":\"/etc/passwd.bak\"}");
    assertMiss(passwd, "{\"path\":\"/home/x/etc/passwd\"}");
    List<String> ssh = List.of("~/.ssh");
    assertHit("~/.ssh", ssh, "{\"path\":\"~/.ssh/id_rsa\"}");
    assertHit("~/.ssh", ssh, "{\"path\":\"/home/alice/.ssh/id_rsa\"}");
    assertHit("~/.ssh", ssh, "{\"path\":\"$HOME/.ssh\"}");
    assertMiss(ssh, "{\"path\":\"/home/alice/.sshx\"}");
    assertHit(
        "c:/users/bob", List.of("c:/users/bob"), "{\"path\":\"C:\\\\Users\\\\Bob\\\\x.txt\"}");
    assertHit("config.yaml", List.of("config.yaml"), "{\"path\":\"/app/config.yaml\"}");
    assertMiss(List.of("config.yaml"), "{\"path\":\"/app/myconfig.yaml\"}");
    assertHit("/", List.of("/"), "{\"command\":\"rm -rf /\"}");
    assertMiss(List.of("/"), "{\"command\":\"rm -rf /tmp\"}");
  }

  @Test
  void aHostMatchesItselfItsSubDomainsAndUrlsOnIt() {
    List<String> db = List.of("prod.db.acme.test");
    assertHit("prod.db.acme.test", db, "{\"dsn\":\"postgres://u:p@prod.db.acme.test:5432/x\"}");
    assertHit("prod.db.acme.test", db, "{\"command\":\"ssh root@eu.prod.db.acme.test\"}");
    List<String> example = List.of("example.com");
    assertHit("example.com", example, "{\"url\":\"https://api.example.com/v1\"}");
    assertMiss(example, "{\"url\":\"https://notexample.com\"}");
    assertMiss(example, "{\"url\":\"https://example.com.evil.io\"}");
    List<String> admin = List.of("evil.example.com/admin");
    assertHit("evil.example.com/admin", admin, "{\"url\":\"https://evil.example.com/admin/x\"}");
    assertMiss(admin, "{\"url\":\"https://evil.example.com/administrator\"}");
    assertMiss(admin, "{\"url\":\"https://evil.example.com/\"}");
    assertHit("10.0.0.5", List.of("10.0.0.5"), "{\"host\":\"10.0.0.5:22\"}");
    assertMiss(List.of("10.0.0.5"), "{\"host\":\"110.0.0.5\"}");
  }

  @Test
  void aCommandMatchesItsWordsInOrderAndItsFlags() {
    List<String> rm = List.of("rm -rf /");
    assertHit("rm -rf /", rm, "{\"command\":\"rm -rf /\"}");
    assertHit("rm -rf /", rm, "{\"command\":\"cd /tmp && sudo /bin/rm -r -f /\"}");
    assertHit("rm -rf /", rm, "{\"command\":\"bash -c 'rm --recursive --force /'\"}");
    assertMiss(rm, "{\"command\":\"rm -rf /tmp/x\"}");
    assertMiss(rm, "{\"command\":\"rm -r /\"}");
    List<String> push = List.of("git push --force");
    assertHit("git push --force", push, "{\"command\":\"git push origin main --force\"}");
    assertHit("git push --force", push, "{\"argv\":[\"git\",\"push\",\"-f\"]}");
    assertMiss(push, "{\"command\":\"git push origin main\"}");
    assertMiss(push, "{\"command\":\"git log --grep push --force\"}");
  }

  @Test
  void aChannelMatchesAsWrittenOrAsTheChannelField() {
    List<String> general = List.of("#general");
    assertHit("#general", general, "{\"channel\":\"general\",\"text\":\"hi\"}");
    assertHit("#general", general, "{\"target\":\"#general\"}");
    assertMiss(general, "{\"channel\":\"#general-2\"}");
    assertMiss(general, "{\"category\":\"general\"}");
  }

  @Test
  void aRuleWithoutObjectsCoversEveryCallOfItsTool() {
    assertEquals(Optional.of("bash"), match(rule("bash", List.of()), "{\"command\":\"ls\"}"));
    assertEquals(Optional.of("bash"), match(rule("bash", List.of()), ""));
  }

  @Test
  void malformedArgumentsAreMatchedAsRawTextNeverSkipped() {
    ToolArguments garbage = parse("to: sarah@example.com, urgent");
    assertTrue(garbage.malformed());
    assertEquals(
        Optional.of("sarah@example.com"), match(rule(List.of("sarah@example.com")), garbage));
    // A second value after the first, or a repeated key, could be what the tool reads.
    assertHit(
        "sarah@example.com",
        List.of("sarah@example.com"),
        "{\"to\":\"bob@example.com\"} {\"to\":\"sarah@example.com\"}");
    assertHit(
        "sarah@example.com",
        List.of("sarah@example.com"),
        "{\"to\":\"sarah@example.com\",\"to\":\"bob@example.com\"}");
    assertFalse(parse("{\"to\":\"bob@example.com\"}").malformed());
    assertMiss(List.of("sarah@example.com"), "");
  }

  @Test
  void keysAreLookedAtToo() {
    assertHit("sarah@example.com", List.of("sarah@example.com"), "{\"sarah@example.com\":true}");
  }

  @Test
  void anExplicitKindPrefixDecidesHowAnObjectMatches() {
    assertHit("name:rm", List.of("name:rm"), "{\"to\":\"rm\"}");
    assertMiss(List.of("name:rm"), "{\"text\":\"rm\"}");
    assertHit("cmd:drop table", List.of("cmd:drop table"), "{\"text\":\"drop table users\"}");
  }

  @Test
  void oneParseServesManyRules() {
    ToolArguments call = parse("{\"to\":\"bob@example.com\",\"path\":\"/etc/passwd\"}");
    assertEquals(Optional.empty(), match(rule(List.of("sarah")), call));
    assertEquals(Optional.of("/etc/passwd"), match(rule(List.of("/etc/passwd")), call));
    assertEquals(Optional.of("bob"), match(rule(List.of("bob")), call));
  }

  @Test
  void objectsFoundInWordsMatchTheCallsTheyName() {
    Rule files = rule(PROHIBITIONS.find("Don't touch config.yaml or ~/.ssh.").get(0).objects());
    assertTrue(match(files, "{\"path\":\"/srv/app/config.yaml\"}").isPresent());
    assertTrue(match(files, "{\"path\":\"/root/.ssh/known_hosts\"}").isPresent());
    assertFalse(match(files, "{\"path\":\"/srv/app/app.yaml\"}").isPresent());
    Rule cmd = rule(PROHIBITIONS.find("Never run `git push --force`.").get(0).objects());
    assertTrue(match(cmd, "{\"command\":\"git push -f origin\"}").isPresent());
    Rule zhang = rule(PROHIBITIONS.find("不要给张三发邮件").get(0).objects());
    assertTrue(match(zhang, "{\"to\":[\"张三\"]}").isPresent());
    assertFalse(match(zhang, "{\"to\":[\"李四\"]}").isPresent());
  }
}
