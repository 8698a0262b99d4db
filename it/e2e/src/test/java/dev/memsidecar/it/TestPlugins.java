package dev.memsidecar.it;

import static dev.memsidecar.it.Fixtures.remember;
import static dev.memsidecar.it.Fixtures.workspace;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.proto.v1.GetStatusRequest;
import dev.memsidecar.proto.v1.GetStatusResponse;
import dev.memsidecar.proto.v1.Memory;
import dev.memsidecar.proto.v1.ProviderInfo;
import dev.memsidecar.proto.v1.Scope;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A provider nobody compiled into the sidecar: the test compiles one against memsidecar-api, jars
 * it, drops it into the workspace's plugins folder and uses it over gRPC.
 */
class TestPlugins {
  @TempDir Path workspace;
  @TempDir Path build;

  @Test
  void aProviderJarInThePluginsFolderServesAProfile() throws Exception {
    Path jar = buildPluginJar(workspace.resolve("plugins").resolve("acme-notes.jar"));
    assertTrue(Files.size(jar) > 0);
    Fixtures.writeProfile(workspace, "notes", "workspace", true, "acme-notes");
    try (SidecarProcess sidecar = SidecarProcess.start(workspace)) {
      GetStatusResponse status = sidecar.admin().getStatus(GetStatusRequest.getDefaultInstance());
      assertEquals(List.of("acme-notes.jar"), status.getPluginsList());
      assertTrue(status.getProvidersList().contains("acme-notes"), status::toString);
      ProviderInfo info =
          status.getProviderInfoList().stream()
              .filter(p -> p.getName().equals("acme-notes"))
              .findFirst()
              .orElseThrow();
      assertEquals("acme-notes.jar", info.getSource());
      // Its class loader shows it the SPI and the JDK, not the engine; every call into it runs
      // with that loader as the context class loader (its store fails calls otherwise).
      assertEquals("false", info.getDetailsMap().get("sees-core"), info::toString);
      assertEquals("classpath", sourceOf(status, "langmem-sqlite"));

      Scope scope = workspace("acme");
      Memory stored = remember(sidecar.memory(), scope, "notes", "Invoices go out on the 3rd");
      assertEquals("acme-notes", stored.getProvider());
      List<Memory> found = Fixtures.search(sidecar.memory(), scope, "invoices", "notes");
      assertEquals(stored.getId(), found.get(0).getId());
      assertNotEquals(0, found.size());
    }
  }

  @Test
  void aProfileNamingAMissingProviderFailsStartUpWithTheNamesThatExist() {
    Fixtures.writeProfile(workspace, "notes", "workspace", true, "acme-redis");
    SidecarProcess.Completed run =
        SidecarProcess.run(
            Map.of(),
            Duration.ofSeconds(60),
            "serve",
            "--workspace",
            workspace.toString(),
            "--port",
            "0");
    assertNotEquals(0, run.exitCode(), run::toString);
    assertTrue(run.stderr().contains("acme-redis"), run::toString);
    for (String name : List.of("langmem-sqlite", "lucene-hnsw", "deepagents-files")) {
      assertTrue(run.stderr().contains(name), () -> name + " not named: " + run);
    }
  }

  private static String sourceOf(GetStatusResponse status, String provider) {
    return status.getProviderInfoList().stream()
        .filter(p -> p.getName().equals(provider))
        .map(ProviderInfo::getSource)
        .findFirst()
        .orElseThrow();
  }

  /** Compiles the plugin source against the test classpath's memsidecar-api and jars it. */
  private Path buildPluginJar(Path jar) throws IOException {
    Path src = build.resolve("src/com/acme/notes/AcmeNotesProvider.java");
    Files.createDirectories(src.getParent());
    try (InputStream in = getClass().getResourceAsStream("/plugin/AcmeNotesProvider.java.txt")) {
      Files.write(src, in.readAllBytes());
    }
    Path classes = build.resolve("classes");
    Files.createDirectories(classes);
    String apiJar =
        Stream.of(System.getProperty("java.class.path").split(java.io.File.pathSeparator))
            .filter(p -> p.contains("memsidecar-api") || p.endsWith("api/target/classes"))
            .findFirst()
            .orElseThrow(() -> new IllegalStateException("memsidecar-api not on the classpath"));
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    int rc =
        javac.run(null, null, null, "-classpath", apiJar, "-d", classes.toString(), src.toString());
    assertEquals(0, rc, "plugin source does not compile");
    Files.createDirectories(jar.getParent());
    try (OutputStream out = Files.newOutputStream(jar);
        JarOutputStream jos = new JarOutputStream(out)) {
      jos.putNextEntry(new JarEntry("META-INF/services/dev.memsidecar.api.MemoryProvider"));
      jos.write("com.acme.notes.AcmeNotesProvider\n".getBytes(StandardCharsets.UTF_8));
      jos.closeEntry();
      try (Stream<Path> files = Files.walk(classes)) {
        for (Path f : files.filter(Files::isRegularFile).toList()) {
          jos.putNextEntry(new JarEntry(classes.relativize(f).toString().replace('\\', '/')));
          jos.write(Files.readAllBytes(f));
          jos.closeEntry();
        }
      } catch (UncheckedIOException e) {
        throw e.getCause();
      }
    }
    return jar;
  }
}
