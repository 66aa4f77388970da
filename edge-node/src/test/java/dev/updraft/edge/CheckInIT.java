package dev.updraft.edge;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.events.Bucketing;
import dev.updraft.events.CheckIn;
import dev.updraft.events.EventPayload;
import dev.updraft.events.UpdateEvents.UpdateGroup;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import io.vertx.core.Vertx;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Check-ins on the real telemetry topic: one per request, with the right fields; a full buffer drops. */
@ExtendWith(RealInfrastructure.class)
class CheckInIT {
  static final String APP = "checkin-app";
  static Vertx vertx;
  static String bootstrap;
  static String prefix;

  @BeforeAll
  static void start(Infra infra) {
    vertx = Edges.vertx();
    bootstrap = infra.kafkaBootstrap();
    prefix = infra.topicPrefix();
  }

  @AfterAll
  static void stop() {
    Edges.await(vertx.close());
  }

  @Test
  void eachRequestProducesExactlyOneCheckInWithWhatTheDeviceSentAndWhatItGot() {
    UpdateGroup g1;
    UpdateGroup g2;
    String clientId;
    String refusedClient = "refused-" + UUID.randomUUID();
    String unknownAppClient = "unknown-" + UUID.randomUUID();
    long before;
    long after;
    String fatal = "TypeError: undefined is not a function ".repeat(60); // 2,340 characters
    String failed1 = UUID.randomUUID().toString();
    String failed2 = UUID.randomUUID().toString();
    try (TestLog log = new TestLog(bootstrap, prefix)) {
      Instant t = Instant.now().truncatedTo(ChronoUnit.MILLIS).minusSeconds(600);
      log.publish(APP, new EventPayload.AppCreated("Check-in app"));
      g1 = FixtureManifests.group("production", "1.0.0", Fixtures.update1(), t, null, null);
      g2 = FixtureManifests.group("production", "1.0.0", Fixtures.update2(), t.plusSeconds(1), null,
          new EventPayload.Rollout("r-checkin", 50, g1.groupId(), null));
      log.publish(APP, new EventPayload.UpdatePublished(g1));
      log.publish(APP, new EventPayload.UpdatePublished(g2));
      clientId = insideRollout("r-checkin", 50);

      EdgeNode edge = Edges.startReady(vertx, log, "checkin-edge");
      EdgeHttp http = new EdgeHttp(edge.port());
      before = System.currentTimeMillis();
      EdgeHttp.Response r = http.get("/apps/" + APP + "/manifest", Device.of("android", 1)
          .client(clientId.toUpperCase(Locale.ROOT))
          .current(g1.platform("android").updateId())
          .embedded("embedded-id")
          .failed("\"" + failed1 + "\", \"" + failed2.toUpperCase(Locale.ROOT) + "\"")
          .fatal(fatal)
          .headers());
      assertThat(r.status()).isEqualTo(200);
      assertThat(http.get("/apps/" + APP + "/manifest", Device.ios().runtime(null).client(refusedClient).headers()).status())
          .isEqualTo(400);
      assertThat(http.get("/apps/unknown/manifest", Device.ios().client(unknownAppClient).headers()).status())
          .isEqualTo(404);
      after = System.currentTimeMillis();
      Edges.await(edge.close()); // delivers what the emitter holds
    }

    List<Telemetry.Received> all = Telemetry.readAll(bootstrap, prefix);
    List<Telemetry.Received> mine = all.stream().filter(x -> clientId.equals(x.checkIn().clientId())).toList();
    assertThat(mine).hasSize(1);
    assertThat(mine.get(0).key()).isEqualTo(clientId);
    CheckIn c = mine.get(0).checkIn();
    assertThat(c.v()).isEqualTo(1);
    assertThat(UUID.fromString(c.checkInId())).isNotNull();
    assertThat(c.appId()).isEqualTo(APP);
    assertThat(c.platform()).isEqualTo("android");
    assertThat(c.runtimeVersion()).isEqualTo("1.0.0");
    assertThat(c.channel()).isEqualTo("production");
    assertThat(c.clientId()).isEqualTo(clientId); // sent upper case, recorded lower case
    assertThat(c.currentUpdateId()).isEqualTo(g1.platform("android").updateId());
    assertThat(c.embeddedUpdateId()).isEqualTo("embedded-id");
    assertThat(c.failedUpdateIds()).containsExactly(failed1, failed2);
    assertThat(c.outcome()).isEqualTo(CheckIn.OUTCOME_UPDATE);
    assertThat(c.reason()).isEqualTo(CheckIn.REASON_NEW_UPDATE);
    assertThat(c.branch()).isEqualTo("production");
    assertThat(c.inBranchRollout()).isFalse();
    assertThat(c.rolloutBucket()).isEqualTo(Bucketing.bucket(clientId, "r-checkin"));
    assertThat(c.servedUpdateId()).isEqualTo(g2.platform("android").updateId());
    assertThat(c.servedGroupId()).isEqualTo(g2.groupId());
    assertThat(c.fatalError()).hasSize(1024).isEqualTo(fatal.substring(0, 1024));
    assertThat(c.atEpochMillis()).isBetween(before, after);
    assertThat(c.edgeId()).isEqualTo("checkin-edge");

    List<CheckIn> refused = all.stream().map(Telemetry.Received::checkIn)
        .filter(x -> refusedClient.equals(x.clientId())).toList();
    assertThat(refused).hasSize(1);
    assertThat(refused.get(0).outcome()).isEqualTo(CheckIn.OUTCOME_ERROR);
    assertThat(refused.get(0).reason()).isEqualTo("missing-runtime-version");
    assertThat(refused.get(0).servedUpdateId()).isNull();
    assertThat(all.stream().filter(x -> unknownAppClient.equals(x.checkIn().clientId()))).isEmpty();
    Set<String> ids = new HashSet<>();
    all.forEach(x -> assertThat(ids.add(x.checkIn().checkInId())).isTrue());
  }

