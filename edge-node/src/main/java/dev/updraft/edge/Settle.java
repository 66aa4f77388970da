package dev.updraft.edge;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import javax.management.JMException;
import javax.management.ObjectName;

/**
 * The warm-up's last step, between its last request and {@code /readyz} 200: a garbage collection, so that the
 * warm-up's garbage is not collected under the first devices' requests, then a wait until the JIT's compile queue
 * is empty (no method being compiled or waiting), so that compilations the warm-up triggered do not take the CPU
 * from the first devices. The warm-up ends on its curve and the hot path's state, not on the compilers: on a
 * busy core dozens of compilations can still be queued when it ends. Bounded by {@link #MAX}; read from the
 * {@code Compiler.queue} diagnostic command (on a JVM without it, only the collection runs).
 */
final class Settle {
  /** The longest the edge waits for its compile queue before it reports ready anyway. */
  static final Duration MAX = Duration.ofSeconds(10);
  private static final long POLL_MS = 50;

  /** What the settling did: how long, the collections it ran and whether the compile queue emptied. */
  record Outcome(long millis, long gcs, int compilesAtStart, int compilesLeft, boolean known) {
    /** The log line's words. */
    String describe() {
      return millis + " ms: " + gcs + " garbage collection(s), then "
          + (known ? compilesAtStart + " compilations running or queued at the warm-up's end, and " : "")
          + (!known ? "the JVM does not tell its compile queue" : compilesLeft == 0 ? "the JIT's compile queue empty"
              : compilesLeft + " compilations still running or queued after " + MAX.toSeconds() + " s");
    }
  }

  private Settle() {}

  /** Collects, then waits (off the event loops) until the compile queue is empty or {@link #MAX} has passed. Never fails. */
  static Future<Outcome> run(Vertx vertx) {
    long t0 = System.nanoTime();
    long gcsBefore = collections();
    Promise<Outcome> done = Promise.promise();
    vertx.executeBlocking(() -> {
      Integer atStart = compiles();
      System.gc(); // the edge's own request: explicit GCs are not disabled by the launcher
      return atStart == null ? -1 : atStart;
    }, false).onComplete(ar -> poll(vertx, t0, gcsBefore, ar.succeeded() ? ar.result() : -1, done));
    return done.future();
  }

  private static void poll(Vertx vertx, long t0, long gcsBefore, int atStart, Promise<Outcome> done) {
    vertx.executeBlocking(Settle::compiles, false).onComplete(ar -> {
      Integer left = ar.succeeded() ? ar.result() : null;
      long elapsed = System.nanoTime() - t0;
      if (left == null || left == 0 || elapsed >= MAX.toNanos()) {
        done.complete(new Outcome(elapsed / 1_000_000, collections() - gcsBefore, atStart, left == null ? 0 : left, left != null));
      } else {
        vertx.setTimer(POLL_MS, id -> poll(vertx, t0, gcsBefore, atStart, done));
      }
    });
  }

  /** Compilations running or queued now; null when the JVM does not tell. */
  static Integer compiles() {
    try {
      Object out = ManagementFactory.getPlatformMBeanServer().invoke(
          new ObjectName("com.sun.management:type=DiagnosticCommand"), "compilerQueue", new Object[0], new String[0]);
      return out instanceof String s ? compiles(s) : null;
    } catch (JMException | RuntimeException e) {
      return null;
    }
  }

  /**
   * Compilations running or queued in {@code queue}, the output of {@code Compiler.queue}: a line per running
   * compile under {@code Current compiles:}, then per compiler {@code C1 compile queue:} and a line per queued
   * method, or {@code Empty}.
   */
  static int compiles(String queue) {
    int n = 0;
    for (String line : queue.split("\n")) {
      String l = line.trim();
      if (!l.isEmpty() && !l.equals("Current compiles:") && !l.endsWith("compile queue:") && !l.equals("Empty")) {
        n++;
      }
    }
    return n;
  }

  private static long collections() {
    long n = 0;
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      n += Math.max(0, gc.getCollectionCount());
    }
    return n;
  }
}
