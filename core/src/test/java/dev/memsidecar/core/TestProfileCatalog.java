package dev.memsidecar.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.api.Capability;
import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.MemoryProvider;
import dev.memsidecar.api.MemoryStore;
import dev.memsidecar.api.ProviderContext;
import dev.memsidecar.conformance.InMemoryProvider;
import dev.memsidecar.core.config.Flags;
import dev.memsidecar.core.config.ProfileSpec;
import dev.memsidecar.core.config.ScopeKind;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TestProfileCatalog {
  private static final Scope SCOPE = Scope.workspace("acme");

  @TempDir Path data;

  /** Records only, in memory; takes a host and a password, the password being a secret. */
  private static final class Secretive implements MemoryProvider {
    @Override
    public String name() {
      return "secretive";
    }

    @Override
    public Set<String> sensitiveSettings() {
      return Set.of("password");
    }

    @Override
    public MemoryStore open(ProviderContext context) {
      context.requireOnly(Set.of("host", "password"));
      return new InMemoryProvider(Set.of(Capability.RECORDS))
          .open(
              new ProviderContext(
                  context.profileId(), context.dataDirectory(), Map.of(), context.embedder()));
    }
  }

  private final ProfileSpec secretive =
      new ProfileSpec(
          "team",
          ScopeKind.WORKSPACE,
          "secretive",
          true,
          "",
          Map.of(),
          Map.of("host", "db.acme.test", "password", "hunter2"));

  private MemoryEngine open(List<ProfileSpec> specs, String filesProvider) {
    return Engines.open(
        data,
        Flags.ALL_ON,
        specs,
        Clock.systemUTC(),
        Engines.providers(new InMemoryProvider(), new Secretive()),
        filesProvider);
  }

  @Test
  void statusShowsSettingsWithSensitiveValuesMasked() {
    try (MemoryEngine engine = open(List.of(secretive), null)) {
      EngineStatus.ProfileStatus team = engine.status().profiles().get(0);
      assertEquals(Map.of("host", "db.acme.test", "password", "***"), team.settings());
      assertTrue(!engine.status().toString().contains("hunter2"));
    }
  }

  @Test
  void filesOfARecordsOnlyProfileComeFromTheConfiguredFilesProvider() {
    try (MemoryEngine engine = open(List.of(secretive), InMemoryProvider.NAME)) {
      engine.files().write(SCOPE, "/memories/team.md", "# team\n", "", RequestOptions.DEFAULT);
      assertEquals(
          "# team\n",
          engine.files().read(SCOPE, "/memories/team.md", RequestOptions.DEFAULT).file().content());
    }
  }

  @Test
  void withoutAFilesProviderARecordsOnlyProfileHasNoFile() {
    try (MemoryEngine engine = open(List.of(secretive), null)) {
      MemoryException e =
          assertThrows(
              MemoryException.class,
              () -> engine.files().read(SCOPE, "/memories/team.md", RequestOptions.DEFAULT));
      assertEquals(MemoryException.Code.UNIMPLEMENTED, e.code());
      assertTrue(e.getMessage().contains("memory.deepagentsMem.provider"), e.getMessage());
      assertEquals(List.of(), engine.files().list(SCOPE, RequestOptions.DEFAULT));
    }
  }

  @Test
  void aFilesProviderThatKeepsNoFilesOrDoesNotExistFailsStartUp() {
    StartupException noFiles =
        assertThrows(StartupException.class, () -> open(List.of(secretive), "secretive"));
    assertTrue(noFiles.getMessage().contains("keeps no memory files"), noFiles.getMessage());
    StartupException absent =
        assertThrows(StartupException.class, () -> open(List.of(secretive), "deepagents-files"));
    assertTrue(absent.getMessage().contains("memory.deepagentsMem.provider"), absent.getMessage());
  }

  @Test
  void aProfileWithoutRecordsIsUnimplementedForRecordsAndSkippedBySearch() {
    ProfileSpec notes =
        new ProfileSpec("notes", ScopeKind.WORKSPACE, "files-only", true, "", Map.of(), Map.of());
    MemoryProvider filesOnly =
        new MemoryProvider() {
          private final InMemoryProvider files = new InMemoryProvider(Set.of(Capability.FILES));

          @Override
          public String name() {
            return "files-only";
          }

          @Override
          public Set<Capability> capabilities() {
            return files.capabilities();
          }

          @Override
          public MemoryStore open(ProviderContext context) {
            return files.open(context);
          }
        };
    try (MemoryEngine engine =
        Engines.open(
            data,
            Flags.ALL_ON,
            List.of(Engines.profile("workspace", ScopeKind.WORKSPACE), notes),
            Clock.systemUTC(),
            Engines.providers(new InMemoryProvider(), filesOnly),
            null)) {
      MemoryException e =
          assertThrows(
              MemoryException.class,
              () -> engine.get(SCOPE, "notes", "some-id", RequestOptions.DEFAULT));
      assertEquals(MemoryException.Code.UNIMPLEMENTED, e.code());
      engine.remember(
          new RememberInput(
              SCOPE,
              "",
              "the wiki lives at wiki.acme.test",
              null,
              List.of(),
              Map.of(),
              null,
              null,
              "",
              ""),
          RequestOptions.DEFAULT);
      assertEquals(
          1,
          engine
              .search(
                  new SearchInput(SCOPE, "wiki", List.of(), 0, Set.of(), List.of(), 0),
                  RequestOptions.DEFAULT)
              .size());
      engine.files().write(SCOPE, "/memories/notes.md", "# notes\n", "", RequestOptions.DEFAULT);
    }
  }

  @Test
  void aProviderThatCannotOpenFailsStartUpNamingTheProfile() {
    ProfileSpec bad =
        new ProfileSpec(
            "team", ScopeKind.WORKSPACE, "secretive", true, "", Map.of(), Map.of("port", "1"));
    StartupException e = assertThrows(StartupException.class, () -> open(List.of(bad), null));
    assertTrue(e.getMessage().startsWith("profile 'team' (provider secretive)"), e.getMessage());
    assertTrue(e.getMessage().contains("unknown setting 'port'"), e.getMessage());
  }
}
