package dev.updraft.edge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.updraft.events.EventPayload;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Stopping behind a load balancer (SIGTERM on {@code updraft edge}, {@link EdgeNode#drainAndClose}): {@code /readyz}
 * turns 503 {@code draining} at once while device requests, on the connections already open and on new ones, are
 * still answered 200 until {@code --drain} is over; then the edge closes.
 */
@ExtendWith(RealInfrastructure.class)
class DrainIT {
  static final String APP = "drain-app";
  /** Long enough that the requests below are answered inside it even on a busy machine (they take milliseconds). */
  static final String DRAIN = "10s";
  static Vertx vertx;
  static Infra infra;

  @BeforeAll
  static void start(Infra i) {
    vertx = Edges.vertx();
    infra = i;
  }

  @AfterAll
  static void stop() {
    Edges.await(vertx.close());
  }

  @Test
  void toldToStopItFailsReadinessButAnswersEveryRequestUntilTheDrainIsOverThenCloses() {
    try (TestLog log = new TestLog(infra.kafkaBootstrap(), infra.topicPrefix())) {
      Instant t = Instant.now().truncatedTo(ChronoUnit.MILLIS).minusSeconds(600);
      log.publish(APP, new EventPayload.AppCreated("Drain app"));
      log.publish(APP, new EventPayload.UpdatePublished(FixtureManifests.group("production", "1.0.0", Fixtures.update1(), t, null, null)));
      EdgeNode edge = Edges.startReady(vertx, log, "drain-edge", "drain", DRAIN);
      EdgeHttp http = new EdgeHttp(edge.port());
      String manifest = "/apps/" + APP + "/manifest";
      assertThat(http.get(manifest, Device.ios().headers()).status()).as("before the stop").isEqualTo(200);

      Future<Void> closed = edge.drainAndClose();

      List<String> seen = new ArrayList<>();
      EdgeHttp.Response ready = http.get("/readyz");
      seen.add("/readyz " + ready.status() + " " + ready.errorCode());
      for (int i = 0; i < 20; i++) { // on the client's pooled connection and on new ones
        EdgeHttp.Response r = i % 2 == 0 ? http.get(manifest, Device.ios().headers()) : http.raw(onNewConnection(manifest,
            Device.of("android", 1).headers()));
        seen.add("manifest " + r.status());
      }
      ready = http.get("/readyz");
      seen.add("/readyz " + ready.status() + " " + ready.errorCode());
      assertThat(closed.isComplete()).as("the drain was still on when these were answered (else this machine took over "
          + DRAIN + " for 22 requests)").isFalse();
      assertThat(seen).as("answers during the drain").first().isEqualTo("/readyz 503 draining");
      assertThat(seen).last().isEqualTo("/readyz 503 draining");
      assertThat(seen.subList(1, 21)).as("device requests during the drain").containsOnly("manifest 200");

      Edges.await(closed);
      assertThatThrownBy(() -> new EdgeHttp(edge.port()).get("/readyz")).as("closed once the drain is over")
          .isInstanceOf(RuntimeException.class);
    }
  }

  /** A whole GET with {@code headers} that closes its connection (sent on a socket of its own). */
  static String onNewConnection(String path, String... headers) {
    StringBuilder b = new StringBuilder("GET ").append(path).append(" HTTP/1.1\r\nhost: 127.0.0.1\r\n");
    for (int i = 0; i + 1 < headers.length; i += 2) {
      if (headers[i + 1] != null) {
        b.append(headers[i]).append(": ").append(headers[i + 1]).append("\r\n");
      }
    }
    return b.append("connection: close\r\n\r\n").toString();
  }

  @Test
  void withNoDrainItClosesAtOnce() {
    try (TestLog log = new TestLog(infra.kafkaBootstrap(), infra.topicPrefix())) {
      EdgeNode edge = Edges.start(vertx, log, "no-drain-edge", "drain", "0s");
      Edges.await(edge.drainAndClose());
      assertThatThrownBy(() -> new EdgeHttp(edge.port()).get("/readyz")).isInstanceOf(RuntimeException.class);
    }
  }
}
