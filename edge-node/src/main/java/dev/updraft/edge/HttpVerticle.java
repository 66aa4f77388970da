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
  private HttpServer server;
  private long timerId = -1;
  private long expected;

  HttpVerticle(HttpServerOptions options, ManifestHandler handler, Timer loopDelay, long headerTimeoutNanos,
      Counter headerTimeouts) {
    this.options = options;
    this.handler = handler;
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
    server = vertx.createHttpServer(options)
        .requestHandler(handler)
        .connectionHandler(c -> HttpGuard.install(c, headerTimeoutNanos, headerTimeouts))
        .invalidRequestHandler(HttpGuard::invalid);
    return server.listen();
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
    return server == null ? Future.succeededFuture() : server.close();
  }
}
