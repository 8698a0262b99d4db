package dev.memsidecar.provider.embedder;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Coalesces single embeddings requested from many threads into batches: callers queue their token
 * ids and wait; one worker thread takes every request waiting (up to {@code maxRows}), runs them
 * (cut into runs by {@link BatchPlan}) and hands each caller its vector. The requests that arrive
 * during a run form the next batch, so concurrent callers share model runs. When the last batch
 * held more than one request (callers are concurrent) the worker also lingers up to {@code
 * lingerNanos} for more before it runs; a lone caller never waits for others.
 *
 * <p>Thread-safe. The worker is a daemon thread started on first use and kept for the life of the
 * process (it waits on the queue when idle).
 */
final class MicroBatcher {
  private final String threadName;
  private final int maxRows;
  private volatile long lingerNanos;
  private final Function<List<int[]>, float[][]> runner;
  private final LinkedBlockingQueue<Pending> queue = new LinkedBlockingQueue<>();
  private Thread worker;

  /**
   * @param threadName the worker thread's name
   * @param maxRows the most requests one batch takes
   * @param lingerNanos how long the worker waits for more requests once it has one, when the last
   *     batch had several; 0 for never
   * @param runner embeds rows of token ids in one model run, returning one vector per row in order
   */
  MicroBatcher(
      String threadName, int maxRows, long lingerNanos, Function<List<int[]>, float[][]> runner) {
    this.threadName = requireNonNull(threadName, "threadName is null");
    if (maxRows < 1) {
      throw new IllegalArgumentException("maxRows must be >= 1: " + maxRows);
    }
    if (lingerNanos < 0) {
      throw new IllegalArgumentException("lingerNanos must be >= 0: " + lingerNanos);
    }
    this.maxRows = maxRows;
    this.lingerNanos = lingerNanos;
    this.runner = requireNonNull(runner, "runner is null");
  }

  /**
   * The vector of one row of token ids, computed in a batch with whatever else is waiting. Blocks
   * until it is done.
   *
   * @throws IllegalStateException if the model run fails or the caller is interrupted
   */
  float[] embed(int[] ids) {
    requireNonNull(ids, "ids is null");
    Pending pending = new Pending(ids, new CompletableFuture<>());
    startWorker();
    queue.add(pending);
    try {
      return pending.result.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for an embedding", e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException r) {
        throw r;
      }
      throw new IllegalStateException("embedding failed: " + cause, cause);
    }
  }

  /** Changes how long the worker lingers for more requests (bench). */
  void linger(long nanos) {
    if (nanos < 0) {
      throw new IllegalArgumentException("linger must be >= 0: " + nanos);
    }
    lingerNanos = nanos;
  }

  private synchronized void startWorker() {
    if (worker == null) {
      worker = new Thread(this::work, threadName);
      worker.setDaemon(true);
      worker.start();
    }
  }

  private void work() {
    List<Pending> batch = new ArrayList<>(maxRows);
    int last = 0;
    while (true) {
      try {
        batch.add(queue.take());
        queue.drainTo(batch, maxRows - batch.size());
        long linger = lingerNanos;
        if (linger > 0 && last > 1) {
          long deadline = System.nanoTime() + linger;
          while (batch.size() < maxRows) {
            Pending next = queue.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
            if (next == null) {
              break;
            }
            batch.add(next);
            queue.drainTo(batch, maxRows - batch.size());
          }
        }
      } catch (InterruptedException e) {
        // Only this class could interrupt its worker; it never does. Keep serving.
        continue;
      }
      run(batch);
      last = batch.size();
      batch.clear();
    }
  }

  /** Runs one batch, cut into runs of similar lengths, and completes every caller. */
  private void run(List<Pending> batch) {
    batch.sort(Comparator.comparingInt(p -> p.ids.length));
    int[] lengths = new int[batch.size()];
    for (int i = 0; i < lengths.length; i++) {
      lengths[i] = batch.get(i).ids.length;
    }
    int start = 0;
    for (int end : BatchPlan.cut(lengths, maxRows)) {
      List<Pending> group = batch.subList(start, end);
      try {
        List<int[]> rows = new ArrayList<>(group.size());
        for (Pending p : group) {
          rows.add(p.ids);
        }
        float[][] vectors = runner.apply(rows);
        for (int i = 0; i < group.size(); i++) {
          group.get(i).result.complete(vectors[i]);
        }
      } catch (Throwable t) {
        for (Pending p : group) {
          p.result.completeExceptionally(t);
        }
      }
      start = end;
    }
  }

  private record Pending(int[] ids, CompletableFuture<float[]> result) {}
}
