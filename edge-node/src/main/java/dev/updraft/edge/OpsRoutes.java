package dev.updraft.edge;

import dev.updraft.edge.image.LiveImage;
import dev.updraft.edge.log.EventLogReader;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import java.util.Locale;

/**
 * The operators' routes on the device port: {@code GET /healthz}, {@code GET /readyz} ({@link Readiness}) and,
 * unless it has a port of its own ({@code --metrics-port}), {@code GET /metrics} ({@link MetricsEndpoint}).
 * Other methods get 405 with {@code allow: GET}. Not counted in the device meters, no check-in, no access log.
 */
final class OpsRoutes {
  private final LiveImage live;
  private final PrometheusMeterRegistry registry;
  /** Nullable: {@code /metrics} is on the {@code --metrics-port} listener, not here (404). */
  private final MetricsEndpoint scrapes;
  private volatile Warmup warmup;
  private volatile Drain drain;

  OpsRoutes(LiveImage live, PrometheusMeterRegistry registry, MetricsEndpoint scrapes) {
    this.live = live;
    this.registry = registry;
    this.scrapes = scrapes;
  }

  /** {@code /readyz} answers 200 only once {@code w} is done too (see {@link Warmup}). */
  void warmup(Warmup w) {
    this.warmup = w;
  }

  /** {@code /readyz} answers 503 {@code draining} once {@code d} has started (see {@link Drain}). */
  void drain(Drain d) {
    this.drain = d;
  }

  /** Whether {@code path} is one of these routes. */
  boolean serves(String path) {
    return path.equals("/healthz") || path.equals("/readyz") || path.equals("/metrics") && scrapes != null;
  }

  void handle(HttpServerRequest req, String path) {
    if (!HttpMethod.GET.equals(req.method())) {
      req.response().setStatusCode(405).putHeader(Names.ALLOW, Names.GET).putHeader(Names.CONTENT_TYPE, Names.APPLICATION_JSON)
          .end(ErrorBody.of("method-not-allowed", "only GET is served on " + path));
      return;
    }
    switch (path) {
      case "/healthz":
        req.response().putHeader(Names.CONTENT_TYPE, Names.APPLICATION_JSON).end("{\"status\":\"up\"}");
        return;
      case "/readyz":
        Readiness.answer(req, live, warmup, drain, staleness());
        return;
      default:
        scrapes.serve(req);
    }
  }

  /** Seconds since the log reader last heard from Kafka, as its gauge says ({@code null} without a reader). */
  private String staleness() {
    Gauge g = registry.find(EventLogReader.STALENESS_GAUGE).gauge();
    return g == null ? "null" : String.format(Locale.ROOT, "%.3f", g.value());
  }
}
