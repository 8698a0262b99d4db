package dev.memsidecar.language.tool;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.memsidecar.language.TextRules;
import java.util.List;
import org.junit.jupiter.api.Test;

class TestToolAliases {
  private static final ToolAliases ALIASES = new ToolAliases(TextRules.standard().languages());

  private static final List<String> TOOLS =
      List.of(
          "read_email",
          "send_email",
          "gmail_send",
          "mcp__mailgun__sendMessage",
          "bash",
          "exec",
          "exec_sql",
          "run_command",
          "delete_file",
          "delete_event",
          "write_file",
          "read_file",
          "fs_list",
          "slack_post",
          "sms",
          "deploy_service",
          "db_query",
          "fetch_url",
          "web_search",
          "calendar_create",
          "stripe_charge",
          "git_push",
          "jira_create");

  @Test
  void emailMeansTheToolsThatSendMail() {
    assertEquals(
        List.of("send_email", "gmail_send", "mcp__mailgun__sendMessage"),
        ALIASES.toolsFor("email", TOOLS));
    assertEquals(ALIASES.toolsFor("email", TOOLS), ALIASES.toolsFor("E-mail", TOOLS));
    assertEquals(ALIASES.toolsFor("email", TOOLS), ALIASES.toolsFor("邮件", TOOLS));
  }

  @Test
  void aReadingToolIsKeptWhenNothingElseMatches() {
    assertEquals(List.of("read_email"), ALIASES.toolsFor("email", List.of("read_email", "bash")));
  }

  @Test
  void shellMeansShellsButNotAnExecOfAnotherNoun() {
    assertEquals(List.of("bash", "exec", "run_command"), ALIASES.toolsFor("shell", TOOLS));
    assertEquals(ALIASES.toolsFor("shell", TOOLS), ALIASES.toolsFor("terminal", TOOLS));
  }

  @Test
  void eachNounOfTheTableFindsItsTools() {
    assertEquals(List.of("delete_file"), ALIASES.toolsFor("delete", TOOLS));
    assertEquals(
        List.of("delete_file", "write_file", "read_file", "fs_list"),
        ALIASES.toolsFor("file", TOOLS));
    assertEquals(List.of("slack_post", "sms"), ALIASES.toolsFor("message", TOOLS));
    assertEquals(List.of("deploy_service"), ALIASES.toolsFor("deploy", TOOLS));
    assertEquals(List.of("exec_sql", "db_query"), ALIASES.toolsFor("database", TOOLS));
    assertEquals(List.of("fetch_url", "web_search"), ALIASES.toolsFor("browser", TOOLS));
    assertEquals(List.of("delete_event", "calendar_create"), ALIASES.toolsFor("calendar", TOOLS));
    assertEquals(List.of("stripe_charge"), ALIASES.toolsFor("payment", TOOLS));
    assertEquals(List.of("git_push"), ALIASES.toolsFor("git", TOOLS));
    assertEquals(List.of("jira_create"), ALIASES.toolsFor("jira", TOOLS));
  }

  @Test
  void withNoMatchingToolTheDefaultOrNothing() {
    List<String> none = List.of("search_docs");
    assertEquals(List.of("send_email"), ALIASES.toolsFor("email", none));
    assertEquals(List.of("bash"), ALIASES.toolsFor("shell", none));
    assertEquals(List.of("delete_file"), ALIASES.toolsFor("delete", none));
    assertEquals(List.of(), ALIASES.toolsFor("jira", none));
    assertEquals(List.of(), ALIASES.toolsFor("", TOOLS));
    assertEquals("send_email", ALIASES.defaultTool("mail"));
    assertEquals("", ALIASES.defaultTool("jira"));
  }

  @Test
  void toolsKeepTheirSpellingAndOrderOnce() {
    assertEquals(
        List.of("SendEmail", "outlook.send"),
        ALIASES.toolsFor("email", List.of("SendEmail", "outlook.send", "sendemail", "bash")));
  }

  @Test
  void anInputMeansTheToolsItNamesOrPointsAt() {
    List<String> tools =
        List.of("fetch_url", "send_email", "read_email", "bash", "weather_api", "tool_03", "sql");
    assertEquals(
        List.of("fetch_url"), ALIASES.toolsMeant("Call fetch_url on the status page.", tools));
    assertEquals(List.of("fetch_url"), ALIASES.toolsMeant("please fetch url x", tools));
    assertEquals(
        List.of("send_email", "read_email"),
        ALIASES.toolsMeant("Email the Q3 numbers to Bob.", tools));
    assertEquals(List.of("bash"), ALIASES.toolsMeant("Open a terminal and build it.", tools));
    assertEquals(List.of("bash"), ALIASES.toolsMeant("用终端编译一下", tools));
    assertEquals(List.of("send_email", "read_email"), ALIASES.toolsMeant("给张三发邮件", tools));
    assertEquals(List.of("weather_api"), ALIASES.toolsMeant("What's the weather in Paris?", tools));
    assertEquals(List.of("sql"), ALIASES.toolsMeant("Query the orders table.", tools));
    // Nothing about a tool: no tool, and no default is added.
    assertEquals(List.of(), ALIASES.toolsMeant("How was your weekend?", tools));
    assertEquals(List.of(), ALIASES.toolsMeant("Send it with the tool.", tools));
    assertEquals(List.of(), ALIASES.toolsMeant("", tools));
  }
}
