package dev.memsidecar.sidecar;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.management.JMException;
import javax.management.ObjectName;

/**
 * What {@code serve} does about the heap when the JVM was started without heap options (plain
 * {@code java -jar memsidecar.jar serve}): such a JVM may grow its heap to a quarter of the host's
 * memory and, with G1, keeps what it grew to (measured: 0.7-1.8 GiB RSS after 25,000 calls on
 * 10,000 records, of ~100 MiB live data). The heap bound cannot change once the JVM runs, and the
 * sidecar does not restart itself in a child JVM (a {@code kill -9} of the parent would orphan it),
 * so it uses what HotSpot lets a running process change, its <em>manageable</em> flags:
 *
 * <ul>
 *   <li>{@code MinHeapFreeRatio=10}, {@code MaxHeapFreeRatio=30} (HotSpot: 40 and 70): after a
 *       marking cycle or a full collection the heap shrinks to about 1.4 times what is in use,
 *       instead of 3.3 times, and the memory given up goes back to the OS.
 *   <li>G1 grows its heap whenever its pauses take more than a few percent of the time (1% while
 *       the heap is small next to its maximum), but gives memory back only at the end of a marking
 *       cycle, which a busy service with little live data rarely needs. A governor thread looks at
 *       the heap once a second ({@link Decisions}) and, when the heap grew past what is in use or
 *       the calls stopped, sets {@code G1PeriodicGCInterval} to {@link #ARMED_INTERVAL_MILLIS} for
 *       one second, so G1 runs a concurrent cycle (not a stop-the-world full collection) that
 *       shrinks the heap; then back to 0 (off). After such a cycle it has the C library return
 *       freed memory ({@code System.trim_native_heap}, at most every {@link #TRIM_EVERY_MILLIS}),
 *       whenever the JVM is quiet (soon after start-up too), whatever the heap's size, and every
 *       {@link #BUSY_TRIM_EVERY_MILLIS} while calls go on (the embedding model's runs free their
 *       working memory to the C library, which keeps it): loading the embedding model and compiling
 *       leave ~60-80 MiB of C heap freed but kept by the C library (measured with {@code
 *       bge-small-en}: ~360 MiB RSS before, ~280-300 after).
 * </ul>
 *
 * <p>{@code -Dmemsidecar.heapTuning} chooses ({@link Mode}): {@code auto} (default) does the above
 * only when no heap option was given ({@link #heapOptionsGiven}: {@code -Xmx}, {@code
 * -XX:MaxRAMPercentage}, ... on the command line, in {@code JAVA_TOOL_OPTIONS} or {@code
 * JDK_JAVA_OPTIONS}), so whoever sized the heap keeps the JVM as they set it, and logs one line
 * saying so; {@code on} (the launcher, which sets the ratios itself) runs only the governor; {@code
 * off} touches nothing. The governor runs only under G1; with another collector only the ratios are
 * set. On a runtime without the {@code jdk.management} module nothing is done.
 *
 * <p>Thread-safety: {@link #apply} may be called from any thread; only its first call in a JVM has
 * an effect. The governor is one daemon thread.
 */
final class HeapTuning {
  /** The heap the governor lets G1 keep without asking for a cycle (committed bytes). */
  static final long TARGET_HEAP_BYTES = 128L << 20;

  /** How far above the ratio's size the committed heap may be before the governor acts. */
  static final long SLACK_BYTES = 16L << 20;

  static final int MIN_HEAP_FREE_RATIO = 10;
  static final int MAX_HEAP_FREE_RATIO = 30;

  /** The periodic-GC interval while armed: shorter than the gap between young collections. */
  static final long ARMED_INTERVAL_MILLIS = 200;

  /** After arming, the governor waits this long before it may arm again. */
  static final long COOL_DOWN_MILLIS = 5_000;

  /** No collection for this long means the calls stopped: time to give the heap back. */
  static final long QUIET_MILLIS = 4_000;

  /** The C heap is trimmed after a cycle, or while quiet, at most this often. */
  static final long TRIM_EVERY_MILLIS = 30_000;

  /**
   * While calls go on, the C heap is trimmed this often: the embedding model's runs take their
   * working memory from the C library and free it after each run, and glibc keeps what was freed.
   */
  static final long BUSY_TRIM_EVERY_MILLIS = 5_000;

  static final long TICK_MILLIS = 1_000;
  private static final System.Logger LOG = System.getLogger(HeapTuning.class.getName());
  private static final AtomicBoolean APPLIED = new AtomicBoolean();
  private static final String PERIODIC_OPTION = "-XX:G1PeriodicGCInterval=";

