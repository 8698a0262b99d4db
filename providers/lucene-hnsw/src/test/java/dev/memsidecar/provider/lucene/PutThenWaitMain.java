package dev.memsidecar.provider.lucene;

import dev.memsidecar.api.MemoryStore;
import dev.memsidecar.api.Namespace;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Child process of {@link TestCrashDurability}: opens the store in {@code args[0]}, puts {@code
 * args[1]} records from {@code args[2]} threads, deletes record {@code r0}, prints {@code written}
 * and waits to be killed. If its parent goes away first (stdin closes) it halts without closing
 * anything, as a crash would.
 */
public final class PutThenWaitMain {
  private PutThenWaitMain() {}

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    int count = Integer.parseInt(args[1]);
    int threads = Integer.parseInt(args[2]);
    Namespace ns = Namespace.of(TestCrashDurability.NAMESPACE);
    MemoryStore store = Fixtures.open(dir);
    List<Thread> writers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int first = t;
      writers.add(
          Thread.ofPlatform()
              .start(
                  () -> {
                    for (int i = first; i < count; i += threads) {
                      store.put(Fixtures.record(
                              ns, "r" + i, "crash record " + i, Fixtures.T0.plusMillis(i)));
                    }
                  }));
    }
    for (Thread w : writers) {
      w.join();
    }
    store.delete(ns, "r0");
    System.out.println(TestCrashDurability.WRITTEN);
    System.out.flush();
    while (System.in.read() >= 0) {
      // wait for SIGKILL
    }
    Runtime.getRuntime().halt(3);
  }
}
