package dev.memsidecar.core.maintenance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import org.junit.jupiter.api.Test;

class TestMarkdownCompaction {
  @Test
  void repeatedLinesAndBulletsGoAndBlankRunsShrink() {
    String file =
        "# Notes\n\n- Alice prefers dark roast\n*   Alice prefers   dark roast\n\n\n\n"
            + "Deploy on Thursdays.\n- build with `mvn -q verify`\nDeploy on Thursdays.\n\n";
    MarkdownCompaction.Result r = MarkdownCompaction.compact(file);
    assertEquals(
        "# Notes\n\n- Alice prefers dark roast\n\nDeploy on Thursdays.\n"
            + "- build with `mvn -q verify`\n",
        r.text());
    assertEquals(2, r.duplicateLines());
    assertEquals(3, r.blankLines());
  }

  @Test
  void headingsRulesCodeAndRecordMarkersStay() {
    String file =
        "## Day\n- a\n---\n## Day\n---\n```sh\nls\nls\n```\n"
            + "<!-- memsidecar:record {\"id\":\"r1\"} -->\n- a\n- a\n"
            + "<!-- memsidecar:record {\"id\":\"r2\"} -->\n- a\n";
    MarkdownCompaction.Result r = MarkdownCompaction.compact(file);
    assertEquals(
        "## Day\n- a\n---\n## Day\n---\n```sh\nls\nls\n```\n"
            + "<!-- memsidecar:record {\"id\":\"r1\"} -->\n- a\n"
            + "<!-- memsidecar:record {\"id\":\"r2\"} -->\n- a\n",
        r.text(),
        "only the repeat inside one entry goes; entries and the notes are apart");
    assertEquals(1, r.duplicateLines());
  }

  @Test
  void aCompactFileIsLeftAsItIs() {
    MarkdownCompaction.Result r = MarkdownCompaction.compact("# A\n\n- one\n- two\n");
    assertFalse(r.changed());
    assertEquals("# A\n\n- one\n- two\n", r.text());
  }
}
