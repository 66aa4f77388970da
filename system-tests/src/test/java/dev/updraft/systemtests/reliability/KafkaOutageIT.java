package dev.updraft.systemtests.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.updraft.controlplane.ControlPlane;
import dev.updraft.edge.EdgeNode;
import dev.updraft.embedded.EmbeddedKafka;
import dev.updraft.events.CheckIn;
import dev.updraft.events.Topics;
import dev.updraft.ingester.TelemetryIngester;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import dev.updraft.testing.protocol.SignatureVerifier;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Kafka broker stops for 12 seconds while devices keep polling two edges: every device request is
 * still answered, from memory, with the same signed manifest as before; each edge's check-ins fill their
 * bound (the queue, {@code --checkin-buffer}, behind the producer's {@code --checkin-producer-buffer},
 * both small here) and the overflow is counted as dropped; when the broker is back, every check-in not
 * counted as dropped reaches Kafka once and PostgreSQL once, through the real ingester; and a publish
 * made afterwards is served by both edges.
 *
 * <p>Kafka is a broker of this test's own on a temporary directory (it is stopped and started again);
 * PostgreSQL is the shared one.
 */
@ExtendWith(RealInfrastructure.class)
class KafkaOutageIT {
  static final String APP = "outage";
  static final String PREFIX = "outage.";
  static final Duration OUTAGE = Duration.ofSeconds(12);
  static final int QUEUE = 400;
  static final int PRODUCER_BUFFER = 128 * 1024;
  /** The client id of the test's own first request (one check-in besides the load's). */
  static final String PROBE = "00000000-0000-4000-8000-00000000abcd";

  @Test
  void devicesAreServedThroughABrokerOutageAndEveryCheckInNotCountedAsDroppedArrivesOnce(Infra infra, @TempDir Path dir)
      throws Exception {
    Vertx vertx = Vertx.vertx();
    EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"), 0, 0);
    String bootstrap = kafka.bootstrapServers();
    List<EdgeNode> edges = new ArrayList<>();
    ControlPlane cp = null;
    TelemetryIngester ingester = null;
    DeviceLoad load = null;
    try {
      cp = Services.controlPlane(vertx, bootstrap, PREFIX, dir.resolve("cp"));
      String server = "http://127.0.0.1:" + cp.port();
      String first = Publishing.updateIds(Publishing.appWithUpdate(server, APP, true, "main")).get(0);
      for (String id : List.of("outage-edge-a", "outage-edge-b")) {
        edges.add(Services.readyEdge(vertx, bootstrap, PREFIX, id, "checkin-buffer", Integer.toString(QUEUE),
            "checkin-producer-buffer", Integer.toString(PRODUCER_BUFFER)));
      }
      ingester = Services.ingester(vertx, bootstrap, PREFIX, Services.postgresUrl(infra.pgPort(), infra.database(), infra.pgUser()));

      // the answer every device must keep getting: the current image's signed manifest, byte for byte
      SignatureVerifier verifier = SignatureVerifier.fromCertificatePem(Fixtures.certificatePem());
      byte[] expected;
      try (RawHttp c = new RawHttp(edges.get(0).port(), 10_000)) {
        RawHttp.Response r = c.exchange(Publishing.deviceRequest(APP, "main", PROBE));
        assertThat(Publishing.servedId(r, verifier)).isEqualTo(first);
        expected = r.body();
      }
      byte[] current = expected;
      IntSupplier[] ports = edges.stream().map(e -> (IntSupplier) e::port).toArray(IntSupplier[]::new);
      load = new DeviceLoad(APP, "main", ports, 2, 500, 4_000,
          r -> r.status() != 200 ? "not 200: " + r.text() : Arrays.equals(r.body(), current) ? null : "another answer than before the outage");
      TelemetryIngester ing = ingester;
      DeviceLoad l = load;
      Services.until("check-ins reach PostgreSQL before the outage", () -> records(ing) > 100 && l.answered.get() > 500, Duration.ofSeconds(60));

      load.phase("outage");
      List<String> atStart = new ArrayList<>();
      for (EdgeNode e : edges) {
        atStart.add(scrape(e));
      }
      long t0 = System.nanoTime();
      kafka.stop();
      Thread.sleep(OUTAGE.toMillis()); // the fault itself: the broker stays down this long while devices poll
      List<String> atEnd = new ArrayList<>();
      for (EdgeNode e : edges) {
        atEnd.add(scrape(e));
      }
      load.phase("after");
      kafka.restart();
      long outageMs = (System.nanoTime() - t0) / 1_000_000;
      Services.until("devices polled after the broker came back", () -> l.answered("after") > 500, Duration.ofSeconds(60));
      load.close();
      load = null;

      // the overflow: each edge's queue was full at the end of the outage, and what did not fit was counted
      for (int i = 0; i < edges.size(); i++) {
        assertThat(Metrics.value(atEnd.get(i), "updraft_edge_checkins_queued")).as("queue of edge %d at the end of the outage", i)
            .isEqualTo(QUEUE);
        assertThat(Metrics.value(atEnd.get(i), "updraft_edge_checkins_dropped_total{reason=\"queue-full\"}")).as("overflow of edge %d", i)
            .isPositive();
      }
      // every device request was answered, during the outage too, with the image's manifest
      assertThat(l.examples).as("failed device requests").isEmpty();
      assertThat(l.failures.get()).isZero();
      assertThat(l.connectionErrors.get()).isZero();
      assertThat(l.answered("outage")).as("requests answered during the outage").isGreaterThan(1000);

      // the edges deliver everything they hold; each answer is a check-in sent or counted as dropped
      long sent = 0;
      long dropped = 0;
      long edgeAnswers = 0;
      for (EdgeNode e : edges) {
        Services.until("edge delivered what it held", () -> Metrics.value(scrape(e), "updraft_edge_checkins_queued") == 0
            && sent(scrape(e)) + dropped(scrape(e)) == answeredBy(e), Duration.ofSeconds(120));
        String m = scrape(e);
        assertThat(Metrics.value(m, "updraft_edge_checkins_dropped_total{reason=\"delivery-failed\"}")).as("lost after being accepted").isZero();
        assertThat(Metrics.value(m, "updraft_edge_checkins_dropped_total{reason=\"shutdown\"}")).isZero();
        sent += (long) sent(m);
        dropped += (long) dropped(m);
        edgeAnswers += (long) answeredBy(e);
      }
      assertThat(edgeAnswers).as("device requests the edges answered = the load's and the probe").isEqualTo(l.answered.get() + 1);
      assertThat(sent + dropped).as("check-ins sent or counted as dropped = device requests answered").isEqualTo(edgeAnswers);

      // on Kafka: exactly the check-ins sent, each once
      List<CheckIn> onKafka = Logs.checkIns(bootstrap, Topics.telemetry(PREFIX));
      Set<String> ids = new HashSet<>();
      onKafka.forEach(c -> ids.add(c.checkInId()));
      assertThat(onKafka).as("check-ins on Kafka").hasSize((int) sent);
      assertThat(ids).as("distinct check-in ids on Kafka").hasSize((int) sent);

      // in PostgreSQL, through the ingester: the same number, each counted once, no device over its requests
      long expectedRecords = sent;
      Services.until(() -> "the ingester stored every check-in: " + records(ing) + " of " + expectedRecords,
          () -> records(ing) == expectedRecords, Duration.ofSeconds(120));
      Map<String, Long> stored = Logs.deviceCheckIns(infra.jdbcUrl(), infra.pgUser(), APP);
      assertThat(stored.values().stream().mapToLong(Long::longValue).sum()).as("check-ins stored in PostgreSQL").isEqualTo(sent);
      stored.forEach((client, n) -> assertThat(n).as("check-ins of %s", client)
          .isLessThanOrEqualTo(client.equals(PROBE) ? 1 : l.byClient.get(client).get()));

      // and the system works again: a new publish reaches both edges
      JsonNode second = Publishing.publish(server, APP, "main", 2);
      String secondId = Publishing.updateIds(second).get(0);
      for (EdgeNode e : edges) {
        Services.until("edge serves the publish made after the outage", () -> served(e.port(), verifier).equals(secondId), Duration.ofSeconds(60));
      }
      double droppedInOutage = 0;
      for (int i = 0; i < edges.size(); i++) {
        droppedInOutage += dropped(atEnd.get(i)) - dropped(atStart.get(i));
      }
      System.out.printf("kafka outage: during the outage %d device requests, %.0f check-ins held by the two edges (queue %d +"
              + " producer %d bytes each), %.0f dropped and counted%n",
          l.answered("outage"), l.answered("outage") - droppedInOutage, QUEUE, PRODUCER_BUFFER, droppedInOutage);
      System.out.printf("kafka outage: broker down %d ms; device requests answered %d (during the outage %d), failed 0;"
              + " check-ins sent %d, dropped (counted) %d, on Kafka %d (distinct %d), stored in PostgreSQL %d%n",
          outageMs, l.answered.get(), l.answered("outage"), sent, dropped, onKafka.size(), ids.size(), expectedRecords);
    } finally {
      if (load != null) {
        load.close();
      }
      for (EdgeNode e : edges) {
        Services.await(e.close());
      }
      if (ingester != null) {
        Services.await(ingester.close());
      }
      if (cp != null) {
        Services.await(cp.close());
      }
      Services.await(vertx.close());
      kafka.close();
    }
  }

