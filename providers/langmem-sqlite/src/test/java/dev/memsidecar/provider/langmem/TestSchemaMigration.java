package dev.memsidecar.provider.langmem;

import static dev.memsidecar.provider.langmem.Fixtures.T0;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.memsidecar.api.ListQuery;
import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.MemoryStatus;
import dev.memsidecar.api.MemoryStore;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.api.SearchQuery;
import dev.memsidecar.api.Validity;
import dev.memsidecar.toolkit.HashEmbedder;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A data folder written by any release of the hand-written versioning opens with the descending
 * listing index of version 4 and the same records and the same search results, every vector made by
 * the embedder it opens with: the release before binary vectors (schema version 1: vectors as JSON
 * text), the one before embedder names (version 2), the one before the descending index (version
 * 3), and the last one (version 4), whose tables Flyway takes over as they are (then adding the
 * change log of version 5). Each test builds such a database with SQL the way that release did: its
 * DDL, and rows bound as its {@code RecordRows.bind} and {@code Json} encoders wrote them.
 */
class TestSchemaMigration {
  private static final Namespace ALICE = Namespace.of("acme:user:alice:user");
  private static final Namespace BOB = Namespace.of("acme:user:bob:user");
  private static final HashEmbedder EMBEDDER = new HashEmbedder();
  private static final Set<String> VECTOR_COLUMNS =
      Set.of("namespace", "record_id", "dimensions", "embedding", "embedder");

  /** Version 1's tables, as its {@code Schema.createVersion1} made them on H2. */
  private static final List<String> VERSION_1_DDL =
      List.of(
          "CREATE TABLE langmem_schema (id INTEGER NOT NULL PRIMARY KEY, version INTEGER NOT NULL)",
          "CREATE TABLE memory_records (namespace VARCHAR(300) NOT NULL, id VARCHAR(64) NOT NULL,"
              + " profile CHARACTER VARYING NOT NULL, kind VARCHAR(32) NOT NULL,"
              + " scope CHARACTER VARYING NOT NULL, status VARCHAR(32) NOT NULL,"
              + " content CHARACTER VARYING NOT NULL, summary CHARACTER VARYING NOT NULL,"
              + " context CHARACTER VARYING NOT NULL, confidence REAL NOT NULL,"
              + " tags_json CHARACTER VARYING NOT NULL, sensitivity CHARACTER VARYING NOT NULL,"
              + " metadata_json CHARACTER VARYING NOT NULL, created_at BIGINT NOT NULL,"
              + " updated_at BIGINT NOT NULL, gate_score REAL NOT NULL,"
              + " source_refs_json CHARACTER VARYING NOT NULL, validity VARCHAR(32) NOT NULL,"
              + " expire_at BIGINT, PRIMARY KEY (namespace, id))",
          "CREATE INDEX memory_records_by_created ON memory_records (namespace, created_at, id)",
          "CREATE TABLE memory_vectors (namespace VARCHAR(300) NOT NULL,"
              + " record_id VARCHAR(64) NOT NULL, dimensions INTEGER NOT NULL,"
              + " embedding_json CHARACTER VARYING NOT NULL, PRIMARY KEY (namespace, record_id))",
          "INSERT INTO langmem_schema (id, version) VALUES (1, 1)");

  /** Version 2's tables, as its {@code Schema.createTables} made them on H2. */
  private static final List<String> VERSION_2_DDL =
      List.of(
          VERSION_1_DDL.get(0),
          VERSION_1_DDL.get(1),
          VERSION_1_DDL.get(2),
          "CREATE TABLE memory_vectors (namespace VARCHAR(300) NOT NULL,"
              + " record_id VARCHAR(64) NOT NULL, dimensions INTEGER NOT NULL,"
              + " embedding BINARY VARYING, PRIMARY KEY (namespace, record_id))",
          "INSERT INTO langmem_schema (id, version) VALUES (1, 2)");

  /** The embedder table of versions 3 and 4, as their {@code Schema.addEmbedderNames} made it. */
  private static final String EMBEDDER_DDL =
      "CREATE TABLE langmem_embedder (id INTEGER NOT NULL PRIMARY KEY,"
          + " name VARCHAR(64) NOT NULL, dimensions INTEGER NOT NULL)";

