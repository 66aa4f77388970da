package dev.updraft.edge;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The request-time histogram a benchmark reads every second (docs/benchmarks/edge.md). */
class RequestMetricsTest {
  @Test
  void aRequestOfOnePointTwoMillisecondsIsToldApartFromOneOfTwo() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    new RequestMetrics(registry);

    // the edge's own timer, given an exact duration (the route times itself with System.nanoTime)
    registry.get("updraft.edge.request").timer().record(1_200_000, TimeUnit.NANOSECONDS);

    String text = registry.scrape();
    assertThat(text).contains("updraft_edge_request_seconds_bucket{le=\"0.001\"} 0",
        "updraft_edge_request_seconds_bucket{le=\"0.0015\"} 1", "updraft_edge_request_seconds_bucket{le=\"+Inf\"} 1");
    // between 2 and 10 ms, steps no wider than 1.5x: a p99 of 3 ms is not reported as 5
    assertThat(text).contains("le=\"0.003\"", "le=\"0.004\"", "le=\"0.005\"", "le=\"0.0075\"", "le=\"0.01\"");
  }
}
