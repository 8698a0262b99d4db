package dev.memsidecar.sidecar;

import dev.memsidecar.api.ListQuery;
import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.MemoryProvider;
import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.MemoryStore;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.api.Page;
import dev.memsidecar.api.ProviderContext;
import dev.memsidecar.api.ScoredRecord;
import dev.memsidecar.api.SearchQuery;
import io.grpc.Context;
import io.grpc.Deadline;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A provider for the server tests whose stores make trouble on cue (found by ServiceLoader as
 * {@value #NAME}, listed in the test resources). Its stores hold no records:
 *
 * <ul>
 *   <li>search waits inside the store until the test {@link #release releases} the searches, or
 *       until its gRPC call is cancelled; a cancelled call with a deadline then also waits until
 *       that deadline has passed, so the engine goes on with a call that is cancelled and late. It
 *       finds nothing.
 *   <li>get fails with an {@link IllegalStateException} whose message must not reach the client.
 *   <li>list fails with UNAVAILABLE {@value #UNAVAILABLE_MESSAGE}, caused by an IOException.
 * </ul>
 *
 * The held searches are counted and released for all stores at once (static state): a test calls
 * {@link #reset} first.
 */
public final class TroubleProvider implements MemoryProvider {
  static final String NAME = "trouble";
  static final String SECRET = "password=hunter2 in /etc/trouble.conf";
  static final String UNAVAILABLE_MESSAGE = "the trouble store is offline";

  private static final Object LOCK = new Object();
  private static int entered;
  private static boolean released;

  /** Forgets the searches seen so far and holds the next ones. */
  static void reset() {
    synchronized (LOCK) {
      entered = 0;
      released = false;
    }
  }

  /** Lets every held search, and every later one, return. */
  static void release() {
    synchronized (LOCK) {
      released = true;
      LOCK.notifyAll();
    }
  }

  /** Waits until {@code count} searches have entered a store since {@link #reset}. */
  static void awaitEntered(int count) throws InterruptedException {
    synchronized (LOCK) {
      while (entered < count) {
        LOCK.wait();
      }
    }
  }

  /** How many searches have entered a store since {@link #reset}. */
  static int entered() {
    synchronized (LOCK) {
      return entered;
    }
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public MemoryStore open(ProviderContext context) {
    context.requireOnly(Set.of());
    return new MemoryStore() {
      @Override
      public List<ScoredRecord> search(Namespace namespace, SearchQuery query) {
        hold(Context.current());
        return List.of();
      }

      @Override
      public Optional<MemoryRecord> get(Namespace namespace, String id) {
        throw new IllegalStateException(SECRET);
      }

      @Override
      public Page list(Namespace namespace, ListQuery query) {
        throw MemoryException.unavailable(
            UNAVAILABLE_MESSAGE, new IOException("connection refused"));
      }

      @Override
      public void close() {}
    };
  }

  private static void hold(Context call) {
    call.addListener(
        c -> {
          synchronized (LOCK) {
            LOCK.notifyAll();
          }
        },
        Runnable::run);
    synchronized (LOCK) {
      entered++;
      LOCK.notifyAll();
      while (!released && !call.isCancelled()) {
        try {
          LOCK.wait();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted while held", e);
        }
      }
      if (released) {
        return;
      }
    }
    Deadline deadline = call.getDeadline();
    while (deadline != null && !deadline.isExpired()) {
      LockSupport.parkNanos(Math.max(1, deadline.timeRemaining(TimeUnit.NANOSECONDS)));
    }
  }
}
