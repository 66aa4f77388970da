package dev.updraft.edge;

import dev.updraft.common.Settings;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/** Starting edges for tests and waiting on conditions with a deadline (never a fixed sleep). */
final class Edges {
  private Edges() {}

  /** A Vert.x as the launcher makes it: native transport preferred. */
  static Vertx vertx() {
    return Vertx.vertx(new VertxOptions().setPreferNativeTransport(true).setEventLoopPoolSize(2));
  }

  /** An edge on a free loopback port; {@code flags} are extra {@code name, value} pairs. */
  static EdgeNode start(Vertx vertx, TestLog log, String edgeId, String... flags) {
    return start(vertx, log.bootstrap, log.prefix, edgeId, flags);
  }

  /** An edge reading {@code prefix}'s topics, which need not exist yet. */
  static EdgeNode start(Vertx vertx, String bootstrap, String prefix, String edgeId, String... flags) {
    Map<String, String> f = new HashMap<>();
    f.put("kafka-bootstrap", bootstrap);
    f.put("topic-prefix", prefix);
    f.put("edge-port", "0");
    f.put("bind", "127.0.0.1");
    f.put("edge-id", edgeId);
    f.put("event-loops", "1");
    f.put("warmup-requests", "0"); // tests measure no speed; WarmupIT covers the warm-up
    for (int i = 0; i + 1 < flags.length; i += 2) {
      f.put(flags[i], flags[i + 1]);
    }
    return await(EdgeNode.start(vertx, EdgeConfig.from(Settings.of(f, Map.of()))));
  }

  static EdgeNode startReady(Vertx vertx, TestLog log, String edgeId, String... flags) {
    EdgeNode n = start(vertx, log, edgeId, flags);
    until("edge " + edgeId + " ready", n::ready, Duration.ofSeconds(60));
    // and warmed up (--warmup-requests): /readyz says 503 "warming-up" until then, longer on a busy machine
    EdgeHttp http = new EdgeHttp(n.port());
    until("edge " + edgeId + " /readyz 200 (warm-up done)", () -> http.get("/readyz").status() == 200, Duration.ofSeconds(60));
    return n;
  }

  static <T> T await(Future<T> f) {
    try {
      return f.toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("future failed: " + e, e);
    }
  }

  /** Polls {@code condition} every 10 ms until it holds; fails naming {@code what} at the deadline. */
  static void until(String what, BooleanSupplier condition, Duration deadline) {
    long end = System.nanoTime() + deadline.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - end > 0) {
        throw new AssertionError("not reached within " + deadline + ": " + what);
      }
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted waiting for " + what);
      }
    }
  }
}
