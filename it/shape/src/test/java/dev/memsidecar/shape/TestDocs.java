package dev.memsidecar.shape;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The README and the pages of {@code docs/} hold together: every relative link reaches a file or
 * folder of the repository and every {@code #anchor} a heading of the page it names (GitHub's
 * rules), every page is linked from the README, the README stays a front door (at most 250 lines),
 * and its test command is the one {@code .ci/run} runs.
 */
class TestDocs {
  private static final Path ROOT =
      Path.of(System.getProperty("basedir", "")).toAbsolutePath().resolve("../..").normalize();
  private static final Path README = ROOT.resolve("README.md");
  private static final int README_MAX_LINES = 250;
  private static final String TEST_COMMAND = "mvn -B verify";

  private static final Pattern LINK = Pattern.compile("(?<!!)\\[([^\\]]*)\\]\\(([^)\\s]+)\\)");
  private static final Pattern IMAGE = Pattern.compile("!\\[([^\\]]*)\\]\\(([^)\\s]+)\\)");
  private static final Pattern HEADING = Pattern.compile("^(#{1,6})\\s+(.*?)\\s*#*\\s*$");

  @Test
  void everyLinkAndAnchorResolves() throws IOException {
    List<String> broken = new ArrayList<>();
    Map<Path, Set<String>> anchors = new HashMap<>();
    int links = 0;
    for (Path page : pages()) {
      for (String target : links(read(page))) {
        links++;
        String problem = problem(page, target, anchors);
        if (problem != null) {
          broken.add(ROOT.relativize(page) + ": (" + target + ") " + problem);
        }
      }
    }
    assertTrue(links > 50, "only " + links + " links found: is the parser reading the pages?");
    if (!broken.isEmpty()) {
      fail(broken.size() + " broken links:\n  " + String.join("\n  ", broken));
    }
  }

  @Test
  void everyDocsPageIsLinkedFromTheReadme() throws IOException {
    Set<Path> linked = new LinkedHashSet<>();
    for (String target : links(read(README))) {
      String path = target.split("#", 2)[0];
      if (!path.isEmpty() && !isExternal(path)) {
        linked.add(ROOT.resolve(path).normalize());
      }
    }
    List<String> orphans =
        pages().stream()
            .filter(p -> !p.equals(README) && !linked.contains(p))
            .map(p -> ROOT.relativize(p).toString())
            .toList();
    assertEquals(List.of(), orphans, "docs pages the README does not link");
  }

  @Test
  void everyDocsPageHasOneTitle() throws IOException {
    for (Path page : pages()) {
      long titles = headings(read(page)).stream().filter(h -> h.level() == 1).count();
      assertEquals(1, titles, ROOT.relativize(page) + " should have exactly one # title");
    }
  }

  @Test
  void theReadmeIsAFrontDoor() throws IOException {
    int lines = read(README).split("\n", -1).length;
    assertTrue(lines <= README_MAX_LINES, "README.md has " + lines + " lines, at most 250");
  }

  @Test
  void theReadmeTestCommandIsTheOneCiRuns() throws IOException {
    List<String> blocks = shellBlocks(read(README));
    assertTrue(
        blocks.contains(TEST_COMMAND),
        "the README's test command block should be exactly `" + TEST_COMMAND + "`: " + blocks);
    assertTrue(
        blocks.stream().anyMatch(b -> b.endsWith("sidecar/bin/memsidecar serve")),
        "the README's run command starts the launcher: " + blocks);
    List<String> ci = Files.readAllLines(ROOT.resolve(".ci/run"), StandardCharsets.UTF_8);
    assertTrue(
        ci.stream().map(String::strip).anyMatch(TEST_COMMAND::equals),
        ".ci/run should run the README's test command, " + TEST_COMMAND);
  }

  /** Why {@code target}, linked from {@code page}, does not resolve; {@code null} when it does. */
  private static String problem(Path page, String target, Map<Path, Set<String>> anchors)
      throws IOException {
    if (isExternal(target)) {
      return null;
    }
    String[] parts = target.split("#", 2);
    Path file = parts[0].isEmpty() ? page : page.getParent().resolve(parts[0]).normalize();
    if (!file.startsWith(ROOT)) {
      return "points outside the repository";
    }
    if (!Files.exists(file)) {
      return "no such file or folder: " + ROOT.relativize(file);
    }
    if (parts.length == 1) {
      return null;
    }
    if (!file.getFileName().toString().endsWith(".md")) {
      return "an anchor into a file that is not markdown";
    }
    Set<String> known = anchors.computeIfAbsent(file, TestDocs::anchorsOf);
    return known.contains(parts[1]) ? null : "no heading with the anchor #" + parts[1];
  }

