package dev.updraft.systemtests.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.updraft.controlplane.ControlPlane;
import dev.updraft.edge.EdgeNode;
import dev.updraft.events.CheckIn;
import dev.updraft.events.Topics;
import dev.updraft.ingester.TelemetryIngester;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.KafkaCluster;
import dev.updraft.testing.RealInfrastructure;
import dev.updraft.testing.TcpProxy;
import dev.updraft.testing.protocol.SignatureVerifier;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * An edge cut off from Kafka (a TCP proxy in front of each broker, the only way the edge reaches them,
 * drops every connection for {@link #CUT}) while devices poll it and the control plane, which still
 * reaches Kafka, publishes: the edge answers every device request from its image, says how stale that
 * image may be ({@code updraft_edge_log_staleness_seconds}, {@code logStalenessSeconds} in {@code /readyz}),
 * holds check-ins up to its bound and counts the overflow; once the proxies forward again it catches up
 * (serves the publish made meanwhile, staleness back under a second) and every check-in not counted as
 * dropped reaches Kafka and PostgreSQL exactly once.
 *
 * <p>Kafka is a cluster of this test's own (one broker behind its proxy); PostgreSQL is the shared one.
 */
@ExtendWith(RealInfrastructure.class)
class EdgeCutOffIT {
  static final String APP = "cutoff";
  static final String PREFIX = "cutoff.";
  static final Duration CUT = Duration.ofSeconds(8);
  static final int QUEUE = 400;
  static final int PRODUCER_BUFFER = 128 * 1024;

  @Test
  void aCutOffEdgeServesItsImageSaysHowStaleItIsAndCatchesUpAfterwards(Infra infra, @TempDir Path dir) throws Exception {
    Vertx vertx = Vertx.vertx();
    KafkaCluster kafka = KafkaCluster.startProxied(1);
    ControlPlane cp = null;
    EdgeNode edge = null;
    TelemetryIngester ingester = null;
    DeviceLoad load = null;
    try {
      cp = Services.controlPlane(vertx, kafka.bootstrapServers(), PREFIX, dir.resolve("cp"));
      String server = "http://127.0.0.1:" + cp.port();
      String first = Publishing.updateIds(Publishing.appWithUpdate(server, APP, true, "main")).get(0);
      edge = Services.readyEdge(vertx, kafka.proxiedBootstrapServers(), PREFIX, "cutoff-edge",
          "checkin-buffer", Integer.toString(QUEUE), "checkin-producer-buffer", Integer.toString(PRODUCER_BUFFER));
      ingester = Services.ingester(vertx, kafka.bootstrapServers(), PREFIX, Services.postgresUrl(infra.pgPort(), infra.database(), infra.pgUser()));
      SignatureVerifier verifier = SignatureVerifier.fromCertificatePem(Fixtures.certificatePem());
      Publishing.assertServesSigned(edge.port(), APP, "main", first, verifier);
      byte[] before = answer(edge);

      // devices get the image's manifest, byte for byte, until the cut ends (then the edge reads the publish made meanwhile)
      AtomicBoolean cutOver = new AtomicBoolean();
      EdgeNode e = edge;
      load = new DeviceLoad(APP, "main", new IntSupplier[] {e::port}, 2, 500, 4_000,
          r -> r.status() != 200 ? "not 200: " + r.text() : cutOver.get() || Arrays.equals(before, r.body()) ? null : "another answer than before the cut");
      DeviceLoad l = load;
      TelemetryIngester ing = ingester;
      Services.until("check-ins reach PostgreSQL before the cut", () -> records(ing) > 100 && l.answered.get() > 500, Duration.ofSeconds(60));
      double stalenessBefore = EdgeMetrics.of(edge).staleness();
      assertThat(stalenessBefore).as("staleness while Kafka answers").isLessThan(2.0);

      load.phase("cut");
      long t0 = System.nanoTime();
      kafka.proxies().values().forEach(TcpProxy::cut);
      // the control plane still reaches Kafka: a publish made now is acknowledged, and the edge cannot know it
      String second = Publishing.updateIds(Publishing.publish(server, APP, "main", 2)).get(0);
      Thread.sleep(CUT.toMillis() - (System.nanoTime() - t0) / 1_000_000); // the fault itself: the edge stays cut off
      EdgeMetrics atEnd = EdgeMetrics.of(edge);
      JsonNode readyAtEnd = EdgeMetrics.readyz(edge);
      long cutMs = (System.nanoTime() - t0) / 1_000_000;
      Services.until("the load made requests during the cut", () -> l.answered("cut") > 1000, Duration.ofSeconds(30));
      // still serving the old image, saying how old it may be
      assertThat(readyAtEnd.path("ready").asBoolean()).isTrue();
      assertThat(readyAtEnd.path("logStalenessSeconds").asDouble()).as("/readyz staleness at the end of the cut")
          .isGreaterThan(CUT.toSeconds() - 3.0);
      assertThat(atEnd.staleness()).as("gauge at the end of the cut").isGreaterThan(CUT.toSeconds() - 3.0);
      assertThat(atEnd.value("updraft_edge_checkins_queued")).as("the queue is at its bound").isEqualTo(QUEUE);
      assertThat(atEnd.droppedBecause("queue-full")).as("the overflow is counted").isPositive();
      Publishing.assertServesSigned(edge.port(), APP, "main", first, verifier);

      load.phase("after");
      cutOver.set(true);
      kafka.proxies().values().forEach(TcpProxy::restore);
      long restored = System.nanoTime();
      EdgeNode caughtUp = edge;
      Services.until("the edge serves the publish made during the cut", () -> servedId(caughtUp, verifier).equals(second), Duration.ofSeconds(60));
      long catchUpMs = (System.nanoTime() - restored) / 1_000_000;
      Services.until("staleness is back under a second", () -> EdgeMetrics.of(caughtUp).staleness() < 1.0, Duration.ofSeconds(30));
      assertThat(EdgeMetrics.readyz(edge).path("logStalenessSeconds").asDouble()).isLessThan(2.0);
      Services.until("devices polled after the cut", () -> l.answered("after") > 500, Duration.ofSeconds(60));
      load.close();
      load = null;

      // every device request was answered, during the cut too
      assertThat(l.examples).as("failed device requests").isEmpty();
      assertThat(l.failures.get()).isZero();
      assertThat(l.connectionErrors.get()).isZero();

      // each answer made a check-in that was acknowledged or counted as dropped; the acknowledged ones are on
      // Kafka once and in PostgreSQL once
      Services.until("the edge delivered what it held", () -> EdgeMetrics.of(caughtUp).settled(), Duration.ofSeconds(120));
      EdgeMetrics end = EdgeMetrics.of(edge);
      assertThat(end.droppedBecause("delivery-failed")).as("lost after being accepted").isZero();
      List<CheckIn> onKafka = Logs.checkIns(kafka.bootstrapServers(), Topics.telemetry(PREFIX));
      Set<String> ids = new HashSet<>();
      onKafka.forEach(c -> ids.add(c.checkInId()));
      assertThat(onKafka).as("check-ins on Kafka").hasSize((int) end.sent());
      assertThat(ids).as("distinct check-in ids").hasSize((int) end.sent());
      Services.until(() -> "the ingester stored every check-in: " + records(ing) + " of " + end.sent(),
          () -> records(ing) == end.sent(), Duration.ofSeconds(120));
      Map<String, Long> stored = Logs.deviceCheckIns(infra.jdbcUrl(), infra.pgUser(), APP);
      assertThat(stored.values().stream().mapToLong(Long::longValue).sum()).as("check-ins in PostgreSQL").isEqualTo(end.sent());
      System.out.printf("edge cut off: cut %d ms; device requests %d (%d during the cut), failed 0; staleness %.1f s before,"
              + " %.1f s at the end of the cut (/readyz %.1f s); queue at its bound %d, %d dropped and counted; caught up %d ms after"
              + " the cut with the publish made during it; check-ins acknowledged %d, on Kafka %d (distinct %d), in PostgreSQL %d%n",
          cutMs, l.answered.get(), l.answered("cut"), stalenessBefore, atEnd.staleness(), readyAtEnd.path("logStalenessSeconds").asDouble(),
          QUEUE, end.droppedBecause("queue-full"), catchUpMs, end.sent(), onKafka.size(), ids.size(), (long) records(ing));
    } finally {
      if (load != null) {
        load.close();
      }
      List<io.vertx.core.Future<Void>> closing = new ArrayList<>();
      if (edge != null) {
        closing.add(edge.close());
      }
      if (ingester != null) {
        closing.add(ingester.close());
      }
      if (cp != null) {
        closing.add(cp.close());
      }
      closing.forEach(Services::await);
      Services.await(vertx.close());
      kafka.close();
    }
  }

  private static byte[] answer(EdgeNode edge) throws java.io.IOException {
    try (RawHttp c = new RawHttp(edge.port(), 10_000)) {
      RawHttp.Response r = c.exchange(Publishing.deviceRequest(APP, "main", java.util.UUID.randomUUID().toString()));
      assertThat(r.status()).isEqualTo(200);
      return r.body();
    }
  }

  private static String servedId(EdgeNode edge, SignatureVerifier verifier) {
    try (RawHttp c = new RawHttp(edge.port(), 10_000)) {
      return Publishing.servedId(c.exchange(Publishing.deviceRequest(APP, "main", java.util.UUID.randomUUID().toString())), verifier);
    } catch (java.io.IOException e) {
      return "";
    }
  }

  private static double records(TelemetryIngester ingester) {
    return Metrics.value(ingester.scrape(), "updraft_ingest_records_total");
  }
}
