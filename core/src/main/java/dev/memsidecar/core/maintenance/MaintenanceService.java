package dev.memsidecar.core.maintenance;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.Ids;
import dev.memsidecar.api.MemoryException;
import dev.memsidecar.core.ConfigurationException;
import dev.memsidecar.core.Limits;
import dev.memsidecar.core.config.Maintenance;
import dev.memsidecar.core.events.EventBus;
import dev.memsidecar.core.events.RuntimeEvent;
import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The maintenance daemon ({@code memory.maintenance}): runs the registered {@link
 * MaintenanceTarget}s on the configured schedule and on request ({@link #runNow}), each target on
 * its own thread so that independent targets run in parallel and one failing never blocks another.
 * After each target's run it keeps the run as that target's last ({@link MaintenanceStore}) and
 * emits {@value #COMPLETED} with the run's counts, or {@value #FAILED} with the reason, to every
 * watcher (these events concern the whole sidecar, see {@link RuntimeEvent#sidecarWide}).
 *
 * <p>One target never runs twice at once: a request for a target the schedule is running waits for
 * that run to end, then runs it again. The schedule's next pass is computed from the start of the
 * last one (kept across restarts), so a restart neither skips nor repeats a periodic pass.
 *
 * <p>Several sidecars may share one store (one PostgreSQL database): a scheduled pass runs under
 * the store's lease {@value #LEASE}, taken by one of them (renewed every {@code LEASE_RENEWAL}
 * while the pass runs, lapsing {@code LEASE_TIME} after a sidecar died holding it), and only if no
 * sidecar started a pass since the last one it knows of (a compare-and-set on the lease's last pass
 * start); the others take that start as their last. A pass asked for with {@link #runNow} runs on
 * the sidecar asked, without the lease.
 *
 * <p>Thread-safe. {@link #close} asks running targets to stop between two pieces of work and waits
 * a few seconds for them; whatever a target left undone is done by its next pass.
 */
public final class MaintenanceService implements AutoCloseable {
  /** The event of a target's run that completed; attributes: its counts, target, trigger. */
  public static final String COMPLETED = "maintenance.completed";

  /** The event of a target's run that failed; attributes: target, trigger, error, counts. */
  public static final String FAILED = "maintenance.failed";

  /** The longest error message kept and shown. */
  public static final int MAX_ERROR_CHARS = 1024;

  /** How long {@link #close} waits for running targets. */
  static final Duration STOP_WAIT = Duration.ofSeconds(5);

  /**
   * The lease (in the {@link MaintenanceStore}) under which one of the sidecars sharing a database
   * runs a scheduled pass, so each pass runs once for all of them.
   */
  static final String LEASE = "maintenance.schedule";

  /** How long a lease holds unless renewed: a sidecar killed mid-pass blocks no longer. */
  static final Duration LEASE_TIME = Duration.ofMinutes(2);

  /** How often a running pass renews its lease. */
  static final Duration LEASE_RENEWAL = Duration.ofSeconds(30);

  private static final System.Logger LOG = System.getLogger(MaintenanceService.class.getName());

  /** Who this sidecar is in the lease: host, process and a random part. */
  private final String owner =
      System.getenv().getOrDefault("HOSTNAME", "sidecar")
          + "/"
          + ProcessHandle.current().pid()
          + "/"
          + UUID.randomUUID().toString().substring(0, 8);

  private final Map<String, MaintenanceTarget> targets;
  private final Maintenance config;
  private final List<String> scheduled;
  private final MaintenanceStore store;
  private final EventBus events;
  private final Clock clock;
  private final ZoneId zone;
  private final Map<String, ReentrantLock> running = new HashMap<>();
  private final Map<String, TargetRun> last = new ConcurrentHashMap<>();
  private final ExecutorService workers;
  private final ReentrantLock scheduleLock = new ReentrantLock();
  private final Condition wake = scheduleLock.newCondition();
  private volatile boolean closed;
  private volatile Instant nextRun;
  private volatile Thread scheduler;

  /**
   * @param targets every registered target
   * @param config {@code memory.maintenance}; its {@code targets} must name registered targets
   * @throws ConfigurationException naming {@code memory.maintenance.targets} and the unknown target
   */
  public MaintenanceService(
      Collection<MaintenanceTarget> targets,
      Maintenance config,
      MaintenanceStore store,
      EventBus events,
      Clock clock) {
    this.config = requireNonNull(config, "config is null");
    this.store = requireNonNull(store, "store is null");
    this.events = requireNonNull(events, "events is null");
    this.clock = requireNonNull(clock, "clock is null");
    this.zone = ZoneId.systemDefault();
    TreeMap<String, MaintenanceTarget> byName = new TreeMap<>();
    for (MaintenanceTarget t : targets) {
      if (byName.put(t.name(), t) != null) {
        throw new IllegalStateException("two maintenance targets are called '" + t.name() + "'");
      }
    }
    this.targets = java.util.Collections.unmodifiableMap(byName);
    for (String name : config.targets()) {
      if (!byName.containsKey(name)) {
        throw new ConfigurationException(
            "memsidecar.yaml: key 'memory.maintenance.targets' names an unknown target '"
                + name
                + "'; the targets are "
                + String.join(", ", byName.keySet()));
      }
    }
    this.scheduled =
        config.targets().isEmpty()
            ? List.copyOf(byName.keySet())
            : List.copyOf(new LinkedHashSet<>(config.targets()));
    for (String name : byName.keySet()) {
      running.put(name, new ReentrantLock());
    }
    AtomicInteger threads = new AtomicInteger();
    this.workers =
        Executors.newCachedThreadPool(
            r -> {
              Thread t = new Thread(r, "maintenance-" + threads.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    for (TargetRun run : store.lastRuns()) {
      last.put(run.target(), run);
    }
  }

  /** The names of every registered target, sorted. */
  public List<String> targetNames() {
    return List.copyOf(targets.keySet());
  }

  /** Starts the schedule, if maintenance is enabled. */
  public void start() {
    if (!config.enabled() || scheduled.isEmpty()) {
      LOG.log(Level.INFO, "maintenance: the schedule is off (memory.maintenance.enabled: false)");
      return;
    }
    Instant lastStart =
        last.values().stream().map(TargetRun::startTime).max(Instant::compareTo).orElse(null);
    nextRun = config.schedule().next(lastStart, clock.instant(), zone);
    scheduler = new Thread(() -> scheduleLoop(lastStart), "maintenance-schedule");
    scheduler.setDaemon(true);
    scheduler.start();
    LOG.log(
        Level.INFO,
        () ->
            "maintenance: "
                + config.schedule()
                + ", targets "
                + scheduled
                + ", next pass at "
                + nextRun);
  }

  /**
   * Runs {@code names} now (every target when empty), in parallel, and returns their runs in the
   * order asked (sorted by name when every target runs).
   *
   * @throws MemoryException INVALID_ARGUMENT naming {@code targets} for a name no target has, or
   *     more names than targets; UNAVAILABLE when the sidecar is stopping
   */
  public List<TargetRun> runNow(List<String> names) {
    requireNonNull(names, "names is null");
    if (names.size() > Math.max(targets.size(), 1) * 4) {
      throw MemoryException.invalidArgument(
          "targets", "targets has " + names.size() + " entries; there are " + targets.size());
    }
    LinkedHashSet<String> wanted = new LinkedHashSet<>();
    for (String name : names) {
      if (name == null || !targets.containsKey(name)) {
        throw MemoryException.invalidArgument(
            "targets",
            "unknown maintenance target "
                + Ids.quote(name)
                + "; the targets are "
                + String.join(", ", targets.keySet()));
      }
      wanted.add(name);
    }
    if (wanted.isEmpty()) {
      wanted.addAll(targets.keySet());
    }
    return runAll(List.copyOf(wanted), TargetRun.REQUEST);
  }

  /**
   * What GetStatus shows.
   *
   * @param enabled whether the schedule runs
   * @param schedule the schedule in words, e.g. "periodic every PT1H"
   * @param targets one per registered target, sorted by name
   */
  public record Status(boolean enabled, String schedule, List<TargetStatus> targets) {}

  /**
   * One target in GetStatus.
   *
   * @param name the target
   * @param scheduled whether the schedule runs it
   * @param last its last run, if it ever ran
   * @param nextRun when the schedule runs it next, or null (schedule off, or not scheduled)
   */
  public record TargetStatus(
      String name, boolean scheduled, Optional<TargetRun> last, Instant nextRun) {}

  /** The schedule, and each target's last and next run. */
  public Status status() {
    List<TargetStatus> out = new ArrayList<>();
    Instant next = scheduler == null ? null : nextRun;
    for (String name : targets.keySet()) {
      boolean isScheduled = scheduler != null && scheduled.contains(name);
      out.add(
          new TargetStatus(
              name, isScheduled, Optional.ofNullable(last.get(name)), isScheduled ? next : null));
    }
    return new Status(scheduler != null, config.schedule().toString(), List.copyOf(out));
  }

  /**
   * Stops the schedule, asks running targets to stop (they see it at their next {@link
   * MaintenancePass#checkStopped}) and waits a few seconds for them.
   */
  @Override
  public void close() {
    closed = true;
    scheduleLock.lock();
    try {
      wake.signalAll();
    } finally {
      scheduleLock.unlock();
    }
    // No interrupt: a target stops at its next checkStopped(), between two pieces of work, so no
    // store call is cut short (an interrupt can close a file channel under a store).
    workers.shutdown();
    try {
      if (!workers.awaitTermination(STOP_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
        LOG.log(Level.WARNING, "maintenance: a target did not stop within " + STOP_WAIT);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  // ---------------------------------------------------------------- schedule

  private void scheduleLoop(Instant firstLastStart) {
    Instant lastStart = firstLastStart;
    while (!closed) {
      lastStart = latest(lastStart, sharedPassStart());
      Instant now = clock.instant();
      Instant due = config.schedule().next(lastStart, now, zone);
      nextRun = due;
      if (!sleepUntil(due)) {
        return;
      }
      Instant start = clock.instant();
      try {
        // Taken only if no sidecar started a pass since the last one this one knows of: a
        // compare-and-set on the lease's pass start, so each pass runs once among them.
        Instant since = lastStart == null ? Instant.MIN : lastStart.plusNanos(1);
        if (!store.takeLease(LEASE, owner, start, start.plus(LEASE_TIME), since)) {
          Optional<MaintenanceStore.Lease> held = store.lease(LEASE);
          boolean newer =
              held.isPresent() && (lastStart == null || held.get().passStart().isAfter(lastStart));
          if (!newer) {
            // Held by another for no newer pass (it may have died): look again when it lapses,
            // at the latest after a renewal period.
            Instant retry = start.plus(LEASE_RENEWAL);
            Instant lapse = held.map(MaintenanceStore.Lease::expireTime).orElse(retry);
            if (!sleepUntil(lapse.isBefore(retry) ? lapse : retry)) {
              return;
            }
          }
          continue; // the top of the loop takes the other sidecar's pass as the last
        }
        lastStart = start;
        runLeased();
      } catch (RuntimeException e) {
        if (closed) {
          return;
        }
        lastStart = start;
        LOG.log(Level.WARNING, "maintenance: a scheduled pass could not run", e);
      }
    }
  }

  /** The scheduled targets, run while this sidecar holds and renews the lease; then released. */
  private void runLeased() {
    CountDownLatch done = new CountDownLatch(1);
    Future<?> renewal =
        workers.submit(
            () -> {
              try {
                while (!done.await(LEASE_RENEWAL.toMillis(), TimeUnit.MILLISECONDS)) {
                  try {
                    if (!store.renewLease(LEASE, owner, clock.instant().plus(LEASE_TIME))) {
                      LOG.log(
                          Level.WARNING,
                          "maintenance: the lease of this pass went to another sidecar");
                    }
                  } catch (RuntimeException e) {
                    LOG.log(Level.WARNING, "maintenance: cannot renew the lease of this pass", e);
                  }
                }
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              return null;
            });
    try {
      runAll(scheduled, TargetRun.SCHEDULE);
    } finally {
      done.countDown();
      renewal.cancel(true);
      try {
        store.releaseLease(LEASE, owner);
      } catch (RuntimeException e) {
        LOG.log(
            Level.WARNING,
            "maintenance: cannot release the lease of this pass; it lapses in " + LEASE_TIME,
            e);
      }
    }
  }

  /** The start of the last scheduled pass of any sidecar sharing the store, or null. */
  private Instant sharedPassStart() {
    try {
      return store.lease(LEASE).map(MaintenanceStore.Lease::passStart).orElse(null);
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "maintenance: cannot read the lease of the schedule", e);
      return null;
    }
  }

  private static Instant latest(Instant a, Instant b) {
    return a == null ? b : b == null || a.isAfter(b) ? a : b;
  }

  /** Waits until {@code due}; false when closed meanwhile. */
  private boolean sleepUntil(Instant due) {
    scheduleLock.lock();
    try {
      while (!closed) {
        long millis = Duration.between(clock.instant(), due).toMillis();
        if (millis <= 0) {
          return true;
        }
        wake.await(millis, TimeUnit.MILLISECONDS);
      }
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } finally {
      scheduleLock.unlock();
    }
  }

  // ---------------------------------------------------------------- runs

  private List<TargetRun> runAll(List<String> names, String trigger) {
    if (closed) {
      throw MemoryException.unavailable("maintenance is stopping: the sidecar is stopping", null);
    }
    List<Future<TargetRun>> futures = new ArrayList<>();
    for (String name : names) {
      try {
        futures.add(workers.submit(() -> runOne(targets.get(name), trigger)));
      } catch (java.util.concurrent.RejectedExecutionException e) {
        throw MemoryException.unavailable("maintenance is stopping: the sidecar is stopping", e);
      }
    }
    List<TargetRun> runs = new ArrayList<>();
    boolean interrupted = false;
    for (Future<TargetRun> f : futures) {
      while (true) {
        try {
          runs.add(f.get());
          break;
        } catch (InterruptedException e) {
          interrupted = true;
        } catch (java.util.concurrent.ExecutionException e) {
          throw new IllegalStateException("maintenance run failed outside its target", e);
        } catch (CancellationException e) {
          throw MemoryException.unavailable("maintenance is stopping: the sidecar is stopping", e);
        }
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    return List.copyOf(runs);
  }

  private TargetRun runOne(MaintenanceTarget target, String trigger) {
    ReentrantLock lock = running.get(target.name());
    lock.lock();
    try {
      Instant start = clock.instant();
      MaintenancePass pass = new MaintenancePass(config.prompt(), start, () -> closed);
      String error = "";
      try {
        target.run(pass);
      } catch (CancellationException e) {
        error = "stopped: the sidecar is stopping";
      } catch (Exception | LinkageError | AssertionError e) {
        error = reason(e);
        LOG.log(Level.WARNING, "maintenance: target '" + target.name() + "' failed", e);
      } catch (OutOfMemoryError e) {
        error = reason(e);
        LOG.log(Level.ERROR, "maintenance: target '" + target.name() + "' ran out of memory", e);
      }
      TargetRun run =
          new TargetRun(
              target.name(),
              error.isEmpty(),
              pass.counts(),
              error,
              start,
              clock.instant(),
              trigger);
      last.put(run.target(), run);
      try {
        store.saveRun(run);
      } catch (RuntimeException e) {
        LOG.log(
            Level.WARNING,
            "maintenance: the run of target '" + target.name() + "' could not be kept",
            e);
      }
      events.publish(event(run));
      LOG.log(
          run.ok() ? Level.INFO : Level.WARNING,
          () ->
              "maintenance: "
                  + run.target()
                  + (run.ok() ? " completed" : " failed: " + run.error())
                  + " in "
                  + Duration.between(run.startTime(), run.endTime()).toMillis()
                  + " ms ("
                  + run.trigger()
                  + "): "
                  + run.counts());
      return run;
    } finally {
      lock.unlock();
    }
  }

  private RuntimeEvent event(TargetRun run) {
    Map<String, String> attributes = new HashMap<>();
    run.counts().forEach((k, v) -> attributes.put(k, Long.toString(v)));
    attributes.put("target", run.target());
    attributes.put("trigger", run.trigger());
    attributes.put(
        "duration_ms", Long.toString(Duration.between(run.startTime(), run.endTime()).toMillis()));
    if (!run.ok()) {
      attributes.put("error", run.error());
    }
    return RuntimeEvent.sidecarWide(run.ok() ? COMPLETED : FAILED, run.endTime(), attributes);
  }

  private static String reason(Throwable e) {
    String message = e.getMessage();
    String text =
        message == null || message.isBlank()
            ? e.getClass().getSimpleName()
            : e instanceof MemoryException
                ? message
                : e.getClass().getSimpleName() + ": " + message;
    return Limits.cutUtf8(text.strip(), MAX_ERROR_CHARS);
  }
}
