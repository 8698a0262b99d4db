package dev.memsidecar.language.extraction;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class TestWorkspaceTokens {
  @Test
  void everyFormIsFound() {
    assertEquals(List.of("DATABASE_URL"), WorkspaceTokens.of("Set DATABASE_URL first."));
    assertEquals(List.of("PG15"), WorkspaceTokens.of("We run PG15 in staging"));
    assertEquals(
        List.of("https://ci.example.com/build"),
        WorkspaceTokens.of("See https://ci.example.com/build."));
    assertEquals(List.of("ops@example.com"), WorkspaceTokens.of("Mail ops@example.com today"));
    assertEquals(List.of("db.internal:5432"), WorkspaceTokens.of("It listens on db.internal:5432"));
    assertEquals(List.of("api.example.com"), WorkspaceTokens.of("The host is api.example.com."));
    assertEquals(List.of("1.2.3"), WorkspaceTokens.of("We pinned 1.2.3"));
    assertEquals(List.of("v2"), WorkspaceTokens.of("Use the v2 endpoint"));
    assertEquals(
        List.of("/etc/memsidecar/config"), WorkspaceTokens.of("in /etc/memsidecar/config"));
    assertEquals(List.of("deploy/values.yaml"), WorkspaceTokens.of("Edit deploy/values.yaml"));
    assertEquals(List.of("port 8080"), WorkspaceTokens.of("The API runs on port 8080."));
    assertEquals(List.of("端口 8080"), WorkspaceTokens.of("服务在端口 8080 上"));
  }

  @Test
  void aSentenceOfAConversationHasNone() {
    assertEquals(List.of(), WorkspaceTokens.of("I went to a LGBTQ support group yesterday."));
    assertEquals(List.of(), WorkspaceTokens.of("Thanks, Mel! See you soon. It was great."));
    assertEquals(List.of(), WorkspaceTokens.of("我上周换了新工作。"));
    assertEquals(List.of(), WorkspaceTokens.of(""));
  }
}
