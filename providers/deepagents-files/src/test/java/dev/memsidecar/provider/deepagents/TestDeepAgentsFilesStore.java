package dev.memsidecar.provider.deepagents;

import static dev.memsidecar.provider.deepagents.Fixtures.T0;
import static dev.memsidecar.provider.deepagents.Fixtures.record;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.api.Capability;
import dev.memsidecar.api.Embedder;
import dev.memsidecar.api.ListCursor;
import dev.memsidecar.api.ListQuery;
import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.MemoryException.Code;
import dev.memsidecar.api.MemoryFile;
import dev.memsidecar.api.MemoryKind;
import dev.memsidecar.api.MemoryProvider;
import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.MemoryStatus;
import dev.memsidecar.api.MemoryStore;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.api.ScoredRecord;
import dev.memsidecar.api.SearchQuery;
import dev.memsidecar.api.Validity;
import dev.memsidecar.toolkit.HashEmbedder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/**
 * What is specific to {@code deepagents-files}: the markdown layout, markers and escaping, the
 * preamble, edits made on disk, the search index across versions, the file size limit, path mapping
 * and atomic writes. {@link TestDeepAgentsFilesConformance} runs the shared suite.
 */
class TestDeepAgentsFilesStore {
  private static final Namespace NS = Namespace.of("acme:user:alice:user");

  @TempDir Path dir;
  private MemoryStore store;

  @BeforeEach
  void openStore() {
    store = Fixtures.open(dir);
  }

  @AfterEach
  void closeStore() {
    store.close();
  }

  private Path file() {
    return dir.resolve("acme/user/alice/user/workspace.md");
  }

  private String fileText() throws IOException {
    return Files.readString(file(), UTF_8);
  }

  // ---------------------------------------------------------------- the markdown

  @Test
  void recordsAreEntriesOfAHumanReadableMarkdownFile() throws IOException {
    store.put(
        record(NS, "r1", "The release gate is `npm run check:rules`.").toBuilder()
            .kind(MemoryKind.PROCEDURAL)
            .tags(List.of("ci"))
            .build());
    store.put(record(NS, "r2", "Alice prefers dark roast coffee.", T0.plusSeconds(1)));

    String expected =
        """
        # workspace memory

        <!-- memsidecar:record {"id":"r1","kind":"PROCEDURAL","status":"ACTIVE","tags":["ci"],\
        "createTime":"2025-03-01T08:00:00.123456789Z",\
        "updateTime":"2025-03-01T08:00:00.123456789Z","summary":"","confidence":1.0,\
        "gateScore":0.0,"sensitivity":"","validity":"LONG_TERM","expireTime":null,"sourceRefs":[],\
        "metadata":{},"context":"","profile":"workspace","namespace":"acme:user:alice:user"} -->
        The release gate is `npm run check:rules`.

        <!-- memsidecar:record {"id":"r2","kind":"SEMANTIC","status":"ACTIVE","tags":[],\
        "createTime":"2025-03-01T08:00:01.123456789Z",\
        "updateTime":"2025-03-01T08:00:01.123456789Z","summary":"","confidence":1.0,\
        "gateScore":0.0,"sensitivity":"","validity":"LONG_TERM","expireTime":null,"sourceRefs":[],\
        "metadata":{},"context":"","profile":"workspace","namespace":"acme:user:alice:user"} -->
        Alice prefers dark roast coffee.
        """;
    assertEquals(expected, fileText());
    assertEquals(expected, store.readFile(NS).content());
    assertEquals(MemoryFile.etagOf(expected), store.readFile(NS).etag());
  }

