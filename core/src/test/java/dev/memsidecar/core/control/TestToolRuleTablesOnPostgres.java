package dev.memsidecar.core.control;

import static dev.memsidecar.core.control.ControlFixtures.ODD_TEXT;
import static dev.memsidecar.core.control.ControlFixtures.T0;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.ToolCall;
import dev.memsidecar.core.toolrules.ToolDenial;
import dev.memsidecar.core.toolrules.ToolRule;
import dev.memsidecar.core.toolrules.ToolRule.Priority;
import dev.memsidecar.core.toolrules.ToolRule.Source;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Every test of {@link TestToolRuleTables} on a real PostgreSQL 15 ({@link PostgresControl}: a new
 * database per test), except the migrations of old H2 files; and what PostgreSQL text cannot hold.
 */
class TestToolRuleTablesOnPostgres extends TestToolRuleTables {
  private final PostgresControl pg = new PostgresControl();

  @Override
  SqlControlStore openStore() {
    return pg.open();
  }

  @Override
  void databaseOfSchemaVersionOneGainsTheToolTables(Path oldDir) {}

  @Override
  void migrationCutShortIsFinishedOnTheNextOpen() {}

  /**
   * Replaces the H2 test of the same name: NUL and lone surrogates are refused, naming the field.
   */
  @Override
  @Test
  void ruleKeepsOddTextTagsAndObjectsExactly() {
    String storable = "不要 🚀 \"quoted\" \\ back\tslash\nline\u2028sep";
    ToolRule rule =
        new ToolRule(
            "r1",
            "工具",
            storable,
            Priority.HIGH,
            Source.POST_TURN,
            List.of(ODD_TEXT, ""), // tags and objects are JSON, which escapes them
            T0,
            T0,
            List.of(ODD_TEXT, "/etc/passwd"));
    store().putToolRule("acme", rule);
    assertEquals(Optional.of(rule), store().toolRule("acme", rule.toolName(), rule.id()));

    MemoryException nul =
        assertThrows(
            MemoryException.class,
            () -> store().putToolRule("acme", withText(rule, "never\u0000email")));
    assertEquals(MemoryException.Code.INVALID_ARGUMENT, nul.code());
    assertEquals("rule.rule", nul.field());
    assertTrue(nul.getMessage().contains("NUL character (U+0000) at index 5"), nul.getMessage());
    MemoryException lone =
        assertThrows(
            MemoryException.class,
            () -> store().putToolRule("acme", withText(rule, "never \uD800 email")));
    assertEquals("rule.rule", lone.field());
    assertTrue(lone.getMessage().contains("unpaired surrogate (U+D800)"), lone.getMessage());
    assertEquals(List.of(rule), store().toolRules("acme", ""));
  }

  @Test
  void statsAndDenialsKeepWhatPostgresCannotHoldAsReplacementCharacters() {
    store()
        .recordToolCalls(
            "acme", List.of(new ToolCall("bash", false, "time\u0000out", "died \uDC00 here")), T0);
    store().recordDenial("acme", new ToolDenial("r1", "bash", "rm\u0000-rf", "run-1", T0));
    assertEquals("died \uFFFD here", store().toolStats("acme", "bash").lastErrorMessage());
    assertEquals(
        List.of("time\uFFFDout"),
        List.copyOf(store().toolStats("acme", "bash").failuresByCategory().keySet()));
    assertEquals("rm\uFFFD-rf", store().denials("acme", "bash", 10).get(0).matchedObject());
  }

  private static ToolRule withText(ToolRule r, String text) {
    return new ToolRule(
        "r2",
        r.toolName(),
        text,
        r.priority(),
        r.source(),
        r.tags(),
        r.createTime(),
        r.updateTime(),
        r.objects());
  }
}
