package dev.memsidecar.sidecar.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.sidecar.config.ConfigLoader.Overrides;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every YAML example of the README and of {@code docs/} is read by the real configuration loader as
 * the sidecar reads it at start-up. A block fenced {@code ```yaml} must be accepted; a block fenced
 * {@code ```yaml rejected} is a deliberate counter-example and must be refused. A block holding
 * {@code kind: Memory} is a profile file ({@code config/memory/}), any other block is {@code
 * memsidecar.yaml}. A counter-example's comment may quote the message start-up fails with ({@code #
 * memsidecar.yaml: key ...}); the loader's message must then be exactly that. The token file the
 * examples name ({@code secrets/token}, and the database password {@code secrets/db-password}) is
 * made in the workspace first, as a deployment would mount it.
 */
class TestDocumentedConfig {
  private static final Path ROOT =
      Path.of(System.getProperty("basedir", "")).toAbsolutePath().resolve("..").normalize();
  private static final Pattern MESSAGE =
      Pattern.compile("#\\s*((?:memsidecar\\.yaml|config/memory/\\S+): .*)$");

  /** A fenced YAML block of a page, with whether the page says it is accepted. */
  record Example(Path page, int line, String yaml, boolean accepted) {
    String name() {
      return ROOT.relativize(page) + ":" + line + (accepted ? "" : " (rejected)");
    }

    /** The start-up messages its comments quote ({@code # memsidecar.yaml: key ...}). */
    List<String> messages() {
      return yaml.lines()
          .map(MESSAGE::matcher)
          .filter(Matcher::find)
          .map(m -> m.group(1).strip())
          .toList();
    }

    boolean isProfile() {
      return yaml.lines().anyMatch(l -> l.strip().equals("kind: Memory"));
    }
  }

  @TempDir Path scratch;

  @Test
  void theDocsHoldYamlExamples() throws IOException {
    List<Example> examples = examples();
    assertTrue(examples.size() >= 5, "only " + examples.size() + " yaml examples found");
    assertTrue(
        examples.stream().anyMatch(e -> e.page().endsWith("configuration.md") && e.isProfile()),
        "docs/configuration.md shows a Memory profile");
  }

  @TestFactory
  Stream<DynamicTest> everyYamlExampleLoads() throws IOException {
    return examples().stream()
        .map(example -> DynamicTest.dynamicTest(example.name(), () -> load(example)));
  }

  private void load(Example example) throws IOException {
    Path workspace = Files.createTempDirectory(scratch, "ws");
    Files.createDirectories(workspace.resolve("secrets"));
    Files.writeString(workspace.resolve("secrets/token"), "documented-example-token-0123\n");
    Files.writeString(workspace.resolve("secrets/db-password"), "documented-example-password\n");
    Path file =
        example.isProfile()
            ? workspace.resolve(ConfigLoader.MEMORY_DIR).resolve("example.yaml")
            : workspace.resolve(ConfigLoader.MAIN_FILE);
    Files.createDirectories(file.getParent());
    Files.writeString(file, example.yaml(), StandardCharsets.UTF_8);
    if (example.accepted()) {
      try {
        ConfigLoader.load(workspace, Map.of(), Overrides.NONE);
      } catch (ConfigException e) {
        throw new AssertionError(
            example.name() + " is refused: " + e.getMessage() + "\n" + example.yaml(), e);
      }
    } else {
      ConfigException refused =
          assertThrows(
              ConfigException.class,
              () -> ConfigLoader.load(workspace, Map.of(), Overrides.NONE),
              example.name() + " is marked rejected but loads");
      for (String said : example.messages()) {
        assertEquals(said, refused.getMessage(), example.name() + ": the message it shows");
      }
    }
  }

  private static List<Example> examples() throws IOException {
    List<Path> pages = new ArrayList<>();
    pages.add(ROOT.resolve("README.md"));
    try (Stream<Path> docs = Files.walk(ROOT.resolve("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
    }
    List<Example> examples = new ArrayList<>();
    for (Path page : pages) {
      List<String> lines = Files.readAllLines(page, StandardCharsets.UTF_8);
      for (int i = 0; i < lines.size(); i++) {
        String fence = lines.get(i).strip();
        if (!fence.equals("```yaml") && !fence.equals("```yaml rejected")) {
          continue;
        }
        int start = i + 1;
        StringBuilder yaml = new StringBuilder();
        for (i = start; i < lines.size() && !lines.get(i).strip().equals("```"); i++) {
          yaml.append(lines.get(i)).append('\n');
        }
        examples.add(new Example(page, start, yaml.toString(), fence.equals("```yaml")));
      }
    }
    return examples;
  }
}