  @Test
  void putReplacesAnEntryInPlaceAndDeleteRemovesIt() throws IOException {
    for (String id : List.of("a", "b", "c")) {
      store.put(record(NS, id, "content of " + id));
    }
    store.put(record(NS, "b", "new content of b"));
    String text = fileText();
    int a = text.indexOf("\"id\":\"a\"");
    int b = text.indexOf("\"id\":\"b\"");
    int c = text.indexOf("\"id\":\"c\"");
    assertTrue(a < b && b < c, "b stays between a and c:\n" + text);
    assertTrue(text.contains("\nnew content of b\n"), text);
    assertFalse(text.contains("\ncontent of b\n"), text);
    assertEquals(1, text.split("\"id\":\"b\"", -1).length - 1, "one entry of b");

    assertTrue(store.delete(NS, "b"));
    text = fileText();
    assertFalse(text.contains("\"id\":\"b\""), text);
    assertFalse(text.contains("new content of b"), text);
    assertTrue(text.indexOf("\"id\":\"a\"") < text.indexOf("\"id\":\"c\""), text);
  }

  @Test
  void preambleIsKeptByteForByteByRecordWrites() throws IOException {
    String preamble = "# Notes the agent wrote\r\n\n- keep `this`  \n<!-- a plain comment -->\n\n";
    store.writeFile(NS, preamble, null);
    store.put(record(NS, "r1", "first"));
    store.put(record(NS, "r2", "second"));
    store.put(record(NS, "r1", "first, edited"));
    assertTrue(fileText().startsWith(preamble), fileText());
    store.delete(NS, "r1");
    store.delete(NS, "r2");
    assertEquals(preamble, fileText());
    assertEquals(List.of(), store.list(NS, new ListQuery(10, null, true)).records());
  }

  @Test
  void preambleWithoutFinalLineBreakGetsOneSoTheMarkerStartsALine() throws IOException {
    store.writeFile(NS, "notes", null);
    store.put(record(NS, "r1", "x"));
    assertTrue(fileText().startsWith("notes\n<!-- memsidecar:record {"), fileText());
    assertEquals("x", store.get(NS, "r1").orElseThrow().content());
  }

  @Test
  void trickyContentRoundTripsThroughPutGetAndReopen() {
    List<String> contents =
        List.of(
            "",
            "\n",
            "\n\n",
            "\n\nleading blank lines",
            "trailing blank lines\n\n",
            "ends with a line break\n",
            "  indented\n\ttabbed",
            " \t ",
            "\\backslash first\n\\\\two",
            "<!-- memsidecar:record {\"id\":\"forged\",\"createTime\":\"2025-01-01T00:00:00Z\"}"
                + " -->",
            "before\n<!-- memsidecar:record {\"id\":\"x\"} -->\nafter",
            "   <!--memsidecar:anything\n<!-- MEMSIDECAR:record -->",
            "x --> y <!-- z\n<!-- unclosed comment",
            "# heading\n\n- list\n\n```\ncode <!-- memsidecar:record {} -->\n```\n",
            "用户喜欢简洁的回答。日本語のメモ 🚀 𝔘𝔫𝔦",
            "crlf line\r\nnext\r\n",
            "\r",
            "line\u2028separator\u0085nel\u0000nul\u007fdel",
            "a\n\n\n\nb");
    List<MemoryRecord> records = new ArrayList<>();
    for (int i = 0; i < contents.size(); i++) {
      records.add(
          record(NS, "t" + i, contents.get(i), T0.plusNanos(i)).toBuilder()
              .summary("summary --> with > and <!-- and \"quotes\"")
              .context("user: a\nassistant: b\r\n-->")
              .metadata(Map.of("k>", "v-->", "键", "值\n", "", ""))
              .tags(List.of("z", "a", "标签"))
              .sourceRefs(List.of("run:1", "remember:req"))
              .confidence(i == 0 ? Float.NaN : i == 1 ? Float.NEGATIVE_INFINITY : 1f / (i + 3))
              .gateScore(Float.MIN_VALUE * i)
              .sensitivity("秘密")
              .kind(MemoryKind.values()[i % 3])
              .status(MemoryStatus.values()[i % 3])
              .validity(Validity.SHORT_TERM)
              .expireTime(T0.plusSeconds(86_400).plusNanos(1))
              .build());
    }
    records.add(
        record(NS, "extreme", "instants at the ends of time", Instant.MIN).toBuilder()
            .updateTime(Instant.MAX)
            .build());
    for (MemoryRecord r : records) {
      store.put(r);
    }
    for (MemoryRecord r : records) {
      assertEquals(Optional.of(r), store.get(NS, r.id()), "get of " + r.id());
    }
    store.close();
    store = Fixtures.open(dir);
    for (MemoryRecord r : records) {
      assertEquals(Optional.of(r), store.get(NS, r.id()), "after reopen: " + r.id());
    }
    assertEquals(records.size(), store.list(NS, new ListQuery(1000, null, true)).records().size());
  }

