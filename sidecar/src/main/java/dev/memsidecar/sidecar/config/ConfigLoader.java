package dev.memsidecar.sidecar.config;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.Ids;
import dev.memsidecar.api.Settings;
import dev.memsidecar.core.config.EngineConfig;
import dev.memsidecar.core.config.Flags;
import dev.memsidecar.core.config.Maintenance;
import dev.memsidecar.core.config.ProfileSpec;
import dev.memsidecar.core.config.RunConfig;
import dev.memsidecar.core.config.ScopeKind;
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
import java.util.Optional;
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
 * other than maps, lists and scalars are built. Nothing is cached; each call reads the files again.
 * Thread-safe (no shared state).
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

  /** The shortest bearer token accepted. */
  public static final int MIN_TOKEN_CHARS = 16;

  /** The longest bearer token accepted. */
  public static final int MAX_TOKEN_CHARS = 1024;

  /** The accepted {@code apiVersion} values of a Memory document. */
  public static final List<String> API_VERSIONS =
      List.of("memsidecar.dev/v1", "stable-harness.dev/v1");

  /** The only accepted {@code kind} of a profile document. */
  public static final String MEMORY_KIND = "Memory";

  /** The accepted {@code spec.mode} values. */
  public static final List<String> MODES = List.of("background", "sync");

  private static final String ENVIRONMENT = "environment";
  private static final String COMMAND_LINE = "command line";
  private static final int MAX_PORT = 65535;

  private static final Set<String> MAIN_KEYS =
      YamlSection.keys("server", "data", "plugins", "memory");
  private static final Set<String> SERVER_KEYS =
      YamlSection.keys(
          "host", "port", "maxConcurrentCalls", "maxQueuedCalls", "auth", "unixSocket");
  private static final Set<String> AUTH_KEYS = YamlSection.keys("tokenFile");
  private static final Set<String> MEMORY_KEYS =
      YamlSection.keys(
          "enabled",
          "deepagentsMem",
          "LangMem",
          "maintenance",
          "refs",
          "gate",
          "embedder",
          "extractor",
          "runs",
          "toolRules");
  private static final Set<String> TOOL_RULES_KEYS = YamlSection.keys("capture");
  private static final Set<String> EXTRACTOR_KEYS = YamlSection.keys("name", "settings");
  private static final Set<String> RUNS_KEYS = YamlSection.keys("snapshotTtl", "shortTermTtl");
  private static final Set<String> FLAG_KEYS = YamlSection.keys("read", "write");
  private static final Set<String> DEEPAGENTS_KEYS = YamlSection.keys("read", "write", "provider");

  /** {@code memory.deepagentsMem.provider} value that keeps no memory files for other providers. */
  public static final String NO_FILES_PROVIDER = "none";

  private static final Set<String> MAINTENANCE_KEYS =
      YamlSection.keys("enabled", "schedule", "prompt");
  private static final Set<String> GATE_KEYS = YamlSection.keys("threshold");
  private static final Set<String> DOCUMENT_KEYS =
      YamlSection.keys("apiVersion", "kind", "metadata", "spec");
  private static final Set<String> METADATA_KEYS = YamlSection.keys("name", "description");
  private static final Set<String> SPEC_KEYS =
      YamlSection.keys("provider", "profile", "enabled", "mode", "prompts", "settings");
  private static final Set<String> PROMPT_KEYS =
      YamlSection.keys("semantic", "episodic", "procedural");

  /**
   * Values given on the command line; each may be {@code null} (not given).
   *
   * @param host {@code --host}
   * @param port {@code --port}, 0..65535
   * @param dataDir {@code --data}; a relative path resolves against the workspace folder
   * @param pluginsDir {@code --plugins}; a relative path resolves against the workspace folder
   */
  public record Overrides(String host, Integer port, Path dataDir, Path pluginsDir) {
    /** Nothing given on the command line. */
    public static final Overrides NONE = new Overrides(null, null, null, null);
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
            draft.runs);
    return new SidecarConfig(
        draft.host,
        draft.port,
        draft.dataDir,
        workspace,
        engine,
        draft.maxConcurrentCalls,
        draft.maxQueuedCalls,
        draft.authToken,
        draft.unixSocket);
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
    Path dataDir;
    Path pluginsDir;
    Flags flags;
    Maintenance maintenance;
    double gate;
    String embedder;
    String filesProvider;
    RunConfig runs;

    Draft(Path dataDir) {
      this.dataDir = dataDir;
      engineDefaults = EngineConfig.defaults(dataDir);
      flags = engineDefaults.flags();
      maintenance = engineDefaults.maintenance();
      gate = engineDefaults.gateThreshold();
      embedder = engineDefaults.embedder();
      filesProvider = engineDefaults.filesProvider();
      runs = engineDefaults.runs();
    }
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
    YamlSection root =
        YamlSection.root(MAIN_FILE, "", documents.isEmpty() ? null : documents.get(0));
    root.allowOnly(MAIN_KEYS);

    YamlSection server = root.section("server").allowOnly(SERVER_KEYS);
    server.nonBlankString("host").ifPresent(host -> draft.host = checkHost(server, host));
    server.integer("port", 0, MAX_PORT).ifPresent(port -> draft.port = port);
    server
        .integer("maxConcurrentCalls", 1, SidecarConfig.MAX_CALLS)
        .ifPresent(calls -> draft.maxConcurrentCalls = calls);
    server
        .integer("maxQueuedCalls", 0, SidecarConfig.MAX_CALLS)
        .ifPresent(calls -> draft.maxQueuedCalls = calls);
    server
        .nonBlankString("unixSocket")
        .ifPresent(
            path -> draft.unixSocket = resolveData(workspace, path, server::invalid, "unixSocket"));
    YamlSection auth = server.section("auth").allowOnly(AUTH_KEYS);
    auth.nonBlankString("tokenFile")
        .ifPresent(
            tokenFile ->
                draft.authToken =
                    readToken(resolveData(workspace, tokenFile, auth::invalid, "tokenFile"), auth));
    root.nonBlankString("data")
        .ifPresent(data -> draft.dataDir = resolveData(workspace, data, root::invalid, "data"));
    root.nonBlankString("plugins")
        .ifPresent(dir -> draft.pluginsDir = resolveData(workspace, dir, root::invalid, "plugins"));

    YamlSection memory = root.section("memory").allowOnly(MEMORY_KEYS);
    YamlSection deep = memory.section("deepagentsMem").allowOnly(DEEPAGENTS_KEYS);
    deep.nonBlankString("provider")
        .ifPresent(name -> draft.filesProvider = name.equals(NO_FILES_PROVIDER) ? null : name);
    YamlSection lang = memory.section("LangMem").allowOnly(FLAG_KEYS);
    Flags defaults = draft.flags;
    Flags flags =
        new Flags(
            deep.bool("read").orElse(defaults.deepagentsMemRead()),
            deep.bool("write").orElse(defaults.deepagentsMemWrite()),
            lang.bool("read").orElse(defaults.langMemRead()),
            lang.bool("write").orElse(defaults.langMemWrite()));
    draft.flags = memory.bool("enabled").orElse(true) ? flags : Flags.ALL_OFF;

    YamlSection maintenance = memory.section("maintenance").allowOnly(MAINTENANCE_KEYS);
    Maintenance base = draft.maintenance;
    draft.maintenance =
        new Maintenance(
            maintenance.bool("enabled").orElse(base.enabled()),
            maintenance.nonBlankString("schedule").orElse(base.schedule()),
            maintenance.string("prompt").orElse(base.prompt()));

    YamlSection gate = memory.section("gate").allowOnly(GATE_KEYS);
    gate.number("threshold", 0.0, 10.0).ifPresent(threshold -> draft.gate = threshold);
    memory.nonBlankString("embedder").ifPresent(embedder -> draft.embedder = embedder);

    YamlSection extractor = memory.section("extractor").allowOnly(EXTRACTOR_KEYS);
    YamlSection runs = memory.section("runs").allowOnly(RUNS_KEYS);
    RunConfig runDefaults = draft.runs;
    draft.runs =
        new RunConfig(
            extractor.nonBlankString("name").orElse(runDefaults.extractor()),
            extractor.has("settings")
                ? extractor.scalarMap("settings")
                : runDefaults.extractorSettings(),
            duration(runs, "snapshotTtl").orElse(runDefaults.snapshotTtl()),
            duration(runs, "shortTermTtl").orElse(runDefaults.shortTermTtl()),
            memory
                .section("toolRules")
                .allowOnly(TOOL_RULES_KEYS)
                .bool("capture")
                .orElse(runDefaults.captureToolRules()));

    Optional<List<String>> refs = memory.strings("refs");
    if (refs.isEmpty()) {
      return List.copyOf(profiles.values());
    }
    List<ProfileSpec> active = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < refs.get().size(); i++) {
      String ref = refs.get().get(i);
      String key = "refs[" + i + "]";
      ProfileSpec profile = profiles.get(ref);
      if (profile == null) {
        throw memory.invalid(
            key,
            "names profile '"
                + YamlSection.shown(ref)
                + "', which is not defined; defined profiles: "
                + new ArrayList<>(profiles.keySet()));
      }
      if (!seen.add(ref)) {
        throw memory.invalid(key, "names profile '" + ref + "' a second time");
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
        YamlSection document = YamlSection.root(source, suffix, documents.get(i));
        ProfileSpec profile = parseProfile(document);
        String previous = definedIn.putIfAbsent(profile.id(), source);
        if (previous != null) {
          throw document.fail(
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

  private static ProfileSpec parseProfile(YamlSection document) {
    document.allowOnly(DOCUMENT_KEYS);
    String apiVersion =
        document
            .string("apiVersion")
            .orElseThrow(
                () -> document.fail("missing key 'apiVersion'; expected one of " + API_VERSIONS));
    if (!API_VERSIONS.contains(apiVersion)) {
      throw document.invalid(
          "apiVersion",
          "must be one of " + API_VERSIONS + ", got '" + YamlSection.shown(apiVersion) + "'");
    }
    String kind =
        document
            .string("kind")
            .orElseThrow(() -> document.fail("missing key 'kind'; expected '" + MEMORY_KIND + "'"));
    if (!MEMORY_KIND.equals(kind)) {
      throw document.invalid(
          "kind", "must be '" + MEMORY_KIND + "', got '" + YamlSection.shown(kind) + "'");
    }

    YamlSection metadata = document.section("metadata").allowOnly(METADATA_KEYS);
    String name =
        metadata
            .string("name")
            .orElseThrow(() -> metadata.fail("missing key 'metadata.name' (the profile id)"));
    if (!Ids.isValid(name)) {
      throw metadata.invalid(
          "name", "must match " + Ids.ID.pattern() + ", got '" + YamlSection.shown(name) + "'");
    }
    String description = metadata.string("description").orElse("");

    YamlSection spec = document.section("spec").allowOnly(SPEC_KEYS);
    String provider = spec.nonBlankString("provider").orElse(ProfileSpec.DEFAULT_PROVIDER);
    ScopeKind scope = scopeKind(spec, name);
    boolean enabled = spec.bool("enabled").orElse(true);
    Optional<String> mode = spec.string("mode");
    if (mode.isPresent() && !MODES.contains(mode.get())) {
      throw spec.invalid(
          "mode", "must be one of " + MODES + ", got '" + YamlSection.shown(mode.get()) + "'");
    }
    YamlSection promptSection = spec.section("prompts").allowOnly(PROMPT_KEYS);
    Map<String, String> prompts = new LinkedHashMap<>();
    for (String key : PROMPT_KEYS) {
      promptSection.string(key).ifPresent(prompt -> prompts.put(key, prompt));
    }
    Map<String, String> settings = spec.scalarMap("settings");
    return new ProfileSpec(name, scope, provider, enabled, description, prompts, settings);
  }

  private static ScopeKind scopeKind(YamlSection spec, String name) {
    List<String> kinds = Arrays.stream(ScopeKind.values()).map(ScopeKind::id).toList();
    Optional<String> profile = spec.string("profile");
    if (profile.isPresent()) {
      try {
        return ScopeKind.parse(profile.get());
      } catch (IllegalArgumentException e) {
        throw spec.invalid(
            "profile",
            "must be one of " + kinds + ", got '" + YamlSection.shown(profile.get()) + "'");
      }
    }
    try {
      return ScopeKind.parse(name);
    } catch (IllegalArgumentException e) {
      throw spec.fail(
          "missing key 'spec.profile': metadata.name '"
              + name
              + "' is not a scope kind, so spec.profile must be one of "
              + kinds);
    }
  }

  // ---- environment and command line

  private static void applyEnvironment(Path workspace, Map<String, String> env, Draft draft) {
    String host = envValue(env, ENV_HOST);
    if (host != null) {
      draft.host = checkHost(ENVIRONMENT + ": " + ENV_HOST, host);
    }
    String port = envValue(env, ENV_PORT);
    if (port != null) {
      draft.port = parsePort(port);
    }
    String data = envValue(env, ENV_DATA);
    if (data != null) {
      draft.dataDir = resolveData(workspace, data, ENVIRONMENT_PROBLEM, ENV_DATA);
    }
    String socket = envValue(env, ENV_UNIX_SOCKET);
    if (socket != null) {
      draft.unixSocket = resolveData(workspace, socket, ENVIRONMENT_PROBLEM, ENV_UNIX_SOCKET);
    }
    String token = envValue(env, ENV_AUTH_TOKEN);
    if (token != null) {
      draft.authToken = checkToken(token, ENV_AUTH_TOKEN, ENVIRONMENT_PROBLEM);
    }
    String capture = envValue(env, ENV_TOOL_MEMORY_CAPTURE);
    if (capture != null) {
      boolean on =
          switch (capture.toLowerCase(Locale.ROOT)) {
            case "1", "true" -> true;
            case "0", "false" -> false;
            default ->
                throw new ConfigException(
                    ENVIRONMENT
                        + ": "
                        + ENV_TOOL_MEMORY_CAPTURE
                        + " must be 0, 1, true or false, got '"
                        + YamlSection.shown(capture)
                        + "'");
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
        throw new ConfigException(COMMAND_LINE + ": host must not be blank");
      }
      draft.host = checkHost(COMMAND_LINE + ": host", overrides.host());
    }
    if (overrides.port() != null) {
      int port = overrides.port();
      if (port < 0 || port > MAX_PORT) {
        throw new ConfigException(
            COMMAND_LINE + ": port must be in 0.." + MAX_PORT + ", got " + port);
      }
      draft.port = port;
    }
    if (overrides.dataDir() != null) {
      draft.dataDir = workspace.resolve(overrides.dataDir()).normalize();
    }
    if (overrides.pluginsDir() != null) {
      draft.pluginsDir = workspace.resolve(overrides.pluginsDir()).normalize();
    }
  }

  /** The variable's value with surrounding blanks removed, or null when unset or blank. */
  private static String envValue(Map<String, String> env, String name) {
    String value = env.get(name);
    return value == null || value.isBlank() ? null : value.strip();
  }

  private static int parsePort(String text) {
    int port;
    try {
      port = Integer.parseInt(text);
    } catch (NumberFormatException e) {
      throw new ConfigException(
          ENVIRONMENT
              + ": "
              + ENV_PORT
              + " must be an integer in 0.."
              + MAX_PORT
              + ", got '"
              + YamlSection.shown(text)
              + "'");
    }
    if (port < 0 || port > MAX_PORT) {
      throw new ConfigException(
          ENVIRONMENT + ": " + ENV_PORT + " must be in 0.." + MAX_PORT + ", got " + port);
    }
    return port;
  }

  // ---- shared checks

  /** The token in {@code file} (surrounding whitespace, such as a final newline, dropped). */
  private static String readToken(Path file, YamlSection auth) {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException | RuntimeException e) {
      throw auth.invalid("tokenFile", "cannot be read: " + file + " (" + e.getMessage() + ")");
    }
    return checkToken(
        text.strip(),
        "tokenFile",
        (key, problem) -> auth.invalid(key, "holds a token that " + problem));
  }

  /** {@code token} if it is 16..1024 printable ASCII characters; never shown in a message. */
  private static String checkToken(String token, String key, Problem problem) {
    if (token.length() < MIN_TOKEN_CHARS || token.length() > MAX_TOKEN_CHARS) {
      throw problem.at(
          key,
          "must be "
              + MIN_TOKEN_CHARS
              + ".."
              + MAX_TOKEN_CHARS
              + " characters, got "
              + token.length());
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

  /** How a value check reports a problem: the key and what is wrong with it. */
  private interface Problem {
    ConfigException at(String key, String problem);
  }

  private static Path resolveData(Path workspace, String text, Problem problem, String key) {
    try {
      return workspace.resolve(text).normalize();
    } catch (InvalidPathException e) {
      throw problem.at(
          key, "is not a valid path: '" + YamlSection.shown(text) + "' (" + e.getReason() + ")");
    }
  }

  private static String checkHost(YamlSection server, String host) {
    if (host.chars().anyMatch(Character::isWhitespace)) {
      throw server.invalid(
          "host", "must not contain whitespace, got '" + YamlSection.shown(host) + "'");
    }
    return host;
  }

  /** Checks a host given outside the files; {@code where} is e.g. "command line: host". */
  private static String checkHost(String where, String host) {
    if (host.chars().anyMatch(Character::isWhitespace)) {
      throw new ConfigException(
          where + " must not contain whitespace, got '" + YamlSection.shown(host) + "'");
    }
    return host;
  }

  /** A positive duration such as {@code 24h}, {@code 30m}, {@code 7d} or {@code PT30S}. */
  private static Optional<Duration> duration(YamlSection section, String key) {
    Optional<String> text = section.nonBlankString(key);
    if (text.isEmpty()) {
      return Optional.empty();
    }
    Duration value = Settings.parseDuration(text.get().strip());
    if (value == null || value.isZero() || value.isNegative()) {
      throw section.invalid(
          key,
          "must be a positive duration such as 30m, 24h, 7d or PT30S, got '"
              + YamlSection.shown(text.get())
              + "'");
    }
    return Optional.of(value);
  }
}
