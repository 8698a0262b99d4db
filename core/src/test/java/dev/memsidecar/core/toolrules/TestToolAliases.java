package dev.memsidecar.core.toolrules;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class TestToolAliases {
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
        ToolAliases.toolsFor("email", TOOLS));
    assertEquals(ToolAliases.toolsFor("email", TOOLS), ToolAliases.toolsFor("E-mail", TOOLS));
    assertEquals(ToolAliases.toolsFor("email", TOOLS), ToolAliases.toolsFor("邮件", TOOLS));
  }

  @Test
  void aReadingToolIsKeptWhenNothingElseMatches() {
    assertEquals(
        List.of("read_email"), ToolAliases.toolsFor("email", List.of("read_email", "bash")));
  }

  @Test
  void shellMeansShellsButNotAnExecOfAnotherNoun() {
    assertEquals(List.of("bash", "exec", "run_command"), ToolAliases.toolsFor("shell", TOOLS));
    assertEquals(ToolAliases.toolsFor("shell", TOOLS), ToolAliases.toolsFor("terminal", TOOLS));
  }

  @Test
  void eachNounOfTheTableFindsItsTools() {
    assertEquals(List.of("delete_file"), ToolAliases.toolsFor("delete", TOOLS));
    assertEquals(
        List.of("delete_file", "write_file", "read_file", "fs_list"),
        ToolAliases.toolsFor("file", TOOLS));
    assertEquals(List.of("slack_post", "sms"), ToolAliases.toolsFor("message", TOOLS));
    assertEquals(List.of("deploy_service"), ToolAliases.toolsFor("deploy", TOOLS));
    assertEquals(List.of("exec_sql", "db_query"), ToolAliases.toolsFor("database", TOOLS));
    assertEquals(List.of("fetch_url", "web_search"), ToolAliases.toolsFor("browser", TOOLS));
    assertEquals(
        List.of("delete_event", "calendar_create"), ToolAliases.toolsFor("calendar", TOOLS));
    assertEquals(List.of("stripe_charge"), ToolAliases.toolsFor("payment", TOOLS));
    assertEquals(List.of("git_push"), ToolAliases.toolsFor("git", TOOLS));
    assertEquals(List.of("jira_create"), ToolAliases.toolsFor("jira", TOOLS));
  }

  @Test
  void withNoMatchingToolTheDefaultOrNothing() {
    List<String> none = List.of("search_docs");
    assertEquals(List.of("send_email"), ToolAliases.toolsFor("email", none));
    assertEquals(List.of("bash"), ToolAliases.toolsFor("shell", none));
    assertEquals(List.of("delete_file"), ToolAliases.toolsFor("delete", none));
    assertEquals(List.of(), ToolAliases.toolsFor("jira", none));
    assertEquals(List.of(), ToolAliases.toolsFor("", TOOLS));
    assertEquals("send_email", ToolAliases.defaultTool("mail"));
    assertEquals("", ToolAliases.defaultTool("jira"));
  }

  @Test
  void toolsKeepTheirSpellingAndOrderOnce() {
    assertEquals(
        List.of("SendEmail", "outlook.send"),
        ToolAliases.toolsFor("email", List.of("SendEmail", "outlook.send", "sendemail", "bash")));
  }
}