  /** Version 3's tables, as its {@code Schema.createTables} made them on H2. */
  private static final List<String> VERSION_3_DDL =
      List.of(
          VERSION_1_DDL.get(0),
          VERSION_1_DDL.get(1),
          VERSION_1_DDL.get(2),
          "CREATE TABLE memory_vectors (namespace VARCHAR(300) NOT NULL,"
              + " record_id VARCHAR(64) NOT NULL, dimensions INTEGER NOT NULL,"
              + " embedding BINARY VARYING, embedder VARCHAR(64),"
              + " PRIMARY KEY (namespace, record_id))",
          EMBEDDER_DDL,
          "INSERT INTO langmem_schema (id, version) VALUES (1, 3)");

  /**
   * Version 4's tables, as its {@code Schema.createTables} made them on H2: the last release of the
   * hand-written versioning.
   */
  private static final List<String> VERSION_4_DDL =
      List.of(
          VERSION_1_DDL.get(0),
          VERSION_1_DDL.get(1),
          "CREATE INDEX memory_records_by_created_desc ON memory_records"
              + " (namespace, created_at DESC, id DESC)",
          VERSION_3_DDL.get(3),
          EMBEDDER_DDL,
          "INSERT INTO langmem_schema (id, version) VALUES (1, 4)");

  /**
   * A record whose JSON columns need escapes, and those columns exactly as version 1's {@code Json}
   * encoder wrote them (lower-case {@code \\u} escapes, unpaired surrogates escaped, other
   * characters as themselves, map keys sorted).
   */
  private static final MemoryRecord TRICKY =
      MemoryRecord.builder()
          .namespace(ALICE)
          .id("tricky")
          .profile("workspace")
          .content("Run \"npm run build\" before release;\nthen C:\\tools\\ship.exe — 发布前先构建")
          .summary("build before release")
          .context("user: how do we ship?\nassistant: like this")
          .confidence(0.87f)
          .tags(
              List.of(
                  "say \"hi\"",
                  "back\\slash",
                  "line1\nline2\ttab",
                  "bell\u0007",
                  "lone \ud800 high",
                  "发布",
                  "emoji \ud83d\ude00"))
          .sensitivity("internal")
          .metadata(
              Map.of(
                  "source",
                  "run-42",
                  "quote\"key",
                  "back\\slash\nvalue",
                  "空",
                  "",
                  "ctl",
                  "\u0001\u001f"))
          .times(Instant.parse("2025-02-03T04:05:06.123456789Z"))
          .updateTime(Instant.parse("2025-02-04T04:05:06.000000001Z"))
          .gateScore(7.25f)
          .sourceRefs(List.of("run:42", "remember:req-1"))
          .validity(Validity.SHORT_TERM)
          .expireTime(Instant.parse("2026-01-01T00:00:00.5Z"))
          .build();

  private static final String TRICKY_TAGS =
      "[\"say \\\"hi\\\"\",\"back\\\\slash\",\"line1\\nline2\\ttab\",\"bell\\u0007\","
          + "\"lone \\ud800 high\",\"\u53d1\u5e03\",\"emoji \ud83d\ude00\"]";
  private static final String TRICKY_METADATA =
      "{\"ctl\":\"\\u0001\\u001f\",\"quote\\\"key\":\"back\\\\slash\\nvalue\","
          + "\"source\":\"run-42\",\"\u7a7a\":\"\"}";
  private static final String TRICKY_SOURCE_REFS = "[\"run:42\",\"remember:req-1\"]";

  private static final Pattern NEEDS_NO_ESCAPE = Pattern.compile("[A-Za-z0-9 :._-]*");
  private static final String[] WORDS = {
    "deploy",
    "pipeline",
    "kafka",
    "consumer",
    "postgres",
    "vacuum",
    "cluster",
    "staging",
    "release",
    "notes",
    "grafana",
    "token",
    "rotate",
    "incident",
    "review",
    "cache",
    "config",
    "lint",
    "gradle",
    "coffee",
    "terraform",
    "bucket",
    "nightly",
    "alerts",
    "backup",
    "quota"
  };
  private static final List<String> QUERIES =
      List.of(
          "rotate the grafana token",
          "kafka consumer alerts",
          "npm build release",
          "发布",
          "backup quota nightly postgres");

  @TempDir Path dir;

