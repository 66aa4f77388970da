package dev.updraft.controlplane.api;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.updraft.controlplane.commands.CommandProcessor;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.io.IOException;
import java.io.InputStream;
import java.util.Locale;

/**
 * {@code /healthz} and {@code /v1/openapi.yaml}: no token needed; {@code /metrics} unless {@code --metrics-port} moves
 * it ({@link MetricsListener}), public unless {@code --metrics-token} is set.
 */
final class ServiceRoutes {
  static final String OPENAPI_RESOURCE = "/dev/updraft/controlplane/api/openapi.yaml";

  private final ApiContext ctx;
  private final byte[] openApi;

  ServiceRoutes(ApiContext ctx) {
    this.ctx = ctx;
    this.openApi = loadOpenApi();
  }

  void mount(Router router) {
    router.get("/healthz").handler(this::health);
    if (!ctx.deps.config().metrics().separatePort()) {
      router.get("/metrics").handler(rc -> MetricsListener.serve(rc, ctx.deps.config().metrics(), ctx.deps.metrics()));
    }
    router.get("/v1/openapi.yaml").handler(this::openApi);
  }

  private static byte[] loadOpenApi() {
    try (InputStream in = ServiceRoutes.class.getResourceAsStream(OPENAPI_RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("missing classpath resource " + OPENAPI_RESOURCE);
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + OPENAPI_RESOURCE, e);
    }
  }

  private void health(RoutingContext rc) {
    CommandProcessor processor = ctx.deps.processor();
    CommandProcessor.Health h = processor.health();
    ObjectNode n = Json.MAPPER.createObjectNode();
    n.put("status", h.name().toLowerCase(Locale.ROOT));
    n.put("reason", processor.healthReason());
    n.put("apps", processor.state().apps().size());
    Json.send(rc, h == CommandProcessor.Health.OK ? 200 : 503, n);
  }

  private void openApi(RoutingContext rc) {
    rc.response().putHeader("content-type", "application/yaml").end(Buffer.buffer(openApi));
  }
}
