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
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The warm-up's front door routes as the devices' does: a route only the devices' door had made the JIT compile the
 * warm-up's path with that route absent, and the first device request after ready deoptimised the whole hot path
 * (a flight recording of a benchmark's edge: {@code FrontDoor.handle}, {@code unstable_if} at the OTLP route's test).
 */
class WarmupRoutesTest {
  @Test
  void theWarmUpsFrontDoorHasTheOtlpRouteOfTheDevicesFrontDoor() throws Exception {
    Vertx vertx = Vertx.vertx();
    try {
      PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
      LiveImage live = new LiveImage();
      FrontDoor devices = new FrontDoor(live, null, null, registry, "edge-a", 0, null, null)
          .withOtlp(new OtlpRoute(live, report -> {}, registry, "edge-a", 4096, 10, 600));
      FrontDoor warmup = devices.forWarmup();
      for (FrontDoor door : new FrontDoor[] {devices, warmup}) {
        HttpServer server = vertx.createHttpServer().requestHandler(door).listen(0, "127.0.0.1")
            .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        HttpClient client = vertx.createHttpClient();
        String answer = client.request(HttpMethod.POST, server.actualPort(), "127.0.0.1", "/v1/logs")
            .compose(req -> req.putHeader("content-type", "application/json").send(Buffer.buffer("{}")))
            .compose(res -> res.body().map(b -> res.statusCode() + " " + b))
            .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertThat(answer).as("POST /v1/logs on the %s front door", door == warmup ? "warm-up's" : "devices'")
            .doesNotStartWith("404").doesNotContain("no route");
        server.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
      }
    } finally {
      vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }
}