  @Test
  void aVersionOneDatabaseOpensWithTheSameRecordsAndSearchResults() throws SQLException {
    List<MemoryRecord> records = records(ALICE, 2 * Schema.MIGRATION_BATCH + 7, 1);
    records.addAll(records(BOB, 5, 2));
    MemoryRecord forgotten =
        Fixtures.record(ALICE, "forgotten", "grafana token forgotten").toBuilder()
            .status(MemoryStatus.FORGOTTEN)
            .build();
    MemoryRecord unreadable = Fixtures.record(ALICE, "unreadable", "grafana vector unreadable");
    MemoryRecord otherEmbedder = Fixtures.record(ALICE, "other", "grafana from another embedder");
    float[] otherVector = new HashEmbedder(64).embed(otherEmbedder.indexedText());
    try (Connection c = versionOneDatabase()) {
      for (MemoryRecord r : records) {
        insertAsVersionOne(c, r);
      }
      insertAsVersionOne(
          c, TRICKY, TRICKY_TAGS, TRICKY_METADATA, TRICKY_SOURCE_REFS, jsonOf(vectorOf(TRICKY)));
      insertAsVersionOne(c, forgotten, "[]", "{}", "[]", null);
      insertAsVersionOne(c, unreadable, "[]", "{}", "[]", "[0.5,oops");
      insertAsVersionOne(c, otherEmbedder, "[]", "{}", "[]", jsonOf(otherVector));
    }
    records.addAll(List.of(TRICKY, forgotten, unreadable, otherEmbedder));

    opensLikeANewStoreOf(records);

    try (Connection c = Fixtures.connect(dir)) {
      assertEquals(Schema.VERSION, version(c));
      assertEquals(VECTOR_COLUMNS, columns(c, "memory_vectors"));
      Map<String, byte[]> stored = storedVectors(c);
      assertEquals(records.size() - 1, stored.size(), "one vector per active record");
      // Which embedder made a version-1 vector is not known: each is embedded again, the
      // unreadable one and the other embedder's too.
      for (MemoryRecord r : records) {
        if (r == forgotten) {
          continue;
        }
        assertArrayEquals(
            storedVectorOf(r),
            VectorBytes.decode(stored.get(key(r)), EMBEDDER.dimensions()),
            r.id());
      }
      assertEquals(Set.of(EMBEDDER.name()), embedderNames(c));
      assertEquals(Set.of(Schema.LISTING_INDEX), recordIndexes(c));
    }
  }

  @Test
  void anInterruptedMigrationCarriesOnWhenOpenedAgain() throws SQLException {
    List<String> crashPoints = List.of("column added", "half converted", "json column dropped");
    for (String crashPoint : crashPoints) {
      Path data = dir.resolve(crashPoint.replace(' ', '-'));
      List<MemoryRecord> records = records(ALICE, 40, 3);
      try (Connection c = versionOneDatabase(data)) {
        for (MemoryRecord r : records) {
          insertAsVersionOne(c, r);
        }
        crashDuringMigration(c, crashPoint, records);
        assertEquals(1, version(c), crashPoint);
      }

      try (MemoryStore migrated = Fixtures.open(data);
          MemoryStore reference = reference(records)) {
        for (MemoryRecord r : records) {
          assertEquals(r, migrated.get(ALICE, r.id()).orElseThrow(), crashPoint);
        }
        for (String q : QUERIES) {
          SearchQuery query = new SearchQuery(q, null, 10, Set.of(), List.of(), 0f, T0);
          assertEquals(reference.search(ALICE, query), migrated.search(ALICE, query), crashPoint);
        }
      }
      try (Connection c = Fixtures.connect(data)) {
        assertEquals(Schema.VERSION, version(c), crashPoint);
        assertEquals(VECTOR_COLUMNS, columns(c, "memory_vectors"), crashPoint);
        Map<String, byte[]> stored = storedVectors(c);
        for (MemoryRecord r : records) {
          assertArrayEquals(
              storedVectorOf(r),
              VectorBytes.decode(stored.get(key(r)), EMBEDDER.dimensions()),
              crashPoint);
        }
      }
    }
  }

