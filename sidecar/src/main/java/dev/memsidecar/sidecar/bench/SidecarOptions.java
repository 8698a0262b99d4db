package dev.memsidecar.sidecar.bench;

import dev.memsidecar.proto.v1.AdminServiceGrpc;
import dev.memsidecar.proto.v1.GetStatusRequest;
import dev.memsidecar.proto.v1.GetStatusResponse;
import dev.memsidecar.proto.v1.ProfileStatus;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * The options every bench command shares: which sidecar to start and with which configuration. Each
 * sidecar runs on a fresh temporary workspace and data folder, deleted afterwards. Not thread-safe
 * (picocli fills it, one thread uses it).
 */
final class SidecarOptions {
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");

  @Option(
      names = "--provider",
      paramLabel = "NAME",
      description =
          "provider of the sidecar's profiles: langmem-sqlite, lucene-hnsw, deepagents-files, or"
              + " a plugin's (default: the sidecar's default, langmem-sqlite)")
  String provider;

  @Option(
      names = "--embedder",
      paramLabel = "NAME",
      description = "memory.embedder of the sidecar, e.g. hash (default: the sidecar's default)")
  String embedder;

  @Option(
      names = "--workspace",
      paramLabel = "DIR",
      description =
          "run the sidecar on this workspace's configuration (DIR/memsidecar.yaml,"
              + " DIR/config/memory/*.yaml, DIR/plugins) instead of --provider/--embedder; data"
              + " still goes to a fresh temporary folder")
  Path workspace;

  @Option(
      names = "--profile",
      paramLabel = "ID",
      defaultValue = "workspace",
      description =
          "the profile records go to and Search reads; a workspace-scoped one (default:"
              + " ${DEFAULT-VALUE})")
  String profile;

  @Option(
      names = "--launcher",
      paramLabel = "SCRIPT",
      description =
          "start the sidecar with this script (e.g. sidecar/bin/memsidecar, class-data sharing)"
              + " instead of java -jar on the running jar")
  Path launcher;

  @Option(
      names = "--temp-dir",
      paramLabel = "DIR",
      description = "where the temporary workspaces and data go (default: java.io.tmpdir)")
  Path tempDir;

  /** Checks the options together; a bad one is a usage error naming it. */
  void validate(CommandSpec spec) {
    if (provider != null && !NAME.matcher(provider).matches()) {
      throw new ParameterException(
          spec.commandLine(), "--provider: not a provider name: '" + provider + "'");
    }
    if (embedder != null && !NAME.matcher(embedder).matches()) {
      throw new ParameterException(
          spec.commandLine(), "--embedder: not an embedder name: '" + embedder + "'");
    }
    if (!NAME.matcher(profile).matches()) {
      throw new ParameterException(spec.commandLine(), "--profile: not a profile id: " + profile);
    }
    if (workspace != null) {
      if (provider != null || embedder != null) {
        throw new ParameterException(
            spec.commandLine(),
            "--workspace takes the configuration from DIR: leave out --provider and --embedder");
      }
      if (!Files.isDirectory(workspace)) {
        throw new ParameterException(
            spec.commandLine(), "--workspace: no such folder: " + workspace);
      }
    }
    if (launcher != null && !Files.isRegularFile(launcher)) {
      throw new ParameterException(spec.commandLine(), "--launcher: no such file: " + launcher);
    }
    if (tempDir != null && !Files.isDirectory(tempDir)) {
      throw new ParameterException(spec.commandLine(), "--temp-dir: no such folder: " + tempDir);
    }
  }

  /** A fresh temporary folder holding the workspace (when we write it) and the data. */
  Scratch scratch(String prefix) throws IOException {
    Path root =
        tempDir == null
            ? Files.createTempDirectory(prefix)
            : Files.createTempDirectory(tempDir, prefix);
    Path ws = workspace;
    if (ws == null) {
      ws = Files.createDirectories(root.resolve("workspace"));
      writeConfig(ws);
    }
    return new Scratch(root, ws, root.resolve("data"));
  }

  /**
   * Starts a sidecar on a scratch folder (see {@link SidecarProcess#start}): the {@code --launcher}
   * script, or else the sidecar whose main class is {@code sidecarMain} ({@link
   * SidecarProcess#selfCommand}).
   */
  SidecarProcess start(Scratch scratch, Class<?> sidecarMain)
      throws IOException, InterruptedException {
    List<String> command =
        launcher == null
            ? SidecarProcess.selfCommand(sidecarMain)
            : SidecarProcess.launcherCommand(launcher);
    return SidecarProcess.start(command, scratch.workspace(), scratch.data());
  }

  /**
   * {@code memsidecar.yaml} naming the embedder, and the profiles {@code workspace} and {@code
   * user} (the built-ins' names, so they replace them) on the provider; nothing for an option left
   * out, so the sidecar's defaults apply.
   */
  private void writeConfig(Path ws) throws IOException {
    if (embedder != null) {
      Files.writeString(
          ws.resolve("memsidecar.yaml"),
          "memory:\n  embedder: " + embedder + "\n",
          StandardCharsets.UTF_8);
    }
    if (provider != null) {
      Path dir = Files.createDirectories(ws.resolve("config/memory"));
      for (String profile : List.of("workspace", "user")) {
        Files.writeString(
            dir.resolve(profile + ".yaml"),
            String.format(
                Locale.ROOT,
                "apiVersion: memsidecar.dev/v1%nkind: Memory%nmetadata:%n  name: %s%n"
                    + "spec:%n  provider: %s%n  profile: %s%n",
                profile,
                provider,
                profile),
            StandardCharsets.UTF_8);
      }
    }
  }

  /** What the sidecar says it runs: the profile's provider and the embedder. */
  String describe(SidecarProcess sidecar) {
    GetStatusResponse status =
        AdminServiceGrpc.newBlockingStub(sidecar.channel())
            .withDeadlineAfter(30, TimeUnit.SECONDS)
            .getStatus(GetStatusRequest.getDefaultInstance());
    String provider = "?";
    for (ProfileStatus p : status.getProfilesList()) {
      if (p.getId().equals(profile)) {
        provider = p.getProvider();
      }
    }
    return String.format(
        Locale.ROOT,
        "memsidecar %s, profile %s on %s, embedder %s",
        status.getVersion(),
        profile,
        provider,
        status.getEmbedder());
  }

  /** Prints the sidecar's start on {@code err}. */
  static void reportStart(PrintStream err, SidecarProcess sidecar, String description) {
    err.printf(
        Locale.ROOT,
        "sidecar pid %d listening on %s after %.0f ms (%s)%n",
        sidecar.pid(),
        sidecar.address(),
        Figures.millis(sidecar.startNanos()),
        description);
  }

  /** The machine, for the line under a table. */
  static String machine() {
    return String.format(
        Locale.ROOT,
        "%d cores, %s %s (%s), java %s",
        Runtime.getRuntime().availableProcessors(),
        System.getProperty("os.name"),
        System.getProperty("os.version"),
        System.getProperty("os.arch"),
        Runtime.version());
  }

  /**
   * A temporary root folder, the workspace the sidecar reads and its data folder; {@link #close}
   * deletes the root (never a workspace given with {@code --workspace}, which is outside it).
   */
  record Scratch(Path root, Path workspace, Path data) implements AutoCloseable {
    @Override
    public void close() {
      Figures.deleteTree(root);
    }
  }
}
