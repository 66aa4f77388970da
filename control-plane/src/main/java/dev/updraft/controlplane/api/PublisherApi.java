package dev.updraft.controlplane.api;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.updraft.controlplane.config.ControlPlaneConfig;
import dev.updraft.controlplane.config.HttpFlags;
import dev.updraft.controlplane.spi.ExtensionContext;
import dev.updraft.controlplane.core.Role;
import dev.updraft.controlplane.spi.RolloutControl;
import dev.updraft.controlplane.core.CommandException;
import dev.updraft.controlplane.commands.CommandProcessor;
import dev.updraft.controlplane.commands.Commands;
import dev.updraft.controlplane.history.HistoryReads;
import dev.updraft.controlplane.signin.Signin;
import dev.updraft.controlplane.sourcemaps.SourceMapCache;
import dev.updraft.controlplane.sourcemaps.SourceMaps;
import dev.updraft.controlplane.state.ControlState;
import dev.updraft.controlplane.storage.AssetStorage;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.Route;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The publisher API (see {@code docs/api/openapi.yaml}): the router that wires one routes class per
 * concept ({@link AppRoutes} apps and tokens, {@link KeyRoutes}, {@link AssetRoutes}, {@link UpdateRoutes}
 * publish and roll backs, {@link RolloutRoutes}, {@link ChannelRoutes} channels and branches, {@link DeletionRoutes}
 * deletions and pins, {@link RetentionRoutes},
 * {@link AuditRoutes}, {@link ServiceRoutes} health, metrics and the spec) behind CORS, with one body limit
 * and one failure handler that answers every refusal as a JSON error.
 *
 * <p>Handlers run on the event loop: they check the request's shape, read the state snapshot, hand
 * state-changing work to {@link Commands} (the command thread) and storage work to worker threads.
 */
public final class PublisherApi {
  private static final Logger LOG = LoggerFactory.getLogger(PublisherApi.class);

  /** What the routes need. */
  public record Deps(
      ControlPlaneConfig config,
      Commands commands,
      CommandProcessor processor,
      AssetStorage storage,
      PrometheusMeterRegistry metrics,
      Path tmpDir,
      RolloutControl rollouts,
      HistoryReads history) {}

  private final Vertx vertx;
  private final Deps d;
  private final Router router;
  private final Auth auth;
  private final Signin signin;
  private final SourceMaps sourceMaps;

  public PublisherApi(Vertx vertx, Deps deps) {
    this.vertx = vertx;
    this.d = deps;
    this.router = Router.router(vertx);
    this.sourceMaps = new SourceMaps(deps.storage(), new SourceMapCache(SourceMaps.DEFAULT_CACHE_BYTES));
    this.signin = Signin.create(vertx, deps.config().oidc(), () -> deps.processor().clock().instant());
    this.auth =
        new Auth(
            deps.config().adminToken(),
            () -> deps.processor().state(),
            new AuthThrottle(deps.config().authFailureLimit(), deps.config().authFailureWindow().toNanos(), System::nanoTime),
            Counter.builder("updraft.control.auth.failures")
                .description("requests that presented an invalid, revoked or malformed token")
                .register(deps.metrics()),
            Counter.builder("updraft.control.auth.throttled")
                .description("requests refused with 429 because their address presented too many invalid tokens")
                .register(deps.metrics()),
            () -> deps.processor().clock().instant(),
            signin);
    routes(new ApiContext(vertx, deps, auth));
  }

  public Router router() {
    return router;
  }

  private void routes(ApiContext ctx) {
    Handler<RoutingContext> body = BodyHandler.create(false).setBodyLimit(d.config().maxRequestBytes());
    if (!d.config().corsOrigins().isEmpty()) {
      router.route().handler(new Cors(d.config().corsOrigins()));
    }
    // PostgreSQL cannot hold a NUL character in text: a path segment or filter with one would reach a query as a
    // 500; no identifier, filter or file name can contain one, so the request is refused before any route
    router.route().handler(PublisherApi::refuseNul);
    new ServiceRoutes(ctx).mount(router);
    signin.mount(router); // console sign-in with an OIDC provider, and the session it opens
    new AppRoutes(ctx).mount(router, body);
    new KeyRoutes(ctx).mount(router, body);
    new PruneRoutes(ctx).mount(router, body);
    new AssetRoutes(ctx).mount(router, body);
    new SourceMapRoutes(ctx).mount(router);
    new UpdateRoutes(ctx).mount(router, body);
    new RolloutRoutes(ctx).mount(router, body);
    new ChannelRoutes(ctx).mount(router, body);
    new AuditRoutes(ctx).mount(router);
    new DeletionRoutes(ctx).mount(router);
    new RetentionRoutes(ctx).mount(router, body);

    router.route().failureHandler(this::failure);
    // the router refuses a path it cannot decode (a % not followed by two hex digits) before any route runs, and gives
    // this handler no failure to read; route failures go to failure() above, so this is the one 400 that comes here
    router.errorHandler(400, rc -> Json.error(rc, 400, "bad-request", "the request path '" + rc.request().path()
        + "' is not valid percent-encoding (each % must be followed by two hex digits)"));
    router.errorHandler(404, rc -> Json.error(rc, 404, "not-found", "no route " + rc.request().method() + " " + rc.request().path() + " (see /v1/openapi.yaml)"));
    router.errorHandler(405, rc -> Json.error(rc, 405, "method-not-allowed", "method " + rc.request().method() + " is not allowed on " + rc.request().path()));
  }

