package dev.memsidecar.sidecar.config;

import static java.util.Objects.requireNonNullElse;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.math.BigInteger;
import java.util.List;
import java.util.Map;

/**
 * The keys of the configuration files, as records that {@link YamlBinding} fills with Jackson: a
 * key that is no component here is unknown and a value of another type is refused, both naming the
 * file and the key; {@link ConfigLoader} checks the values and applies the defaults. A key may be
 * absent or written with no value: an absent section is an empty one, an absent value {@code null}.
 * Integers are {@link BigInteger}, so that a number out of range is reported with its range. What
 * the keys mean is in docs/configuration.md.
 */
final class ConfigFiles {
  private ConfigFiles() {}

  /** {@code memsidecar.yaml}. */
  record MainFile(Server server, String data, String plugins, Memory memory) {
    MainFile {
      server =
          requireNonNullElse(server, new Server(null, null, null, null, null, null, null, null));
      memory =
          requireNonNullElse(
              memory,
              new Memory(null, null, null, null, null, null, null, null, null, null, null, null));
    }
  }

  record Server(
      String host,
      BigInteger port,
      BigInteger maxConcurrentCalls,
      BigInteger maxQueuedCalls,
      Auth auth,
      String unixSocket,
      Http http,
      Inspector inspector) {
    Server {
      auth = requireNonNullElse(auth, new Auth(null));
      http = requireNonNullElse(http, new Http(null, null));
      inspector = requireNonNullElse(inspector, new Inspector(null, null));
    }
  }

  /** {@code server.http}: the HTTP port (metrics), off unless a port is given. */
  record Http(String host, BigInteger port) {}

  /** {@code server.inspector}: the web inspector on the HTTP port, off and read-only by default. */
  record Inspector(Boolean enabled, Boolean writes) {}

  record Auth(String tokenFile) {}

  record Memory(
      Boolean enabled,
      FilesPath deepagentsMem,
      @JsonProperty("LangMem") RecordsPath langMem,
      Maintenance maintenance,
      List<String> refs,
      Gate gate,
      String embedder,
      Extractor extractor,
      Runs runs,
      ToolRules toolRules,
      Sessions sessions,
      Store store) {
    Memory {
      deepagentsMem = requireNonNullElse(deepagentsMem, new FilesPath(null, null, null));
      langMem = requireNonNullElse(langMem, new RecordsPath(null, null));
      maintenance =
          requireNonNullElse(
              maintenance, new Maintenance(null, null, null, null, null, null, null));
      gate = requireNonNullElse(gate, new Gate(null));
      extractor = requireNonNullElse(extractor, new Extractor(null, null));
      runs = requireNonNullElse(runs, new Runs(null, null));
      toolRules = requireNonNullElse(toolRules, new ToolRules(null));
      sessions = requireNonNullElse(sessions, new Sessions(null));
      store = requireNonNullElse(store, new Store(null, null, null));
    }
  }

  /** {@code memory.deepagentsMem}: the memory files path. */
  record FilesPath(Boolean read, Boolean write, String provider) {}

  /** {@code memory.LangMem}: the structured records path. */
  record RecordsPath(Boolean read, Boolean write) {}

  /** {@code memory.maintenance}. */
  record Maintenance(
      Boolean enabled,
      String schedule,
      String interval,
      String prompt,
      List<String> targets,
      LangMemMaintenance langmem,
      HousekeepingMaintenance housekeeping) {
    Maintenance {
      langmem = requireNonNullElse(langmem, new LangMemMaintenance(null, null));
      housekeeping = requireNonNullElse(housekeeping, new HousekeepingMaintenance(null));
    }
  }

  /** {@code memory.maintenance.langmem}. */
  record LangMemMaintenance(Number cleanupThreshold, Retention retention) {
    LangMemMaintenance {
      retention = requireNonNullElse(retention, new Retention(null, null, null));
    }
  }

  /** {@code memory.maintenance.housekeeping}. */
  record HousekeepingMaintenance(Retention audit) {
    HousekeepingMaintenance {
      audit = requireNonNullElse(audit, new Retention(null, null, null));
    }
  }

  /** Age (a duration), count and size (bytes, or with a unit such as 10MiB) limits; 0: none. */
  record Retention(String maxAge, BigInteger maxCount, String maxSize) {}

  /** {@code threshold} is an integer or a decimal. */
  record Gate(Number threshold) {}

  /**
   * {@code memory.extractor}; {@code settings} stays null when absent, unlike an empty mapping, and
   * {@link ConfigLoader} reads its values.
   */
  record Extractor(String name, Map<String, Object> settings) {}

  record Runs(String snapshotTtl, String shortTermTtl) {}

  record ToolRules(Boolean capture) {}

  /** {@code memory.sessions}. */
  record Sessions(BigInteger retentionDays) {}

  /** {@code memory.store}: the one database of everything the sidecar persists. */
  record Store(String url, String user, String passwordFile) {}

  /** One {@code kind: Memory} document of {@code config/memory/*.yaml}. */
  record MemoryDocument(String apiVersion, String kind, Metadata metadata, Spec spec) {
    MemoryDocument {
      metadata = requireNonNullElse(metadata, new Metadata(null, null));
      spec = requireNonNullElse(spec, new Spec(null, null, null, null, null, null));
    }
  }

  record Metadata(String name, String description) {}

  /** {@code settings}: the provider's own keys, scalars that {@link ConfigLoader} reads as text. */
  record Spec(
      String provider,
      String profile,
      Boolean enabled,
      String mode,
      Prompts prompts,
      Map<String, Object> settings) {
    Spec {
      prompts = requireNonNullElse(prompts, new Prompts(null, null, null));
      settings = requireNonNullElse(settings, Map.of());
    }
  }

  record Prompts(String semantic, String episodic, String procedural) {}
}
