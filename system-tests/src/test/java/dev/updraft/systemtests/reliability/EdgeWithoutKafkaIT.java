package dev.updraft.systemtests.reliability;

import static dev.updraft.systemtests.reliability.StaticEdges.errorCode;
import static dev.updraft.systemtests.reliability.StaticEdges.get;
import static dev.updraft.systemtests.reliability.StaticEdges.metrics;
import static dev.updraft.systemtests.reliability.StaticEdges.offsets;
import static dev.updraft.systemtests.reliability.StaticEdges.readyz;
import static dev.updraft.systemtests.reliability.StaticEdges.total;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.updraft.controlplane.ControlPlane;
import dev.updraft.controlplane.commands.CommandProcessor;
import dev.updraft.embedded.EmbeddedKafka;
import dev.updraft.embedded.Ports;
import dev.updraft.events.EventEnvelope;
import dev.updraft.events.Topics;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.protocol.SignatureVerifier;
import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;


/**
 * Static stability: an edge, a process of its own ({@code updraft edge --data-dir}), serves the last publish
 * when it is started while Kafka is down. The edge is SIGKILLed after it stored its image (so the periodic
 * write is what it starts from, not a write at shutdown), Kafka is stopped, a publish (a roll back) is
 * refused 503 with {@code retry-after} within the control plane's probe timeout, and a new edge process on the
 * same data directory answers {@code /readyz} 200 within 30 s of its start saying it serves its stored image
 * (its age, the offsets it covers: the events topic's end before the outage) and serves that publish, signed.
 * A third edge with {@code --max-stale 1s} on a copy of the directory refuses the image (503
 * {@code image-too-old}). Kafka comes back: the edge catches up from the stored offsets (it reads none of the
 * events before them), the refused publish is nowhere in the log, and the next publish is served.
 *
 * <p>Kafka is a broker of this test's own, in this JVM, stopped and started again on the same port and data.
 */
class EdgeWithoutKafkaIT {
  static final String APP = "static";
  static final String PREFIX = "static.";
  static final Duration START_BOUND = Duration.ofSeconds(30);