  @Test
  void aVersionTwoDatabaseOpensWithEveryVectorMadeAgainByItsEmbedder() throws SQLException {
    // Written with a model of the same length as the hash embedder: only the names tell them apart.
    Fixtures.ModelEmbedder model = new Fixtures.ModelEmbedder("some-model");
    List<MemoryRecord> records = records(ALICE, 2 * Reembedding.BATCH + 5, 4);
    records.addAll(records(BOB, 3, 5));
    MemoryRecord forgotten =
        Fixtures.record(BOB, "forgotten", "grafana token forgotten").toBuilder()
            .status(MemoryStatus.FORGOTTEN)
            .build();
    try (Connection c = versionTwoDatabase(dir)) {
      for (MemoryRecord r : records) {
        insertAsVersionTwo(c, r, model.embed(r.indexedText()));
      }
      insertAsVersionTwo(c, forgotten, null);
    }
    records.add(forgotten);

    opensLikeANewStoreOf(records);

    try (Connection c = Fixtures.connect(dir)) {
      assertEquals(Schema.VERSION, version(c));
      assertEquals(VECTOR_COLUMNS, columns(c, "memory_vectors"));
      Map<String, byte[]> stored = storedVectors(c);
      assertEquals(records.size() - 1, stored.size(), "one vector per active record");
      for (MemoryRecord r : records) {
        if (r != forgotten) {
          assertArrayEquals(
              storedVectorOf(r),
              VectorBytes.decode(stored.get(key(r)), EMBEDDER.dimensions()),
              r.id());
        }
      }
      assertEquals(Set.of(EMBEDDER.name()), embedderNames(c));
      assertEquals(EMBEDDER.name() + " " + EMBEDDER.dimensions(), embedderRow(c));
      assertEquals(Set.of(Schema.LISTING_INDEX), recordIndexes(c));
    }
  }

  @Test
  void aVersionThreeDatabaseOpensWithItsVectorsAndTheNewestFirstIndex() throws SQLException {
    opensWithItsVectors(VERSION_3_DDL, List.of("3 BASELINE", "4 SQL", "5 SQL"));
  }

  @Test
  void aVersionFourDatabaseIsTakenOverAsItIsAndGetsTheChangeLog() throws SQLException {
    opensWithItsVectors(VERSION_4_DDL, List.of("4 BASELINE", "5 SQL"));
  }

  /**
   * A database of {@code ddl} (version 3 or 4: vectors with the embedder's name, the embedder table
   * naming it) opens with the same records, search results and stored vectors (none embedded
   * again), the newest-first listing index only, and {@code history} in Flyway's table.
   */
  private void opensWithItsVectors(List<String> ddl, List<String> history) throws SQLException {
    List<MemoryRecord> records = records(ALICE, 2 * Reembedding.BATCH + 3, 7);
    records.addAll(records(BOB, 4, 8));
    MemoryRecord forgotten =
        Fixtures.record(BOB, "forgotten", "grafana token forgotten").toBuilder()
            .status(MemoryStatus.FORGOTTEN)
            .build();
    Map<String, byte[]> written = new HashMap<>();
    try (Connection c = Fixtures.connect(dir)) {
      try (Statement st = c.createStatement()) {
        for (String sql : ddl) {
          st.execute(sql);
        }
        st.execute(
            "INSERT INTO langmem_embedder (id, name, dimensions) VALUES (1, '"
                + EMBEDDER.name()
                + "', "
                + EMBEDDER.dimensions()
                + ")");
      }
      // float32, as those releases wrote, of floats float16 holds exactly: read as they are, they
      // rank as the reference store's (float16) do, to the bit.
      for (MemoryRecord r : records) {
        insertAsVersionTwo(c, r, storedVectorOf(r));
      }
      insertAsVersionTwo(c, forgotten, null);
      try (Statement st = c.createStatement()) {
        st.executeUpdate("UPDATE memory_vectors SET embedder = '" + EMBEDDER.name() + "'");
      }
      written.putAll(storedVectors(c));
    }
    records.add(forgotten);

    // Its float32 vectors are read as they are, not converted or embedded again.
    opensLikeANewStoreOf(records);

    try (Connection c = Fixtures.connect(dir)) {
      assertEquals(Schema.VERSION, version(c));
      assertEquals(VECTOR_COLUMNS, columns(c, "memory_vectors"));
      Map<String, byte[]> stored = storedVectors(c);
      assertEquals(written.keySet(), stored.keySet());
      for (Map.Entry<String, byte[]> e : written.entrySet()) {
        assertArrayEquals(e.getValue(), stored.get(e.getKey()), e.getKey());
      }
      assertEquals(EMBEDDER.name() + " " + EMBEDDER.dimensions(), embedderRow(c));
      assertEquals(Set.of(Schema.LISTING_INDEX), recordIndexes(c));
      List<String> applied = new ArrayList<>();
      try (Statement st = c.createStatement();
          ResultSet rs =
              st.executeQuery(
                  "SELECT \"version\" || ' ' || \"type\" FROM \"langmem_schema_history\""
                      + " WHERE \"version\" IS NOT NULL ORDER BY \"installed_rank\"")) {
        while (rs.next()) {
          applied.add(rs.getString(1));
        }
      }
      assertEquals(history, applied);
    }
  }