  @Test
  void randomPutsReplacesAndDeletesReadBackLikeAFreshParseOfTheFile() throws IOException {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    List<String> pieces =
        List.of(
            "",
            "\n",
            " ",
            "\t",
            "\r",
            "\\",
            "word",
            "用户",
            "🚀",
            "<!--",
            "-->",
            "<!-- memsidecar:record {} -->",
            "# h",
            "```",
            "\n\n",
            "  <!--memsidecar:x");
    store.writeFile(NS, "# preamble\n\nnotes\n", null);
    Map<String, MemoryRecord> model = new java.util.TreeMap<>();
    for (int step = 0; step < 300; step++) {
      String id = "r" + random.nextInt(25);
      if (random.nextInt(5) == 0) {
        assertEquals(model.remove(id) != null, store.delete(NS, id), "seed " + seed);
        continue;
      }
      StringBuilder content = new StringBuilder();
      for (int i = random.nextInt(8); i > 0; i--) {
        content.append(pieces.get(random.nextInt(pieces.size())));
      }
      MemoryRecord r =
          record(NS, id, content.toString(), T0.plusMillis(random.nextInt(1000))).toBuilder()
              .context(content.toString())
              .build();
      store.put(r);
      model.put(id, r);
    }
    for (MemoryRecord r : model.values()) {
      assertEquals(Optional.of(r), store.get(NS, r.id()), "seed " + seed);
    }
    String text = fileText();
    assertTrue(text.startsWith("# preamble\n\nnotes\n"), "seed " + seed);
    store.close();
    store = Fixtures.open(dir);
    List<MemoryRecord> listed = store.list(NS, new ListQuery(1000, null, true)).records();
    assertEquals(
        model.values().stream().sorted(ListCursor.NEWEST_FIRST).toList(), listed, "seed " + seed);
    assertEquals(text, store.readFile(NS).content(), "seed " + seed);
  }

  @Test
  void markerLookalikeLinesInContentAreEscapedWithABackslash() throws IOException {
    store.put(record(NS, "r1", "quoted:\n<!-- memsidecar:record {\"id\":\"x\"} -->"));
    assertTrue(
        fileText().contains("quoted:\n\\<!-- memsidecar:record {\"id\":\"x\"} -->\n"), fileText());
  }

  @Test
  void markerJsonNeverEndsItsCommentEarly() throws IOException {
    store.put(
        record(NS, "r1", "x").toBuilder()
            .summary("a --> b")
            .context("-->\n--!>")
            .metadata(Map.of("-->", ">"))
            .tags(List.of("->"))
            .build());
    String marker = fileText().lines().filter(l -> l.startsWith("<!--")).findFirst().orElseThrow();
    assertEquals(marker.length() - 3, marker.indexOf("-->"), marker);
    assertFalse(marker.contains(">") && marker.indexOf('>') < marker.length() - 1, marker);
  }

  @Test
  void unpairedSurrogateInContentIsRejectedAndNothingIsWritten() throws IOException {
    MemoryException put =
        assertCode(
            Code.INVALID_ARGUMENT, () -> store.put(record(NS, "r1", "bad \uD800 surrogate")));
    assertEquals("content", put.field());
    MemoryException write =
        assertCode(Code.INVALID_ARGUMENT, () -> store.writeFile(NS, "# \uDC00", null));
    assertEquals("content", write.field());
    assertFalse(Files.exists(file()));
    assertEquals(Optional.empty(), store.get(NS, "r1"));
  }

  // ---------------------------------------------------------------- edits by a person or agent

