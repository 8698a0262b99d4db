package dev.memsidecar.it;

import dev.memsidecar.proto.v1.MemoryServiceGrpc.MemoryServiceBlockingStub;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * Base of the test classes that share one sidecar on its embedded defaults, started once per class
 * on a fresh workspace; tests keep apart by using their own workspace or user ids.
 */
abstract class DefaultSidecarTest {
  @TempDir static Path workspaceDir;

  static SidecarProcess sidecar;

  @BeforeAll
  static void startSidecar() {
    sidecar = SidecarProcess.start(workspaceDir);
  }

  @AfterAll
  static void stopSidecar() {
    if (sidecar != null) {
      sidecar.close();
      sidecar = null;
    }
  }

  static MemoryServiceBlockingStub memory() {
    return sidecar.memory();
  }
}
