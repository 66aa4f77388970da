package dev.updraft.controlplane;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import io.vertx.core.Vertx;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code /metrics} on a real control plane: with {@code --metrics-token} it answers 401 JSON without the token or with a
 * wrong one (the admin token is not it either) and the metrics with it; with {@code --metrics-port} the control port
 * has no {@code /metrics} (404) and the metrics port serves it, behind the same token.
 */
@ExtendWith(RealInfrastructure.class)
class MetricsAccessIT {
  private static final String TOKEN = "cp-scrape-secret-0123456789";

  @Test
  void aMetricsTokenIsNeededAndAMetricsPortTakesMetricsOffTheControlPort(Infra infra, @TempDir Path dir) throws Exception {
    Vertx vertx = Vertx.vertx();
    try {
      ControlPlane onControlPort = TestSupport.start(vertx, TestSupport.config(infra, dir, "metrics-token", TOKEN));
      assertThat(onControlPort.metricsPort()).isEqualTo(-1);
      assertGuarded("http://127.0.0.1:" + onControlPort.port());
      TestSupport.await(onControlPort.close());

      ControlPlane separate = TestSupport.start(vertx, TestSupport.config(infra, dir, "metrics-token", TOKEN, "metrics-port", "0"));
      try {
        assertThat(separate.metricsPort()).isPositive().isNotEqualTo(separate.port());
        Http.Resp none = new Http("http://127.0.0.1:" + separate.port(), TOKEN).get("/metrics");
        assertThat(none.status()).as("the control port has no /metrics").isEqualTo(404);
        assertThat(none.errorCode()).isEqualTo("not-found");
        assertGuarded("http://127.0.0.1:" + separate.metricsPort());
        // not through Http, which holds every answer to the API's description: this port is not the API
        HttpResponse<String> other = HttpClient.newHttpClient().send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + separate.metricsPort() + "/healthz")).timeout(Duration.ofSeconds(30)).build(),
            HttpResponse.BodyHandlers.ofString());
        assertThat(other.statusCode()).as("the metrics port serves /metrics only").isEqualTo(404);
        assertThat(other.body()).contains("\"code\":\"not-found\"");
      } finally {
        TestSupport.await(separate.close());
      }
    } finally {
      TestSupport.await(vertx.close());
    }
  }

  private static void assertGuarded(String base) {
    Map<String, String> tries = new HashMap<>();
    tries.put("none", null);
    tries.put("wrong", "wrong-token-0123456789");
    tries.put("admin", TestSupport.ADMIN);
    for (Map.Entry<String, String> t : tries.entrySet()) {
      Http.Resp r = new Http(base, t.getValue()).get("/metrics");
      assertThat(r.status()).as(t.getKey()).isEqualTo(401);
      assertThat(r.header("content-type")).isEqualTo("application/json");
      assertThat(r.header("www-authenticate")).isEqualTo("Bearer");
      assertThat(r.errorCode()).isEqualTo("unauthorized");
      assertThat(r.errorMessage()).contains("--metrics-token");
    }
    Http.Resp ok = new Http(base, TOKEN).get("/metrics");
    assertThat(ok.status()).isEqualTo(200);
    assertThat(ok.text()).contains("updraft_control_");
  }
}
