package dev.updraft.edge;

import dev.updraft.edge.assets.AssetRoute;
import dev.updraft.edge.checkin.CheckInEmitter;
import dev.updraft.edge.image.LiveImage;
import dev.updraft.edge.otlp.OtlpRoute;
import dev.updraft.edge.replay.RequestRecorder;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpServerRequest;
import java.nio.charset.StandardCharsets;

/**
 * The edge's front door: one plain Vert.x request handler that matches the path by hand (no router: the device
 * route is the hot path) and hands the request to its route:
 *
 * <ul>
 *   <li>{@code GET /apps/{appId}/manifest} and {@code GET /manifest}: the device route ({@link DeviceRoute});
 *   <li>{@code GET /apps/{appId}/assets/{sha256}}: the launch-asset route ({@link AssetRoute});
 *   <li>{@code POST /v1/logs}, {@code POST /v1/traces} (also under {@code /apps/{appId}/}): the errors apps report
 *       over OTLP/HTTP ({@link OtlpRoute}), when the edge has a sink for them;
 *   <li>{@code /healthz}, {@code /readyz}, {@code /metrics}: the operators' routes ({@link OpsRoutes});
 *   <li>anything else: 404 {@code not-found} ({@link Refusal#noRoute}), counted like a device refusal.
 * </ul>
 *
 * <p>Shared by every event loop; thread-safe (all state is immutable or thread-safe).
 */
final class FrontDoor implements Handler<HttpServerRequest> {
  private static final String APPS = "/apps/";
  private static final String MANIFEST = "/manifest";
  private static final String ASSETS = "/assets/";

  private final LiveImage live;
  private final CheckInEmitter checkins;
  private final PrometheusMeterRegistry registry;
  private final String edgeId;
  private final AssetRoute assets;
  /** Nullable: {@code /metrics} is on the {@code --metrics-port} listener, not here (404). */
  private final MetricsEndpoint scrapes;
  private final DeviceRoute device;
  private final OpsRoutes ops;
  /** Null: no OTLP route (404 as any unknown path). Set before serving. */
  private OtlpRoute otlp;

  FrontDoor(LiveImage live, CheckInEmitter checkins, RequestRecorder recorder, PrometheusMeterRegistry registry,
      String edgeId, double accessLog, AssetRoute assets, MetricsEndpoint scrapes) {
    this(live, checkins, registry, edgeId, assets, scrapes,
        new DeviceRoute(live, checkins, recorder, new RequestMetrics(registry), CheckInEmitter.DEVICE, edgeId, accessLog));
  }

  private FrontDoor(LiveImage live, CheckInEmitter checkins, PrometheusMeterRegistry registry, String edgeId,
      AssetRoute assets, MetricsEndpoint scrapes, DeviceRoute device) {
    this.live = live;
    this.checkins = checkins;
    this.registry = registry;
    this.edgeId = edgeId;
    this.assets = assets;
    this.scrapes = scrapes;
    this.device = device;
    this.ops = new OpsRoutes(live, registry, scrapes);
  }

  /**
   * The warm-up's front door ({@link Warmup}): the same code on the same image, served on a loopback server of
   * its own, with its meters on a registry nobody reads, its check-ins in the emitter's warm-up lane (sent
   * marked), no access log and no recording; its routes are the devices' (call it after {@link #withOtlp}). Which one answers is decided by the server a request reached,
   * never by a test in the code: the code the warm-up compiles has seen no branch devices take otherwise.
   */
  FrontDoor forWarmup() {
    FrontDoor w = new FrontDoor(live, checkins, registry, edgeId, assets, scrapes, new DeviceRoute(live, checkins, null,
        new RequestMetrics(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT)), CheckInEmitter.WARMUP, edgeId, 0));
    w.device.buckets = device.buckets;
    // the same routes as the devices' front door, or the JIT compiles "no OTLP route" into the path every device
    // request takes and the first device deoptimises it (seen in a flight recording right after ready)
    w.otlp = otlp;
    return w;
  }

  /** Puts the {@link AddressBuckets address bucket} of each device request into its check-in (call before serving). */
  FrontDoor withAddressBuckets(AddressBuckets b) {
    device.buckets = b;
    return this;
  }

  /** Serves the OTLP/HTTP error route with {@code r} (call before serving). */
  FrontDoor withOtlp(OtlpRoute r) {
    otlp = r;
    return this;
  }

  /** {@code /readyz} answers 200 only once {@code w} is done too (see {@link Warmup}). */
  void warmup(Warmup w) {
    ops.warmup(w);
  }

  /** {@code /readyz} answers 503 {@code draining} once {@code d} has started (see {@link Drain}). */
  void drain(Drain d) {
    ops.drain(d);
  }

  @Override
  public void handle(HttpServerRequest req) {
    long t0 = System.nanoTime();
    String path = req.path();
    if (path.startsWith(APPS)) {
      int slash = path.indexOf('/', APPS.length());
      if (assets != null && slash > APPS.length() && path.startsWith(ASSETS, slash) && path.indexOf('/', slash + ASSETS.length()) < 0
          && path.length() > slash + ASSETS.length()) {
        String appId = decode(path.substring(APPS.length(), slash));
        if (appId != null) {
          assets.handle(req, appId, path.substring(slash + ASSETS.length()));
          return;
        }
      }
      if (otlp != null && slash > APPS.length() && otlp(req, path, slash, decode(path.substring(APPS.length(), slash)))) {
        return;
      }
      int end = path.length() - MANIFEST.length();
      if (end > APPS.length() && path.endsWith(MANIFEST) && path.indexOf('/', APPS.length()) == end) {
        String appId = decode(path.substring(APPS.length(), end));
        if (appId != null) {
          device.handle(req, t0, appId);
          return;
        }
      }
    } else if (path.equals(MANIFEST)) {
      device.handle(req, t0, null);
      return;
    } else if (otlp != null && otlp(req, path, 0, null)) {
      return;
    } else if (ops.serves(path)) {
      ops.handle(req, path);
      return;
    }
    device.refuse(req, t0, DeviceRoute.protocolOf(req.headers().get(Names.PROTOCOL_VERSION)), Refusal.noRoute(path),
        null, null);
  }

  /** Hands {@code /v1/logs} and {@code /v1/traces} (from {@code at} in the path) to the OTLP route; false for other paths. */
  private boolean otlp(HttpServerRequest req, String path, int at, String appId) {
    String signal = path.startsWith("/v1/logs", at) && path.length() == at + 8 ? OtlpRoute.LOGS
        : path.startsWith("/v1/traces", at) && path.length() == at + 10 ? OtlpRoute.TRACES : null;
    if (signal == null || (at > 0 && appId == null)) {
      return false;
    }
    AddressBuckets b = device.buckets;
    otlp.handle(req, appId, signal, b == null ? null
        : b.of(req.remoteAddress(), b.trustsForwardedFor() ? req.headers().get(Names.X_FORWARDED_FOR) : null));
    return true;
  }

  /** A percent-decoded path segment, or {@code null} when it does not decode, is empty or holds a '/'. */
  private static String decode(String segment) {
    if (segment.indexOf('%') < 0) {
      return segment;
    }
    try {
      // a path segment: '+' is itself, not a space as in a query
      String s = QueryStringDecoder.decodeComponent(segment.replace("+", "%2B"), StandardCharsets.UTF_8);
      return s.isEmpty() || s.indexOf('/') >= 0 ? null : s;
    } catch (IllegalArgumentException e) {
      return null;
    }
  }
}
