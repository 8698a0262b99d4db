package dev.memsidecar.sidecar;

import static java.util.Objects.requireNonNull;

import com.google.common.util.concurrent.MoreExecutors;
import dev.memsidecar.core.CallActivity;
import io.grpc.Context;
import io.grpc.ForwardingServerCall;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.util.Locale;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Bounds the calls in flight and runs the admitted ones on a fixed pool of worker threads. A call
 * that would make more than {@code maxConcurrentCalls + maxQueuedCalls} calls in flight is closed
 * at once with RESOURCE_EXHAUSTED ({@link #busyMessage}); the others run their callbacks on one of
 * {@code maxConcurrentCalls} workers, in order and one at a time per call, with the call's {@link
 * Context} (its deadline and cancellation), waiting for a free worker when all are busy.
 *
 * <p>Why admission happens here, before the pool, and not by bounding the pool's queue: grpc-java's
 * {@code ServerImpl} runs the method lookup and the interceptors of a new call as tasks on the
 * server's executor. With the pool as that executor a new call would wait, unseen, behind calls
 * that hold every worker, and a full bounded queue would throw {@code RejectedExecutionException}
 * into the transport. So the server runs on the transport threads ({@code directExecutor()}), this
 * interceptor comes first on every bounded service and decides on the transport thread, and only
 * admitted calls reach the pool, whose queue then needs no bound of its own: it holds at most one
 * task per call in flight, plus the last callback of calls just answered.
 *
 * <p>A call is in flight from its admission until it is answered ({@link ServerCall#close}, the
 * slot is freed before the answer leaves, so a client that got its answer can count on the slot)
 * or, when it ends otherwise (cancelled, deadline passed), until its last callback has run on a
 * worker, so abandoned work still counts while it runs. The engine's {@link CallActivity} knows the
 * workers and when calls end, so that its work behind them runs in the pauses. Services this
 * interceptor is not installed on (health, reflection) are never refused and run on the transport
 * threads; they must not block. Thread-safe.
 */
final class CallAdmission implements ServerInterceptor {
  private final int limit;
  private final AtomicInteger inFlight = new AtomicInteger();
  private final CallActivity activity;
  private final ThreadPoolExecutor workers;

  /**
   * @param maxConcurrentCalls worker threads, at least 1
   * @param maxQueuedCalls admitted calls that may wait for a worker, at least 0
   * @param activity told of the workers and of every call's end
   */
  CallAdmission(int maxConcurrentCalls, int maxQueuedCalls, CallActivity activity) {
    this.activity = requireNonNull(activity, "activity is null");
    if (maxConcurrentCalls < 1 || maxQueuedCalls < 0) {
      throw new IllegalArgumentException(
          "need maxConcurrentCalls >= 1 and maxQueuedCalls >= 0, got "
              + maxConcurrentCalls
              + " and "
              + maxQueuedCalls);
    }
    this.limit = Math.addExact(maxConcurrentCalls, maxQueuedCalls);
    AtomicInteger n = new AtomicInteger();
    this.workers =
        new ThreadPoolExecutor(
            maxConcurrentCalls,
            maxConcurrentCalls,
            0,
            TimeUnit.MILLISECONDS,
            new LinkedBlockingQueue<>(),
            r -> {
              Thread t = new Thread(r, "memsidecar-grpc-" + n.incrementAndGet());
              t.setDaemon(true);
              activity.addCallThread(t);
              return t;
            },
            // Only after shutdown(), when the server has stopped and cancelled its calls.
            new ThreadPoolExecutor.DiscardPolicy());
  }

  /** The message of a refused call: how many calls are in flight and the limit. */
  private static String busyMessage(int inFlight, int limit) {
    return String.format(
        Locale.ROOT,
        "server busy: %d calls in flight, the limit is %d; retry with backoff",
        inFlight,
        limit);
  }

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(
      ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
    int current = inFlight.get();
    while (current < limit && !inFlight.compareAndSet(current, current + 1)) {
      current = inFlight.get();
    }
    if (current >= limit) {
      call.close(
          Status.RESOURCE_EXHAUSTED.withDescription(busyMessage(current, limit)), new Metadata());
      return new ServerCall.Listener<>() {};
    }
    Slot slot = new Slot();
    try {
      return new OnWorkers<>(
          next.startCall(new ReleasedOnClose<>(call, slot), headers),
          MoreExecutors.newSequentialExecutor(workers),
          Context.current(),
          slot);
    } catch (RuntimeException | Error e) {
      slot.release();
      throw e;
    }
  }

  /** Stops the workers once the server has terminated; running and queued callbacks finish. */
  void shutdown() {
    workers.shutdown();
  }

  /**
   * Waits up to {@code timeout} for the workers to finish after {@link #shutdown}; false when some
   * still run. Interruption ends the wait early (false) with the interrupt flag set.
   */
  boolean awaitTermination(long timeout, TimeUnit unit) {
    try {
      return workers.awaitTermination(timeout, unit);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** One admitted call's place in the count, given back exactly once. */
  private final class Slot {
    private final AtomicBoolean released = new AtomicBoolean();

    void release() {
      if (released.compareAndSet(false, true)) {
        inFlight.decrementAndGet();
        activity.callEnded();
      }
    }
  }

  /** Frees the slot as the answer goes out. */
  private static final class ReleasedOnClose<Q, R>
      extends ForwardingServerCall.SimpleForwardingServerCall<Q, R> {
    private final Slot slot;

    ReleasedOnClose(ServerCall<Q, R> call, Slot slot) {
      super(call);
      this.slot = slot;
    }

    @Override
    public void close(Status status, Metadata trailers) {
      slot.release();
      super.close(status, trailers);
    }
  }

  /** Hands every callback of one call to the workers, in order, in the call's context. */
  private static final class OnWorkers<Q> extends ServerCall.Listener<Q> {
    private final ServerCall.Listener<Q> delegate;
    private final Executor serial;
    private final Context context;
    private final Slot slot;

    OnWorkers(ServerCall.Listener<Q> delegate, Executor serial, Context context, Slot slot) {
      this.delegate = delegate;
      this.serial = serial;
      this.context = context;
      this.slot = slot;
    }

    @Override
    public void onMessage(Q message) {
      run(() -> delegate.onMessage(message));
    }

    @Override
    public void onHalfClose() {
      run(delegate::onHalfClose);
    }

    @Override
    public void onReady() {
      run(delegate::onReady);
    }

    @Override
    public void onCancel() {
      runLast(delegate::onCancel);
    }

    @Override
    public void onComplete() {
      runLast(delegate::onComplete);
    }

    private void run(Runnable callback) {
      serial.execute(context.wrap(callback));
    }

    /** The call's last callback: after it, nothing of the call runs any more. */
    private void runLast(Runnable callback) {
      run(
          () -> {
            try {
              callback.run();
            } finally {
              slot.release();
            }
          });
    }
  }
}