  @Test
  void aPersonEditingTheFileOnDiskIsSeenByTheNextCall() throws IOException {
    store.put(record(NS, "r1", "Alice prefers dark roast coffee."));
    store.put(record(NS, "r2", "The build uses Maven."));
    assertEquals("Alice prefers dark roast coffee.", store.get(NS, "r1").orElseThrow().content());

    // Same length, written in place within the same second: only the content tells.
    Files.writeString(file(), fileText().replace("dark roast", "pale roast"), UTF_8);
    assertEquals("Alice prefers pale roast coffee.", store.get(NS, "r1").orElseThrow().content());
    List<ScoredRecord> hits = store.search(NS, query("pale"));
    assertEquals("r1", hits.get(0).record().id());

    // A person adds an entry by hand with a minimal marker, and removes another.
    String text = fileText();
    int r2 = text.indexOf("<!-- memsidecar:record {\"id\":\"r2\"");
    text =
        text.substring(0, r2)
            + "<!-- memsidecar:record {\"id\":\"byhand\", \"createTime\":\"2025-04-01T00:00:00Z\"}"
            + " -->\nWritten by a person.\n";
    Files.writeString(file(), text, UTF_8);
    assertEquals(Optional.empty(), store.get(NS, "r2"));
    MemoryRecord byHand = store.get(NS, "byhand").orElseThrow();
    assertEquals("Written by a person.", byHand.content());
    assertEquals(Instant.parse("2025-04-01T00:00:00Z"), byHand.updateTime());
    assertEquals(Fixtures.PROFILE, byHand.profile());
    assertEquals(MemoryStatus.ACTIVE, byHand.status());
    assertEquals(
        List.of("byhand", "r1"),
        store.list(NS, new ListQuery(10, null, false)).records().stream()
            .map(MemoryRecord::id)
            .toList());

    // The store's next write keeps the person's entry as they wrote it.
    store.put(record(NS, "r3", "another"));
    assertTrue(
        fileText()
            .contains(
                "{\"id\":\"byhand\", \"createTime\":\"2025-04-01T00:00:00Z\"} -->\n"
                    + "Written by a person.\n"),
        fileText());
  }