  @Test
  void anEdgeStartedDuringAKafkaOutageServesItsStoredImageThenCatchesUpFromItsOffsets(@TempDir Path dir)
      throws Exception {
    Vertx vertx = Vertx.vertx();
    EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"), 0, 0);
    String bootstrap = kafka.bootstrapServers();
    ControlPlane cp = null;
    List<ChildJvm> edges = new ArrayList<>();
    try {
      cp = Services.controlPlane(vertx, bootstrap, PREFIX, dir.resolve("cp"));
      String server = "http://127.0.0.1:" + cp.port();
      SignatureVerifier verifier = SignatureVerifier.fromCertificatePem(Fixtures.certificatePem());
      String first = Publishing.updateIds(Publishing.appWithUpdate(server, APP, true, "main")).get(0);

      Path data = dir.resolve("edge-data");
      int portA = Ports.freePort();
      ChildJvm a = edge(dir, edges, "static-a", portA, data, bootstrap);
      a.awaitOk(readyz(portA), Duration.ofSeconds(120));
      Publishing.assertServesSigned(portA, APP, "main", first, verifier);
      Services.until("edge a stored its image", () -> Metrics.value(Metrics.scrape(metrics(portA)),
          "updraft_edge_image_saves_total{outcome=\"ok\"}") >= 1, Duration.ofSeconds(30));
      Map<Integer, Long> endBefore = Logs.endOffsets(bootstrap, Topics.events(PREFIX));
      List<EventEnvelope> eventsBefore = Logs.events(bootstrap, PREFIX, APP);
      a.kill();
      long killed = System.nanoTime();

      assertThat(Api.get(server + "/v1/apps/" + APP, Services.ADMIN).status()).isEqualTo(200); // the client's first use loads its checks
      kafka.stop();
      // a publish while Kafka is down: refused at once, nothing of it sent
      long p0 = System.nanoTime();
      Api.Resp refused = Api.post(server + "/v1/apps/" + APP + "/rollbacks", Services.ADMIN,
          "{\"branch\":\"main\",\"runtimeVersion\":\"1.0.0\",\"embedded\":true,\"idempotencyKey\":\"during-the-outage\"}");
      long refusedMs = (System.nanoTime() - p0) / 1_000_000;
      assertThat(refused.status()).as(refused.text()).isEqualTo(503);
      assertThat(refused.header("retry-after")).isEqualTo("5");
      assertThat(CliRun.JSON.readTree(refused.body()).path("error").path("code").asText()).isEqualTo("log-unavailable");
      assertThat(refusedMs).as("refused within the probe timeout and a margin")
          .isLessThanOrEqualTo(CommandProcessor.LOG_PROBE_TIMEOUT.toMillis() + 2_000);

      // a new edge process on the same data directory, Kafka still down
      int portB = Ports.freePort();
      long t0 = System.nanoTime();
      ChildJvm b = edge(dir, edges, "static-b", portB, data, bootstrap);
      long startToReadyMs = b.awaitOk(readyz(portB), START_BOUND);
      Publishing.assertServesSigned(portB, APP, "main", first, verifier);
      long servedMs = (System.nanoTime() - t0) / 1_000_000;
      assertThat(servedMs).as("the last publish served, signed, within 30 s of the edge's start").isLessThanOrEqualTo(START_BOUND.toMillis());
      JsonNode ready = get(readyz(portB));
      double sinceKill = (System.nanoTime() - killed) / 1e9;
      assertThat(ready.path("servingStoredImage").asBoolean()).as(ready.toString()).isTrue();
      assertThat(ready.path("caughtUp").asBoolean()).as(ready.toString()).isFalse();
      assertThat(ready.path("image").path("source").asText()).isEqualTo("stored");
      assertThat(offsets(ready)).as("the offsets the stored image covers: the log's end before the outage").isEqualTo(endBefore);
      assertThat(ready.path("image").path("ageSeconds").asDouble()).as("age: at least the time since edge a was killed")
          .isGreaterThanOrEqualTo(sinceKill);
      String m = Metrics.scrape(metrics(portB));
      assertThat(Metrics.value(m, "updraft_edge_image_stored_serving")).isEqualTo(1.0);
      assertThat(Metrics.value(m, "updraft_edge_log_staleness_seconds")).isGreaterThanOrEqualTo(sinceKill);

      // an edge that refuses images older than a second
      Path copy = dir.resolve("edge-data-copy");
      Files.createDirectories(copy);
      Files.copy(data.resolve("edge-image.bin"), copy.resolve("edge-image.bin"));
      int portC = Ports.freePort();
      edge(dir, edges, "static-c", portC, copy, bootstrap, "--max-stale", "1s");
      Services.until("edge c refuses its too old image", () -> "image-too-old".equals(errorCode(readyz(portC))), START_BOUND);
      try (RawHttp c = new RawHttp(portC, 10_000)) {
        RawHttp.Response r = c.exchange(Publishing.deviceRequest(APP, "main", "00000000-0000-4000-8000-000000000c0c"));
        assertThat(r.status()).as(r.text()).isEqualTo(503);
        assertThat(r.text()).contains("image-too-old");
      }

      // Kafka back: edge b catches up from its stored offsets
      kafka.restart();
      long back = System.nanoTime();
      Services.until("edge b caught up with Kafka", () -> get(readyz(portB)).path("caughtUp").asBoolean(), Duration.ofSeconds(60));
      long caughtUpMs = (System.nanoTime() - back) / 1_000_000;
      JsonNode after = get(readyz(portB));
      assertThat(after.path("servingStoredImage").asBoolean()).isFalse();
      List<EventEnvelope> eventsAfter = Logs.events(bootstrap, PREFIX, APP);
      assertThat(eventsAfter).as("the refused publish is nowhere in the log").hasSameSizeAs(eventsBefore);
      long logEvents = total(Logs.endOffsets(bootstrap, Topics.events(PREFIX)));
      assertThat(after.path("eventsReplayed").asLong()).as("events read to catch up: none before the stored offsets (the log holds %d)",
          logEvents).isZero();

      String second = Publishing.updateIds(Publishing.publish(server, APP, "main", 2)).get(0);
      Services.until("edge b serves the publish made after Kafka returned", () -> {
        Publishing.assertServesSigned(portB, APP, "main", second, verifier);
        return true;
      }, Duration.ofSeconds(30));
      System.out.printf("edge without kafka: publish during the outage refused 503 log-unavailable in %d ms (retry-after 5), nothing"
              + " written; edge restarted with Kafka down: ready in %d ms, the last publish served signed %d ms after its start;"
              + " /readyz servingStoredImage=true age %.1f s offsets %s (the log's end before the outage);"
              + " --max-stale 1s: 503 image-too-old; Kafka back: caught up in %d ms reading %d events (the log holds %d records),"
              + " the next publish served%n",
          refusedMs, startToReadyMs, servedMs, ready.path("image").path("ageSeconds").asDouble(), offsets(ready), caughtUpMs,
          after.path("eventsReplayed").asLong(), logEvents);
    } finally {
      for (ChildJvm e : edges) {
        e.close();
      }
      if (cp != null) {
        Services.await(cp.close());
      }
      kafka.close();
      Services.await(vertx.close());
    }
  }

  private static ChildJvm edge(Path dir, List<ChildJvm> edges, String id, int port, Path data, String bootstrap, String... extra) {
    List<String> args = new ArrayList<>(List.of("--data-dir", data.toString(), "--image-interval", "1s"));
    args.addAll(List.of(extra));
    return StaticEdges.start(dir, edges, id, port, bootstrap, PREFIX, Map.of(), args.toArray(String[]::new));
  }
}
