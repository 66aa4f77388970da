package dev.updraft.controlplane.api;

import io.vertx.core.Handler;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;
import java.util.List;
import java.util.Set;

/**
 * CORS for the exact origins of {@code --cors-origin}, mounted first on every route only when some are
 * configured (without them no response carries an {@code Access-Control-*} header). Every response gets
 * {@code Vary: Origin}; a listed {@code Origin} is echoed in {@code Access-Control-Allow-Origin}; a
 * preflight ({@code OPTIONS} with {@code Access-Control-Request-Method}) from a listed origin is answered
 * 204 with the allowed methods and headers ({@code Authorization}, {@code Content-Type},
 * {@code Idempotency-Key}), and from any other origin 403 {@code cors-origin-not-allowed} without allow
 * headers. No credentials mode: the API takes bearer tokens, not cookies. Thread-safe (immutable).
 */
final class Cors implements Handler<RoutingContext> {
  static final String ALLOWED_METHODS = "GET, POST, PUT, PATCH, DELETE";
  static final String ALLOWED_HEADERS = "Authorization, Content-Type, Idempotency-Key";

  private final Set<String> origins;

  Cors(List<String> origins) {
    this.origins = Set.copyOf(origins);
  }

  @Override
  public void handle(RoutingContext rc) {
    HttpServerRequest req = rc.request();
    HttpServerResponse res = rc.response();
    res.putHeader("vary", "Origin");
    String origin = req.getHeader("origin");
    boolean allowed = origin != null && origins.contains(origin);
    boolean preflight = req.method() == HttpMethod.OPTIONS && req.getHeader("access-control-request-method") != null;
    if (allowed) {
      res.putHeader("access-control-allow-origin", origin);
    }
    if (!preflight) {
      rc.next();
      return;
    }
    if (!allowed) {
      Json.error(rc, 403, "cors-origin-not-allowed",
          "origin " + (origin == null ? "(none)" : "'" + origin + "'") + " may not call this API from a browser; list it in --cors-origin");
      return;
    }
    res.setStatusCode(204)
        .putHeader("access-control-allow-methods", ALLOWED_METHODS)
        .putHeader("access-control-allow-headers", ALLOWED_HEADERS)
        .putHeader("access-control-max-age", "600")
        .end();
  }
}
