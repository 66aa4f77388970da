package dev.updraft.edge;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.edge.image.LiveImage;
import dev.updraft.edge.otlp.OtlpRoute;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The warm-up's front door routes as the devices' does: a route only the devices' door had made the JIT compile the
 * warm-up's path with that route absent, and the first device request after ready deoptimised the whole hot path
 * (a flight recording of a benchmark's edge: {@code FrontDoor.handle}, {@code unstable_if} at the OTLP route's test).
 */
class WarmupRoutesTest {
  @Test
  void theWarmUpsFrontDoorAnswersEveryRouteAsTheDevicesFrontDoorDoes() throws Exception {
    Vertx vertx = Vertx.vertx();
    try {
      PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
      LiveImage live = new LiveImage();
      FrontDoor devices = new FrontDoor(live, null, null, registry, "edge-a", 0, null, null)
          .withOtlp(new OtlpRoute(live, report -> {}, registry, "edge-a", 4096, 10, 600));
      FrontDoor warmup = devices.forWarmup();
      String[] requests = {"POST /v1/logs", "POST /v1/traces", "POST /apps/demo/v1/logs", "GET /readyz", "GET /healthz",
          "GET /metrics", "GET /apps/demo/assets/abc", "GET /apps/demo/manifest", "GET /nowhere"};
      Map<String, String> byDevices = answers(vertx, devices, requests);
      Map<String, String> byWarmup = answers(vertx, warmup, requests);
      // every route the devices' door has, the warm-up's has too: the same status for each request
      assertThat(statuses(byWarmup)).as("the warm-up's front door, request by request").isEqualTo(statuses(byDevices));
      for (Map<String, String> door : List.of(byDevices, byWarmup)) {
        assertThat(door.get("POST /v1/logs")).as("POST /v1/logs on the %s front door", door == byWarmup ? "warm-up's" : "devices'")
            .doesNotStartWith("404").doesNotContain("no route");
      }
    } finally {
      vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }

  /** Each answer's status alone. */
  private static Map<String, String> statuses(Map<String, String> answers) {
    Map<String, String> out = new TreeMap<>();
    answers.forEach((request, answer) -> out.put(request, answer.split(" ", 2)[0]));
    return out;
  }

  /** Each request's answer ("status body") on a server of {@code door}'s own. */
  private static Map<String, String> answers(Vertx vertx, FrontDoor door, String[] requests) throws Exception {
    HttpServer server = vertx.createHttpServer().requestHandler(door).listen(0, "127.0.0.1")
        .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    HttpClient client = vertx.createHttpClient();
    Map<String, String> out = new TreeMap<>();
    try {
      for (String r : requests) {
        String[] mp = r.split(" ");
        out.put(r, client.request(HttpMethod.valueOf(mp[0]), server.actualPort(), "127.0.0.1", mp[1])
            .compose(req -> req.putHeader("content-type", "application/json").send(Buffer.buffer("{}")))
            .compose(res -> res.body().map(b -> res.statusCode() + " " + b))
            .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS));
      }
    } finally {
      client.close();
      server.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
    return out;
  }
}