  /**
   * The prefixes of the JVM options that size the heap or tune how it grows and shrinks. {@code
   * -XX:MaxRAM} covers {@code MaxRAM}, {@code MaxRAMPercentage} and {@code MaxRAMFraction}.
   */
  private static final List<String> HEAP_OPTIONS =
      List.of(
          "-Xmx",
          "-Xms",
          "-XX:MaxHeapSize=",
          "-XX:InitialHeapSize=",
          "-XX:MinHeapSize=",
          "-XX:SoftMaxHeapSize=",
          "-XX:MaxRAM",
          "-XX:InitialRAM",
          "-XX:MinRAM",
          "-XX:MaxHeapFreeRatio=",
          "-XX:MinHeapFreeRatio=",
          PERIODIC_OPTION);

  private HeapTuning() {}

  /**
   * Whether the JVM's arguments ({@code RuntimeMXBean.getInputArguments()}, which include {@code
   * JAVA_TOOL_OPTIONS} and {@code JDK_JAVA_OPTIONS}) size the heap or tune its growth: {@code
   * -Xmx}, {@code -Xms}, {@code -XX:MaxHeapSize}, {@code -XX:MaxRAMPercentage}, {@code
   * -XX:MaxHeapFreeRatio}, {@code -XX:G1PeriodicGCInterval} and their kin.
   */
  static boolean heapOptionsGiven(List<String> jvmArguments) {
    for (String argument : jvmArguments) {
      String a = argument.strip();
      for (String option : HEAP_OPTIONS) {
        if (a.startsWith(option)) {
          return true;
        }
      }
    }
    return false;
  }

  /** What {@code -Dmemsidecar.heapTuning} asks for. */
  enum Mode {
    /** Tune when no heap option was given (the default). */
    AUTO,
    /** Tune whatever was given (the launcher, which also sets the ratios itself). */
    ON,
    /** Never touch the JVM. */
    OFF;

    /** The mode a property value names; unknown or absent values are {@link #AUTO}. */
    static Mode of(String value) {
      if (value == null) {
        return AUTO;
      }
      return switch (value.strip().toLowerCase(Locale.ROOT)) {
        case "on", "true" -> ON;
        case "off", "false" -> OFF;
        default -> AUTO;
      };
    }
  }

  /**
   * Whether to tune: never when {@code OFF}; when {@code ON} unless {@code
   * -XX:G1PeriodicGCInterval} was given (the governor would override it); when {@code AUTO} only
   * without heap options.
   */
  static boolean shouldTune(Mode mode, List<String> jvmArguments) {
    return switch (mode) {
      case OFF -> false;
      case ON -> jvmArguments.stream().noneMatch(a -> a.strip().startsWith(PERIODIC_OPTION));
      case AUTO -> !heapOptionsGiven(jvmArguments);
    };
  }

