package dev.updraft.edge;

import dev.updraft.common.MetricsAccess;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import java.nio.charset.StandardCharsets;

/**
 * {@code GET /metrics} (Prometheus text, scraped off the event loop): on the edge port, or with {@code --metrics-port}
 * on a listener of its own ({@link #handleOwnPort}); with {@code --metrics-token} only for
 * {@code Authorization: Bearer <token>}, 401 JSON otherwise. Thread-safe.
 */
final class MetricsEndpoint {
  private final Vertx vertx;
  private final PrometheusMeterRegistry registry;
  private final MetricsAccess access;

  MetricsEndpoint(Vertx vertx, PrometheusMeterRegistry registry, MetricsAccess access) {
    this.vertx = vertx;
    this.registry = registry;
    this.access = access;
  }

  /** One scrape (a GET of {@code /metrics}), or 401 without the token. */
  void serve(HttpServerRequest req) {
    if (!access.allows(req.getHeader(Names.AUTHORIZATION))) {
      req.response().setStatusCode(401).putHeader(Names.WWW_AUTHENTICATE, Names.BEARER)
          .putHeader(Names.CONTENT_TYPE, Names.APPLICATION_JSON).end(MetricsAccess.UNAUTHORIZED_BODY);
      return;
    }
    vertx.executeBlocking(registry::scrape, false).onComplete(ar -> {
      if (ar.succeeded()) {
        req.response().putHeader(Names.CONTENT_TYPE, Names.PROMETHEUS_TEXT)
            .end(Buffer.buffer(ar.result().getBytes(StandardCharsets.UTF_8)));
      } else {
        req.response().setStatusCode(500).putHeader(Names.CONTENT_TYPE, Names.APPLICATION_JSON)
            .end(ErrorBody.of("metrics-failed", String.valueOf(ar.cause())));
      }
    });
  }

  /** Every request to the {@code --metrics-port} listener: {@code GET /metrics}, 404 or 405 otherwise. */
  void handleOwnPort(HttpServerRequest req) {
    if (!"/metrics".equals(req.path())) {
      req.response().setStatusCode(404).putHeader(Names.CONTENT_TYPE, Names.APPLICATION_JSON)
          .end(ErrorBody.of("not-found", "this port (--metrics-port) serves GET /metrics only"));
    } else if (!HttpMethod.GET.equals(req.method())) {
      req.response().setStatusCode(405).putHeader(Names.ALLOW, Names.GET).putHeader(Names.CONTENT_TYPE, Names.APPLICATION_JSON)
          .end(ErrorBody.of("method-not-allowed", "only GET is served on /metrics"));
    } else {
      serve(req);
    }
  }
}
