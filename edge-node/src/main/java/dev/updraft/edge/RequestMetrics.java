package dev.updraft.edge;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Device-request meters, resolved once so that the hot path only increments:
 * {@code updraft_edge_requests_total{outcome}} with outcome {@code update}, {@code noUpdate},
 * {@code rollBackToEmbedded}, {@code channelPaused} (no update because the device's channel is paused: 200 with no
 * update for protocol 1, 404 {@code channel-paused} for protocol 0), {@code 4xx} or {@code 503}, and the latency histogram
 * {@code updraft_edge_request_seconds} (fixed buckets, no per-device labels; between 0.5 and 10 ms fine enough that a
 * benchmark reading it every second can tell a p99 from twice that: docs/benchmarks/edge.md). Thread-safe.
 */
final class RequestMetrics {
  final Counter update;
  final Counter noUpdate;
  final Counter rollback;
  final Counter paused;
  final Counter clientError;
  final Counter notReady;
  private final Timer latency;

  RequestMetrics(MeterRegistry registry) {
    update = outcome(registry, "update");
    noUpdate = outcome(registry, "noUpdate");
    rollback = outcome(registry, "rollBackToEmbedded");
    paused = outcome(registry, "channelPaused");
    clientError = outcome(registry, "4xx");
    notReady = outcome(registry, "503");
    latency = Timer.builder("updraft.edge.request")
        .description("Device request handling time, from request to response written to the connection")
        .serviceLevelObjectives(
            Duration.ofNanos(50_000),
            Duration.ofNanos(100_000),
            Duration.ofNanos(250_000),
            Duration.ofNanos(500_000),
            Duration.ofNanos(750_000),
            Duration.ofMillis(1),
            Duration.ofNanos(1_500_000),
            Duration.ofMillis(2),
            Duration.ofMillis(3),
            Duration.ofMillis(4),
            Duration.ofMillis(5),
            Duration.ofNanos(7_500_000),
            Duration.ofMillis(10),
            Duration.ofMillis(25),
            Duration.ofMillis(100),
            Duration.ofMillis(500))
        .register(registry);
  }

  private static Counter outcome(MeterRegistry registry, String outcome) {
    return Counter.builder("updraft.edge.requests")
        .description("Device requests by outcome")
        .tag("outcome", outcome)
        .register(registry);
  }

  void latency(long startNanos) {
    latency.record(System.nanoTime() - startNanos, TimeUnit.NANOSECONDS);
  }
}
