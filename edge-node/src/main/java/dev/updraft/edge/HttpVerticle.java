package dev.updraft.edge;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import java.util.concurrent.TimeUnit;

/**
 * One HTTP server instance on its own event loop; the edge deploys one per {@code --event-loops} on the
 * same port (Vert.x spreads connections across them). Also measures how late its event loop runs a
 * periodic timer ({@code updraft_edge_event_loop_delay_seconds}), a cheap sign of a blocked loop.
 */
final class HttpVerticle extends VerticleBase {
  private static final long TICK_MS = 500;

  private final HttpServerOptions options;
  private final ManifestHandler handler;
  private final Timer loopDelay;
  private final long headerTimeoutNanos;
  private final Counter headerTimeouts;
  /** The warm-up's handler (first instance only, else null), served on a loopback server of its own. */
  private final ManifestHandler warmHandler;
  private HttpServer server;
  private volatile HttpServer warmServer;
  private long timerId = -1;
  private long expected;

  /**
   * @param warmHandler the warm-up's handler ({@link ManifestHandler#forWarmup}) to serve on a server of its own,
   *     on 127.0.0.1 and a free port, until {@link #closeWarmup}; null: none
   */
  HttpVerticle(HttpServerOptions options, ManifestHandler handler, Timer loopDelay, long headerTimeoutNanos,
      Counter headerTimeouts, ManifestHandler warmHandler) {
    this.options = options;
    this.handler = handler;
    this.warmHandler = warmHandler;
    this.loopDelay = loopDelay;
    this.headerTimeoutNanos = headerTimeoutNanos;
    this.headerTimeouts = headerTimeouts;
  }

  @Override
  public Future<?> start() {
    expected = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TICK_MS);
    timerId = vertx.setPeriodic(TICK_MS, id -> {
      long now = System.nanoTime();
      loopDelay.record(Math.max(0, now - expected), TimeUnit.NANOSECONDS);
      expected = now + TimeUnit.MILLISECONDS.toNanos(TICK_MS);
    });
    server = server(options, handler);
    if (warmHandler == null) {
      return server.listen();
    }
    // the same server code (options, guard, codecs) as the devices' server, so that it is what the warm-up compiles
    HttpServer warm = server(new HttpServerOptions(options).setHost("127.0.0.1").setPort(0), warmHandler);
    warmServer = warm;
    return server.listen().compose(s -> warm.listen());
  }

  private HttpServer server(HttpServerOptions o, ManifestHandler h) {
    return vertx.createHttpServer(o)
        .requestHandler(h)
        .connectionHandler(c -> HttpGuard.install(c, headerTimeoutNanos, headerTimeouts))
        .invalidRequestHandler(HttpGuard::invalid);
  }

  /** The port of the warm-up's server, -1 when this instance has none or it is closed. */
  int warmupPort() {
    HttpServer w = warmServer;
    return w == null ? -1 : w.actualPort();
  }

  /** Closes the warm-up's server (the warm-up is over); the devices' server goes on. */
  Future<Void> closeWarmup() {
    HttpServer w = warmServer;
    warmServer = null;
    return w == null ? Future.succeededFuture() : w.close();
  }

  /** The port actually bound. */
  int actualPort() {
    return server.actualPort();
  }

  @Override
  public Future<?> stop() {
    if (timerId >= 0) {
      vertx.cancelTimer(timerId);
    }
    return closeWarmup().transform(ignored -> server == null ? Future.succeededFuture() : server.close());
  }
}