  @Test
  void aPageIsReadFromTheListingIndexInOrderNotSorted() throws SQLException {
    Fixtures.open(dir).close();
    try (Connection c = Fixtures.connect(dir)) {
      for (boolean includeInactive : List.of(true, false)) {
        for (boolean after : List.of(true, false)) {
          String sql = LangMemSqliteStore.listSql(includeInactive, after);
          try (PreparedStatement st = c.prepareStatement("EXPLAIN " + sql)) {
            int parameters = 2 + (includeInactive ? 0 : 1) + (after ? 3 : 0);
            for (int i = 1; i <= parameters; i++) {
              st.setString(i, "1");
            }
            try (ResultSet rs = st.executeQuery()) {
              assertTrue(rs.next());
              String plan = rs.getString(1);
              assertTrue(
                  plan.contains(Schema.LISTING_INDEX.toUpperCase(Locale.ROOT))
                      && plan.contains("/* index sorted */"),
                  plan);
            }
          }
        }
      }
    }
  }

  @Test
  void anInterruptedVersionTwoMigrationCarriesOnWhenOpenedAgain() throws SQLException {
    Fixtures.ModelEmbedder model = new Fixtures.ModelEmbedder("some-model");
    List<String> crashPoints =
        List.of("embedder column added", "embedder table added", "half embedded again");
    for (String crashPoint : crashPoints) {
      Path data = dir.resolve(crashPoint.replace(' ', '-'));
      List<MemoryRecord> records = records(ALICE, 3 * Reembedding.BATCH, 6);
      try (Connection c = versionTwoDatabase(data)) {
        for (MemoryRecord r : records) {
          insertAsVersionTwo(c, r, model.embed(r.indexedText()));
        }
        crashDuringVersionTwoMigration(c, crashPoint, records);
      }

      try (MemoryStore migrated = Fixtures.open(data);
          MemoryStore reference = reference(records)) {
        for (MemoryRecord r : records) {
          assertEquals(r, migrated.get(ALICE, r.id()).orElseThrow(), crashPoint);
        }
        for (String q : QUERIES) {
          SearchQuery query = new SearchQuery(q, null, 10, Set.of(), List.of(), 0f, T0);
          assertEquals(reference.search(ALICE, query), migrated.search(ALICE, query), crashPoint);
        }
      }
      try (Connection c = Fixtures.connect(data)) {
        assertEquals(Schema.VERSION, version(c), crashPoint);
        assertEquals(VECTOR_COLUMNS, columns(c, "memory_vectors"), crashPoint);
        Map<String, byte[]> stored = storedVectors(c);
        for (MemoryRecord r : records) {
          assertArrayEquals(
              storedVectorOf(r),
              VectorBytes.decode(stored.get(key(r)), EMBEDDER.dimensions()),
              crashPoint);
        }
        assertEquals(Set.of(EMBEDDER.name()), embedderNames(c), crashPoint);
        assertEquals(EMBEDDER.name() + " " + EMBEDDER.dimensions(), embedderRow(c), crashPoint);
      }
    }
  }