  /**
   * Sets the flags and starts the governor when {@link #shouldTune} says so ({@code
   * -Dmemsidecar.heapTuning=auto|on|off}) and this JVM has {@code jdk.management}; logs one line
   * saying what it did. At most once per JVM.
   */
  static void apply() {
    if (!APPLIED.compareAndSet(false, true)) {
      return;
    }
    Mode mode = Mode.of(System.getProperty("memsidecar.heapTuning"));
    if (!shouldTune(mode, ManagementFactory.getRuntimeMXBean().getInputArguments())) {
      return;
    }
    HotSpotDiagnosticMXBean hotspot;
    try {
      hotspot = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
    } catch (LinkageError | RuntimeException e) {
      LOG.log(System.Logger.Level.DEBUG, "no HotSpotDiagnosticMXBean; heap left as it is", e);
      return;
    }
    if (hotspot == null) {
      return;
    }
    boolean g1 =
        ManagementFactory.getGarbageCollectorMXBeans().stream()
            .map(GarbageCollectorMXBean::getName)
            .anyMatch(n -> n.startsWith("G1 "));
    int maxFreeRatio;
    try {
      if (mode == Mode.AUTO) {
        // In this order: MinHeapFreeRatio may never exceed MaxHeapFreeRatio, not even between.
        hotspot.setVMOption("MinHeapFreeRatio", Integer.toString(MIN_HEAP_FREE_RATIO));
        hotspot.setVMOption("MaxHeapFreeRatio", Integer.toString(MAX_HEAP_FREE_RATIO));
      }
      if (g1) {
        hotspot.setVMOption("G1PeriodicGCInterval", "0");
      }
      maxFreeRatio = Integer.parseInt(hotspot.getVMOption("MaxHeapFreeRatio").getValue());
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.DEBUG, "cannot set heap flags; heap left as it is", e);
      return;
    }
    if (mode == Mode.AUTO) {
      LOG.log(
          System.Logger.Level.INFO,
          String.format(
              Locale.ROOT,
              "no heap options given, so the JVM may grow the heap to %,d MiB: returning unused"
                  + " heap to the OS (MinHeapFreeRatio=%d, MaxHeapFreeRatio=%d%s); bound it with"
                  + " -Xmx or -XX:MaxRAMPercentage in JAVA_TOOL_OPTIONS instead",
              Runtime.getRuntime().maxMemory() >> 20,
              MIN_HEAP_FREE_RATIO,
              MAX_HEAP_FREE_RATIO,
              g1 ? ", G1 cycles when the heap grew" : ""));
    }
    if (g1) {
      new Governor(hotspot, maxFreeRatio).start();
    }
  }

  /**
   * The size {@code maxHeapFreeRatio} allows for {@code usedAfterGc} bytes in use, plus {@link
   * #SLACK_BYTES}: a committed heap above it (and above {@link #TARGET_HEAP_BYTES}) is worth a
   * cycle at once.
   */
  static long allowed(long usedAfterGc, int maxHeapFreeRatio) {
    int ratio = Math.max(0, Math.min(99, maxHeapFreeRatio));
    return usedAfterGc * 100 / (100 - ratio) + SLACK_BYTES;
  }

  /** One look at the heap: the time, the committed heap, what the last collection left in use. */
  record Reading(long nowMillis, long committed, long usedAfterGc, long collections) {}

  /**
   * The governor's decisions, apart from the JVM so they can be tested: {@link #next} says which
   * {@code G1PeriodicGCInterval} to set after each reading. It arms ({@link
   * #ARMED_INTERVAL_MILLIS}) for one tick when the committed heap is above {@link
   * #TARGET_HEAP_BYTES} and either
   *
   * <ul>
   *   <li>G1 grew it past {@link #allowed} (at most every {@link #COOL_DOWN_MILLIS}), or
   *   <li>the calls stopped: no collection for {@link #QUIET_MILLIS}, but some since the last
   *       cycle; so a heap left large by a burst shrinks once, and an idle JVM is left alone,
   * </ul>
   *
   * and sets 0 (off) otherwise. After each reading, {@link #trimNow} says whether to trim the C
   * heap: when a cycle's window just ended, and when the JVM is quiet (no collection for {@link
   * #QUIET_MILLIS}: soon after start-up, after a burst of calls), at most every {@link
   * #TRIM_EVERY_MILLIS}, and once as soon as the calls stopped after a trim while they went on;
   * while calls go on, every {@link #BUSY_TRIM_EVERY_MILLIS} (the embedding model frees its working
   * memory after each run; a trim took 1-2 ms). A trim frees no heap and stops nothing: it only
   * returns the C library's free pages to the OS. Not at the first reading: the first trim starts
   * the platform MBean server, and JDK 25 crashed once when that linked lambdas while a SIGTERM
   * right after start-up made the JVM write its class-data archive. Not thread-safe: one thread
   * reads.
   */
  static final class Decisions {
    private final int maxHeapFreeRatio;
    private long lastArmed = Long.MIN_VALUE / 2;
    private long collectionsAtDisarm = 0;
    private long lastCollections = -1;
    private long lastCollectionChange;
    private boolean armed;
    private boolean disarmedNow;
    private long lastTrim = Long.MIN_VALUE / 2;
    private boolean lastTrimBusy;
    private long firstReading = Long.MIN_VALUE;
    private boolean collectedSinceFirst;
    private boolean trimNow;

    /** Decisions for a JVM whose {@code MaxHeapFreeRatio} is {@code maxHeapFreeRatio}. */
    Decisions(int maxHeapFreeRatio) {
      this.maxHeapFreeRatio = maxHeapFreeRatio;
    }

    /** The interval to set after {@code r}. */
    long next(Reading r) {
      if (firstReading == Long.MIN_VALUE) {
        firstReading = r.nowMillis();
      }
      if (r.collections() != lastCollections) {
        collectedSinceFirst |= lastCollections >= 0;
        lastCollections = r.collections();
        lastCollectionChange = r.nowMillis();
      }
      long interval = interval(r);
      boolean quiet = r.nowMillis() - lastCollectionChange >= QUIET_MILLIS;
      long sinceTrim = r.nowMillis() - lastTrim;
      // Busy: collections since the first reading, the last one under QUIET_MILLIS ago.
      boolean busyTrim =
          collectedSinceFirst
              && r.nowMillis() - firstReading >= BUSY_TRIM_EVERY_MILLIS
              && sinceTrim >= BUSY_TRIM_EVERY_MILLIS;
      // The first quiet reading after a busy trim trims at once: the model's last runs freed their
      // memory since, and a JVM whose calls stopped should give it back now, not 30 s later.
      trimNow =
          (disarmedNow || quiet)
              ? sinceTrim >= TRIM_EVERY_MILLIS || (quiet && lastTrimBusy)
              : busyTrim;
      if (trimNow) {
        lastTrim = r.nowMillis();
        lastTrimBusy = !quiet && !disarmedNow;
      }
      return interval;
    }

    private long interval(Reading r) {
      disarmedNow = false;
      if (armed) {
        if (r.nowMillis() - lastArmed < TICK_MILLIS) {
          return ARMED_INTERVAL_MILLIS;
        }
        armed = false;
        disarmedNow = true;
        collectionsAtDisarm = r.collections();
        return 0;
      }
      if (r.committed() <= TARGET_HEAP_BYTES) {
        return 0;
      }
      boolean grown =
          r.committed() > allowed(r.usedAfterGc(), maxHeapFreeRatio)
              && r.nowMillis() - lastArmed >= COOL_DOWN_MILLIS;
      boolean quiet =
          r.collections() > collectionsAtDisarm
              && r.nowMillis() - lastCollectionChange >= QUIET_MILLIS;
      if (grown || quiet) {
        armed = true;
        lastArmed = r.nowMillis();
        return ARMED_INTERVAL_MILLIS;
      }
      return 0;
    }

    /** Whether the last {@link #next} ended a cycle's window. */
    boolean disarmedNow() {
      return disarmedNow;
    }

    /** Whether to trim the C heap after the last {@link #next}. */
    boolean trimNow() {
      return trimNow;
    }
  }

  /**
   * Arms and disarms G1's periodic collection from one daemon thread, and asks the C library to
   * return freed memory ({@code System.trim_native_heap}) when {@link Decisions#trimNow} says so.
   */
  private static final class Governor {
    private final HotSpotDiagnosticMXBean hotspot;
    private final List<MemoryPoolMXBean> heapPools;
    private final List<GarbageCollectorMXBean> collectors;
    private final Decisions decisions;
    private long interval;
    private boolean trimWorks = true;

    Governor(HotSpotDiagnosticMXBean hotspot, int maxHeapFreeRatio) {
      this.hotspot = hotspot;
      this.decisions = new Decisions(maxHeapFreeRatio);
      this.heapPools =
          ManagementFactory.getMemoryPoolMXBeans().stream()
              .filter(p -> p.getType() == MemoryType.HEAP)
              .toList();
      // Pauses that evacuate (young, mixed, full), not the concurrent cycle's own.
      this.collectors =
          ManagementFactory.getGarbageCollectorMXBeans().stream()
              .filter(c -> !c.getName().contains("Concurrent"))
              .toList();
    }

    void start() {
      ScheduledExecutorService timer =
          Executors.newSingleThreadScheduledExecutor(
              r -> {
                Thread t = new Thread(r, "memsidecar-heap-governor");
                t.setDaemon(true);
                return t;
              });
      timer.scheduleWithFixedDelay(this::tick, TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS);
      // Stopped before the JVM exits: a tick's first native-heap trim starts the platform MBean
      // server, which links lambdas, and a lambda linked while the JVM writes its class-data
      // archive at exit (the launcher's first start) crashed the JVM (SIGSEGV in
      // LambdaProxyClassDictionary::find_lambda_proxy_class, JDK 25.0.3).
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    timer.shutdownNow();
                    try {
                      timer.awaitTermination(2, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                      Thread.currentThread().interrupt();
                    }
                  },
                  "memsidecar-heap-governor-stop"));
    }

    private void tick() {
      try {
        long now = System.nanoTime() / 1_000_000;
        long committed = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getCommitted();
        long collections = 0;
        for (GarbageCollectorMXBean c : collectors) {
          collections += Math.max(0, c.getCollectionCount());
        }
        long next = decisions.next(new Reading(now, committed, usedAfterGc(), collections));
        if (next != interval) {
          hotspot.setVMOption("G1PeriodicGCInterval", Long.toString(next));
          interval = next;
        }
        if (decisions.trimNow() && trimWorks) {
          trimWorks = trimNativeHeap();
        }
      } catch (RuntimeException e) {
        LOG.log(System.Logger.Level.DEBUG, "heap governor tick failed", e);
      }
    }

    private long usedAfterGc() {
      long used = 0;
      for (MemoryPoolMXBean pool : heapPools) {
        MemoryUsage after = pool.getCollectionUsage();
        if (after != null) {
          used += after.getUsed();
        }
      }
      return used;
    }

    /** {@code jcmd PID System.trim_native_heap} from inside; false where the JVM has none. */
    private static boolean trimNativeHeap() {
      try {
        ManagementFactory.getPlatformMBeanServer()
            .invoke(
                new ObjectName("com.sun.management:type=DiagnosticCommand"),
                "systemTrimNativeHeap",
                new Object[] {null},
                new String[] {String[].class.getName()});
        return true;
      } catch (JMException | RuntimeException e) {
        LOG.log(System.Logger.Level.DEBUG, "System.trim_native_heap unavailable", e);
        return false;
      }
    }
  }
}
