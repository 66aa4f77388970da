package dev.updraft.edge;

import io.micrometer.core.instrument.Counter;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;

/**
 * One HTTP server instance on its own event loop; the edge deploys one per {@code --event-loops} on the
 * same port (Vert.x spreads connections across them). Also runs its event loop's delay probe
 * ({@link EventLoopDelay}, {@code updraft_edge_event_loop_delay_seconds}): time requests wait for the loop.
 */
final class HttpVerticle extends VerticleBase {
  private final HttpServerOptions options;
  private final FrontDoor handler;
  private final EventLoopDelay loopDelay;
  private final long headerTimeoutNanos;
  private final Counter headerTimeouts;
  /** The warm-up's handler (first instance only, else null), served on a loopback server of its own. */
  private final FrontDoor warmHandler;
  private HttpServer server;
  private volatile HttpServer warmServer;

  /**
   * @param warmHandler the warm-up's handler ({@link FrontDoor#forWarmup}) to serve on a server of its own,
   *     on 127.0.0.1 and a free port, until {@link #closeWarmup}; null: none
   */
  HttpVerticle(HttpServerOptions options, FrontDoor handler, EventLoopDelay loopDelay, long headerTimeoutNanos,
      Counter headerTimeouts, FrontDoor warmHandler) {
    this.options = options;
    this.handler = handler;
    this.warmHandler = warmHandler;
    this.loopDelay = loopDelay;
    this.headerTimeoutNanos = headerTimeoutNanos;
    this.headerTimeouts = headerTimeouts;
  }

  @Override
  public Future<?> start() {
    loopDelay.start(vertx); // on this instance's event loop: start runs on the verticle's context
    server = server(options, handler);
    if (warmHandler == null) {
      return server.listen();
    }
    // the same server code (options, guard, codecs) as the devices' server, so that it is what the warm-up compiles
    HttpServer warm = server(new HttpServerOptions(options).setHost("127.0.0.1").setPort(0), warmHandler);
    warmServer = warm;
    return server.listen().compose(s -> warm.listen());
  }

  private HttpServer server(HttpServerOptions o, FrontDoor h) {
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
    loopDelay.stop(vertx);
    return closeWarmup().transform(ignored -> server == null ? Future.succeededFuture() : server.close());
  }
}