  @Test
  void fullCheckInBufferDropsAndCountsWhileEveryRequestIsAnsweredAtOnce() {
    // no telemetry topic: the producer blocks its sender thread waiting for metadata, so the buffer fills
    String noTelemetry = prefix + "notelemetry.";
    try (TestLog log = new TestLog(bootstrap, noTelemetry, false)) {
      log.publish(APP, new EventPayload.AppCreated("Check-in app"));
      UpdateGroup g = FixtureManifests.group("production", "1.0.0", Fixtures.update1(), Instant.now(), null, null);
      log.publish(APP, new EventPayload.UpdatePublished(g));
      EdgeNode edge = Edges.startReady(vertx, log, "full-edge", "checkin-buffer", "4");
      try {
        EdgeHttp http = new EdgeHttp(edge.port());
        for (int i = 0; i < 20; i++) {
          // each answer arrives while the sender is stuck: the event loop never waits on the buffer
          assertThat(http.get("/apps/" + APP + "/manifest", Device.ios().client("c" + i).headers()).status()).isEqualTo(200);
        }
        String metrics = http.get("/metrics").text();
        // the sender holds at most one; four wait in the buffer; the rest were dropped
        double dropped = metric(metrics, "updraft_edge_checkins_dropped_total{reason=\"queue-full\"}");
        assertThat(dropped).isBetween(15.0, 16.0);
        assertThat(metric(metrics, "updraft_edge_checkins_queued")).isEqualTo(4.0);
        assertThat(metric(metrics, "updraft_edge_checkins_sent_total")).isZero();
        assertThat(metric(metrics, "updraft_edge_requests_total{outcome=\"update\"}")).isEqualTo(20.0);
      } finally {
        Edges.await(edge.close());
      }
    }
  }

  static double metric(String text, String series) {
    for (String line : text.split("\n")) {
      if (line.startsWith(series + " ")) {
        return Double.parseDouble(line.substring(series.length() + 1).trim());
      }
    }
    throw new AssertionError("no series " + series + " in /metrics");
  }

  /** A random client id inside a rollout, found by the shared bucketing function. */
  static String insideRollout(String rolloutId, int percentage) {
    while (true) {
      String id = UUID.randomUUID().toString();
      if (Bucketing.inRollout(id, rolloutId, percentage)) {
        return id;
      }
    }
  }
}
