package dev.updraft.edge;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import io.vertx.core.Vertx;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code /metrics} on a real edge: with {@code --metrics-token} it answers 401 JSON without the token or with a wrong
 * one and the metrics with it; with {@code --metrics-port} too, the edge port has no {@code /metrics} (404) and the
 * metrics port serves it, behind the same token.
 */
@ExtendWith(RealInfrastructure.class)
class MetricsAccessIT {
  private static final String TOKEN = "edge-scrape-secret-0123456789";
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void aMetricsTokenIsNeededOnTheEdgePortAndAMetricsPortTakesMetricsOffIt(Infra infra) throws Exception {
    Vertx vertx = Edges.vertx();
    try (TestLog log = new TestLog(infra.kafkaBootstrap(), infra.topicPrefix())) {
      EdgeNode onEdgePort = Edges.start(vertx, log, "metrics-token-edge", "checkins", "false", "metrics-token", TOKEN);
      assertThat(onEdgePort.metricsPort()).isEqualTo(-1);
      assertGuarded(new EdgeHttp(onEdgePort.port()));
      Edges.await(onEdgePort.close());

      EdgeNode separate = Edges.start(vertx, log, "metrics-port-edge", "checkins", "false", "metrics-token", TOKEN, "metrics-port", "0");
      assertThat(separate.metricsPort()).isPositive().isNotEqualTo(separate.port());
      EdgeHttp pub = new EdgeHttp(separate.port());
      EdgeHttp.Response none = pub.get("/metrics", "authorization", "Bearer " + TOKEN);
      assertThat(none.status()).as("the edge port has no /metrics").isEqualTo(404);
      assertThat(pub.get("/healthz").status()).isEqualTo(200);
      EdgeHttp metrics = new EdgeHttp(separate.metricsPort());
      assertGuarded(metrics);
      assertThat(metrics.get("/readyz").status()).as("the metrics port serves /metrics only").isEqualTo(404);
      Edges.await(separate.close());
    } finally {
      Edges.await(vertx.close());
    }
  }

  private static void assertGuarded(EdgeHttp http) throws Exception {
    for (String auth : new String[] {null, "Bearer wrong-token-0123456789", TOKEN}) {
      EdgeHttp.Response r = http.get("/metrics", "authorization", auth);
      assertThat(r.status()).as("authorization " + auth).isEqualTo(401);
      assertThat(r.header("content-type")).isEqualTo("application/json");
      assertThat(r.header("www-authenticate")).isEqualTo("Bearer");
      assertThat(JSON.readTree(r.body()).path("error").path("code").asText()).isEqualTo("unauthorized");
      assertThat(r.text()).doesNotContain("updraft_edge");
    }
    EdgeHttp.Response ok = http.get("/metrics", "authorization", "Bearer " + TOKEN);
    assertThat(ok.status()).isEqualTo(200);
    assertThat(ok.text()).contains("updraft_edge_ready");
  }
}
