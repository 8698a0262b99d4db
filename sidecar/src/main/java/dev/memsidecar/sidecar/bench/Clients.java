package dev.memsidecar.sidecar.bench;

import io.grpc.ManagedChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The client threads of a bench: N threads, each with its own channel (connection) to the sidecar,
 * as separate agents would be. Closing stops the threads and the channels.
 */
final class Clients implements AutoCloseable {
  /** What one client thread runs: its channel, and its number from 0. */
  interface Task {
    void run(ManagedChannel channel, int client) throws Exception;
  }

  private final ExecutorService pool;
  private final List<ManagedChannel> channels = new ArrayList<>();

  Clients(SidecarProcess process, int count) {
    pool = Executors.newFixedThreadPool(count);
    for (int t = 0; t < count; t++) {
      channels.add(process.newChannel());
    }
  }

  /** Starts {@code task} on every client. */
  List<Future<?>> start(Task task) {
    List<Future<?>> futures = new ArrayList<>();
    for (int t = 0; t < channels.size(); t++) {
      ManagedChannel channel = channels.get(t);
      int client = t;
      futures.add(
          pool.submit(
              () -> {
                task.run(channel, client);
                return null;
              }));
    }
    return futures;
  }

  /** Runs {@code task} on every client and waits for all of them; a failure is thrown. */
  void run(Task task) throws InterruptedException, ExecutionException {
    for (Future<?> f : start(task)) {
      f.get();
    }
  }

  @Override
  public void close() {
    pool.shutdownNow();
    channels.forEach(ManagedChannel::shutdownNow);
  }
}