  private static String served(int port, SignatureVerifier verifier) {
    try (RawHttp c = new RawHttp(port, 10_000)) {
      return Publishing.servedId(c.exchange(Publishing.deviceRequest(APP, "main", UUID.randomUUID().toString())), verifier);
    } catch (IOException e) {
      return "";
    }
  }

  private static double records(TelemetryIngester ingester) {
    return Metrics.value(ingester.scrape(), "updraft_ingest_records_total");
  }

  private static String scrape(EdgeNode e) {
    return Metrics.scrape("http://127.0.0.1:" + e.port() + "/metrics");
  }

  private static double sent(String m) {
    return Metrics.value(m, "updraft_edge_checkins_sent_total");
  }

  private static double dropped(String m) {
    return Metrics.value(m, "updraft_edge_checkins_dropped_total{reason=\"queue-full\"}")
        + Metrics.value(m, "updraft_edge_checkins_dropped_total{reason=\"delivery-failed\"}")
        + Metrics.value(m, "updraft_edge_checkins_dropped_total{reason=\"shutdown\"}");
  }

  /** Device answers of one edge, from its own request counter. */
  private static double answeredBy(EdgeNode e) {
    String m = scrape(e);
    return Metrics.value(m, "updraft_edge_requests_total{outcome=\"update\"}") + Metrics.value(m, "updraft_edge_requests_total{outcome=\"noUpdate\"}")
        + Metrics.value(m, "updraft_edge_requests_total{outcome=\"rollBackToEmbedded\"}") + Metrics.value(m, "updraft_edge_requests_total{outcome=\"4xx\"}")
        + Metrics.value(m, "updraft_edge_requests_total{outcome=\"503\"}");
  }
}
