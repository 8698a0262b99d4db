package dev.memsidecar.sidecar.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.core.config.CronExpression;
import dev.memsidecar.core.config.EngineConfig;
import dev.memsidecar.core.config.Flags;
import dev.memsidecar.core.config.Maintenance;
import dev.memsidecar.core.config.MaintenanceSchedule;
import dev.memsidecar.core.config.ProfileSpec;
import dev.memsidecar.core.config.ScopeKind;
import dev.memsidecar.core.config.SharedStore;
import dev.memsidecar.sidecar.config.ConfigLoader.Overrides;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TestConfigLoader {
  private static final String WORKSPACE_DOC =
      """
      apiVersion: memsidecar.dev/v1
      kind: Memory
      metadata:
        name: workspace
      spec:
        provider: langmem
      """;

  @TempDir Path workspace;

  @Test
  void noFilesGivesDefaults() {
    SidecarConfig config = load();

    assertEquals("127.0.0.1", config.host());
    assertEquals(7411, config.port());
    assertEquals(16, config.maxConcurrentCalls());
    assertEquals(64, config.maxQueuedCalls());
    assertEquals(workspace.resolve(".memsidecar"), config.dataDir());
    assertEquals(workspace, config.workspaceDir());
    assertEquals(defaultsIn(config.dataDir()), config.engine());
    assertEquals(List.of("workspace", "user"), ids(config));
    assertEquals(ScopeKind.USER, config.engine().profiles().get(1).scopeKind());
    assertEquals("langmem-sqlite", config.engine().profiles().get(0).provider());
  }

  @Test
  void emptyFilesAreFine() throws IOException {
    write("memsidecar.yaml", "");
    write("config/memory/empty.yaml", "# nothing here\n");
    write("config/memory/blank.yml", "---\n---\n");

    assertEquals(defaultsIn(workspace.resolve(".memsidecar")), load().engine());
  }

  @Test
  void pluginsFolderDefaultsToTheWorkspaceAndIsConfigurable() throws IOException {
    assertEquals(workspace.resolve("plugins"), load().engine().pluginsDir());
    write("memsidecar.yaml", "plugins: ext/providers\n");
    assertEquals(workspace.resolve("ext/providers"), load().engine().pluginsDir());
    SidecarConfig cli =
        ConfigLoader.load(workspace, Map.of(), new Overrides(null, null, null, Path.of("p2")));
    assertEquals(workspace.resolve("p2"), cli.engine().pluginsDir());
  }

  /** The embedded defaults as the loader gives them: plugins folder inside the workspace. */
  private EngineConfig defaultsIn(Path dataDir) {
    EngineConfig d = EngineConfig.defaults(dataDir);
    return new EngineConfig(
        d.dataDir(),
        d.flags(),
        d.profiles(),
        d.gateThreshold(),
        d.embedder(),
        d.maintenance(),
        workspace.resolve("plugins"),
        d.filesProvider(),
        d.runs());
  }

  @Test
  void fullMainFileIsApplied() throws IOException {
    write(
        "memsidecar.yaml",
        """
        server:
          host: 0.0.0.0
          port: 9000
          maxConcurrentCalls: 4
          maxQueuedCalls: 0
        data: state/mem
        memory:
          enabled: true
          deepagentsMem: { read: true, write: false }
          LangMem: { read: false, write: true }
          maintenance: { enabled: false, schedule: "0 3 * * *", prompt: "keep facts" }
          refs: [user]
          gate: { threshold: 6.5 }
          embedder: onnx-mini
        """);

    SidecarConfig config = load();

    assertEquals("0.0.0.0", config.host());
    assertEquals(9000, config.port());
    assertEquals(4, config.maxConcurrentCalls());
    assertEquals(0, config.maxQueuedCalls());
    assertEquals(workspace.resolve("state/mem"), config.dataDir());
    EngineConfig engine = config.engine();
    assertEquals(config.dataDir(), engine.dataDir());
    assertEquals(new Flags(true, false, false, true), engine.flags());
    assertEquals(
        new Maintenance(
            false,
            new MaintenanceSchedule.Cron(CronExpression.parse("0 3 * * *")),
            "keep facts",
            List.of(),
            Maintenance.RecordRetention.DEFAULT,
            Maintenance.Housekeeping.DEFAULT),
        engine.maintenance());
    assertEquals(List.of("user"), ids(config));
    assertEquals(6.5, engine.gateThreshold());
    assertEquals("onnx-mini", engine.embedder());
  }

  @Test
  void partialFlagBlockKeepsTheOtherFlagsOn() throws IOException {
    write("memsidecar.yaml", "memory:\n  LangMem:\n    write: false\n");

    assertEquals(new Flags(true, true, true, false), load().engine().flags());
  }

  @Test
  void memoryDisabledTurnsAllFourFlagsOff() throws IOException {
    write(
        "memsidecar.yaml",
        """
        memory:
          enabled: false
          deepagentsMem: { read: true, write: true }
          LangMem: { read: true, write: true }
        """);

    assertEquals(Flags.ALL_OFF, load().engine().flags());
  }

  @Test
  void environmentOverridesFile() throws IOException {
    write("memsidecar.yaml", "server: { host: 10.0.0.1, port: 9000 }\ndata: from-file\n");

    SidecarConfig config =
        ConfigLoader.load(
            workspace,
            Map.of(
                "MEMSIDECAR_HOST", "10.0.0.2",
                "MEMSIDECAR_PORT", "9001",
                "MEMSIDECAR_DATA", "from-env"),
            Overrides.NONE);

    assertEquals("10.0.0.2", config.host());
    assertEquals(9001, config.port());
    assertEquals(workspace.resolve("from-env"), config.dataDir());
    assertEquals(config.dataDir(), config.engine().dataDir());
  }

  @Test
  void blankEnvironmentVariableCountsAsUnset() throws IOException {
    write("memsidecar.yaml", "server: { port: 9000 }\n");

    SidecarConfig config =
        ConfigLoader.load(workspace, Map.of("MEMSIDECAR_PORT", ""), Overrides.NONE);

    assertEquals(9000, config.port());
  }

  @Test
  void commandLineOverridesEnvironment(@TempDir Path elsewhere) {
    Map<String, String> env =
        Map.of(
            "MEMSIDECAR_HOST", "10.0.0.2",
            "MEMSIDECAR_PORT", "9001",
            "MEMSIDECAR_DATA", "from-env");

    SidecarConfig config =
        ConfigLoader.load(
            workspace, env, new Overrides("10.0.0.3", 9002, elsewhere.resolve("a/../cli"), null));

    assertEquals("10.0.0.3", config.host());
    assertEquals(9002, config.port());
    assertEquals(elsewhere.resolve("cli"), config.dataDir());
    assertEquals(config.dataDir(), config.engine().dataDir());
  }

  @Test
  void relativeCommandLineDataResolvesAgainstWorkspace() {
    SidecarConfig config =
        ConfigLoader.load(
            workspace, Map.of(), new Overrides(null, null, Path.of("cli-data"), null));

    assertEquals(workspace.resolve("cli-data"), config.dataDir());
    assertTrue(config.dataDir().isAbsolute());
  }

  @Test
  void bothApiVersionsAreAccepted() throws IOException {
    write("config/memory/a.yaml", WORKSPACE_DOC);
    write(
        "config/memory/b.yaml",
        """
        apiVersion: stable-harness.dev/v1
        kind: Memory
        metadata:
          name: team
          description: shared team memory
        spec:
          profile: agent
          enabled: false
          mode: sync
        """);

    SidecarConfig config = load();

    assertEquals(List.of("workspace", "user", "team"), ids(config));
    ProfileSpec workspaceProfile = config.engine().profiles().get(0);
    assertEquals("langmem", workspaceProfile.provider());
    assertEquals(ScopeKind.WORKSPACE, workspaceProfile.scopeKind());
    ProfileSpec team = config.engine().profiles().get(2);
    assertEquals(ScopeKind.AGENT, team.scopeKind());
    assertEquals(ProfileSpec.DEFAULT_PROVIDER, team.provider());
    assertFalse(team.enabled());
    assertEquals("shared team memory", team.description());
  }

  @Test
  void unknownApiVersionFails() throws IOException {
    write("config/memory/a.yaml", WORKSPACE_DOC.replace("memsidecar.dev/v1", "example.com/v2"));

    ConfigException e = assertThrows(ConfigException.class, this::load);

    assertMessageContains(e, "config/memory/a.yaml: key 'apiVersion'");
    assertMessageContains(e, "example.com/v2");
  }

  @Test
  void otherKindFails() throws IOException {
    write("config/memory/a.yaml", WORKSPACE_DOC.replace("kind: Memory", "kind: Tool"));

    assertMessageContains(
        assertThrows(ConfigException.class, this::load), "key 'kind' must be 'Memory'");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          memsidecar.yaml | servr: {}                                 | servr
          memsidecar.yaml | server: { hots: x }                       | server.hots
          memsidecar.yaml | memory: { enable: true }                  | memory.enable
          memsidecar.yaml | 'memory: { LangMem: { reed: true } }'     | memory.LangMem.reed
          memsidecar.yaml | 'memory: { deepagentsMem: { rw: true } }' | memory.deepagentsMem.rw
          memsidecar.yaml | 'memory: { maintenance: { cron: x } }'    | memory.maintenance.cron
          memsidecar.yaml | 'memory: { gate: { min: 1 } }'            | memory.gate.min
          config/memory/user.yaml | 'spec: { provder: x }'                    | spec.provder
          config/memory/user.yaml | 'metadata: { name: user, labels: {} }'    | metadata.labels
          config/memory/user.yaml | 'status: {}'                              | status
          config/memory/user.yaml | 'spec: { prompts: { summary: x } }'       | spec.prompts.summary
          """)
  void unknownKeyFailsNamingFileAndPath(String file, String yaml, String path) throws IOException {
    String header = "";
    if (file.startsWith("config/")) {
      header = "apiVersion: memsidecar.dev/v1\nkind: Memory\n";
      header += yaml.startsWith("metadata") ? "" : "metadata: { name: user }\n";
    }
    write(file, header + yaml);

    ConfigException e = assertThrows(ConfigException.class, this::load);

    assertMessageContains(e, file + ": unknown key '" + path + "'");
  }

  @Test
  void yesIsNotABoolean() throws IOException {
    write("memsidecar.yaml", "memory:\n  LangMem:\n    read: yes\n");

    ConfigException e = assertThrows(ConfigException.class, this::load);

    assertMessageContains(e, "memsidecar.yaml: key 'memory.LangMem.read' must be a boolean");
    assertMessageContains(e, "'yes'");
  }

  @Test
  void quotedBooleanIsNotABoolean() throws IOException {
    write("memsidecar.yaml", "memory:\n  enabled: \"false\"\n");

    assertMessageContains(
        assertThrows(ConfigException.class, this::load), "key 'memory.enabled' must be a boolean");
  }

  @Test
  void refsSelectAndOrderProfiles() throws IOException {
    write(
        "config/memory/extra.yaml",
        """
        apiVersion: memsidecar.dev/v1
        kind: Memory
        metadata: { name: session }
        """);
    write("memsidecar.yaml", "memory:\n  refs: [session, workspace]\n");

    SidecarConfig config = load();

    assertEquals(List.of("session", "workspace"), ids(config));
    assertEquals(ScopeKind.SESSION, config.engine().profiles().get(0).scopeKind());
  }

  @Test
  void refToMissingProfileFails() throws IOException {
    write("memsidecar.yaml", "memory:\n  refs: [workspace, team]\n");

    ConfigException e = assertThrows(ConfigException.class, this::load);

    assertMessageContains(e, "memsidecar.yaml: key 'memory.refs[1]' names profile 'team'");
  }

  @Test
  void userScopeProfileKeepsProviderSettings() throws IOException {
    write(
        "config/memory/user.yaml",
        """
        apiVersion: stable-harness.dev/v1
        kind: Memory
        metadata:
          name: user
          description: Per-user preferences.
        spec:
          provider: langmem
          profile: user
          enabled: true
          mode: background
          prompts:
            semantic: |-
              Remember durable user preferences.
            procedural: Remember how the user likes work done.
          settings:
            path: user.db
            topK: 5
            hybrid: true
            weight: 0.25
        """);

    ProfileSpec user = load().engine().profiles().get(1);

    assertEquals("user", user.id());
    assertEquals(ScopeKind.USER, user.scopeKind());
    assertEquals("langmem", user.provider());
    assertEquals("Per-user preferences.", user.description());
    assertEquals(
        Map.of(
            "semantic", "Remember durable user preferences.",
            "procedural", "Remember how the user likes work done."),
        user.prompts());
    assertEquals(
        Map.of("path", "user.db", "topK", "5", "hybrid", "true", "weight", "0.25"),
        user.settings());
  }

  @Test
  void nestedSettingValueFails() throws IOException {
    write("config/memory/user.yaml", WORKSPACE_DOC + "  settings:\n    nested: { a: 1 }\n");

    assertMessageContains(
        assertThrows(ConfigException.class, this::load),
        "config/memory/user.yaml: key 'spec.settings.nested' must be a scalar");
  }

  @Test
  void duplicateProfileNameFailsNamingBothFiles() throws IOException {
    write("config/memory/a.yaml", WORKSPACE_DOC);
    write("config/memory/b.yml", WORKSPACE_DOC);

    ConfigException e = assertThrows(ConfigException.class, this::load);

    assertMessageContains(e, "profile 'workspace' is defined twice");
    assertMessageContains(e, "config/memory/a.yaml");
    assertMessageContains(e, "config/memory/b.yml");
  }

  @Test
  void multiDocumentFileDefinesSeveralProfiles() throws IOException {
    write(
        "config/memory/all.yaml",
        WORKSPACE_DOC
            + """
            ---
            apiVersion: memsidecar.dev/v1
            kind: Memory
            metadata: { name: agent }
            ---
            apiVersion: memsidecar.dev/v1
            kind: Memory
            metadata: { name: notes-1 }
            spec: { profile: session, provider: custom-store }
            """);

    SidecarConfig config = load();

    assertEquals(List.of("workspace", "user", "agent", "notes-1"), ids(config));
    assertEquals("langmem", config.engine().profiles().get(0).provider());
    assertEquals(ScopeKind.AGENT, config.engine().profiles().get(2).scopeKind());
    assertEquals("custom-store", config.engine().profiles().get(3).provider());
  }

  @Test
  void errorInLaterDocumentNamesTheDocument() throws IOException {
    write(
        "config/memory/all.yaml",
        WORKSPACE_DOC + "---\napiVersion: memsidecar.dev/v1\nkind: Memory\nmetdata: {}\n");

    ConfigException e = assertThrows(ConfigException.class, this::load);

    assertMessageContains(e, "config/memory/all.yaml: unknown key 'metdata'");
    assertMessageContains(e, "(document 2)");
  }

  @Test
  void maintenanceKeysAreRead() throws IOException {
    write(
        "memsidecar.yaml",
        """
        memory:
          maintenance:
            schedule: periodic
            interval: 2s
            targets: [langmem, housekeeping]
            langmem:
              cleanupThreshold: 6.5
              retention: { maxAge: 7d, maxCount: 5000, maxSize: 2MiB }
            housekeeping:
              audit: { maxAge: 0s, maxSize: "1000000" }
        """);

    Maintenance m = load().engine().maintenance();
    assertEquals(new MaintenanceSchedule.Periodic(Duration.ofSeconds(2)), m.schedule());
    assertEquals(List.of("langmem", "housekeeping"), m.targets());
    assertEquals(
        new Maintenance.RecordRetention(6.5, Duration.ofDays(7), 5000, 2L << 20), m.records());
    assertEquals(new Maintenance.Housekeeping(Duration.ZERO, 1_000_000), m.housekeeping());
    assertEquals(Maintenance.DEFAULT.prompt(), m.prompt());
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "schedule: weekly | memory.maintenance.schedule' unknown schedule 'weekly'",
        "schedule: '0 25 * * *' | memory.maintenance.schedule' the hour field takes 0..23",
        "interval: 500ms | memory.maintenance.interval' interval must be at least 1s",
        "langmem: { retention: { maxSize: 10 megs } } |"
            + " memory.maintenance.langmem.retention.maxSize'",
        "housekeeping: { audit: { maxCount: 3 } } | memory.maintenance.housekeeping.audit.maxCount'"
      })
  void badMaintenanceFailsNamingTheKey(String yaml, String message) throws IOException {
    write("memsidecar.yaml", "memory:\n  maintenance: { " + yaml + " }\n");

    assertMessageContains(assertThrows(ConfigException.class, this::load), message.strip());
  }

  @Test
  void portOutOfRangeFails() throws IOException {
    write("memsidecar.yaml", "server:\n  port: 70000\n");

    assertMessageContains(
        assertThrows(ConfigException.class, this::load),
        "memsidecar.yaml: key 'server.port' must be in 0..65535, got 70000");
  }

  @ParameterizedTest
  @CsvSource({"maxConcurrentCalls, 0, 1", "maxQueuedCalls, -1, 0", "maxConcurrentCalls, 4097, 1"})
  void callLimitOutOfRangeFailsNamingTheKey(String key, int value, int min) throws IOException {
    write("memsidecar.yaml", "server:\n  " + key + ": " + value + "\n");

    assertMessageContains(
        assertThrows(ConfigException.class, this::load),
        "memsidecar.yaml: key 'server." + key + "' must be in " + min + "..4096, got " + value);
  }

  @Test
  void quotedPortFails() throws IOException {
    write("memsidecar.yaml", "server:\n  port: \"7411\"\n");

    assertMessageContains(
        assertThrows(ConfigException.class, this::load), "key 'server.port' must be an integer");
  }

  @Test
  void nonNumericEnvironmentPortFails() {
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () -> ConfigLoader.load(workspace, Map.of("MEMSIDECAR_PORT", "http"), Overrides.NONE));

    assertMessageContains(e, "environment: MEMSIDECAR_PORT");
    assertMessageContains(e, "'http'");
  }

  @Test
  void commandLinePortOutOfRangeFails() {
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () -> ConfigLoader.load(workspace, Map.of(), new Overrides(null, -1, null, null)));

    assertMessageContains(e, "command line: port must be in 0..65535, got -1");
  }

  @Test
  void thresholdOutsideZeroToTenFails() throws IOException {
    write("memsidecar.yaml", "memory:\n  gate: { threshold: 10.5 }\n");

    assertMessageContains(
        assertThrows(ConfigException.class, this::load),
        "key 'memory.gate.threshold' must be in 0.0..10.0, got 10.5");
  }

  @Test
  void badProfileIdFails() throws IOException {
    write("config/memory/a.yaml", WORKSPACE_DOC.replace("name: workspace", "name: \"my team\""));

    assertMessageContains(
        assertThrows(ConfigException.class, this::load),
        "config/memory/a.yaml: key 'metadata.name' must match [A-Za-z0-9._-]{1,64}, got 'my team'");
  }

  @Test
  void badScopeKindFails() throws IOException {
    write("config/memory/a.yaml", WORKSPACE_DOC + "  profile: tenant\n");

    assertMessageContains(
        assertThrows(ConfigException.class, this::load),
        "config/memory/a.yaml: key 'spec.profile' must be one of [workspace, user, agent,"
            + " session], got 'tenant'");
  }

  @Test
  void profileNamedOtherThanAScopeNeedsSpecProfile() throws IOException {
    write("config/memory/a.yaml", WORKSPACE_DOC.replace("name: workspace", "name: team"));

    assertMessageContains(
        assertThrows(ConfigException.class, this::load), "missing key 'spec.profile'");
  }

  @Test
  void unknownModeFails() throws IOException {
    write("config/memory/a.yaml", WORKSPACE_DOC + "  mode: eager\n");

    assertMessageContains(
        assertThrows(ConfigException.class, this::load), "key 'spec.mode' must be one of");
  }

  @Test
  void duplicateKeyInOneFileFails() throws IOException {
    write("memsidecar.yaml", "server:\n  port: 1\n  port: 2\n");

    assertMessageContains(
        assertThrows(ConfigException.class, this::load), "memsidecar.yaml: invalid YAML");
  }

  @Test
  void yamlTagsCannotBuildObjects() throws IOException {
    write("memsidecar.yaml", "data: !!java.io.File [\"/tmp\"]\n");

    assertMessageContains(
        assertThrows(ConfigException.class, this::load), "memsidecar.yaml: invalid YAML");
  }

  @Test
  void unixSocketResolvesAgainstTheWorkspaceAndTheEnvironmentBeatsTheFile() throws IOException {
    assertEquals(null, load().unixSocket());
    write("memsidecar.yaml", "server:\n  unixSocket: run/memsidecar.sock\n");
    assertEquals(workspace.resolve("run/memsidecar.sock"), load().unixSocket());
    assertEquals(
        Path.of("/shared/m.sock"),
        ConfigLoader.load(
                workspace, Map.of("MEMSIDECAR_UNIX_SOCKET", "/shared/m.sock"), Overrides.NONE)
            .unixSocket());
  }

  @Test
  void noBearerTokenByDefault() {
    SidecarConfig config = load();
    assertEquals(null, config.authToken());
    assertTrue(config.toString().contains("authToken=none"));
  }

  @Test
  void bearerTokenComesFromItsFileWithoutTheFinalNewlineAndNeverShows() throws IOException {
    write("secrets/token", "s3cret-token-0123456789\n");
    write("memsidecar.yaml", "server:\n  auth:\n    tokenFile: secrets/token\n");

    SidecarConfig config = load();

    assertEquals("s3cret-token-0123456789", config.authToken());
    assertFalse(config.toString().contains("s3cret"), config::toString);
  }

  @Test
  void environmentTokenBeatsTheFile() throws IOException {
    write("secrets/token", "from-the-file-0123456789");
    write("memsidecar.yaml", "server:\n  auth:\n    tokenFile: secrets/token\n");

    SidecarConfig config =
        ConfigLoader.load(
            workspace, Map.of("MEMSIDECAR_AUTH_TOKEN", "from-the-env-0123456789"), Overrides.NONE);

    assertEquals("from-the-env-0123456789", config.authToken());
  }

  @Test
  void weakOrUnreadableTokensFailStartUpWithoutShowingTheToken() throws IOException {
    ConfigException shortToken =
        assertThrows(
            ConfigException.class,
            () ->
                ConfigLoader.load(
                    workspace, Map.of("MEMSIDECAR_AUTH_TOKEN", "short-secret"), Overrides.NONE));
    assertMessageContains(shortToken, "MEMSIDECAR_AUTH_TOKEN must be 16..1024 characters");
    assertFalse(shortToken.getMessage().contains("short-secret"));

    write("secrets/token", "has a space in it 0123456789");
    write("memsidecar.yaml", "server:\n  auth:\n    tokenFile: secrets/token\n");
    ConfigException spaced = assertThrows(ConfigException.class, this::load);
    assertMessageContains(spaced, "server.auth.tokenFile");
    assertFalse(spaced.getMessage().contains("space in it"));

    write("memsidecar.yaml", "server:\n  auth:\n    tokenFile: secrets/missing\n");
    assertMessageContains(
        assertThrows(ConfigException.class, this::load), "server.auth.tokenFile' cannot be read");
  }

  @Test
  void theInspectorIsOffAndReadOnlyByDefault() {
    assertEquals(SidecarConfig.Inspector.OFF, load().inspector());
  }

  @Test
  void theInspectorIsTurnedOnInTheFileOrOnTheCommandLine() throws IOException {
    write(
        "memsidecar.yaml",
        "server:\n  http: { port: 0 }\n  inspector: { enabled: true, writes: true }\n");
    assertEquals(new SidecarConfig.Inspector(true, true), load().inspector());

    write("memsidecar.yaml", "server:\n  inspector: { writes: false }\n");
    SidecarConfig flag =
        ConfigLoader.load(
            workspace, Map.of(), new Overrides(null, null, null, null, null, null, 0, true));
    assertEquals(new SidecarConfig.Inspector(true, false), flag.inspector());
  }

  @Test
  void theInspectorWithoutAnHttpPortFailsNamingTheKeys() throws IOException {
    write("memsidecar.yaml", "server:\n  inspector: { enabled: true }\n");
    ConfigException e = assertThrows(ConfigException.class, this::load);
    assertMessageContains(e, "server.inspector.enabled");
    assertMessageContains(e, "server.http.port");

    // The environment's port is enough.
    SidecarConfig env =
        ConfigLoader.load(workspace, Map.of("MEMSIDECAR_HTTP_PORT", "0"), Overrides.NONE);
    assertTrue(env.inspector().enabled());
  }

  @Test
  void anUnknownInspectorKeyFails() throws IOException {
    write("memsidecar.yaml", "server:\n  http: { port: 0 }\n  inspector: { enable: true }\n");
    assertMessageContains(assertThrows(ConfigException.class, this::load), "enable");
  }

  @Test
  void sharedStoreFromTheFileGoesToEveryLangMemProfileInASchemaOfItsOwn() throws IOException {
    write("secrets/db", "s3cret-pass\n");
    write(
        "memsidecar.yaml",
        """
        memory:
          store:
            url: jdbc:postgresql://db:5432/memsidecar
            user: ms
            passwordFile: secrets/db
        """);
    write(
        "config/memory/files.yaml",
        """
        apiVersion: memsidecar.dev/v1
        kind: Memory
        metadata: { name: notes }
        spec: { provider: deepagents-files, profile: user }
        ---
        apiVersion: memsidecar.dev/v1
        kind: Memory
        metadata: { name: Team-Notes }
        spec: { provider: langmem, profile: workspace }
        ---
        apiVersion: memsidecar.dev/v1
        kind: Memory
        metadata: { name: own }
        spec:
          profile: agent
          settings: { jdbc.url: "jdbc:h2:file:/elsewhere/own" }
        ---
        apiVersion: memsidecar.dev/v1
        kind: Memory
        metadata: { name: creds }
        spec:
          profile: agent
          settings: { jdbc.user: vault, jdbc.passwordFile: /run/vault, pool.size: "2" }
        """);

    SidecarConfig config = load();

    SharedStore store = config.engine().store();
    assertEquals(
        new SharedStore("jdbc:postgresql://db:5432/memsidecar", "ms", "s3cret-pass"), store);
    assertFalse(store.toString().contains("s3cret"), store::toString);
    Map<String, ProfileSpec> byId = new java.util.HashMap<>();
    config.engine().profiles().forEach(p -> byId.put(p.id(), p));
    assertEquals(
        Map.of(
            "jdbc.url", "jdbc:postgresql://db:5432/memsidecar",
            "jdbc.schema", "langmem_user",
            "jdbc.user", "ms",
            "jdbc.password", "s3cret-pass"),
        byId.get("user").settings());
    assertEquals("langmem_workspace", byId.get("workspace").settings().get("jdbc.schema"));
    assertEquals("langmem_team_notes", byId.get("Team-Notes").settings().get("jdbc.schema"));
    assertEquals(Map.of(), byId.get("notes").settings());
    // Credentials without a URL were for the embedded default: the store's replace them.
    assertEquals(
        Map.of(
            "jdbc.url", "jdbc:postgresql://db:5432/memsidecar",
            "jdbc.schema", "langmem_creds",
            "jdbc.user", "ms",
            "jdbc.password", "s3cret-pass",
            "pool.size", "2"),
        byId.get("creds").settings());
    assertEquals(Map.of("jdbc.url", "jdbc:h2:file:/elsewhere/own"), byId.get("own").settings());
  }

  @Test
  void sharedStoreFromTheEnvironmentBeatsTheFile() throws IOException {
    write("memsidecar.yaml", "memory:\n  store:\n    url: jdbc:postgresql://file:5432/a\n");

    SidecarConfig config =
        ConfigLoader.load(
            workspace,
            Map.of(
                "MEMSIDECAR_STORE_URL", "jdbc:postgresql://env:5432/b",
                "MEMSIDECAR_STORE_USER", "envuser",
                "MEMSIDECAR_STORE_PASSWORD", " spaced pass "),
            Overrides.NONE);

    assertEquals(
        new SharedStore("jdbc:postgresql://env:5432/b", "envuser", " spaced pass "),
        config.engine().store());
    assertEquals(
        new SharedStore("jdbc:postgresql://file:5432/a", null, null), load().engine().store());
  }

  @Test
  void noSharedStoreByDefault() {
    assertEquals(null, load().engine().store());
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "jdbc:mysql://db/x|MEMSIDECAR_STORE_URL must be a PostgreSQL JDBC URL",
        "jdbc:postgresql://db/x?user=a&password=hunter2|must not carry the password",
        "jdbc:postgresql://db/x?PASSWORD=hunter2|PASSWORD=***"
      })
  void badSharedStoreUrlsAreRefusedWithoutShowingAPassword(String url, String expected) {
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () ->
                ConfigLoader.load(workspace, Map.of("MEMSIDECAR_STORE_URL", url), Overrides.NONE));
    assertMessageContains(e, expected);
    assertFalse(e.getMessage().contains("hunter2"), e::getMessage);
  }

  @Test
  void sharedStoreCredentialsNeedAUrl() {
    assertMessageContains(
        assertThrows(
            ConfigException.class,
            () ->
                ConfigLoader.load(
                    workspace, Map.of("MEMSIDECAR_STORE_PASSWORD", "pw"), Overrides.NONE)),
        "need memory.store.url");
  }

  @Test
  void anUnreadableOrEmptyPasswordFileIsAnErrorThatNeverShowsItsContent() throws IOException {
    write(
        "memsidecar.yaml",
        "memory:\n  store:\n    url: jdbc:postgresql://db/x\n    passwordFile: pw\n");
    assertMessageContains(
        assertThrows(ConfigException.class, this::load), "memory.store.passwordFile");
    write("pw", "\n");
    assertMessageContains(assertThrows(ConfigException.class, this::load), "is empty");
  }

  @Test
  void twoProfilesThatWouldShareASchemaAreAnError() throws IOException {
    write(
        "config/memory/two.yaml",
        """
        apiVersion: memsidecar.dev/v1
        kind: Memory
        metadata: { name: a-b }
        spec: { profile: user }
        ---
        apiVersion: memsidecar.dev/v1
        kind: Memory
        metadata: { name: a_b }
        spec: { profile: user }
        """);
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () ->
                ConfigLoader.load(
                    workspace,
                    Map.of("MEMSIDECAR_STORE_URL", "jdbc:postgresql://db/x"),
                    Overrides.NONE));
    assertMessageContains(e, "would share the schema langmem_a_b");
  }

  private SidecarConfig load() {
    return ConfigLoader.load(workspace, Map.of(), Overrides.NONE);
  }

  private void write(String relative, String text) throws IOException {
    Path file = workspace.resolve(relative);
    Files.createDirectories(file.getParent());
    Files.writeString(file, text, StandardCharsets.UTF_8);
  }

  private static List<String> ids(SidecarConfig config) {
    return config.engine().profiles().stream().map(ProfileSpec::id).toList();
  }

  private static void assertMessageContains(ConfigException e, String expected) {
    assertTrue(
        e.getMessage().contains(expected),
        () -> "expected message to contain <" + expected + "> but was <" + e.getMessage() + ">");
  }
}