  @Test
  void aFileDeletedOrReplacedOnDiskIsSeenByTheNextCall() throws IOException {
    store.put(record(NS, "r1", "one"));
    assertTrue(store.get(NS, "r1").isPresent());
    Files.delete(file());
    assertEquals(Optional.empty(), store.get(NS, "r1"));
    assertEquals(MemoryFile.absent(), store.readFile(NS));

    // An editor that saves by writing a new file and renaming it over the old one.
    Path saved = file().resolveSibling("editor-save.tmp");
    Files.writeString(
        saved,
        "# mine\n<!-- memsidecar:record {\"id\":\"e\",\"createTime\":\"2025-01-01T00:00:00Z\"}"
            + " -->\nfrom the editor\n",
        UTF_8);
    Files.move(saved, file(), java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    assertEquals("from the editor", store.get(NS, "e").orElseThrow().content());
  }

  @Test
  void aFileMadeMalformedOnDiskFailsRecordCallsNamingTheLineUntilFixed() throws IOException {
    store.put(record(NS, "r1", "one"));
    String good = fileText();
    Files.writeString(file(), good + "\n<!-- memsidecar:record {\"id\": broken -->\ntext\n", UTF_8);
    int badLine = (int) good.chars().filter(c -> c == '\n').count() + 2;

    MemoryException e = assertCode(Code.FAILED_PRECONDITION, () -> store.get(NS, "r1"));
    assertTrue(e.getMessage().contains("line " + badLine), e.getMessage());
    assertCode(Code.FAILED_PRECONDITION, () -> store.put(record(NS, "r2", "two")));
    assertCode(Code.FAILED_PRECONDITION, () -> store.delete(NS, "r1"));
    assertCode(Code.FAILED_PRECONDITION, () -> store.list(NS, new ListQuery(10, null, true)));

    MemoryFile broken = store.readFile(NS);
    assertTrue(broken.content().contains("broken"));
    store.writeFile(NS, good, broken.etag());
    assertEquals("one", store.get(NS, "r1").orElseThrow().content());
  }

  @Test
  void writeFileMakesTheRecordsWhateverEntriesTheNewMarkdownHolds() {
    store.put(record(NS, "r1", "Alice prefers dark roast coffee."));
    store.put(record(NS, "r2", "Bob prefers tea."));
    MemoryFile before = store.readFile(NS);

    // An agent edits r1's text and drops r2.
    String edited = before.content().replace("dark roast coffee", "green tea");
    int r2 = edited.indexOf("<!-- memsidecar:record {\"id\":\"r2\"");
    edited = edited.substring(0, r2);
    MemoryFile after = store.writeFile(NS, edited, before.etag());
    assertEquals(edited, after.content());
    assertEquals(MemoryFile.etagOf(edited), after.etag());

    MemoryRecord r1 = store.get(NS, "r1").orElseThrow();
    assertEquals("Alice prefers green tea.", r1.content());
    assertEquals(record(NS, "r1", "x").toBuilder().content(r1.content()).build(), r1);
    assertEquals(Optional.empty(), store.get(NS, "r2"));
    assertEquals("r1", store.search(NS, query("green tea")).get(0).record().id());
  }

  @Test
  void writeFileWithABadMarkerIsRefusedNamingTheLine() throws IOException {
    store.put(record(NS, "r1", "kept"));
    String before = fileText();
    // Each bad text, then what the refusal says.
    List<String> bad =
        List.of(
            "# t\n\n<!-- memsidecar:record {\"id\":\"a\" -->\nx\n",
            "line 3",
            "# t\n<!-- memsidecar:record {\"id\":\"a\",\"createTime\":\"2025-01-01T00:00:00Z\","
                + "\"tag\":[]} -->\n",
            "line 2",
            "<!-- memsidecar:record {\"createTime\":\"2025-01-01T00:00:00Z\"} -->\n",
            "line 1",
            "<!-- memsidecar:record {\"id\":\"a b\",\"createTime\":\"2025-01-01T00:00:00Z\"} -->\n",
            "line 1",
            "<!-- memsidecar:record {\"id\":\"a\",\"createTime\":\"2025-01-01T00:00:00Z\"} -->\n\n"
                + "<!-- memsidecar:record {\"id\":\"a\",\"createTime\":\"2025-01-01T00:00:00Z\"}"
                + " -->\n",
            "line 3",
            "x\n  <!-- memsidecar:recrod {} -->\n",
            "line 2",
            "<!-- memsidecar:record {\"id\":\"a\",\"createTime\":\"yesterday\"} -->\n",
            "line 1",
            "<!-- memsidecar:record {\"id\":\"a\",\"createTime\":\"2025-01-01T00:00:00Z\","
                + "\"namespace\":\"acme:user:bob:user\"} -->\n",
            "line 1",
            "# t\n\n\n<!-- memsidecar:record {\"id\":\"a\",\"id\":\"b\","
                + "\"createTime\":\"2025-01-01T00:00:00Z\"} -->\n",
            "line 4",
            "<!-- memsidecar:record {\"id\":\"a\",\"createTime\":\"2025-01-01T00:00:00Z\","
                + "\"summary\":5} -->\n",
            "key 'summary' must be a string",
            "<!-- memsidecar:record {\"id\":\"a\",\"createTime\":\"2025-01-01T00:00:00Z\","
                + "\"kind\":\"semantic\"} -->\n",
            "key 'kind' must be one of",
            "<!-- memsidecar:record {\"id\":\"a\",\"createTime\":\"2025-01-01T00:00:00Z\","
                + "\"content\":\"x\"} -->\n",
            "the content is the text below the marker",
            "<!-- memsidecar:record {\"id\":\"a\",\"createTime\":\"2025-01-01T00:00:00Z\"} x -->\n",
            "line 1");
    for (int i = 0; i < bad.size(); i += 2) {
      String text = bad.get(i);
      MemoryException refused =
          assertCode(Code.INVALID_ARGUMENT, () -> store.writeFile(NS, text, null));
      assertEquals("content", refused.field());
      assertTrue(
          refused.getMessage().contains(bad.get(i + 1)),
          "for " + text + ": " + refused.getMessage());
      assertEquals(before, fileText(), "a refused write changes nothing");
    }
    assertEquals("kept", store.get(NS, "r1").orElseThrow().content());
  }

  // ---------------------------------------------------------------- search index

  @Test
  void searchesAfterWritesAndEditsEmbedOnlyTheRecordsWhoseTextChanged() throws IOException {
    store.close();
    CountingEmbedder embedder = new CountingEmbedder();
    store = Fixtures.open(dir, embedder);
    for (int i = 0; i < 20; i++) {
      store.put(record(NS, "r" + i, "note " + i + " about topic" + i));
    }
    assertEquals("r3", store.search(NS, query("topic3")).get(0).record().id());
    assertEquals(20 + 1, embedder.calls.get(), "every record and the query");

    // The store's own writes: a new record costs one embedding; a new tag, a delete and a
    // forget cost none.
    store.put(record(NS, "r20", "note about coffee"));
    store.put(store.get(NS, "r4").orElseThrow().toBuilder().tags(List.of("tagged")).build());
    store.delete(NS, "r5");
    store.put(store.get(NS, "r6").orElseThrow().toBuilder().status(MemoryStatus.FORGOTTEN).build());
    assertEquals("r20", store.search(NS, query("coffee")).get(0).record().id());
    assertEquals("r4", store.search(NS, query("tagged")).get(0).record().id());
    for (String gone : List.of("topic5", "topic6")) {
      assertTrue(
          store.search(NS, query(gone)).stream()
              .noneMatch(h -> h.record().content().contains(gone)),
          gone);
    }
    assertEquals(21 + 1 + 4, embedder.calls.get(), "r20 and four queries");

    // A person edits one entry on disk: the re-read file embeds only that entry.
    Files.writeString(file(), fileText().replace("about topic7", "about green tea"), UTF_8);
    assertEquals("r7", store.search(NS, query("green tea")).get(0).record().id());
    assertEquals(26 + 1 + 1, embedder.calls.get(), "r7 and the query");
  }

  // ---------------------------------------------------------------- limits

  @Test
  void aFileOverOneMebibyteIsRefusedNamingItsSize() throws IOException {
    String big = "x".repeat(DeepAgentsFilesStore.MAX_FILE_BYTES + 1);
    MemoryException e = assertCode(Code.RESOURCE_EXHAUSTED, () -> store.writeFile(NS, big, null));
    assertTrue(e.getMessage().contains(Integer.toString(big.length())), e.getMessage());
    assertFalse(Files.exists(file()));

    store.put(record(NS, "r1", "small"));
    String before = fileText();
    MemoryException p =
        assertCode(
            Code.RESOURCE_EXHAUSTED,
            () -> store.put(record(NS, "r2", "y".repeat(DeepAgentsFilesStore.MAX_FILE_BYTES))));
    assertTrue(p.getMessage().contains("bytes"), p.getMessage());
    assertEquals(before, fileText());
    assertEquals(Optional.empty(), store.get(NS, "r2"));
  }

  // ---------------------------------------------------------------- paths

  @Test
  void oddNamespaceComponentsNeverEscapeTheDataDirectoryNorShareAFile() throws IOException {
    List<Namespace> odd =
        List.of(
            Namespace.of(".."),
            Namespace.of("..:..:..:etc"),
            Namespace.of(".:a"),
            Namespace.of("a/../../b"),
            Namespace.of("/abs/path"),
            Namespace.of("a:workspace.md"),
            Namespace.of("a"),
            Namespace.of("A"),
            Namespace.of("a::b"),
            Namespace.of(":"),
            Namespace.of("a:.hidden"),
            Namespace.of("x".repeat(300)),
            Namespace.of("x".repeat(299) + "y"),
            Namespace.of("a.md"),
            Namespace.of("x:.md"),
            Namespace.of("a:b.MD"));
    Set<Path> files = new HashSet<>();
    for (Namespace ns : odd) {
      store.put(record(ns, "r", "in " + ns.value()));
      Path f = ((DeepAgentsFilesStore) store).fileOf(ns);
      assertTrue(f.startsWith(dir.toAbsolutePath().normalize()), ns + " -> " + f);
      assertTrue(files.add(f), ns + " shares " + f);
    }
    for (Namespace ns : odd) {
      assertEquals("in " + ns.value(), store.get(ns, "r").orElseThrow().content(), ns.value());
      assertEquals(1, store.list(ns, new ListQuery(10, null, true)).records().size());
    }
    Path root = dir.toRealPath();
    try (Stream<Path> all = Files.walk(dir)) {
      for (Path p : all.toList()) {
        assertTrue(p.toRealPath().startsWith(root), p.toString());
        if (Files.isRegularFile(p) && !p.getFileName().toString().startsWith(".")) {
          assertTrue(p.getFileName().toString().equals("workspace.md"), p.toString());
        }
      }
    }
    assertFalse(Files.exists(dir.getParent().resolve("etc")));
    assertFalse(Files.exists(dir.resolve("b")));
  }

  @Test
  void namespaceComponentsBecomeDirectories() {
    store.put(record(NS, "r", "x"));
    assertTrue(Files.isRegularFile(file()));
    Namespace slashy = Namespace.of("acme:user:Bob:p/x");
    store.put(record(slashy, "r", "x"));
    assertTrue(
        Files.isRegularFile(dir.resolve("acme/user/%42ob/p%2Fx/workspace.md")),
        ((DeepAgentsFilesStore) store).fileOf(slashy).toString());
  }

  // ---------------------------------------------------------------- atomic writes, lifecycle

  @Test
  void strayTemporaryFilesAreRemovedOnOpen() throws IOException {
    store.put(record(NS, "r1", "x"));
    store.close();
    Path stray = file().resolveSibling(".workspace.md.tmp-0123456789abcdef");
    Files.writeString(stray, "half a file");
    Path keep = file().resolveSibling("keep.txt");
    Files.writeString(keep, "not ours");
    store = Fixtures.open(dir);
    assertFalse(Files.exists(stray));
    assertTrue(Files.exists(keep));
    assertEquals("x", store.get(NS, "r1").orElseThrow().content());
  }

  @Test
  void aSecondStoreOnTheSameDirectoryIsRefused() {
    MemoryException e = assertCode(Code.UNAVAILABLE, () -> Fixtures.open(dir));
    assertTrue(e.getMessage().contains("in use"), e.getMessage());
  }

  @Test
  void providerIsRegisteredForServiceLoaderWithRecordsAndFiles() {
    List<MemoryProvider> found =
        ServiceLoader.load(MemoryProvider.class).stream()
            .filter(p -> p.type() == DeepAgentsFilesProvider.class)
            .map(ServiceLoader.Provider::get)
            .toList();
    assertEquals(1, found.size());
    assertEquals("deepagents-files", found.get(0).name());
    assertEquals(Set.of(Capability.RECORDS, Capability.FILES), found.get(0).capabilities());
  }

  /** Counts the texts it embeds. */
  private static final class CountingEmbedder implements Embedder {
    final AtomicInteger calls = new AtomicInteger();
    private final Embedder delegate = new HashEmbedder();

    @Override
    public String name() {
      return "counting";
    }

    @Override
    public int dimensions() {
      return delegate.dimensions();
    }

    @Override
    public float[] embed(String text) {
      calls.incrementAndGet();
      return delegate.embed(text);
    }
  }

  private static SearchQuery query(String text) {
    return new SearchQuery(text, null, 10, Set.of(), List.of(), 0f, T0.plusSeconds(1));
  }

  private static MemoryException assertCode(Code code, Executable call) {
    MemoryException e = assertThrows(MemoryException.class, call);
    assertEquals(code, e.code(), e.getMessage());
    return e;
  }
}
