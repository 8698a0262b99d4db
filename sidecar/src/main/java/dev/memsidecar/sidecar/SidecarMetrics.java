package dev.memsidecar.sidecar;

import dev.memsidecar.core.EngineStatus;
import dev.memsidecar.core.MemoryEngine;
import dev.memsidecar.core.events.RuntimeEvent;
import io.grpc.ForwardingServerCall;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;

/**
 * The sidecar's meters, scraped at {@code /metrics} (Prometheus text or OpenMetrics). Micrometer
 * rather than OpenTelemetry: one small library with Prometheus exposition built in and the JVM
 * binders, no SDK, exporter thread or collector to run beside a sidecar. Names
 * (docs/operations.md):
 *
 * <ul>
 *   <li>{@code memsidecar_rpc_seconds} (histogram): every gRPC call, by {@code method} (full name)
 *       and {@code status} (the gRPC code);
 *   <li>{@code memsidecar_writes_total} by {@code outcome} (stored, merged, rejected) and {@code
 *       memsidecar_rejections_total} by {@code reason}, the step that rejected it (gate: below the
 *       threshold; low_value; disabled: writes refused for the target; no_profile: no profile keeps
 *       such a memory for the scope);
 *   <li>{@code memsidecar_recall_items} (summary): what each BeginRun recalled, by {@code part}
 *       (recalled, evidence);
 *   <li>{@code memsidecar_extraction_failures_total}, {@code memsidecar_tool_denials_total};
 *   <li>{@code memsidecar_maintenance_runs_total} by {@code target} and {@code outcome} (completed,
 *       failed);
 *   <li>{@code memsidecar_data_bytes}: the data folder's size on disk (measured at most every 30
 *       s), {@code memsidecar_session_vectors_pending};
 *   <li>by {@code profile}: {@code memsidecar_memory_vectors_pending} (records acknowledged whose
 *       vectors are still being made) and {@code memsidecar_memory_vectors_oldest_wait_seconds};
 *   <li>the JVM's: {@code jvm_memory_*}, {@code jvm_gc_*}, {@code jvm_threads_*}, {@code
 *       process_cpu_*}, {@code process_uptime_seconds}.
 * </ul>
 *
 * Thread-safe.
 */
final class SidecarMetrics {
  private static final Duration DATA_SIZE_EVERY = Duration.ofSeconds(30);

  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final Path dataDir;
  private volatile long dataBytes = -1;
  private volatile long dataMeasuredAt;

  SidecarMetrics(MemoryEngine engine, Path dataDir) {
    this.dataDir = dataDir;
    new JvmMemoryMetrics().bindTo(registry);
    new JvmGcMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ClassLoaderMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    Gauge.builder("memsidecar.data", this, SidecarMetrics::dataBytes)
        .baseUnit("bytes")
        .description("the data folder's size on disk")
        .register(registry);
    Gauge.builder("memsidecar.session.vectors.pending", engine, e -> e.sessions().vectorsPending())
        .description("session messages appended whose vectors are being made")
        .register(registry);
    for (EngineStatus.ProfileStatus p : engine.status().profiles()) {
      String id = p.id();
      Gauge.builder(
              "memsidecar.memory.vectors.pending", engine, e -> e.pendingVectors(id).records())
          .tag("profile", id)
          .description("records acknowledged whose vectors are still being made")
          .register(registry);
      Gauge.builder(
              "memsidecar.memory.vectors.oldest.wait",
              engine,
              e -> e.pendingVectors(id).oldestWait().toNanos() / 1e9)
          .tag("profile", id)
          .baseUnit("seconds")
          .description("how long the record waiting longest for its vector has waited")
          .register(registry);
    }
    engine.events().listen(this::count);
  }

  /** The exposition of every meter in {@code contentType} (Prometheus text or OpenMetrics). */
  String scrape(String contentType) {
    return registry.scrape(contentType);
  }

  /** Times every call it intercepts into {@code memsidecar_rpc_seconds}. */
  ServerInterceptor interceptor() {
    return new ServerInterceptor() {
      @Override
      public <Q, R> ServerCall.Listener<Q> interceptCall(
          ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
        long t0 = System.nanoTime();
        String method = call.getMethodDescriptor().getFullMethodName();
        return next.startCall(
            new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
              @Override
              public void close(Status status, Metadata trailers) {
                Timer.builder("memsidecar.rpc")
                    .description("gRPC calls, by method and status")
                    .tag("method", method)
                    .tag("status", status.getCode().name())
                    .publishPercentileHistogram()
                    .minimumExpectedValue(Duration.ofMillis(1))
                    .maximumExpectedValue(Duration.ofSeconds(30))
                    .register(registry)
                    .record(Duration.ofNanos(System.nanoTime() - t0));
                super.close(status, trailers);
              }
            },
            headers);
      }
    };
  }

  private void count(RuntimeEvent e) {
    switch (e.type()) {
      case "memory.stored" -> writes("stored");
      case "memory.merged" -> writes("merged");
      case "memory.rejected" -> {
        writes("rejected");
        counter(
            "memsidecar.rejections",
            "reason",
            e.attributes().getOrDefault("rejected_by", "none").replace("none", "other"));
      }
      case "memory.extraction.failed" -> counter("memsidecar.extraction.failures", null, null);
      case "toolrule.denied" -> counter("memsidecar.tool.denials", null, null);
      case "run.begin" -> {
        recall("recalled", e.attributes().get("recalled"));
        recall("evidence", e.attributes().get("evidence"));
      }
      default -> {
        if (e.type().startsWith("maintenance.")) {
          Counter.builder("memsidecar.maintenance.runs")
              .tag("target", e.attributes().getOrDefault("target", "unknown"))
              .tag("outcome", e.type().substring("maintenance.".length()))
              .register(registry)
              .increment();
        }
      }
    }
  }

  private void writes(String outcome) {
    counter("memsidecar.writes", "outcome", outcome);
  }

  private void counter(String name, String tag, String value) {
    Counter.Builder b = Counter.builder(name);
    if (tag != null) {
      b.tag(tag, value);
    }
    b.register(registry).increment();
  }

  private void recall(String part, String count) {
    if (count == null) {
      return; // a replayed snapshot
    }
    DistributionSummary.builder("memsidecar.recall.items")
        .description("what each BeginRun recalled")
        .tag("part", part)
        .register(registry)
        .record(Long.parseLong(count));
  }

  private double dataBytes() {
    long now = System.nanoTime();
    if (dataBytes < 0 || now - dataMeasuredAt > DATA_SIZE_EVERY.toNanos()) {
      dataBytes = sizeOf(dataDir);
      dataMeasuredAt = now;
    }
    return dataBytes;
  }

  private static long sizeOf(Path dir) {
    if (!Files.isDirectory(dir)) {
      return 0;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      return files
          .filter(Files::isRegularFile)
          .mapToLong(
              f -> {
                try {
                  return Files.size(f);
                } catch (IOException e) {
                  return 0; // deleted meanwhile
                }
              })
          .sum();
    } catch (IOException | UncheckedIOException e) {
      return 0;
    }
  }
}
