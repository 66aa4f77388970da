package dev.updraft.edge;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.embedded.EmbeddedKafka;
import dev.updraft.events.EventPayload;
import dev.updraft.testing.Fixtures;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Faults must not lose a check-in the edge accepted: with the broker down, requests are still answered
 * at once and their check-ins wait in the producer, which delivers them when the broker is back. Uses a
 * broker of its own (on a temp dir) because it stops and restarts it.
 */
class CheckInOutageIT {
  static final String APP = "outage-app";

  @Test
  void checkInsAcceptedWhileTheBrokerIsDownAreDeliveredOnceWhenItReturns(@TempDir Path dir) throws Exception {
    Vertx vertx = Edges.vertx();
    EmbeddedKafka kafka = EmbeddedKafka.start(dir, 0, 0);
    try (TestLog log = new TestLog(kafka.bootstrapServers(), "outage.")) {
      log.publish(APP, new EventPayload.AppCreated("Outage"));
      log.publish(APP, new EventPayload.UpdatePublished(
          FixtureManifests.group("production", "1.0.0", Fixtures.update1(), Instant.now(), null, null)));
      EdgeNode edge = Edges.startReady(vertx, log, "outage-edge");
      try {
        EdgeHttp http = new EdgeHttp(edge.port());
        for (int i = 0; i < 20; i++) {
          assertThat(http.get("/apps/" + APP + "/manifest", Device.ios().client("before-" + i).headers()).status())
              .isEqualTo(200);
        }
        Edges.until("check-ins before the outage sent", () -> sent(http) == 20, Duration.ofSeconds(30));

        kafka.stop();
        for (int i = 0; i < 20; i++) {
          // served from memory: the outage neither fails nor slows device requests
          assertThat(http.get("/apps/" + APP + "/manifest", Device.ios().client("during-" + i).headers()).status())
              .isEqualTo(200);
        }
        Thread.sleep(3000); // the outage lasts a while: the producer retries meanwhile (not a synchronisation wait)
        assertThat(sent(http)).isEqualTo(20);
        kafka.restart();

        Edges.until("check-ins from the outage delivered", () -> sent(http) == 40, Duration.ofSeconds(120));
        String m = http.get("/metrics").text();
        assertThat(CheckInIT.metric(m, "updraft_edge_checkins_dropped_total{reason=\"delivery-failed\"}")).isZero();
        assertThat(CheckInIT.metric(m, "updraft_edge_checkins_dropped_total{reason=\"queue-full\"}")).isZero();
      } finally {
        Edges.await(edge.close());
      }
      List<Telemetry.Received> all = Telemetry.readAll(kafka.bootstrapServers(), "outage.");
      assertThat(all).hasSize(40);
      Set<String> clients = all.stream().map(r -> r.checkIn().clientId()).collect(Collectors.toSet());
      for (int i = 0; i < 20; i++) {
        assertThat(clients).contains("before-" + i, "during-" + i);
      }
    } finally {
      kafka.close();
      Edges.await(vertx.close());
    }
  }

  static double sent(EdgeHttp http) {
    return CheckInIT.metric(http.get("/metrics").text(), "updraft_edge_checkins_sent_total");
  }
}
