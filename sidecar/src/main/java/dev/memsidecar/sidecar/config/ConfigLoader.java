package dev.memsidecar.sidecar.config;

import static java.util.Objects.requireNonNull;
import static java.util.Objects.requireNonNullElse;

import dev.memsidecar.api.Ids;
import dev.memsidecar.api.Settings;
import dev.memsidecar.core.config.EngineConfig;
import dev.memsidecar.core.config.Flags;
import dev.memsidecar.core.config.Maintenance;
import dev.memsidecar.core.config.MaintenanceSchedule;
import dev.memsidecar.core.config.ProfileSpec;
import dev.memsidecar.core.config.RunConfig;
import dev.memsidecar.core.config.ScopeKind;
import dev.memsidecar.core.config.SessionConfig;
import dev.memsidecar.core.config.SharedStore;
import dev.memsidecar.sidecar.config.ConfigFiles.Extractor;
import dev.memsidecar.sidecar.config.ConfigFiles.FilesPath;
import dev.memsidecar.sidecar.config.ConfigFiles.MainFile;
import dev.memsidecar.sidecar.config.ConfigFiles.Memory;
import dev.memsidecar.sidecar.config.ConfigFiles.MemoryDocument;
import dev.memsidecar.sidecar.config.ConfigFiles.Prompts;
import dev.memsidecar.sidecar.config.ConfigFiles.RecordsPath;
import dev.memsidecar.sidecar.config.ConfigFiles.Runs;
import dev.memsidecar.sidecar.config.ConfigFiles.Server;
import dev.memsidecar.sidecar.config.ConfigFiles.Spec;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Builds a {@link SidecarConfig} from a workspace folder, the environment and command-line flags.
 *
 * <p>Precedence, lowest first: embedded defaults, then the files, then the environment ({@value
 * #ENV_HOST}, {@value #ENV_PORT}, {@value #ENV_DATA}; an empty or blank variable counts as unset),
 * then {@link Overrides} (the command line). Defaults: host {@value SidecarConfig#DEFAULT_HOST},
 * port {@value SidecarConfig#DEFAULT_PORT}, {@value SidecarConfig#DEFAULT_MAX_CONCURRENT_CALLS}
 * concurrent and {@value SidecarConfig#DEFAULT_MAX_QUEUED_CALLS} queued calls ({@code
 * server.maxConcurrentCalls}, {@code server.maxQueuedCalls}; files only), data {@code
 * <workspace>/.memsidecar}, and {@link EngineConfig#defaults}.
 *
 * <p>Files: {@code <workspace>/memsidecar.yaml} (server, data folder, the {@code memory:} flags)
 * and every {@code *.yaml}/{@code *.yml} file directly in {@code <workspace>/config/memory/}, read
 * in file-name order, each holding any number of {@code kind: Memory} documents. Either may be
 * absent; empty files and empty documents are ignored. A profile from a file replaces the built-in
 * profile of the same name in place, others are appended in file order; {@code memory.refs}, when
 * present, selects and orders the active profiles.
 *
 * <p>Paths: the workspace folder is made absolute against the current directory. A relative data
 * folder, wherever it comes from (the {@code data:} key, {@value #ENV_DATA} or {@link
 * Overrides#dataDir()}), resolves against the workspace folder, not the current directory; a caller
 * that wants the current directory passes an absolute path. The result is normalised; no {@code ~}
 * expansion.
 *
 * <p>Strictness: an unknown key anywhere, a value of the wrong type or out of range, an unknown
 * {@code apiVersion}/{@code kind}, a bad profile id or scope, a profile defined twice, or a ref to
 * no profile throws {@link ConfigException} naming the file (relative to the workspace) or
 * "environment" / "command line", the dotted key path and the bad value. YAML is read with {@link
 * StrictYaml}: only {@code true}/{@code false} are booleans, duplicate keys fail, and no objects
 * other than maps, lists and scalars are built; Jackson binds each document to the records of
 * {@link ConfigFiles} ({@link YamlBinding}: unknown keys and wrong types), and this class checks
 * the values. Nothing is cached; each call reads the files again. Thread-safe (no shared state).
 *
 * <p>One file of about 900 lines because precedence is one merge: every key's default, file value,
 * environment variable and command-line flag meet in one {@code Draft}, in one order, and the
 * checks that span keys (the inspector needs the HTTP port, the store's credentials need its URL)
 * read the merged result. The parts that stand alone are their own classes: parsing ({@link
 * StrictYaml}), binding and type errors ({@link YamlBinding}), the file shapes ({@link
 * ConfigFiles}) and the result ({@link SidecarConfig}).
 */
public final class ConfigLoader {
  /** The server and flags file, in the workspace folder. */
  public static final String MAIN_FILE = "memsidecar.yaml";

  /** The folder of Memory profile files, relative to the workspace folder. */
  public static final String MEMORY_DIR = "config/memory";

  public static final String ENV_HOST = "MEMSIDECAR_HOST";
  public static final String ENV_PORT = "MEMSIDECAR_PORT";
  public static final String ENV_DATA = "MEMSIDECAR_DATA";

  /**
   * {@code 0} or {@code false} turns off EndRun's capture of tool rules; {@code 1}/{@code true} on.
   */
  public static final String ENV_TOOL_MEMORY_CAPTURE = "MEMSIDECAR_TOOL_MEMORY_CAPTURE_ENABLED";

  /** The bearer token every call but health must carry; beats {@code server.auth.tokenFile}. */
  public static final String ENV_AUTH_TOKEN = "MEMSIDECAR_AUTH_TOKEN";

  /** A Unix domain socket to listen on too; beats {@code server.unixSocket}. */
  public static final String ENV_UNIX_SOCKET = "MEMSIDECAR_UNIX_SOCKET";

  /** The HTTP port (metrics); beats {@code server.http.port}. */
  public static final String ENV_HTTP_PORT = "MEMSIDECAR_HTTP_PORT";

  /** The shared store's JDBC URL ({@code memory.store.url}); beats the file. */
  public static final String ENV_STORE_URL = "MEMSIDECAR_STORE_URL";

  /** The shared store's user ({@code memory.store.user}); beats the file. */
  public static final String ENV_STORE_USER = "MEMSIDECAR_STORE_USER";

  /** The shared store's password; beats {@code memory.store.passwordFile}. */
  public static final String ENV_STORE_PASSWORD = "MEMSIDECAR_STORE_PASSWORD";

  /** The shortest bearer token accepted. */
  public static final int MIN_TOKEN_CHARS = 16;

  /** The longest bearer token accepted. */
  public static final int MAX_TOKEN_CHARS = 1024;

  /** {@code memory.deepagentsMem.provider} value that keeps no memory files for other providers. */
  public static final String NO_FILES_PROVIDER = "none";

  private static final List<String> API_VERSIONS =
      List.of("memsidecar.dev/v1", "stable-harness.dev/v1");
  private static final String MEMORY_KIND = "Memory";
  private static final List<String> MODES = List.of("background", "sync");
  private static final List<String> SCOPE_KINDS =
      Arrays.stream(ScopeKind.values()).map(ScopeKind::id).toList();
  private static final int MAX_PORT = 65535;
  private static final String ENVIRONMENT = "environment";
  private static final String COMMAND_LINE = "command line";

  /**
   * Values given on the command line; each may be {@code null} (not given).
   *
   * @param host {@code --host}
   * @param port {@code --port}, 0..65535
   * @param dataDir {@code --data}; a relative path resolves against the workspace folder
   * @param pluginsDir {@code --plugins}; a relative path resolves against the workspace folder
   */
  public record Overrides(
      String host,
      Integer port,
      Path dataDir,
      Path pluginsDir,
      Path unixSocket,
      Path tokenFile,
      Integer httpPort,
      boolean inspector) {
    /** Nothing given on the command line. */
    public static final Overrides NONE = new Overrides(null, null, null, null);

    public Overrides(String host, Integer port, Path dataDir, Path pluginsDir) {
      this(host, port, dataDir, pluginsDir, null, null, null, false);
    }
  }

  private ConfigLoader() {}

  /**
   * Reads, merges and validates the whole configuration.
   *
   * @param workspaceDir the workspace folder; need not contain any file
   * @param env the process environment, usually {@code System.getenv()}
   * @param overrides values from the command line, or {@link Overrides#NONE}
   * @throws ConfigException when anything is unknown, malformed or inconsistent
   */
  public static SidecarConfig load(
      Path workspaceDir, Map<String, String> env, Overrides overrides) {
    requireNonNull(workspaceDir, "workspaceDir is null");
    requireNonNull(env, "env is null");
    requireNonNull(overrides, "overrides is null");
    Path workspace = workspaceDir.toAbsolutePath().normalize();
    StrictYaml yaml = new StrictYaml();

    Draft draft = new Draft(workspace.resolve(SidecarConfig.DEFAULT_DATA_DIR));
    draft.pluginsDir = workspace.resolve(SidecarConfig.DEFAULT_PLUGINS_DIR);
    LinkedHashMap<String, ProfileSpec> profiles = new LinkedHashMap<>();
    for (ProfileSpec profile : draft.engineDefaults.profiles()) {
      profiles.put(profile.id(), profile);
    }
    readProfileFiles(workspace, yaml, profiles);
    List<ProfileSpec> active = readMainFile(workspace, yaml, draft, profiles);
    applyEnvironment(workspace, env, draft);
    applyOverrides(workspace, overrides, draft);
    SharedStore store = sharedStore(draft);
    if (store != null) {
      try {
        active = store.applyTo(active);
      } catch (IllegalArgumentException e) {
        throw new ConfigException("memory.store.url: " + e.getMessage());
      }
    }

    EngineConfig engine =
        new EngineConfig(
            draft.dataDir,
            draft.flags,
            active,
            draft.gate,
            draft.embedder,
            draft.maintenance,
            draft.pluginsDir,
            draft.filesProvider,
            draft.runs,
            draft.sessions,
            store);
    return new SidecarConfig(
        draft.host,
        draft.port,
        draft.dataDir,
        workspace,
        engine,
        draft.maxConcurrentCalls,
        draft.maxQueuedCalls,
        draft.authToken,
        draft.unixSocket,
        draft.httpHost == null ? draft.host : draft.httpHost,
        draft.httpPort,
        inspector(draft));
  }

  /** The values being merged, starting from the embedded defaults. */
  private static final class Draft {
    final EngineConfig engineDefaults;
    String host = SidecarConfig.DEFAULT_HOST;
    int port = SidecarConfig.DEFAULT_PORT;
    int maxConcurrentCalls = SidecarConfig.DEFAULT_MAX_CONCURRENT_CALLS;
    int maxQueuedCalls = SidecarConfig.DEFAULT_MAX_QUEUED_CALLS;
    String authToken;
    Path unixSocket;
    String httpHost;
    Integer httpPort;
    boolean inspector;
    boolean inspectorWrites;
    Path dataDir;
    Path pluginsDir;
    Flags flags;
    Maintenance maintenance;
    double gate;
    String embedder;
    String filesProvider;
    RunConfig runs;
    SessionConfig sessions;
    String storeUrl;
    String storeUrlKey;
    String storeUser;
    String storePassword;

    Draft(Path dataDir) {
      this.dataDir = dataDir;
      engineDefaults = EngineConfig.defaults(dataDir);
      flags = engineDefaults.flags();
      maintenance = engineDefaults.maintenance();
      gate = engineDefaults.gateThreshold();
      embedder = engineDefaults.embedder();
      filesProvider = engineDefaults.filesProvider();
      runs = engineDefaults.runs();
      sessions = engineDefaults.sessions();
    }
  }

  /**
   * The inspector as configured; it is served on the HTTP port, so turning it on without one is an
   * error that says how to give one.
   */
  private static SidecarConfig.Inspector inspector(Draft draft) {
    if (!draft.inspector) {
      return SidecarConfig.Inspector.OFF;
    }
    if (draft.httpPort == null) {
      throw new ConfigException(
          "server.inspector.enabled (or --inspector) needs the HTTP port: set server.http.port in "
              + MAIN_FILE
              + ", --http-port N or "
              + ENV_HTTP_PORT
              + " (0 picks a free port)");
    }
    return new SidecarConfig.Inspector(true, draft.inspectorWrites);
  }

  // ---- memsidecar.yaml

  /** Applies memsidecar.yaml to {@code draft} and returns the active profiles. */
  private static List<ProfileSpec> readMainFile(
      Path workspace, StrictYaml yaml, Draft draft, Map<String, ProfileSpec> profiles) {
    Path file = workspace.resolve(MAIN_FILE);
    if (!Files.exists(file)) {
      return List.copyOf(profiles.values());
    }
    if (!Files.isRegularFile(file)) {
      throw new ConfigException(MAIN_FILE + ": not a regular file");
    }
    List<Object> documents = yaml.readAll(file, MAIN_FILE);
    if (documents.size() > 1) {
      throw new ConfigException(
          MAIN_FILE + ": holds " + documents.size() + " documents; expected one");
    }
    YamlBinding in = new YamlBinding(MAIN_FILE, "");
    MainFile main = in.bind(documents.isEmpty() ? null : documents.get(0), MainFile.class);

    Server server = main.server();
    String host = in.nonBlank("server.host", server.host());
    if (host != null) {
      draft.host = checkHost(host, in::invalid, "server.host");
    }
    draft.port = in.within("server.port", server.port(), 0, MAX_PORT, draft.port);
    int calls = SidecarConfig.MAX_CALLS;
    draft.maxConcurrentCalls =
        in.within(
            "server.maxConcurrentCalls",
            server.maxConcurrentCalls(),
            1,
            calls,
            draft.maxConcurrentCalls);
    draft.maxQueuedCalls =
        in.within("server.maxQueuedCalls", server.maxQueuedCalls(), 0, calls, draft.maxQueuedCalls);
    draft.unixSocket =
        path(workspace, in, "server.unixSocket", server.unixSocket(), draft.unixSocket);
    String httpHost = in.nonBlank("server.http.host", server.http().host());
    if (httpHost != null) {
      draft.httpHost = checkHost(httpHost, in::invalid, "server.http.host");
    }
    if (server.http().port() != null) {
      draft.httpPort = in.within("server.http.port", server.http().port(), 0, MAX_PORT, 0);
    }
    draft.inspector = requireNonNullElse(server.inspector().enabled(), false);
    draft.inspectorWrites = requireNonNullElse(server.inspector().writes(), false);
    String tokenFile = "server.auth.tokenFile";
    Path token = path(workspace, in, tokenFile, server.auth().tokenFile(), null);
    if (token != null) {
      draft.authToken = readToken(token, tokenFile, in::invalid);
    }
    draft.dataDir = path(workspace, in, "data", main.data(), draft.dataDir);
    draft.pluginsDir = path(workspace, in, "plugins", main.plugins(), draft.pluginsDir);

    Memory memory = main.memory();
    FilesPath deep = memory.deepagentsMem();
    String filesProvider = in.nonBlank("memory.deepagentsMem.provider", deep.provider());
    if (filesProvider != null) {
      draft.filesProvider = filesProvider.equals(NO_FILES_PROVIDER) ? null : filesProvider;
    }
    RecordsPath lang = memory.langMem();
    Flags on = draft.flags;
    Flags flags =
        new Flags(
            requireNonNullElse(deep.read(), on.deepagentsMemRead()),
            requireNonNullElse(deep.write(), on.deepagentsMemWrite()),
            requireNonNullElse(lang.read(), on.langMemRead()),
            requireNonNullElse(lang.write(), on.langMemWrite()));
    draft.flags = requireNonNullElse(memory.enabled(), true) ? flags : Flags.ALL_OFF;
    draft.maintenance = maintenance(in, memory.maintenance(), draft.maintenance);
    draft.gate = in.within("memory.gate.threshold", memory.gate().threshold(), 0, 10, draft.gate);
    draft.embedder =
        requireNonNullElse(in.nonBlank("memory.embedder", memory.embedder()), draft.embedder);

    Extractor extractor = memory.extractor();
    Runs runs = memory.runs();
    RunConfig r = draft.runs;
    draft.runs =
        new RunConfig(
            requireNonNullElse(
                in.nonBlank("memory.extractor.name", extractor.name()), r.extractor()),
            extractor.settings() == null
                ? r.extractorSettings()
                : scalars(in, "memory.extractor.settings", extractor.settings()),
            duration(in, "memory.runs.snapshotTtl", runs.snapshotTtl(), r.snapshotTtl()),
            duration(in, "memory.runs.shortTermTtl", runs.shortTermTtl(), r.shortTermTtl()),
            requireNonNullElse(memory.toolRules().capture(), r.captureToolRules()));

    draft.sessions =
        new SessionConfig(
            in.within(
                "memory.sessions.retentionDays",
                memory.sessions().retentionDays(),
                0,
                SessionConfig.MAX_RETENTION_DAYS,
                draft.sessions.retentionDays()));

    ConfigFiles.Store store = memory.store();
    String storeUrl = in.nonBlank("memory.store.url", store.url());
    if (storeUrl != null) {
      draft.storeUrl = storeUrl.strip();
      draft.storeUrlKey = MAIN_FILE + ": memory.store.url";
    }
    draft.storeUser = in.nonBlank("memory.store.user", store.user());
    String passwordKey = "memory.store.passwordFile";
    Path passwordFile = path(workspace, in, passwordKey, store.passwordFile(), null);
    if (passwordFile != null) {
      draft.storePassword = readPassword(passwordFile, passwordKey, in::invalid);
    }

    List<String> refs = memory.refs();
    if (refs == null) {
      return List.copyOf(profiles.values());
    }
    List<ProfileSpec> active = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < refs.size(); i++) {
      String ref = refs.get(i);
      String key = "memory.refs[" + i + "]";
      ProfileSpec profile = profiles.get(ref);
      if (profile == null) {
        throw in.invalid(
            key,
            "names profile '"
                + YamlBinding.shown(ref)
                + "', which is not defined; defined profiles: "
                + new ArrayList<>(profiles.keySet()));
      }
      if (!seen.add(ref)) {
        throw in.invalid(key, "names profile '" + ref + "' a second time");
      }
      active.add(profile);
    }
    return List.copyOf(active);
  }

  // ---- config/memory/*.yaml

  private static void readProfileFiles(
      Path workspace, StrictYaml yaml, Map<String, ProfileSpec> profiles) {
    Path dir = workspace.resolve(MEMORY_DIR);
    if (!Files.exists(dir)) {
      return;
    }
    if (!Files.isDirectory(dir)) {
      throw new ConfigException(MEMORY_DIR + ": not a directory");
    }
    List<Path> files;
    try (Stream<Path> listing = Files.list(dir)) {
      files =
          listing
              .filter(ConfigLoader::isYamlFileName)
              .filter(Files::isRegularFile)
              .sorted((a, b) -> a.getFileName().toString().compareTo(b.getFileName().toString()))
              .toList();
    } catch (IOException e) {
      throw new ConfigException(MEMORY_DIR + ": cannot list: " + e, e);
    }
    Map<String, String> definedIn = new HashMap<>();
    for (Path file : files) {
      String source = workspace.relativize(file).toString().replace('\\', '/');
      List<Object> documents = yaml.readAll(file, source);
      for (int i = 0; i < documents.size(); i++) {
        if (documents.get(i) == null) {
          continue;
        }
        String suffix = documents.size() > 1 ? " (document " + (i + 1) + ")" : "";
        YamlBinding in = new YamlBinding(source, suffix);
        ProfileSpec profile = profile(in, in.bind(documents.get(i), MemoryDocument.class));
        String previous = definedIn.putIfAbsent(profile.id(), source);
        if (previous != null) {
          throw in.fail(
              "profile '"
                  + profile.id()
                  + "' is defined twice: in "
                  + previous
                  + " and in "
                  + source);
        }
        profiles.put(profile.id(), profile);
      }
    }
  }

  private static boolean isYamlFileName(Path file) {
    String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
    return name.endsWith(".yaml") || name.endsWith(".yml");
  }

  private static ProfileSpec profile(YamlBinding in, MemoryDocument document) {
    if (document.apiVersion() == null) {
      throw in.fail("missing key 'apiVersion'; expected one of " + API_VERSIONS);
    }
    in.oneOf("apiVersion", document.apiVersion(), API_VERSIONS);
    if (document.kind() == null) {
      throw in.fail("missing key 'kind'; expected '" + MEMORY_KIND + "'");
    }
    in.oneOf("kind", document.kind(), List.of(MEMORY_KIND));
    String name = document.metadata().name();
    if (name == null) {
      throw in.fail("missing key 'metadata.name' (the profile id)");
    }
    if (!Ids.isValid(name)) {
      throw in.invalid(
          "metadata.name",
          "must match " + Ids.ID.pattern() + ", got '" + YamlBinding.shown(name) + "'");
    }
    Spec spec = document.spec();
    String provider = in.nonBlank("spec.provider", spec.provider());
    String scope = in.oneOf("spec.profile", spec.profile(), SCOPE_KINDS);
    if (scope == null && !SCOPE_KINDS.contains(name)) {
      throw in.fail(
          "missing key 'spec.profile': metadata.name '"
              + name
              + "' is not a scope kind, so spec.profile must be one of "
              + SCOPE_KINDS);
    }
    in.oneOf("spec.mode", spec.mode(), MODES);
    Prompts given = spec.prompts();
    Map<String, String> prompts = new LinkedHashMap<>();
    putIfGiven(prompts, "semantic", given.semantic());
    putIfGiven(prompts, "episodic", given.episodic());
    putIfGiven(prompts, "procedural", given.procedural());
    return new ProfileSpec(
        name,
        ScopeKind.parse(requireNonNullElse(scope, name)),
        requireNonNullElse(provider, ProfileSpec.DEFAULT_PROVIDER),
        requireNonNullElse(spec.enabled(), true),
        requireNonNullElse(document.metadata().description(), ""),
        prompts,
        scalars(in, "spec.settings", spec.settings()));
  }

  private static void putIfGiven(Map<String, String> prompts, String key, String prompt) {
    if (prompt != null) {
      prompts.put(key, prompt);
    }
  }

  /**
   * A mapping of scalars as strings ({@code 5} becomes "5", {@code true} "true", an empty value
   * ""); a nested mapping or list fails.
   */
  private static Map<String, String> scalars(YamlBinding in, String key, Map<String, Object> map) {
    Map<String, String> result = new LinkedHashMap<>();
    map.forEach(
        (name, value) -> {
          if (value instanceof Map<?, ?> || value instanceof List<?>) {
            throw in.invalid(
                key + "." + name, "must be a scalar, got " + YamlBinding.describe(value));
          }
          result.put(name, value == null ? "" : String.valueOf(value));
        });
    return result;
  }

  // ---- environment and command line

  private static void applyEnvironment(Path workspace, Map<String, String> env, Draft draft) {
    String host = envValue(env, ENV_HOST);
    if (host != null) {
      draft.host = checkHost(host, ENVIRONMENT_PROBLEM, ENV_HOST);
    }
    String port = envValue(env, ENV_PORT);
    if (port != null) {
      draft.port = parsePort(port, ENV_PORT);
    }
    String httpPort = envValue(env, ENV_HTTP_PORT);
    if (httpPort != null) {
      draft.httpPort = parsePort(httpPort, ENV_HTTP_PORT);
    }
    String data = envValue(env, ENV_DATA);
    if (data != null) {
      draft.dataDir = path(workspace, data, ENVIRONMENT_PROBLEM, ENV_DATA);
    }
    String socket = envValue(env, ENV_UNIX_SOCKET);
    if (socket != null) {
      draft.unixSocket = path(workspace, socket, ENVIRONMENT_PROBLEM, ENV_UNIX_SOCKET);
    }
    String token = envValue(env, ENV_AUTH_TOKEN);
    if (token != null) {
      draft.authToken = checkToken(token, ENV_AUTH_TOKEN, ENVIRONMENT_PROBLEM);
    }
    String storeUrl = envValue(env, ENV_STORE_URL);
    if (storeUrl != null) {
      draft.storeUrl = storeUrl;
      draft.storeUrlKey = ENVIRONMENT + ": " + ENV_STORE_URL;
    }
    String storeUser = envValue(env, ENV_STORE_USER);
    if (storeUser != null) {
      draft.storeUser = storeUser;
    }
    String storePassword = env.get(ENV_STORE_PASSWORD);
    if (storePassword != null && !storePassword.isEmpty()) {
      draft.storePassword = storePassword;
    }
    String capture = envValue(env, ENV_TOOL_MEMORY_CAPTURE);
    if (capture != null) {
      boolean on =
          switch (capture.toLowerCase(Locale.ROOT)) {
            case "1", "true" -> true;
            case "0", "false" -> false;
            default ->
                throw ENVIRONMENT_PROBLEM.at(
                    ENV_TOOL_MEMORY_CAPTURE,
                    "must be 0, 1, true or false, got '" + YamlBinding.shown(capture) + "'");
          };
      RunConfig r = draft.runs;
      draft.runs =
          new RunConfig(
              r.extractor(), r.extractorSettings(), r.snapshotTtl(), r.shortTermTtl(), on);
    }
  }

  private static void applyOverrides(Path workspace, Overrides overrides, Draft draft) {
    if (overrides.host() != null) {
      if (overrides.host().isBlank()) {
        throw COMMAND_LINE_PROBLEM.at("host", "must not be blank");
      }
      draft.host = checkHost(overrides.host(), COMMAND_LINE_PROBLEM, "host");
    }
    if (overrides.port() != null) {
      draft.port = checkPort(overrides.port(), COMMAND_LINE_PROBLEM, "port");
    }
    if (overrides.dataDir() != null) {
      draft.dataDir = workspace.resolve(overrides.dataDir()).normalize();
    }
    if (overrides.pluginsDir() != null) {
      draft.pluginsDir = workspace.resolve(overrides.pluginsDir()).normalize();
    }
    if (overrides.httpPort() != null) {
      draft.httpPort = checkPort(overrides.httpPort(), COMMAND_LINE_PROBLEM, "http-port");
    }
    if (overrides.inspector()) {
      draft.inspector = true;
    }
    if (overrides.unixSocket() != null) {
      draft.unixSocket = workspace.resolve(overrides.unixSocket()).normalize();
    }
    if (overrides.tokenFile() != null) {
      draft.authToken =
          readToken(
              workspace.resolve(overrides.tokenFile()).normalize(),
              "token-file",
              COMMAND_LINE_PROBLEM);
    }
  }

  /** The variable's value with surrounding blanks removed, or null when unset or blank. */
  private static String envValue(Map<String, String> env, String name) {
    String value = env.get(name);
    return value == null || value.isBlank() ? null : value.strip();
  }

  private static int parsePort(String text, String variable) {
    int port;
    try {
      port = Integer.parseInt(text);
    } catch (NumberFormatException e) {
      throw ENVIRONMENT_PROBLEM.at(
          variable,
          "must be an integer in 0.." + MAX_PORT + ", got '" + YamlBinding.shown(text) + "'");
    }
    return checkPort(port, ENVIRONMENT_PROBLEM, variable);
  }

  private static int checkPort(int port, Problem problem, String key) {
    if (port < 0 || port > MAX_PORT) {
      throw problem.at(key, "must be in 0.." + MAX_PORT + ", got " + port);
    }
    return port;
  }

  // ---- the shared store

  /**
   * The shared store the draft names, or null; a user or password without a URL, or a URL that is
   * not PostgreSQL's or carries a password, is an error naming where the URL came from.
   */
  private static SharedStore sharedStore(Draft draft) {
    if (draft.storeUrl == null) {
      if (draft.storeUser != null || draft.storePassword != null) {
        throw new ConfigException(
            "memory.store.user and the store's password need memory.store.url (or "
                + ENV_STORE_URL
                + "): the database they are for");
      }
      return null;
    }
    String url = draft.storeUrl;
    String where = draft.storeUrlKey;
    if (!url.startsWith(SharedStore.URL_PREFIX)) {
      throw new ConfigException(
          where
              + " must be a PostgreSQL JDBC URL such as"
              + " jdbc:postgresql://db:5432/memsidecar, got '"
              + YamlBinding.shown(maskPassword(url))
              + "' (without it the sidecar keeps its embedded H2 files)");
    }
    if (url.toLowerCase(Locale.ROOT).matches("(?s).*[?&]password=.*")) {
      throw new ConfigException(
          where
              + " must not carry the password ("
              + maskPassword(url)
              + "): give it in memory.store.passwordFile or "
              + ENV_STORE_PASSWORD);
    }
    return new SharedStore(url, draft.storeUser, draft.storePassword);
  }

  /** {@code url} with the value of a {@code password} parameter as {@code ***}. */
  private static String maskPassword(String url) {
    return url.replaceAll("(?i)(password=)[^&]*", "$1***");
  }

  /** The password in {@code file}, its final line breaks dropped; never shown in a message. */
  private static String readPassword(Path file, String key, Problem problem) {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException | RuntimeException e) {
      throw problem.at(key, "cannot be read: " + file + " (" + e.getClass().getSimpleName() + ")");
    }
    text = text.replaceAll("[\\r\\n]+$", "");
    if (text.isEmpty()) {
      throw problem.at(key, "is empty: " + file);
    }
    return text;
  }

  // ---- shared checks

  /** The token in {@code file} (surrounding whitespace, such as a final newline, dropped). */
  private static String readToken(Path file, String key, Problem problem) {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException | RuntimeException e) {
      throw problem.at(key, "cannot be read: " + file + " (" + e.getMessage() + ")");
    }
    return checkToken(text.strip(), key, (k, p) -> problem.at(k, "holds a token that " + p));
  }

  /** {@code token} if it is 16..1024 printable ASCII characters; never shown in a message. */
  private static String checkToken(String token, String key, Problem problem) {
    if (token.length() < MIN_TOKEN_CHARS || token.length() > MAX_TOKEN_CHARS) {
      String range = MIN_TOKEN_CHARS + ".." + MAX_TOKEN_CHARS;
      throw problem.at(key, "must be " + range + " characters, got " + token.length());
    }
    if (!token.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
      throw problem.at(
          key, "must be printable ASCII without spaces (it travels in an HTTP/2 header)");
    }
    return token;
  }

  /** A problem with a value from the environment: "environment: KEY problem". */
  private static final Problem ENVIRONMENT_PROBLEM =
      (key, problem) -> new ConfigException(ENVIRONMENT + ": " + key + " " + problem);

  /** A problem with a flag: "command line: NAME problem". */
  private static final Problem COMMAND_LINE_PROBLEM =
      (key, problem) -> new ConfigException(COMMAND_LINE + ": " + key + " " + problem);

  /** How a value check reports a problem: the key and what is wrong with it. */
  private interface Problem {
    ConfigException at(String key, String problem);
  }

  /** The non-blank path {@code text} of a file, resolved; {@code fallback} when it is null. */
  private static Path path(Path workspace, YamlBinding in, String key, String text, Path fallback) {
    return in.nonBlank(key, text) == null ? fallback : path(workspace, text, in::invalid, key);
  }

  /** {@code text} resolved against the workspace. */
  private static Path path(Path workspace, String text, Problem problem, String key) {
    try {
      return workspace.resolve(text).normalize();
    } catch (InvalidPathException e) {
      throw problem.at(
          key, "is not a valid path: '" + YamlBinding.shown(text) + "' (" + e.getReason() + ")");
    }
  }

  private static String checkHost(String host, Problem problem, String key) {
    if (host.chars().anyMatch(Character::isWhitespace)) {
      throw problem.at(key, "must not contain whitespace, got '" + YamlBinding.shown(host) + "'");
    }
    return host;
  }

  /**
   * A positive duration such as {@code 24h}, {@code 30m}, {@code 7d} or {@code PT30S}, or {@code
   * fallback} when {@code text} is null.
   */
  /** {@code memory.maintenance} over {@code base}. */
  private static Maintenance maintenance(
      YamlBinding in, ConfigFiles.Maintenance m, Maintenance base) {
    String key = "memory.maintenance";
    String scheduleText = in.nonBlank(key + ".schedule", m.schedule());
    Duration interval = duration(in, key + ".interval", m.interval(), null);
    MaintenanceSchedule schedule = base.schedule();
    if (scheduleText != null || interval != null) {
      try {
        schedule =
            MaintenanceSchedule.of(
                scheduleText == null ? MaintenanceSchedule.PERIODIC : scheduleText, interval);
      } catch (IllegalArgumentException e) {
        String bad =
            scheduleText != null && !scheduleText.equals(MaintenanceSchedule.PERIODIC)
                ? key + ".schedule"
                : key + ".interval";
        throw in.invalid(bad, e.getMessage());
      }
    }
    List<String> targets = base.targets();
    if (m.targets() != null) {
      for (int i = 0; i < m.targets().size(); i++) {
        in.nonBlank(key + ".targets[" + i + "]", m.targets().get(i));
      }
      targets = m.targets();
    }
    Maintenance.RecordRetention r = base.records();
    ConfigFiles.Retention rr = m.langmem().retention();
    String rk = key + ".langmem.retention";
    Maintenance.RecordRetention records =
        new Maintenance.RecordRetention(
            in.within(
                key + ".langmem.cleanupThreshold",
                m.langmem().cleanupThreshold(),
                0,
                10,
                r.cleanupThreshold()),
            limitDuration(in, rk + ".maxAge", rr.maxAge(), r.maxAge()),
            in.within(rk + ".maxCount", rr.maxCount(), 0, Integer.MAX_VALUE, (int) r.maxCount()),
            size(in, rk + ".maxSize", rr.maxSize(), r.maxBytes()));
    ConfigFiles.Retention audit = m.housekeeping().audit();
    String ak = key + ".housekeeping.audit";
    if (audit.maxCount() != null) {
      throw in.invalid(ak + ".maxCount", "is not a limit of the audit; use maxAge and maxSize");
    }
    Maintenance.Housekeeping h = base.housekeeping();
    return new Maintenance(
        requireNonNullElse(m.enabled(), base.enabled()),
        schedule,
        requireNonNullElse(m.prompt(), base.prompt()),
        targets,
        records,
        new Maintenance.Housekeeping(
            limitDuration(in, ak + ".maxAge", audit.maxAge(), h.auditMaxAge()),
            size(in, ak + ".maxSize", audit.maxSize(), h.auditMaxBytes())));
  }

  /** A duration limit: a duration such as 30d, or 0 for none. */
  private static Duration limitDuration(
      YamlBinding in, String key, String text, Duration fallback) {
    if (text == null) {
      return fallback;
    }
    Duration value = text.isBlank() ? null : Settings.parseDuration(text.strip());
    if (value == null || value.isNegative()) {
      throw in.invalid(
          key,
          "must be a duration such as 30d, 12h or PT30M, or 0s for no limit, got '"
              + YamlBinding.shown(text)
              + "'");
    }
    return value;
  }

  private static final java.util.regex.Pattern SIZE =
      java.util.regex.Pattern.compile("(\\d{1,15})\\s*(B|KB|KiB|MB|MiB|GB|GiB)?");

  /** A size limit: bytes, or a number with B, KiB, MiB, GiB (or KB, MB, GB: powers of 1000). */
  private static long size(YamlBinding in, String key, String text, long fallback) {
    if (text == null) {
      return fallback;
    }
    java.util.regex.Matcher m = SIZE.matcher(text.strip());
    if (!m.matches()) {
      throw in.invalid(
          key,
          "must be a size such as 10MiB, 512KiB or 1048576 (bytes), or 0 for no limit, got '"
              + YamlBinding.shown(text)
              + "'");
    }
    long n = Long.parseLong(m.group(1));
    long unit =
        switch (m.group(2) == null ? "B" : m.group(2)) {
          case "KB" -> 1000L;
          case "KiB" -> 1L << 10;
          case "MB" -> 1000_000L;
          case "MiB" -> 1L << 20;
          case "GB" -> 1000_000_000L;
          case "GiB" -> 1L << 30;
          default -> 1L;
        };
    try {
      return Math.multiplyExact(n, unit);
    } catch (ArithmeticException e) {
      throw in.invalid(key, "is too large: '" + YamlBinding.shown(text) + "'");
    }
  }

  private static Duration duration(YamlBinding in, String key, String text, Duration fallback) {
    if (text == null) {
      return fallback;
    }
    if (text.isBlank()) {
      throw in.invalid(key, "must not be blank");
    }
    Duration value = Settings.parseDuration(text.strip());
    if (value == null || value.isZero() || value.isNegative()) {
      throw in.invalid(
          key,
          "must be a positive duration such as 30m, 24h, 7d or PT30S, got '"
              + YamlBinding.shown(text)
              + "'");
    }
    return value;
  }
}
