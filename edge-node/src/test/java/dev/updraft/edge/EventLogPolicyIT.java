package dev.updraft.edge;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.events.EventCodec;
import dev.updraft.events.EventEnvelope;
import dev.updraft.events.EventPayload;
import dev.updraft.events.UpdateEvents.UpdateGroup;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import io.vertx.core.Vertx;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What the edge does with records it cannot use (unknown types, newer schema versions, bytes that are
 * not events, duplicates) and with sequence gaps: skip and count, keep serving, never stop reading.
 */
@ExtendWith(RealInfrastructure.class)
class EventLogPolicyIT {
  static final String APP = "policy-app";

  @Test
  void unknownMalformedAndDuplicateRecordsAreSkippedAndCountedAndGapsReported(Infra infra) {
    Vertx vertx = Edges.vertx();
    try (TestLog log = new TestLog(infra.kafkaBootstrap(), infra.topicPrefix())) {
      log.publish(APP, new EventPayload.AppCreated("Policy app")); // 1
      log.publishRaw(APP, future("future.thing", 1, log.takeSequence(APP))); // 2: a type this build does not know
      log.publishRaw(APP, future("update.published", 99, log.takeSequence(APP))); // 3: a newer schema version
      log.publishRaw(APP, "not an event".getBytes(StandardCharsets.UTF_8));
      log.takeSequence(APP); // 4 is never written: a gap
      UpdateGroup first = FixtureManifests.group("production", "1.0.0", Fixtures.update1(), Instant.now(), null, null);
      long seq = log.publish(APP, new EventPayload.UpdatePublished(first)); // 5
      UpdateGroup impostor = FixtureManifests.group("production", "1.0.0", Fixtures.update2(), Instant.now(), null, null);
      log.publishRaw(APP, EventCodec.encode(EventEnvelope.of(APP, seq, Instant.now(), "test",
          new EventPayload.UpdatePublished(impostor)))); // 5 again: a duplicate

      EdgeNode edge = Edges.startReady(vertx, log, "policy-edge");
      try {
        EdgeHttp http = new EdgeHttp(edge.port());
        EdgeHttp.Response r = http.get("/apps/" + APP + "/manifest", Device.ios().headers());
        assertThat(Answers.multipart(r).part("manifest").bodyText()).isEqualTo(first.platform("ios").body());
        String m = http.get("/metrics").text();
        assertThat(CheckInIT.metric(m, "updraft_edge_events_applied_total")).isEqualTo(2.0);
        assertThat(CheckInIT.metric(m, "updraft_edge_events_skipped_total{reason=\"unknown-type\"}")).isEqualTo(2.0);
        assertThat(CheckInIT.metric(m, "updraft_edge_events_skipped_total{reason=\"malformed\"}")).isEqualTo(1.0);
        assertThat(CheckInIT.metric(m, "updraft_edge_events_skipped_total{reason=\"duplicate\"}")).isEqualTo(1.0);
        assertThat(CheckInIT.metric(m, "updraft_edge_sequence_gaps_total")).isEqualTo(1.0);
        assertThat(CheckInIT.metric(m, "updraft_edge_log_lag_records")).isZero();
        assertThat(CheckInIT.metric(m, "updraft_edge_image_groups")).isEqualTo(1.0);
      } finally {
        Edges.await(edge.close());
      }
    } finally {
      Edges.await(vertx.close());
    }
  }

  /** A well-formed envelope of a type or version this build does not know. */
  static byte[] future(String type, int schemaVersion, long sequence) {
    return ("{\"eventId\":\"" + UUID.randomUUID() + "\",\"type\":\"" + type + "\",\"schemaVersion\":" + schemaVersion
        + ",\"appId\":\"" + APP + "\",\"sequence\":" + sequence + ",\"occurredAt\":\"" + Instant.now()
        + "\",\"actor\":\"test\",\"payload\":{\"anything\":true}}").getBytes(StandardCharsets.UTF_8);
  }
}
