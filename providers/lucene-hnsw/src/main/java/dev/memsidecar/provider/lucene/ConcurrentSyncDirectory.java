package dev.memsidecar.provider.lucene;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FilterDirectory;

/**
 * A directory whose {@link #sync} fsyncs the files of one call in parallel rather than one after
 * the other. A commit syncs every file written since the last one (a flushed segment, and whatever
 * merges made): dozens of small files when commits are frequent, each fsync a few milliseconds on a
 * virtual disk. Issued together, the file system folds them into fewer journal commits; on the test
 * machine this cut the sync part of a commit about threefold. The guarantee is unchanged: {@code
 * sync} returns once every named file is on stable storage, or throws.
 */
final class ConcurrentSyncDirectory extends FilterDirectory {
  private final ExecutorService pool;

  /**
   * Wraps {@code in}; {@code threads} syncs run at once at most.
   *
   * @param name thread name prefix
   */
  ConcurrentSyncDirectory(Directory in, int threads, String name) {
    super(requireNonNull(in, "in is null"));
    AtomicInteger n = new AtomicInteger();
    this.pool =
        Executors.newFixedThreadPool(
            threads,
            r ->
                Thread.ofPlatform()
                    .name(name + "-" + n.incrementAndGet())
                    .daemon(true)
                    .unstarted(r));
  }

  @Override
  public void sync(Collection<String> names) throws IOException {
    if (names.size() <= 1) {
      in.sync(names);
      return;
    }
    List<Future<?>> pending = new ArrayList<>(names.size());
    for (String name : names) {
      pending.add(
          pool.submit(
              () -> {
                try {
                  in.sync(List.of(name));
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              }));
    }
    IOException failure = null;
    boolean interrupted = false;
    for (Future<?> f : pending) {
      while (true) {
        try {
          f.get();
          break;
        } catch (InterruptedException e) {
          // Lucene must not see a sync return before its files are durable: keep waiting.
          interrupted = true;
        } catch (ExecutionException e) {
          Throwable cause = e.getCause();
          IOException io =
              cause instanceof UncheckedIOException u
                  ? u.getCause()
                  : new IOException("fsync failed", cause);
          if (failure == null) {
            failure = io;
          } else {
            failure.addSuppressed(io);
          }
          break;
        }
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    if (failure != null) {
      throw failure;
    }
  }

  @Override
  public void close() throws IOException {
    try {
      super.close();
    } finally {
      pool.shutdown();
    }
  }
}
