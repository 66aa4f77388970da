package dev.updraft.systemtests.reliability;

import com.fasterxml.jackson.databind.JsonNode;
import dev.updraft.edge.EdgeNode;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * What an edge says about itself at {@code /metrics} and {@code /readyz}: the check-ins it handed to
 * Kafka (acknowledged), dropped (by reason) and still holds, the device requests it answered, and how
 * stale its image may be.
 */
final class EdgeMetrics {
  private final String text;

  private EdgeMetrics(String text) {
    this.text = text;
  }

  /** A scrape of {@code edge}'s {@code /metrics}. */
  static EdgeMetrics of(EdgeNode edge) {
    return new EdgeMetrics(Metrics.scrape("http://127.0.0.1:" + edge.port() + "/metrics"));
  }

  double value(String series) {
    return Metrics.value(text, series);
  }

  /** Check-ins Kafka acknowledged. */
  long sent() {
    return (long) value("updraft_edge_checkins_sent_total");
  }

  long dropped() {
    return (long) (value("updraft_edge_checkins_dropped_total{reason=\"queue-full\"}")
        + value("updraft_edge_checkins_dropped_total{reason=\"delivery-failed\"}")
        + value("updraft_edge_checkins_dropped_total{reason=\"shutdown\"}"));
  }

  long droppedBecause(String reason) {
    return (long) value("updraft_edge_checkins_dropped_total{reason=\"" + reason + "\"}");
  }

  /** Check-ins waiting in the queue or handed to the producer and not acknowledged yet. */
  long held() {
    return (long) (value("updraft_edge_checkins_queued") + value("updraft_edge_checkins_unacknowledged"));
  }

  /** Device requests answered (every outcome that makes a check-in). */
  long answered() {
    return (long) (value("updraft_edge_requests_total{outcome=\"update\"}") + value("updraft_edge_requests_total{outcome=\"noUpdate\"}")
        + value("updraft_edge_requests_total{outcome=\"rollBackToEmbedded\"}") + value("updraft_edge_requests_total{outcome=\"4xx\"}")
        + value("updraft_edge_requests_total{outcome=\"503\"}"));
  }

  double staleness() {
    return value("updraft_edge_log_staleness_seconds");
  }

  /** Every check-in the edge made is either acknowledged or counted as dropped, none still held. */
  boolean settled() {
    return held() == 0 && sent() + dropped() == answered();
  }

  /** {@code /readyz} as JSON (status 200 or 503). */
  static JsonNode readyz(EdgeNode edge) {
    Api.Resp r = Api.get("http://127.0.0.1:" + edge.port() + "/readyz", null);
    if (r.status() < 0) {
      throw new UncheckedIOException(new IOException("/readyz did not answer: " + r.text()));
    }
    return r.json();
  }
}
