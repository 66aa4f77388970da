package dev.updraft.load;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.updraft.load.baseline.BaselineServer;
import dev.updraft.load.check.ResponseCheck;
import dev.updraft.load.report.Summary;
import dev.updraft.load.run.Timeseries;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Baseline mode: the same generator, in the same run, against a child JVM serving the captured bytes. */
class BaselineTest {
  @TempDir Path dir;

  @Test
  void aRunWithBaselineMeasuresTheCapturedBytesInAChildServer() throws Exception {
    try (TestEdge edge = new TestEdge()) {
      Runs.Outcome o = Runs.run(dir, "withbase", "--target", edge.url(), "--profile", "constant", "--rate", "50",
          "--duration", "1s", "--warmup", "20", "--max-lag", "10s", "--devices", "500", "--baseline");
      assertThat(o.exit()).as(o.err() + o.out()).isEqualTo(0);
      JsonNode capture = Summary.JSON.readTree(o.file("-capture.json").toFile());
      assertThat(capture.path("entries")).hasSize(2);
      assertThat(capture.path("entries").get(0).path("update_id").asText()).isEqualTo(edge.latest.get("ios")[0]);
      JsonNode base = o.summary().path("baseline");
      assertThat(base.path("results").path("totals").path("requests_sent").asLong()).isEqualTo(50);
      assertThat(base.path("results").path("totals").path("errors").asLong()).isZero();
      // the child server is its own process, sampled like the real server
      assertThat(base.path("results").path("server").has("baseline")).isTrue();
      assertThat(base.path("capacity").has("measured_sustained_rps")).isTrue();
      // the edge saw only the target run's traffic (50 fleet requests), the baseline served the rest
      assertThat(edge.fleetSeen()).hasSize(50);
      assertThat(Timeseries.read(o.file("-timeseries.csv")).rows()).extracting(Timeseries.Row::source).contains("baseline-generator");
    }
  }

  @Test
  void aServerPrerunReachesBothServersButNoneOfItIsCounted() throws Exception {
    try (TestEdge edge = new TestEdge()) {
      // 50 req/s: a 2 s pre-run (100 requests) then the measured 1 s (50), against the edge and then the trivial server
      Runs.Outcome o = Runs.run(dir, "prerun", "--target", edge.url(), "--profile", "constant", "--rate", "50",
          "--duration", "1s", "--warmup", "20", "--max-lag", "10s", "--devices", "500", "--baseline", "--server-prerun", "2s");
      assertThat(o.exit()).as(o.err() + o.out()).isEqualTo(0);
      // the edge served both: 100 pre-run and 50 measured fleet requests
      assertThat(edge.fleetSeen()).hasSize(150);
      JsonNode t = o.summary().path("results").path("totals");
      assertThat(t.path("requests_scheduled").asLong()).isEqualTo(50);
      assertThat(t.path("requests_sent").asLong()).isEqualTo(50);
      assertThat(t.path("latency_ms").path("count").asLong()).isEqualTo(50);
      JsonNode base = o.summary().path("baseline");
      assertThat(base.path("results").path("totals").path("requests_sent").asLong()).isEqualTo(50);
      assertThat(o.summary().path("run").path("server_prerun_seconds").asDouble()).isEqualTo(2.0);
      assertThat(base.path("server_prerun_seconds").asDouble()).isEqualTo(2.0);
      // each pre-run said what it sent
      assertThat(o.out()).contains("[target] server pre-run (not measured): the first 2 s of constant 50 req/s for 1 s, sent 100, errors 0, dropped 0");
      assertThat(o.out()).contains("[baseline] server pre-run (not measured): the first 2 s of constant 50 req/s for 1 s, sent 100, errors 0, dropped 0");
    }
  }

  @Test
  void theBaselineServerAnswersLikeTheCapture() throws Exception {
    java.util.Map<String, BaselineServer.Entry> entries = BaselineServer.defaultEntries();
    io.vertx.core.Vertx vertx = io.vertx.core.Vertx.vertx();
    try {
      int port = BaselineServer.start(vertx, entries, "127.0.0.1", 0, 1).await(10, java.util.concurrent.TimeUnit.SECONDS);
      java.net.http.HttpResponse<byte[]> r = java.net.http.HttpClient.newHttpClient().send(
          java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + port + "/apps/demo/manifest")).build(),
          java.net.http.HttpResponse.BodyHandlers.ofByteArray());
      ResponseCheck.Answer a = new ResponseCheck(null).check(r.statusCode(), n -> r.headers().firstValue(n).orElse(null), r.body(), "1.0.0", false);
      assertThat(a.error()).isNull();
      assertThat(a.kind()).isEqualTo(ResponseCheck.Kind.NO_UPDATE);
    } finally {
      vertx.close().await(10, java.util.concurrent.TimeUnit.SECONDS);
    }
  }
}
