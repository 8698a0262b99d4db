package dev.memsidecar.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.api.Extractor;
import dev.memsidecar.api.ExtractorProvider;
import dev.memsidecar.api.MemoryProvider;
import dev.memsidecar.api.MemoryStore;
import dev.memsidecar.api.PendingVectors;
import dev.memsidecar.api.ProviderContext;
import dev.memsidecar.api.Settings;
import dev.memsidecar.conformance.InMemoryProvider;
import dev.memsidecar.core.config.EngineConfig;
import dev.memsidecar.core.config.Flags;
import dev.memsidecar.core.config.Maintenance;
import dev.memsidecar.core.config.ProfileSpec;
import dev.memsidecar.core.config.RunConfig;
import dev.memsidecar.core.config.ScopeKind;
import java.io.IOException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The engine {@link CoreModule} builds tells its {@link CallActivity} what its stores report
 * waiting for vectors, so vectors stop waiting for pauses between calls once one is overdue (issue
 * 21's 2 s bound): the wiring {@code bench lag} relies on, through a provider found the way the
 * sidecar finds providers.
 */
class TestVectorsWatch {

  /** What each profile's store reports waiting, by profile id. */
  static final Map<String, PendingVectors> REPORTED = new ConcurrentHashMap<>();

  /** An in-memory provider whose stores report {@link #REPORTED} for their profile. */
  public static final class Lagging implements MemoryProvider {
    static final String NAME = "lagging-vectors";
    private final InMemoryProvider inner = new InMemoryProvider();

    public Lagging() {}

    @Override
    public String name() {
      return NAME;
    }

    @Override
    public MemoryStore open(ProviderContext context) {
      String profile = context.profileId();
      return new ForwardingStore(inner.open(context)) {
        @Override
        public PendingVectors pendingVectors() {
          return REPORTED.getOrDefault(profile, PendingVectors.NONE);
        }
      };
    }
  }

  /** The scripted {@code rules} extractor, as the extractors' jar provides {@code rules}. */
  public static final class Rules implements ExtractorProvider {
    private final ExtractorProvider inner = ScriptedExtractor.provider().all().get(0).service();

    public Rules() {}

    @Override
    public String name() {
      return inner.name();
    }

    @Override
    public Extractor open(Settings settings) {
      return inner.open(settings);
    }
  }

  @Test
  void theEngineReadsWhatItsStoresReportWaiting(@TempDir Path dir) throws IOException {
    long overdue = CallActivity.VECTORS_OVERDUE_MILLIS;
    EngineConfig config =
        new EngineConfig(
            dir.resolve("data"),
            Flags.ALL_ON,
            List.of(profile("workspace", ScopeKind.WORKSPACE), profile("user", ScopeKind.USER)),
            EngineConfig.DEFAULT_GATE_THRESHOLD,
            "hash",
            Maintenance.DEFAULT,
            null,
            null,
            RunConfig.DEFAULT);
    try (MemoryEngine engine = new CoreModule(config, loaderFinding(dir)).engine()) {
      CallActivity calls = engine.calls();
      assertFalse(calls.vectorsOverdue(), "nothing waits");

      REPORTED.put("workspace", new PendingVectors(2, Duration.ofMillis(overdue - 200)));
      REPORTED.put("user", new PendingVectors(3, Duration.ofMillis(overdue)));
      assertTrue(calls.vectorsOverdue(), "the user profile's store has a record overdue");
      assertEquals(
          5,
          engine.status().profiles().stream().mapToLong(p -> p.pendingVectors().records()).sum());

      REPORTED.put("user", new PendingVectors(3, Duration.ofMillis(overdue - 1)));
      assertFalse(calls.vectorsOverdue(), "no store has one overdue");

      // Overdue, but the two stores together hold more than the model catches up with beside calls.
      REPORTED.put("workspace", new PendingVectors(CallActivity.VECTORS_CATCHABLE, Duration.ZERO));
      REPORTED.put("user", new PendingVectors(1, Duration.ofMillis(overdue)));
      assertFalse(calls.vectorsOverdue(), "more wait than can be caught up with");
    } finally {
      REPORTED.clear();
    }
  }

  private static ProfileSpec profile(String id, ScopeKind scope) {
    return new ProfileSpec(id, scope, Lagging.NAME, true, "", Map.of(), Map.of());
  }

  /**
   * The test's class loader, which also lists {@link Lagging} and {@link Rules} in {@code
   * META-INF/services}, as providers' jars on the classpath do.
   */
  private static ClassLoader loaderFinding(Path dir) throws IOException {
    Map<String, URL> services =
        Map.of(
            MemoryProvider.class.getName(), serviceFile(dir, Lagging.class),
            ExtractorProvider.class.getName(), serviceFile(dir, Rules.class));
    return new ClassLoader(TestVectorsWatch.class.getClassLoader()) {
      @Override
      protected Enumeration<URL> findResources(String name) {
        URL file =
            name.startsWith("META-INF/services/")
                ? services.get(name.substring("META-INF/services/".length()))
                : null;
        return file == null
            ? Collections.emptyEnumeration()
            : Collections.enumeration(List.of(file));
      }
    };
  }

  private static URL serviceFile(Path dir, Class<?> provider) throws IOException {
    return Files.writeString(dir.resolve(provider.getSimpleName() + ".txt"), provider.getName())
        .toUri()
        .toURL();
  }
}
