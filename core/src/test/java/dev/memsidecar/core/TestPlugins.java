package dev.memsidecar.core;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TestPlugins {
  @TempDir Path dir;

  @Test
  void eachJarAndEachFolderOfJarsIsOnePluginAndCloseReleasesThem() throws IOException {
    jar(dir.resolve("alpha.jar"), "alpha.txt");
    Files.createDirectories(dir.resolve("beta"));
    jar(dir.resolve("beta/beta-core.jar"), "beta.txt");
    jar(dir.resolve("beta/beta-lib.jar"), "beta-lib.txt");
    Files.writeString(dir.resolve("notes.txt"), "not a plugin");
    Plugins plugins = Plugins.load(dir, getClass().getClassLoader());
    assertEquals(List.of("alpha.jar", "beta"), plugins.names());
    ClassLoader beta = plugins.list().get(1).loader();
    assertNotNull(beta.getResource("beta-lib.txt"));
    assertNull(beta.getResource("alpha.txt"), "plugins do not see each other");
    plugins.close();
    assertNull(beta.getResource("beta.txt"), "a closed plugin loader reads its jars no more");
  }

  @Test
  void pluginsSeeTheApiButNotTheEngine() throws Exception {
    jar(dir.resolve("alpha.jar"), "alpha.txt");
    try (Plugins plugins = Plugins.load(dir, getClass().getClassLoader())) {
      ClassLoader loader = plugins.list().get(0).loader();
      assertSame(
          dev.memsidecar.api.MemoryStore.class, loader.loadClass("dev.memsidecar.api.MemoryStore"));
      assertThrows(
          ClassNotFoundException.class, () -> loader.loadClass(MemoryEngine.class.getName()));
    }
  }

  @Test
  void callsRunWithTheGivenContextLoaderAndRestoreThePrevious() throws IOException {
    jar(dir.resolve("alpha.jar"), "alpha.txt");
    try (Plugins plugins = Plugins.load(dir, getClass().getClassLoader())) {
      ClassLoader loader = plugins.list().get(0).loader();
      ClassLoader before = Thread.currentThread().getContextClassLoader();
      ClassLoader seen =
          Plugins.withContextLoader(loader, () -> Thread.currentThread().getContextClassLoader());
      assertSame(loader, seen);
      assertSame(before, Thread.currentThread().getContextClassLoader());
      assertThrows(
          IllegalStateException.class,
          () ->
              Plugins.withContextLoader(
                  loader,
                  () -> {
                    throw new IllegalStateException("plugin failed");
                  }));
      assertSame(before, Thread.currentThread().getContextClassLoader(), "restored on failure");
    }
  }

  @Test
  void absentFolderHasNoPlugins() {
    assertEquals(
        List.of(), Plugins.load(dir.resolve("absent"), getClass().getClassLoader()).names());
  }

  private static void jar(Path file, String resource) throws IOException {
    try (OutputStream out = Files.newOutputStream(file);
        JarOutputStream jar = new JarOutputStream(out)) {
      jar.putNextEntry(new JarEntry(resource));
      jar.write(resource.getBytes(UTF_8));
      jar.closeEntry();
    }
  }
}
