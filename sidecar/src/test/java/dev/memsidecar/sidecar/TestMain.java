package dev.memsidecar.sidecar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TestMain {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int run(String... args) {
    return Main.run(
        args,
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  @Test
  void helpNamesEveryFlag() {
    assertEquals(0, run("serve", "--help"));
    for (String flag :
        new String[] {
          "--workspace",
          "--host",
          "--port",
          "--data",
          "--plugins",
          "--unix-socket",
          "--token-file",
          "--help"
        }) {
      assertTrue(out.toString(StandardCharsets.UTF_8).contains(flag), flag);
    }
  }

  @Test
  void unknownFlagOrCommandIsAUsageError() {
    assertEquals(2, run("serve", "--prot", "1"));
    assertTrue(err.toString(StandardCharsets.UTF_8).contains("--prot"));
    assertEquals(2, run("serv"));
    assertEquals(2, run("serve", "--port", "abc"));
  }

  @Test
  void configErrorIsOneLineNamingTheKeyAndExitsTwo(@TempDir Path ws) throws Exception {
    Files.writeString(ws.resolve("memsidecar.yaml"), "memory:\n  LangMem:\n    reed: true\n");
    assertEquals(2, run("serve", "--workspace", ws.toString(), "--port", "0"));
    String line = oneLine(err);
    assertTrue(
        line.startsWith(
            "memsidecar: cannot start: memsidecar.yaml: unknown key 'memory.LangMem.reed'"),
        line);
  }

  @Test
  void unknownProviderIsOneLineNamingTheOnesThatExistAndExitsOne(@TempDir Path ws)
      throws Exception {
    Files.createDirectories(ws.resolve("config/memory"));
    Files.writeString(
        ws.resolve("config/memory/team.yaml"),
        "apiVersion: memsidecar.dev/v1\nkind: Memory\nmetadata:\n  name: team\n"
            + "spec:\n  provider: acme-redis\n  profile: workspace\n");
    assertEquals(1, run("serve", "--workspace", ws.toString(), "--port", "0"));
    String line = oneLine(err);
    assertTrue(
        line.startsWith("memsidecar: cannot start: no memory provider named 'acme-redis'"), line);
    assertTrue(line.contains("langmem-sqlite"), line);
  }

  @Test
  void portInUseIsOneLineAndExitsOne(@TempDir Path ws) throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      String port = String.valueOf(taken.getLocalPort());
      assertEquals(1, run("serve", "--workspace", ws.toString(), "--port", port));
    }
    String line = oneLine(err);
    assertTrue(line.startsWith("memsidecar: cannot start: cannot serve gRPC: "), line);
    assertTrue(out.toString(StandardCharsets.UTF_8).isEmpty(), "printed 'listening on'");
  }

  /** The single line {@code stream} holds. */
  private static String oneLine(ByteArrayOutputStream stream) {
    List<String> lines = stream.toString(StandardCharsets.UTF_8).lines().toList();
    assertEquals(1, lines.size(), () -> "expected one line, got " + lines);
    return lines.get(0);
  }
}
