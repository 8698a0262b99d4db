package dev.memsidecar.sidecar.bench;

import dev.memsidecar.proto.v1.AdminServiceGrpc;
import dev.memsidecar.proto.v1.AdminServiceGrpc.AdminServiceBlockingStub;
import dev.memsidecar.proto.v1.GetStatusRequest;
import dev.memsidecar.proto.v1.GetStatusResponse;
import dev.memsidecar.proto.v1.MemoryServiceGrpc;
import dev.memsidecar.proto.v1.MemoryServiceGrpc.MemoryServiceBlockingStub;
import dev.memsidecar.proto.v1.ProfileStatus;
import dev.memsidecar.proto.v1.RememberRequest;
import dev.memsidecar.proto.v1.Scope;
import io.grpc.StatusRuntimeException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code bench lag}: how far the vectors made behind Remember trail it at a sustained rate.
 * Remembers {@link Sentences} into one namespace at {@code --rate} per second for {@code --seconds}
 * (open loop: call {@code i} starts at {@code i / rate} s, from {@code --clients} clients, or as
 * soon as a client is free when they fall behind), while a sampler reads GetStatus every {@value
 * #SAMPLE_MILLIS} ms: the records waiting for their vectors and how long the one waiting longest
 * has waited ({@code vectors_oldest_wait}).
 *
 * <p>The lag of a record is bounded from those samples without knowing the order the sidecar makes
 * vectors in: a record acknowledged at {@code a} has its vector by the first sample whose oldest
 * waiting record arrived after {@code a} (it was sent at {@code s}, and {@code s - oldest wait >
 * a}), or that finds none waiting. Its lag is at most that sample's answer time minus {@code a}: an
 * upper bound, {@value #SAMPLE_MILLIS} ms coarse.
 */
@Command(
    name = "lag",
    sortOptions = false,
    usageHelpWidth = 100,
    sortSynopsis = false,
    description = {
      "How far vectors trail Remember at a sustained rate: Remembers at --rate per second for"
          + " --seconds, GetStatus sampled every 50 ms; prints each record's lag (acknowledged"
          + " to vector made, an upper bound) p50/p99/max and the backlog.",
      "Progress goes to stderr, the table to stdout."
    })
final class VectorLagBench extends Bench {
  static final int SAMPLE_MILLIS = 50;

  @Mixin SidecarOptions sidecar;

  @Option(
      names = "--rate",
      paramLabel = "N",
      defaultValue = "100",
      description = "Remembers per second (default: ${DEFAULT-VALUE})")
  int rate;

  @Option(
      names = "--seconds",
      paramLabel = "S",
      defaultValue = "60",
      description = "how long the rate is held (default: ${DEFAULT-VALUE})")
  int seconds;

  @Option(
      names = "--clients",
      paramLabel = "N",
      defaultValue = "4",
      description = "concurrent clients sharing the schedule (default: ${DEFAULT-VALUE})")
  int clients;

  @Option(
      names = "--records",
      paramLabel = "N",
      defaultValue = "1000",
      description =
          "records remembered first, unmeasured, and their vectors awaited (default:"
              + " ${DEFAULT-VALUE})")
  int records;

  @Option(
      names = "--seed",
      paramLabel = "N",
      defaultValue = "42",
      description = "seed of the texts (default: ${DEFAULT-VALUE})")
  long seed;

  VectorLagBench(PrintStream out, PrintStream err, Class<?> sidecarMain) {
    super(out, err, sidecarMain);
  }

  /** Checks every option; a bad one is a {@link ParameterException} naming it. */
  void validate() {
    if (rate < 1 || rate > 100_000) {
      throw new ParameterException(spec.commandLine(), "--rate must be 1..100000, got " + rate);
    }
    if (seconds < 1 || seconds > 3600) {
      throw new ParameterException(spec.commandLine(), "--seconds must be 1..3600, got " + seconds);
    }
    if (clients < 1 || clients > 256) {
      throw new ParameterException(spec.commandLine(), "--clients must be 1..256, got " + clients);
    }
    if (records < 0) {
      throw new ParameterException(spec.commandLine(), "--records must be >= 0, got " + records);
    }
    sidecar.validate(spec);
  }

  /** The span of each line of the per-window table. */
  static final int WINDOW_SECONDS = 5;

  /** One GetStatus: sent and answered (nanoTime), records waiting, the longest wait. */
  record Sample(long sent, long answered, long pending, long oldestWaitNanos) {
    /** Whether every record acknowledged at {@code ack} had its vector when this was read. */
    boolean covers(long ack) {
      return pending == 0 || sent - oldestWaitNanos > ack;
    }

    /**
     * Whether this reading, sent after {@code lastAck}, found nothing waiting: every record
     * acknowledged by then had its vector. (One sent before the last acknowledgement does not say
     * so, even when it found nothing waiting.)
     */
    boolean showsEmptyAfter(long lastAck) {
      return pending == 0 && sent > lastAck;
    }
  }

  @Override
  public Integer call() throws Exception {
    validate();
    int n = rate * seconds;
    err.printf(
        Locale.ROOT,
        "bench lag: %,d Remembers at %d/s for %d s from %d clients, after %,d records%n",
        n,
        rate,
        seconds,
        clients,
        records);
    Sentences sentences = new Sentences(seed);
    Scope scope = Scope.newBuilder().setWorkspaceId("bench").build();
    String description;
    long[] acked = new long[n];
    long[] callNanos = new long[n];
    List<Sample> samples = Collections.synchronizedList(new ArrayList<>());
    AtomicInteger failedReadings = new AtomicInteger();
    AtomicReference<String> lastFailure = new AtomicReference<>();
    long wall;
    long start;
    try (SidecarOptions.Scratch scratch = sidecar.scratch("memsidecar-bench-lag");
        SidecarProcess process = sidecar.start(scratch, sidecarMain)) {
      description = sidecar.describe(process);
      SidecarOptions.reportStart(err, process, description);
      List<String> first = new ArrayList<>(records);
      for (int i = 0; i < records; i++) {
        first.add(sentences.next());
      }
      AtomicInteger next = new AtomicInteger();
      try (Progress progress = new Progress(err, "remember the first records", records);
          Clients pool = new Clients(process, clients)) {
        pool.run(
            (channel, client) -> {
              MemoryServiceBlockingStub stub = MemoryServiceGrpc.newBlockingStub(channel);
              for (int i = next.getAndIncrement(); i < records; i = next.getAndIncrement()) {
                remember(stub, scope, first.get(i));
                progress.add(1);
              }
            });
      }
      long caughtUp = process.awaitVectors(Duration.ofHours(1));
      err.printf(Locale.ROOT, "  their vectors were all made %.1f s later%n", caughtUp / 1e9);

      List<String> texts = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        texts.add(sentences.next());
      }
      AdminServiceBlockingStub admin = AdminServiceGrpc.newBlockingStub(process.channel());
      Thread sampler =
          Thread.ofPlatform()
              .name("bench-lag-sampler")
              .start(
                  () -> {
                    try {
                      while (!Thread.currentThread().isInterrupted()) {
                        try {
                          samples.add(sample(admin));
                        } catch (StatusRuntimeException e) {
                          // Counted and reported: a reading lost must not end the sampling.
                          failedReadings.incrementAndGet();
                          lastFailure.set(e.getStatus().toString());
                        }
                        Thread.sleep(SAMPLE_MILLIS);
                      }
                    } catch (InterruptedException e) {
                      Thread.currentThread().interrupt();
                    }
                  });
      long t0 = System.nanoTime();
      start = t0;
      next.set(0);
      try (Progress progress = new Progress(err, "remember at " + rate + "/s", n);
          Clients pool = new Clients(process, clients)) {
        pool.run(
            (channel, client) -> {
              MemoryServiceBlockingStub stub = MemoryServiceGrpc.newBlockingStub(channel);
              for (int i = next.getAndIncrement(); i < n; i = next.getAndIncrement()) {
                long due = t0 + i * 1_000_000_000L / rate;
                long wait = due - System.nanoTime();
                if (wait > 0) {
                  TimeUnit.NANOSECONDS.sleep(wait);
                }
                long s = System.nanoTime();
                remember(stub, scope, texts.get(i));
                acked[i] = System.nanoTime();
                callNanos[i] = acked[i] - s;
                progress.add(1);
              }
            });
      }
      wall = System.nanoTime() - t0;
      // Sample on until the backlog is gone, so every record's lag is bounded.
      long lastAck = Arrays.stream(acked).max().orElse(0);
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
      while (System.nanoTime() < deadline) {
        synchronized (samples) {
          if (!samples.isEmpty() && samples.getLast().showsEmptyAfter(lastAck)) {
            break;
          }
        }
        Thread.sleep(SAMPLE_MILLIS);
      }
      sampler.interrupt();
      sampler.join();
      int exit = process.terminate();
      if (exit != 0) {
        err.println("sidecar exit code after SIGTERM: " + exit);
      }
    }

    long[] lag = lags(acked, samples);
    long unbounded = Arrays.stream(lag).filter(l -> l == Long.MAX_VALUE).count();
    long[] pending = samples.stream().mapToLong(Sample::pending).sorted().toArray();
    long[] oldest = samples.stream().mapToLong(Sample::oldestWaitNanos).sorted().toArray();
    Arrays.sort(lag);
    Arrays.sort(callNanos);
    out.printf(
        Locale.ROOT,
        "bench lag: %,d Remembers at %d/s (%,.0f/s reached) for %d s from %d clients, after %,d"
            + " records; %s; %s%n%n",
        n,
        rate,
        n / Figures.seconds(wall),
        seconds,
        clients,
        records,
        description,
        SidecarOptions.machine());
    out.println("| measurement | n | p50 | p99 | max |");
    out.println("|---|---:|---:|---:|---:|");
    out.println(row("Remember (acknowledged)", callNanos, " ms", 1e6));
    out.println(row("lag: acknowledged to vector made (upper bound)", lag, " ms", 1e6));
    out.println(row("GetStatus samples: longest wait", oldest, " ms", 1e6));
    out.println(row("GetStatus samples: records waiting", pending, "", 1));
    if (unbounded > 0) {
      out.printf(
          Locale.ROOT,
          "%n%,d records still waited for their vectors 10 minutes after%n",
          unbounded);
    }
    if (failedReadings.get() > 0) {
      out.printf(
          Locale.ROOT,
          "%n%,d GetStatus readings failed, the last with %s%n",
          failedReadings.get(),
          lastFailure.get());
    }
    printWindows(samples, start);
    out.flush();
    return 0;
  }

  /**
   * The GetStatus readings per {@value #WINDOW_SECONDS} s of the run (and after it, until the
   * backlog was gone): the most records waiting and the longest wait, so a tail shows when it came
   * (the start, a pause of the sidecar, or throughout).
   */
  private void printWindows(List<Sample> samples, long start) {
    TreeMap<Long, long[]> byWindow = windows(samples, start);
    out.printf(
        Locale.ROOT,
        "%n| seconds into the run | records waiting, most | longest wait, most"
            + " |%n|---|---:|---:|%n");
    byWindow.forEach(
        (k, w) ->
            out.printf(
                Locale.ROOT,
                "| %d-%d | %d | %.1f ms |%n",
                k * WINDOW_SECONDS,
                (k + 1) * WINDOW_SECONDS,
                w[0],
                w[1] / 1e6));
  }

  /**
   * By window of {@value #WINDOW_SECONDS} s from {@code start} (its index), the most records
   * waiting and the longest wait the samples sent in it read; a sample sent before {@code start}
   * counts in the first.
   */
  static TreeMap<Long, long[]> windows(List<Sample> samples, long start) {
    long window = TimeUnit.SECONDS.toNanos(WINDOW_SECONDS);
    TreeMap<Long, long[]> byWindow = new TreeMap<>();
    for (Sample s : samples) {
      long[] w = byWindow.computeIfAbsent(Math.max(0, s.sent() - start) / window, k -> new long[2]);
      w[0] = Math.max(w[0], s.pending());
      w[1] = Math.max(w[1], s.oldestWaitNanos());
    }
    return byWindow;
  }

  /**
   * Each record's lag, bounded by the samples (see the class comment): by the index of {@code
   * acked}, the nanoseconds from its acknowledgement to the answer of the first sample sent after
   * it that {@linkplain Sample#covers covers} it; {@link Long#MAX_VALUE} when none does.
   *
   * @param samples in the order they were sent
   */
  static long[] lags(long[] acked, List<Sample> samples) {
    Integer[] order = new Integer[acked.length];
    for (int i = 0; i < order.length; i++) {
      order[i] = i;
    }
    // A sample that does not cover one record covers none acknowledged later: one pass suffices.
    Arrays.sort(order, (x, y) -> Long.compare(acked[x], acked[y]));
    long[] lag = new long[acked.length];
    int j = 0;
    for (int i : order) {
      while (j < samples.size()
          && !(samples.get(j).sent() > acked[i] && samples.get(j).covers(acked[i]))) {
        j++;
      }
      lag[i] = j < samples.size() ? samples.get(j).answered() - acked[i] : Long.MAX_VALUE;
    }
    return lag;
  }

  private static String row(String name, long[] sorted, String unit, double scale) {
    return String.format(
        Locale.ROOT,
        "| %s | %d | %s | %s | %s |",
        name,
        sorted.length,
        cell(Figures.percentile(sorted, 50), unit, scale),
        cell(Figures.percentile(sorted, 99), unit, scale),
        cell(sorted.length == 0 ? 0 : sorted[sorted.length - 1], unit, scale));
  }

  private static String cell(long value, String unit, double scale) {
    return value == Long.MAX_VALUE
        ? "unbounded"
        : String.format(Locale.ROOT, "%,.1f%s", value / scale, unit);
  }

  private static Sample sample(AdminServiceBlockingStub admin) {
    long sent = System.nanoTime();
    GetStatusResponse status =
        admin
            .withDeadlineAfter(30, TimeUnit.SECONDS)
            .getStatus(GetStatusRequest.getDefaultInstance());
    long answered = System.nanoTime();
    long pending = 0;
    long oldest = 0;
    for (ProfileStatus p : status.getProfilesList()) {
      pending += p.getVectorsPending();
      Duration wait =
          Duration.ofSeconds(
              p.getVectorsOldestWait().getSeconds(), p.getVectorsOldestWait().getNanos());
      oldest = Math.max(oldest, wait.toNanos());
    }
    return new Sample(sent, answered, pending, oldest);
  }

  private void remember(MemoryServiceBlockingStub stub, Scope scope, String text) {
    stub.withDeadlineAfter(60, TimeUnit.SECONDS)
        .remember(
            RememberRequest.newBuilder()
                .setScope(scope)
                .setProfile(sidecar.profile)
                .setContent(text)
                .build());
  }
}
