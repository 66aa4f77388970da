package dev.updraft.controlplane.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.common.Settings;
import dev.updraft.controlplane.config.ControlPlaneConfig;
import dev.updraft.controlplane.console.ConsoleRoutes;
import dev.updraft.controlplane.patches.Delivery;
import dev.updraft.controlplane.insights.InsightsExtension;
import dev.updraft.controlplane.storage.LocalAssetRoute;
import dev.updraft.controlplane.storage.LocalAssetStorage;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.ext.web.Router;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;

/** docs/api/openapi.yaml describes exactly the routes the server has: no more, no fewer. */
class OpenApiRoutesTest {

  @Test
  void everyRouteIsDescribedAndEveryDescribedRouteExists(@TempDir Path dir) throws Exception {
    Vertx vertx = Vertx.vertx();
    try {
      // nothing listens on port 1: mounting insights must not need PostgreSQL
      ControlPlaneConfig config =
          ControlPlaneConfig.from(
              Settings.of(
                  Map.of("admin-token", "0123456789abcdef", "data-dir", dir.toString(), "postgres-url", "postgresql://postgres@127.0.0.1:1/none"),
                  Map.of()));
      PublisherApi api =
          new PublisherApi(vertx, new PublisherApi.Deps(config, null, null, null, new PrometheusMeterRegistry(PrometheusConfig.DEFAULT), dir, null, null));
      Router router = api.router();
      LocalAssetRoute.mount(vertx, router, new LocalAssetStorage(dir, () -> "http://x"));
      ConsoleRoutes.load().mount(router); // ControlPlane mounts the console on every instance
      InsightsExtension insights = InsightsExtension.withGuardInterval(Duration.ZERO); // the launcher mounts it
      insights.mount(api.extensionContext()).toCompletionStage().toCompletableFuture().get();
      Delivery.mountRoutes(api.extensionContext(), null, null); // ControlPlane mounts them on every instance
      Set<String> routes = PublisherApi.describe(router);

      Set<String> spec = new LinkedHashSet<>();
      try (InputStream in = PublisherApi.class.getResourceAsStream("/dev/updraft/controlplane/api/openapi.yaml")) {
        Map<String, Object> doc = new Yaml().load(in);
        @SuppressWarnings("unchecked")
        Map<String, Map<String, Object>> paths = (Map<String, Map<String, Object>>) doc.get("paths");
        for (Map.Entry<String, Map<String, Object>> p : paths.entrySet()) {
          for (String method : p.getValue().keySet()) {
            if (!method.equals("parameters")) {
              spec.add(method.toUpperCase(Locale.ROOT) + " " + p.getKey());
            }
          }
        }
      }
      assertThat(routes).as("routes missing from the spec").isSubsetOf(spec);
      assertThat(spec).as("spec paths without a route").isSubsetOf(routes);
      assertThat(routes)
          .contains("POST /v1/apps/{app}/updates", "PUT /v1/apps/{app}/assets/{sha256}", "GET /v1/openapi.yaml", "GET /", "GET /console", "GET /console/", "GET /console/{file}")
          .contains("GET /v1/apps/{app}/insights/updates/{groupId}", "GET /v1/apps/{app}/insights/channels/{channel}", "GET /v1/apps/{app}/devices/{clientId}");
      insights.close().toCompletionStage().toCompletableFuture().get();
    } finally {
      vertx.close().toCompletionStage().toCompletableFuture().get();
    }
  }
}
