package dev.memsidecar.provider.langmem;

import dev.memsidecar.api.MemoryStore;
import dev.memsidecar.api.Namespace;
import java.nio.file.Path;

/**
 * Child process of {@link TestCrashDurability}: opens the store in {@code args[0]}, puts {@code
 * args[1]} records, prints {@code written} and waits to be killed. If its parent goes away first
 * (stdin closes) it halts without closing anything, as a crash would.
 */
public final class PutThenWaitMain {
  private PutThenWaitMain() {}

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    int count = Integer.parseInt(args[1]);
    Namespace ns = Namespace.of(TestCrashDurability.NAMESPACE);
    MemoryStore store = Fixtures.open(dir);
    for (int i = 0; i < count; i++) {
      store.put(Fixtures.record(ns, "r" + i, "crash record " + i, Fixtures.T0.plusMillis(i)));
    }
    System.out.println(TestCrashDurability.WRITTEN);
    System.out.flush();
    while (System.in.read() >= 0) {
      // wait for SIGKILL
    }
    Runtime.getRuntime().halt(3);
  }
}
