package dev.memsidecar.sidecar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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
    for (String flag : new String[] {"--workspace", "--host", "--port", "--data", "--help"}) {
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
  void configErrorNamesTheKeyAndExitsTwo(@TempDir Path ws) throws Exception {
    Files.writeString(ws.resolve("memsidecar.yaml"), "memory:\n  LangMem:\n    reed: true\n");
    assertEquals(2, run("serve", "--workspace", ws.toString(), "--port", "0"));
    assertTrue(err.toString(StandardCharsets.UTF_8).contains("memory.LangMem.reed"), err.toString());
  }

  @Test
  void unknownProviderFailsStartUpNamingTheOnesThatExist(@TempDir Path ws) throws Exception {
    Files.createDirectories(ws.resolve("config/memory"));
    Files.writeString(
        ws.resolve("config/memory/team.yaml"),
        "apiVersion: memsidecar.dev/v1\nkind: Memory\nmetadata:\n  name: team\n"
            + "spec:\n  provider: acme-redis\n  profile: workspace\n");
    assertEquals(1, run("serve", "--workspace", ws.toString(), "--port", "0"));
    String message = err.toString(StandardCharsets.UTF_8);
    assertTrue(message.contains("acme-redis") && message.contains("langmem-sqlite"), message);
  }
}