  /**
   * Leaves {@code c}'s version-2 tables as a migration to version 3 (and the embedding again that
   * follows it) stopped at {@code crashPoint} would.
   */
  private static void crashDuringVersionTwoMigration(
      Connection c, String crashPoint, List<MemoryRecord> records) throws SQLException {
    try (Statement st = c.createStatement()) {
      st.execute("ALTER TABLE memory_vectors ADD COLUMN embedder VARCHAR(64)");
      if (crashPoint.equals("embedder column added")) {
        return;
      }
      st.execute(
          "CREATE TABLE langmem_embedder (id INTEGER NOT NULL PRIMARY KEY,"
              + " name VARCHAR(64) NOT NULL, dimensions INTEGER NOT NULL)");
      if (crashPoint.equals("embedder table added")) {
        return;
      }
      st.execute("UPDATE langmem_schema SET version = 3 WHERE id = 1");
    }
    // Batches done in key order, then the crash.
    List<MemoryRecord> inKeyOrder = new ArrayList<>(records);
    inKeyOrder.sort((a, b) -> a.id().compareTo(b.id()));
    try (PreparedStatement st =
        c.prepareStatement(
            "UPDATE memory_vectors SET embedding = ?, dimensions = ?, embedder = ?"
                + " WHERE record_id = ?")) {
      for (MemoryRecord r : inKeyOrder.subList(0, Reembedding.BATCH + 1)) {
        float[] vector = vectorOf(r);
        st.setBytes(1, VectorBytes.encode(vector));
        st.setInt(2, vector.length);
        st.setString(3, EMBEDDER.name());
        st.setString(4, r.id());
        st.executeUpdate();
      }
    }
  }

  private static Connection versionTwoDatabase(Path data) throws SQLException {
    Connection c = Fixtures.connect(data);
    try (Statement st = c.createStatement()) {
      for (String sql : VERSION_2_DDL) {
        st.execute(sql);
      }
    }
    return c;
  }

  /** A row as version 2 wrote it (the record columns as version 1), and its vector unless null. */
  private static void insertAsVersionTwo(Connection c, MemoryRecord r, float[] vector)
      throws SQLException {
    insertAsVersionOne(
        c, r, plainJson(r.tags()), plainJson(r.metadata()), plainJson(r.sourceRefs()), null);
    if (vector != null) {
      try (PreparedStatement st =
          c.prepareStatement(
              "INSERT INTO memory_vectors (namespace, record_id, dimensions, embedding)"
                  + " VALUES (?, ?, ?, ?)")) {
        st.setString(1, r.namespace().value());
        st.setString(2, r.id());
        st.setInt(3, vector.length);
        st.setBytes(4, VectorBytes.float32(vector));
        st.executeUpdate();
      }
    }
  }

