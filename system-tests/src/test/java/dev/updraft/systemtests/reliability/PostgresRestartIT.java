package dev.updraft.systemtests.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.controlplane.ControlPlane;
import dev.updraft.edge.EdgeNode;
import dev.updraft.embedded.EmbeddedPostgresServer;
import dev.updraft.ingester.TelemetryIngester;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * PostgreSQL stops and starts again while devices keep polling an edge: devices notice nothing; the
 * ingester pauses (its lag grows, nothing is lost or skipped), resumes by itself, and afterwards every
 * device's stored check-in count is exactly the number of requests it made. PostgreSQL is a server of
 * this test's own on a temporary directory; Kafka is the shared one.
 */
@ExtendWith(RealInfrastructure.class)
class PostgresRestartIT {
  static final String APP = "pg-restart";
  static final String PROBE = "00000000-0000-4000-8000-00000000abce";

  @Test
  void theIngesterPausesWhilePostgresIsDownAndAfterwardsEveryDeviceIsCountedExactly(Infra infra, @TempDir Path dir) throws Exception {
    Vertx vertx = Vertx.vertx();
    EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(dir.resolve("pg"), 0, false);
    pg.createDatabase("telemetry");
    ControlPlane cp = null;
    EdgeNode edge = null;
    TelemetryIngester ingester = null;
    DeviceLoad load = null;
    try {
      cp = Services.controlPlane(vertx, infra.kafkaBootstrap(), infra.topicPrefix(), dir.resolve("cp"));
      Publishing.appWithUpdate("http://127.0.0.1:" + cp.port(), APP, true, "main");
      edge = Services.readyEdge(vertx, infra.kafkaBootstrap(), infra.topicPrefix(), "pg-restart-edge");
      ingester = Services.ingester(vertx, infra.kafkaBootstrap(), infra.topicPrefix(),
          Services.postgresUrl(pg.port(), "telemetry", EmbeddedPostgresServer.USER), "ingest-batch-size", "500");
      byte[] expected;
      try (RawHttp c = new RawHttp(edge.port(), 10_000)) {
        RawHttp.Response r = c.exchange(Publishing.deviceRequest(APP, "main", PROBE));
        assertThat(r.status()).isEqualTo(200);
        expected = r.body();
      }
      EdgeNode e = edge;
      TelemetryIngester ing = ingester;
      load = new DeviceLoad(APP, "main", new IntSupplier[] {e::port}, 2, 300, 2_000,
          r -> r.status() == 200 && Arrays.equals(r.body(), expected) ? null : "not the image's manifest: " + r.status());
      DeviceLoad l = load;
      Services.until("check-ins stored before the fault", () -> metric(ing, "updraft_ingest_records_total") > 200, Duration.ofSeconds(60));

      load.phase("postgres-down");
      pg.stop();
      Services.until("the ingester pauses", () -> metric(ing, "updraft_ingest_paused") == 1, Duration.ofSeconds(60));
      AtomicLong maxLag = new AtomicLong();
      Services.until("check-ins pile up in Kafka while PostgreSQL is down", () -> {
        maxLag.accumulateAndGet((long) metric(ing, "updraft_ingest_lag_records"), Math::max);
        return maxLag.get() > 1000 && l.answered("postgres-down") > 1500;
      }, Duration.ofSeconds(60));
      assertThat(ingester.running()).as("the ingester survives the outage").isTrue();
      double storedBefore = metric(ing, "updraft_ingest_records_total");

      pg.restart();
      load.phase("after");
      Services.until("the ingester resumes", () -> metric(ing, "updraft_ingest_paused") == 0, Duration.ofSeconds(60));
      Services.until("devices polled after the restart", () -> l.answered("after") > 500, Duration.ofSeconds(60));
      load.close();
      load = null;

      assertThat(l.examples).as("failed device requests").isEmpty();
      assertThat(l.failures.get() + l.connectionErrors.get()).isZero();
      Services.until("the edge sent every check-in", () -> Metrics.value(scrape(e), "updraft_edge_checkins_sent_total") == l.answered.get() + 1,
          Duration.ofSeconds(60));
      assertThat(Metrics.value(scrape(e), "updraft_edge_checkins_dropped_total{reason=\"queue-full\"}")).isZero();
      long sent = l.answered.get() + 1;
      Services.until(() -> "every check-in stored: " + metric(ing, "updraft_ingest_records_total") + " of " + sent,
          () -> metric(ing, "updraft_ingest_records_total") == sent, Duration.ofSeconds(120));
      Services.until("lag back to 0", () -> metric(ing, "updraft_ingest_lag_records") == 0, Duration.ofSeconds(60));
      assertThat(metric(ing, "updraft_ingest_pg_failures_total")).as("the outage was seen").isPositive();

      Map<String, Long> stored = Logs.deviceCheckIns(pg.jdbcUrl("telemetry"), EmbeddedPostgresServer.USER, APP);
      assertThat(stored.remove(PROBE)).isEqualTo(1L);
      assertThat(stored).hasSize(l.byClient.size());
      l.byClient.forEach((client, n) -> assertThat(stored.get(client)).as("check-ins stored for %s", client).isEqualTo(n.get()));
      System.out.printf("postgres restart: device requests answered %d (while PostgreSQL was down %d), failed 0; the ingester"
              + " paused with up to %d check-ins waiting in Kafka (%.0f stored before the restart); afterwards %d check-ins"
              + " stored, each device's count exact (%d devices)%n",
          l.answered.get(), l.answered("postgres-down"), maxLag.get(), storedBefore, sent, stored.size());
    } finally {
      if (load != null) {
        load.close();
      }
      if (ingester != null) {
        Services.await(ingester.close());
      }
      if (edge != null) {
        Services.await(edge.close());
      }
      if (cp != null) {
        Services.await(cp.close());
      }
      Services.await(vertx.close());
      pg.close();
    }
  }

  private static double metric(TelemetryIngester ingester, String series) {
    return Metrics.value(ingester.scrape(), series);
  }

  private static String scrape(EdgeNode e) {
    return Metrics.scrape("http://127.0.0.1:" + e.port() + "/metrics");
  }
}