  private static void refuseNul(RoutingContext rc) {
    if (rc.request().uri().contains("%00")) {
      Json.error(rc, 400, "nul-character", "the request's path or query holds a NUL character (%00), which no app id, group id,"
          + " branch, channel, filter or file name can contain");
    } else {
      rc.next();
    }
  }

  /** Every failed request: a refusal as its JSON error, a body above the limit as 413, anything else as 500. */
  private void failure(RoutingContext rc) {
    Throwable t = rc.failure();
    if (t instanceof CommandException) {
      CommandException e = (CommandException) t;
      if (e.status() == 503 && rc.response().headers().get("retry-after") == null) {
        rc.response().putHeader("retry-after", "5"); // every 503 is a condition a retry may outlive
      }
      Json.error(rc, e.status(), e.code(), e.getMessage());
    } else if (rc.statusCode() == 413) {
      Json.error(rc, 413, "too-large", "the request body is above this server's limit of " + d.config().maxRequestBytes() + " bytes (--max-request-bytes)");
    } else if (t == null && rc.statusCode() >= 400 && rc.statusCode() < 500) {
      Json.error(rc, rc.statusCode(), "bad-request", "the request was refused (HTTP " + rc.statusCode() + ")");
    } else {
      String id = UUID.randomUUID().toString().substring(0, 8);
      LOG.error("internal error id={} on {} {}", id, rc.request().method(), rc.request().path(), t);
      Json.error(rc, 500, "internal", "internal error (id=" + id + "); the server log has the details");
    }
  }

  /**
   * The server's answer to a request the HTTP decoder refused: a JSON error with 431 for a head above
   * {@link HttpFlags#MAX_HEADER_BYTES}, 414 for a request line above
   * {@link HttpFlags#MAX_REQUEST_LINE_BYTES}, 400 otherwise; the connection is closed after it.
   */
  public static void invalidRequest(HttpServerRequest req) {
    Throwable cause = req.decoderResult().cause();
    int status;
    String code;
    String message;
    if (cause instanceof TooLongHttpHeaderException) {
      status = 431;
      code = "headers-too-large";
      message = "the request headers are above this server's limit of " + HttpFlags.MAX_HEADER_BYTES + " bytes";
    } else if (cause instanceof TooLongHttpLineException) {
      status = 414;
      code = "uri-too-long";
      message = "the request line is above this server's limit of " + HttpFlags.MAX_REQUEST_LINE_BYTES + " bytes";
    } else {
      status = 400;
      code = "bad-request";
      message = "the request is not valid HTTP/1.1" + (cause == null || cause.getMessage() == null ? "" : ": " + cause.getMessage());
    }
    ObjectNode root = Json.MAPPER.createObjectNode();
    ObjectNode err = root.putObject("error");
    err.put("code", code);
    err.put("message", message);
    req.response()
        .setStatusCode(status)
        .putHeader("content-type", "application/json")
        .putHeader("connection", "close")
        .end(root.toString());
  }

  /** Methods and paths of every route on {@code router} (for the OpenAPI check). */
  public static Set<String> describe(Router router) {
    Set<String> out = new LinkedHashSet<>();
    for (Route r : router.getRoutes()) {
      if (r.getPath() == null || r.methods() == null) {
        continue;
      }
      for (HttpMethod m : r.methods()) {
        out.add(m.name() + " " + r.getPath().replaceAll(":([A-Za-z0-9_]+)", "{$1}"));
      }
    }
    return out;
  }

  /** The context extensions mount their routes with. */
  public ExtensionContext extensionContext() {
    return new ExtensionContext() {
      @Override
      public Vertx vertx() {
        return vertx;
      }

      @Override
      public Router router() {
        return router;
      }

      @Override
      public Handler<RoutingContext> authorize(Role role) {
        return auth.require(role);
      }

      @Override
      public Handler<RoutingContext> authorizeThenBody(Role role) {
        return auth.requireThenBody(role, BodyHandler.create(false).setBodyLimit(d.config().maxRequestBytes()));
      }

      @Override
      public Handler<RoutingContext> authorizeAdmin() {
        return auth.requireBootstrapAdmin();
      }

      @Override
      public String actor(RoutingContext rc) {
        return auth.authenticate(rc).actor();
      }

      @Override
      public void fail(RoutingContext rc, int status, String code, String message) {
        Json.error(rc, status, code, message);
      }

      @Override
      public MeterRegistry meterRegistry() {
        return d.metrics();
      }

      @Override
      public ControlPlaneConfig config() {
        return d.config();
      }

      @Override
      public RolloutControl rollouts() {
        return d.rollouts();
      }

      @Override
      public ControlState state() {
        return d.processor().state();
      }

      @Override
      public SourceMaps sourceMaps() {
        return sourceMaps;
      }
    };
  }
}
