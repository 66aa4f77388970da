package dev.updraft.edge;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * How late one event loop runs a periodic timer: {@code updraft_edge_event_loop_delay_seconds{loop}}, a histogram
 * (fixed buckets 1 ms – 5 s, no quantiles computed here) with its {@code _max}, the largest delay in Micrometer's
 * rolling window (about the last minute with the Prometheus registry's default step). The request timer
 * ({@link RequestMetrics}) starts when the handler runs, so it misses the time a request waited for its loop:
 * behind a slow or blocking task on that loop, or for a CPU held by other threads or processes. A timer due every
 * {@link #PERIOD_MS} waits in the same loop as the requests' network events and tasks, so how late it runs is about
 * how long a request arriving then waited before its loop could read it.
 *
 * <p>Vert.x runs periodic timers at a fixed rate (Netty's {@code scheduleAtFixedRate}): the n-th run is due at the
 * start plus n periods whatever happened before, and the runs that fell due while the loop was stuck run at once,
 * one after another, each recorded with its own lateness. So the count grows by one a period whatever the load,
 * and a loop stuck for 300 ms shows delays of up to 300 ms, then one period less, and so on down to zero.
 *
 * <p>One instance per HTTP server instance, started and stopped from its verticle's context: its state is confined
 * to that event loop. The instance is the timer's handler, so a run allocates nothing of its own (Vert.x makes a
 * context for each run of a periodic timer and boxes its id).
 */
final class EventLoopDelay implements Handler<Long> {
  /**
   * 100 ms: often enough that a stall of a few hundred milliseconds is seen a few times, and cheap (ten timer runs
   * a second per loop, each a histogram update). A constant rather than a flag: nothing an operator would tune.
   */
  static final long PERIOD_MS = 100;

  private final Timer delays;
  private final long periodMs;
  private final long periodNanos;
  /** When the next run is due ({@link System#nanoTime}); the timer's own deadline moves by a period a run too. */
  private long due;
  private long timerId = -1;

  /** A probe recording into {@code delays} every {@code periodMs}. */
  EventLoopDelay(Timer delays, long periodMs) {
    if (periodMs < 1) {
      throw new IllegalArgumentException("period must be at least 1 ms: " + periodMs);
    }
    this.delays = delays;
    this.periodMs = periodMs;
    this.periodNanos = TimeUnit.MILLISECONDS.toNanos(periodMs);
  }

  /** The edge's probe of the {@code loop}-th HTTP server instance's event loop, every {@link #PERIOD_MS}. */
  static EventLoopDelay forLoop(MeterRegistry registry, int loop) {
    return new EventLoopDelay(timer(registry, loop), PERIOD_MS);
  }

  /** The delay histogram of the {@code loop}-th HTTP server instance (tag {@code loop}, its index from 0). */
  static Timer timer(MeterRegistry registry, int loop) {
    return Timer.builder("updraft.edge.event.loop.delay")
        .description("How late an edge HTTP event loop ran a timer due every " + PERIOD_MS + " ms: time a request "
            + "arriving then waited for the loop, which the request timer does not see")
        .tag("loop", Integer.toString(loop))
        .serviceLevelObjectives(
            Duration.ofMillis(1),
            Duration.ofMillis(2),
            Duration.ofMillis(5),
            Duration.ofMillis(10),
            Duration.ofMillis(25),
            Duration.ofMillis(50),
            Duration.ofMillis(100),
            Duration.ofMillis(250),
            Duration.ofMillis(500),
            Duration.ofSeconds(1),
            Duration.ofSeconds(5))
        .register(registry);
  }

  /**
   * Schedules the probe on the calling context's event loop: call it from the verticle's {@code start}, on the
   * loop to be measured. Once only (until {@link #stop}).
   */
  void start(Vertx vertx) {
    if (timerId >= 0) {
      throw new IllegalStateException("already started");
    }
    due = System.nanoTime() + periodNanos; // at most microseconds before the timer's own deadline
    timerId = vertx.setPeriodic(periodMs, this);
  }

  /** Cancels the timer (from the verticle's {@code stop}); nothing when not started. */
  void stop(Vertx vertx) {
    if (timerId >= 0) {
      vertx.cancelTimer(timerId);
      timerId = -1;
    }
  }

  /** A run of the timer, on the loop: records how late it is against when it was due. */
  @Override
  public void handle(Long id) {
    long now = System.nanoTime();
    delays.record(Math.max(0, now - due), TimeUnit.NANOSECONDS);
    due += periodNanos;
  }
}
