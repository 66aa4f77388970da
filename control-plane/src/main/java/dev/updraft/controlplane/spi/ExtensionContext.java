package dev.updraft.controlplane.spi;

import dev.updraft.controlplane.config.ControlPlaneConfig;
import dev.updraft.controlplane.core.Role;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * What a {@link ControlPlaneExtension} gets to mount routes: the Vert.x instance, the root router, the
 * authentication handlers the publisher API uses, the JSON error format, the metrics registry, the
 * configuration and the rollout control.
 *
 * <p>Routes that read a JSON body use {@link #authorizeThenBody(Role)} as their first handler: it checks the
 * token and only then reads the body (bounded by {@code --max-request-bytes}), so a stranger's body is never
 * read, as on the core API's own routes. (Vert.x Web refuses a body handler after a user handler on a route,
 * so a separate body handler could only come before the check.)
 *
 * <p>Typical use: {@code ctx.router().get("/v1/apps/:app/insights").handler(ctx.authorize(Role.READ))
 * .handler(rc -> ...)}. Routes must also be described in {@code docs/api/openapi.yaml} (a test checks
 * the router against it).
 */
public interface ExtensionContext {

  Vertx vertx();

  /** The root router; publisher routes live under {@code /v1}. */
  Router router();

  /**
   * Requires a bearer token that may act on the app in path parameter {@code app} with at least
   * {@code role} (the bootstrap admin token always may). Answers 401 without a valid token and 403 for
   * another app's token or a lower role; otherwise calls {@code next()}.
   */
  Handler<RoutingContext> authorize(Role role);

  /**
   * {@link #authorize(Role)}, then the body (at most {@code --max-request-bytes}, 413 beyond): a caller
   * without a valid token gets its 401 or 403 before any of its body is read.
   */
  Handler<RoutingContext> authorizeThenBody(Role role);

  /** Requires the bootstrap admin token (401/403 otherwise). */
  Handler<RoutingContext> authorizeAdmin();

  /** After {@link #authorize}: the actor to record ({@code admin} or the token id). */
  String actor(RoutingContext rc);

  /** Ends the request with {@code {"error":{"code":…,"message":…}}} and {@code status}. */
  void fail(RoutingContext rc, int status, String code, String message);

  MeterRegistry meterRegistry();

  ControlPlaneConfig config();

  RolloutControl rollouts();

  /**
   * The control plane's current state (every app, its groups, channels, tokens), an immutable snapshot;
   * call again for a newer one.
   */
  dev.updraft.controlplane.state.ControlState state();

  /** The app's source maps uploaded at publish, parsed and cached (blocking: call on a worker thread). */
  dev.updraft.controlplane.sourcemaps.SourceMaps sourceMaps();
}