  /** {@code name dimensions} of the {@code langmem_embedder} row, or null. */
  private static String embedderRow(Connection c) throws SQLException {
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT name, dimensions FROM langmem_embedder")) {
      return rs.next() ? rs.getString(1) + " " + rs.getInt(2) : null;
    }
  }

  /** Leaves {@code c}'s tables as a migration stopped at {@code crashPoint} would. */
  private static void crashDuringMigration(
      Connection c, String crashPoint, List<MemoryRecord> records) throws SQLException {
    try (Statement st = c.createStatement()) {
      st.execute("ALTER TABLE memory_vectors ADD COLUMN embedding BINARY VARYING");
    }
    int converted =
        switch (crashPoint) {
          case "column added" -> 0;
          case "half converted" -> records.size() / 2;
          default -> records.size();
        };
    List<MemoryRecord> inKeyOrder = new ArrayList<>(records);
    inKeyOrder.sort((a, b) -> a.id().compareTo(b.id()));
    try (PreparedStatement st =
        c.prepareStatement("UPDATE memory_vectors SET embedding = ? WHERE record_id = ?")) {
      for (MemoryRecord r : inKeyOrder.subList(0, converted)) {
        st.setBytes(1, VectorBytes.float32(vectorOf(r)));
        st.setString(2, r.id());
        st.executeUpdate();
      }
    }
    if (crashPoint.equals("json column dropped")) {
      try (Statement st = c.createStatement()) {
        st.execute("ALTER TABLE memory_vectors DROP COLUMN embedding_json");
      }
    }
  }

  /** {@code count} records of random words in {@code ns}, tags and metadata without escapes. */
  private static List<MemoryRecord> records(Namespace ns, int count, long seed) {
    Random random = new Random(seed);
    List<MemoryRecord> out = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      StringBuilder content = new StringBuilder();
      for (int w = 0; w < 12; w++) {
        content.append(w == 0 ? "" : " ").append(WORDS[random.nextInt(WORDS.length)]);
      }
      MemoryRecord.Builder b =
          Fixtures.record(ns, String.format("r%04d", i), content.toString(), T0.plusMillis(i))
              .toBuilder()
              .tags(i % 3 == 0 ? List.of("ops", "t" + i) : List.of())
              .metadata(i % 4 == 0 ? Map.of("k", "v" + i, "a", "b") : Map.of())
              .sourceRefs(List.of("run:" + i))
              .confidence(random.nextFloat())
              .gateScore(random.nextFloat() * 10);
      if (i % 7 == 0) {
        b.context("user: about " + WORDS[random.nextInt(WORDS.length)]);
      }
      if (i % 11 == 0) {
        b.validity(Validity.SHORT_TERM).expireTime(T0.plusSeconds(i));
      }
      out.add(b.build());
    }
    return out;
  }

  /**
   * The store opened on {@link #dir} holds {@code records} (of {@link #ALICE} and {@link #BOB}) and
   * lists and searches them as a new store of the current version they are put into does.
   */
  private void opensLikeANewStoreOf(List<MemoryRecord> records) {
    try (MemoryStore migrated = Fixtures.open(dir);
        MemoryStore reference = reference(records)) {
      for (MemoryRecord r : records) {
        assertEquals(r, migrated.get(r.namespace(), r.id()).orElseThrow(), r.id());
      }
      for (Namespace ns : List.of(ALICE, BOB)) {
        ListQuery page = new ListQuery(50, null, true);
        assertEquals(reference.list(ns, page), migrated.list(ns, page), ns.value());
        for (String q : QUERIES) {
          SearchQuery query = new SearchQuery(q, null, 20, Set.of(), List.of(), 0f, T0);
          assertEquals(reference.search(ns, query), migrated.search(ns, query), q);
        }
      }
    }
  }

  /**
   * The same records put into a new store of the current version, once their vectors (made behind
   * the puts) have all landed: a search waits for them only so long, and a slow machine must not
   * make the reference rank some records by their words alone.
   */
  private MemoryStore reference(List<MemoryRecord> records) {
    MemoryStore store = Fixtures.open(dir.resolve("reference-" + System.nanoTime()));
    for (MemoryRecord r : records) {
      store.put(r);
    }
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (store.pendingVectors().records() > 0) {
      if (System.nanoTime() >= deadline) {
        String pending = store.pendingVectors().toString();
        store.close();
        fail("the reference store's vectors did not land in 60 s: " + pending);
      }
      LockSupport.parkNanos(Duration.ofMillis(10).toNanos());
    }
    return store;
  }

  private Connection versionOneDatabase() throws SQLException {
    return versionOneDatabase(dir);
  }

  private static Connection versionOneDatabase(Path data) throws SQLException {
    Connection c = Fixtures.connect(data);
    try (Statement st = c.createStatement()) {
      for (String sql : VERSION_1_DDL) {
        st.execute(sql);
      }
    }
    return c;
  }

  private static void insertAsVersionOne(Connection c, MemoryRecord r) throws SQLException {
    insertAsVersionOne(
        c,
        r,
        plainJson(r.tags()),
        plainJson(r.metadata()),
        plainJson(r.sourceRefs()),
        jsonOf(vectorOf(r)));
  }

  /** A row as version 1's {@code RecordRows.bind} wrote it, and its vector row unless null. */
  private static void insertAsVersionOne(
      Connection c, MemoryRecord r, String tags, String metadata, String sourceRefs, String vector)
      throws SQLException {
    try (PreparedStatement st =
        c.prepareStatement(
            "INSERT INTO memory_records (namespace, id, profile, kind, scope, status, content,"
                + " summary, context, confidence, tags_json, sensitivity, metadata_json,"
                + " created_at, updated_at, gate_score, source_refs_json, validity, expire_at)"
                + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
      int i = 1;
      st.setString(i++, r.namespace().value());
      st.setString(i++, r.id());
      st.setString(i++, r.profile());
      st.setString(i++, r.kind().name());
      st.setString(i++, r.profile());
      st.setString(i++, r.status().name());
      st.setString(i++, r.content());
      st.setString(i++, r.summary());
      st.setString(i++, r.context());
      st.setFloat(i++, r.confidence());
      st.setString(i++, tags);
      st.setString(i++, r.sensitivity());
      st.setString(i++, metadata);
      st.setLong(i++, nanos(r.createTime()));
      st.setLong(i++, nanos(r.updateTime()));
      st.setFloat(i++, r.gateScore());
      st.setString(i++, sourceRefs);
      st.setString(i++, r.validity().name());
      if (r.expireTime() == null) {
        st.setNull(i, Types.BIGINT);
      } else {
        st.setLong(i, nanos(r.expireTime()));
      }
      st.executeUpdate();
    }
    if (vector != null) {
      try (PreparedStatement st =
          c.prepareStatement(
              "INSERT INTO memory_vectors (namespace, record_id, dimensions, embedding_json)"
                  + " VALUES (?, ?, ?, ?)")) {
        st.setString(1, r.namespace().value());
        st.setString(2, r.id());
        st.setInt(3, vector.split(",").length);
        st.setString(4, vector);
        st.executeUpdate();
      }
    }
  }

  private static float[] vectorOf(MemoryRecord r) {
    return EMBEDDER.embed(r.indexedText());
  }

  /** {@link #vectorOf} as this version stores it (float16). */
  private static float[] storedVectorOf(MemoryRecord r) {
    return VectorBytes.rounded(vectorOf(r));
  }

  /** Version 1's {@code Json.encodeFloats}: {@link Float#toString} of each, comma separated. */
  private static String jsonOf(float[] vector) {
    StringBuilder out = new StringBuilder("[");
    for (int i = 0; i < vector.length; i++) {
      out.append(i == 0 ? "" : ",").append(Float.toString(vector[i]));
    }
    return out.append(']').toString();
  }

  /** Version 1's JSON of strings that need no escape: a list, or a map with its keys sorted. */
  private static String plainJson(Object value) {
    List<String> items = new ArrayList<>();
    if (value instanceof Map<?, ?> map) {
      for (Object key : new TreeSet<>(map.keySet())) {
        items.add(quoted((String) key) + ":" + quoted((String) map.get(key)));
      }
      return "{" + String.join(",", items) + "}";
    }
    for (Object item : (List<?>) value) {
      items.add(quoted((String) item));
    }
    return "[" + String.join(",", items) + "]";
  }

  private static String quoted(String s) {
    assertTrue(NEEDS_NO_ESCAPE.matcher(s).matches(), s);
    return "\"" + s + "\"";
  }

  private static long nanos(Instant t) {
    return t.getEpochSecond() * 1_000_000_000L + t.getNano();
  }

  private static int version(Connection c) throws SQLException {
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT version FROM langmem_schema WHERE id = 1")) {
      assertTrue(rs.next());
      return rs.getInt(1);
    }
  }

  /** The names of the indexes on memory_records other than its primary key, lower case. */
  private static Set<String> recordIndexes(Connection c) throws SQLException {
    Set<String> out = new TreeSet<>();
    try (Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT INDEX_NAME FROM INFORMATION_SCHEMA.INDEXES WHERE TABLE_NAME ="
                    + " 'MEMORY_RECORDS' AND INDEX_TYPE_NAME <> 'PRIMARY KEY'")) {
      while (rs.next()) {
        out.add(rs.getString(1).toLowerCase(Locale.ROOT));
      }
    }
    return out;
  }

  private static Set<String> columns(Connection c, String table) throws SQLException {
    Set<String> out = new TreeSet<>();
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT * FROM " + table + " WHERE 1 = 0")) {
      ResultSetMetaData meta = rs.getMetaData();
      for (int i = 1; i <= meta.getColumnCount(); i++) {
        out.add(meta.getColumnName(i).toLowerCase(Locale.ROOT));
      }
    }
    return out;
  }

  /** The embedding bytes of every vector row by {@link #key}. */
  private static Map<String, byte[]> storedVectors(Connection c) throws SQLException {
    Map<String, byte[]> out = new HashMap<>();
    try (Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery("SELECT namespace, record_id, embedding FROM memory_vectors")) {
      while (rs.next()) {
        out.put(rs.getString(1) + "/" + rs.getString(2), rs.getBytes(3));
      }
    }
    return out;
  }

  /** The distinct names in {@code memory_vectors.embedder}. */
  private static Set<String> embedderNames(Connection c) throws SQLException {
    Set<String> out = new TreeSet<>();
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT DISTINCT embedder FROM memory_vectors")) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }

  private static String key(MemoryRecord r) {
    return r.namespace().value() + "/" + r.id();
  }
}
