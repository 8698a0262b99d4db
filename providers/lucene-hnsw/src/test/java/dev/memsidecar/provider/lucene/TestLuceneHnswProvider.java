package dev.memsidecar.provider.lucene;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.api.Capability;
import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.MemoryProvider;
import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.MemoryStore;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.api.SearchQuery;
import dev.memsidecar.toolkit.HashEmbedder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TestLuceneHnswProvider {
  @TempDir Path dir;

  @Test
  public void isFoundByServiceLoaderWithItsNameAndCapabilities() {
    List<MemoryProvider> found =
        ServiceLoader.load(MemoryProvider.class).stream()
            .map(ServiceLoader.Provider::get)
            .filter(p -> p.name().equals(LuceneHnswProvider.NAME))
            .toList();
    assertEquals(1, found.size());
    assertEquals(Set.of(Capability.RECORDS), found.get(0).capabilities());
  }

  @Test
  public void opensTheIndexAndItsLogInTheDataDirectory() {
    try (MemoryStore store = Fixtures.open(dir)) {
      assertTrue(Files.isDirectory(dir.resolve("index")), "index directory");
      assertTrue(Files.isRegularFile(dir.resolve("translog/translog-1.tlog")), "log generation");
      assertTrue(store.toString().contains("workspace"), store.toString());
    }
  }

  @Test
  public void acceptsEveryKnownSetting() {
    Map<String, String> settings =
        Map.of(
            "hnsw.m", "8",
            "hnsw.beam_width", "50",
            "hnsw.ef_search", "40",
            "commit.max_wait_ms", "0",
            "fusion", "RRF",
            "translog.commit_interval_ms", "100",
            "translog.commit_threshold_mb", "4096",
            "merge.idle_ms", "0",
            "hnsw.vectors", "int8");
    Fixtures.open(dir, settings).close();
  }

  @Test
  public void rejectsUnknownSettingsNamingThem() {
    MemoryException e =
        assertThrows(
            MemoryException.class,
            () -> Fixtures.open(dir, Map.of("translog.durability", "async")));
    assertEquals(MemoryException.Code.INVALID_ARGUMENT, e.code());
    assertEquals("spec.settings.translog.durability", e.field());
  }

  @Test
  public void rejectsBadValuesNamingTheSetting() {
    Map<String, String> bad =
        Map.of(
            "hnsw.m", "1",
            "hnsw.beam_width", "lots",
            "hnsw.ef_search", "0",
            "commit.max_wait_ms", "-1",
            "fusion", "average",
            "translog.commit_interval_ms", "99",
            "translog.commit_threshold_mb", "0",
            "merge.idle_ms", "-1",
            "hnsw.vectors", "float16");
    for (Map.Entry<String, String> e : bad.entrySet()) {
      MemoryException ex =
          assertThrows(
              MemoryException.class,
              () -> Fixtures.open(dir, Map.of(e.getKey(), e.getValue())),
              e.toString());
      assertEquals(MemoryException.Code.INVALID_ARGUMENT, ex.code(), e.toString());
      assertEquals("spec.settings." + e.getKey(), ex.field(), e.toString());
    }
  }

  @Test
  public void anIndexOpensWithTheSegmentsOfEveryVectorEncodingItWasWrittenWith() {
    Namespace ns = Namespace.of("acme:user:alice:user");
    HashEmbedder embedder = new HashEmbedder();
    List<MemoryRecord> written = new ArrayList<>();
    List<String> encodings = List.of("float32", "int8", "int4", "float32", "int8");
    for (int round = 0; round < encodings.size(); round++) {
      Map<String, String> settings = Map.of("hnsw.vectors", encodings.get(round));
      try (MemoryStore store = Fixtures.open(dir, settings)) {
        for (int i = 0; i < 20; i++) {
          MemoryRecord r =
              Fixtures.record(
                  ns,
                  "r" + round + "-" + i,
                  "note " + i + " of round " + round + " on " + TOPICS.get((i + round) % 5));
          store.put(r);
          written.add(r);
        }
        for (MemoryRecord r : written) {
          assertEquals(r, store.get(ns, r.id()).orElseThrow(), encodings.get(round));
          SearchQuery byItsVector =
              new SearchQuery(
                  "",
                  embedder.embed(r.indexedText()),
                  3,
                  Set.of(),
                  List.of(),
                  0f,
                  Fixtures.T0.plusSeconds(60));
          // Among the first 3: quantized scores may swap near-twins ("note 0 of round 1 on ...").
          assertTrue(
              store.search(ns, byItsVector).stream().anyMatch(h -> h.record().id().equals(r.id())),
              encodings.get(round) + " finds " + r.id() + " by its vector");
        }
      }
    }
  }

  private static final List<String> TOPICS =
      List.of("kafka lag", "grafana tokens", "coffee beans", "terraform state", "tea");

  @Test
  public void aSecondStoreOnTheSameDirectoryIsUnavailable() {
    try (MemoryStore first = Fixtures.open(dir)) {
      MemoryException e = assertThrows(MemoryException.class, () -> Fixtures.open(dir));
      assertEquals(MemoryException.Code.UNAVAILABLE, e.code());
      assertTrue(e.getMessage().contains(dir.toString()), e.getMessage());
    }
  }

  @Test
  public void reportsHowVectorsAreComputed() {
    String info = LuceneHnswProvider.vectorizationInfo();
    assertTrue(info.contains("VectorUtilSupport"), info);
    assertTrue(info.contains("jdk.incubator.vector"), info);
    Map<String, String> details = new LuceneHnswProvider().details();
    assertEquals(info, details.get("vectorization"));
    assertEquals(info.startsWith("Panama") ? "on" : "off", details.get("simd"), info);
  }
}