  private static boolean isExternal(String target) {
    return target.startsWith("http://")
        || target.startsWith("https://")
        || target.startsWith("mailto:");
  }

  /** README.md and every markdown page under docs/. */
  private static List<Path> pages() throws IOException {
    List<Path> pages = new ArrayList<>();
    pages.add(README);
    try (Stream<Path> docs = Files.walk(ROOT.resolve("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
    }
    return pages;
  }

  private static String read(Path file) throws IOException {
    return Files.readString(file, StandardCharsets.UTF_8);
  }

  /** The link targets of the prose of {@code markdown}: not in code blocks or code spans. */
  static List<String> links(String markdown) {
    String prose = withoutCodeSpans(String.join("\n", proseLines(markdown)));
    List<String> targets = new ArrayList<>();
    for (Pattern p : List.of(LINK, IMAGE)) {
      Matcher m = p.matcher(prose);
      while (m.find()) {
        targets.add(m.group(2));
      }
    }
    return targets;
  }

  /** The lines outside fenced code blocks (a blank line stands in for each line inside one). */
  private static List<String> proseLines(String markdown) {
    List<String> lines = new ArrayList<>();
    boolean fenced = false;
    for (String line : markdown.split("\n", -1)) {
      if (line.strip().startsWith("```")) {
        fenced = !fenced;
        lines.add("");
      } else {
        lines.add(fenced ? "" : line);
      }
    }
    return lines;
  }

  private static String withoutCodeSpans(String text) {
    return text.replaceAll("(?s)``.+?``", "``").replaceAll("(?s)`[^`]+`", "``");
  }

  /** The body of every ```sh block, stripped. */
  private static List<String> shellBlocks(String markdown) {
    List<String> blocks = new ArrayList<>();
    StringBuilder block = null;
    for (String line : markdown.split("\n", -1)) {
      if (block == null && line.strip().equals("```sh")) {
        block = new StringBuilder();
      } else if (block != null && line.strip().equals("```")) {
        blocks.add(block.toString().strip());
        block = null;
      } else if (block != null) {
        block.append(line).append('\n');
      }
    }
    return blocks;
  }

  record Heading(int level, String text) {}

  private static List<Heading> headings(String markdown) {
    List<Heading> headings = new ArrayList<>();
    for (String line : proseLines(markdown)) {
      Matcher m = HEADING.matcher(line);
      if (m.matches()) {
        headings.add(new Heading(m.group(1).length(), m.group(2)));
      }
    }
    return headings;
  }

  /** The anchors GitHub gives the headings of {@code file}, duplicates numbered -1, -2, .... */
  private static Set<String> anchorsOf(Path file) {
    String markdown;
    try {
      markdown = read(file);
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + file, e);
    }
    Set<String> anchors = new LinkedHashSet<>();
    Map<String, Integer> seen = new HashMap<>();
    for (Heading h : headings(markdown)) {
      String slug = slug(h.text());
      int n = seen.merge(slug, 1, Integer::sum) - 1;
      anchors.add(n == 0 ? slug : slug + "-" + n);
    }
    return anchors;
  }

  /**
   * GitHub's anchor of a heading (github-slugger): the rendered text in lower case, without
   * punctuation and symbols but {@code -} and {@code _}, spaces turned into {@code -}.
   */
  static String slug(String heading) {
    String text =
        heading
            .replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1")
            .replace("`", "")
            .replace("*", "")
            .toLowerCase(Locale.ROOT);
    return text.replaceAll("[^\\p{L}\\p{N}\\p{M}\\p{Pc}\\- ]", "").replace(' ', '-');
  }

  @Test
  void slugsFollowGithub() {
    assertEquals("the-agents-two-calls", slug("The agent's two calls"));
    assertEquals(
        "curated-memory-memorymd-and-usermd", slug("Curated memory: MEMORY.md and USER.md"));
    assertEquals(
        "any-language-no-generated-code-buf-curl",
        slug("Any language, no generated code: `buf curl`"));
    assertEquals("an-agent-loop-in-python-grpcio", slug("An agent loop in Python (grpcio)"));
    assertEquals("beginrun-endrun-and-tool-rules", slug("BeginRun, EndRun and tool rules"));
  }
}
