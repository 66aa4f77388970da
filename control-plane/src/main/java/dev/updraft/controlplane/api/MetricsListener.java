package dev.updraft.controlplane.api;

import dev.updraft.common.MetricsAccess;
import dev.updraft.controlplane.config.ControlPlaneConfig;
import dev.updraft.controlplane.config.HttpFlags;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * {@code GET /metrics} (Prometheus text): on the control port unless {@code --metrics-port} gives it a plain-HTTP
 * listener of its own; with {@code --metrics-token} only for {@code Authorization: Bearer <token>}, 401 JSON otherwise.
 */
public final class MetricsListener {
  private MetricsListener() {}

  /** Answers one scrape, or 401 when the access needs a token the request lacks. */
  static void serve(RoutingContext rc, MetricsAccess access, PrometheusMeterRegistry metrics) {
    if (!access.allows(rc.request().getHeader("authorization"))) {
      rc.response().setStatusCode(401).putHeader("www-authenticate", "Bearer").putHeader("content-type", "application/json")
          .end(MetricsAccess.UNAUTHORIZED_BODY);
      return;
    }
    rc.response().putHeader("content-type", "text/plain; version=0.0.4; charset=utf-8").end(metrics.scrape());
  }

  /** The listener of {@code --metrics-port} on {@code --bind}, or a null server when metrics stay on the control port. */
  public static Future<HttpServer> listen(Vertx vertx, ControlPlaneConfig config, PrometheusMeterRegistry metrics) {
    MetricsAccess access = config.metrics();
    if (!access.separatePort()) {
      return Future.succeededFuture();
    }
    Router router = Router.router(vertx);
    router.get("/metrics").handler(rc -> serve(rc, access, metrics));
    router.errorHandler(404, rc -> Json.error(rc, 404, "not-found", "this port (--metrics-port) serves GET /metrics only"));
    router.errorHandler(405, rc -> Json.error(rc, 405, "method-not-allowed", "only GET /metrics is served on this port"));
    HttpServerOptions options = new HttpServerOptions().setHost(config.bind()).setPort(access.port())
        .setMaxHeaderSize(HttpFlags.MAX_HEADER_BYTES).setMaxInitialLineLength(HttpFlags.MAX_REQUEST_LINE_BYTES);
    return vertx.createHttpServer(options).requestHandler(router).listen();
  }
}
