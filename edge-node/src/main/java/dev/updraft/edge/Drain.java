package dev.updraft.edge;

import java.time.Duration;

/**
 * Ready no more: once an edge is told to stop ({@link EdgeNode#drainAndClose}), {@code /readyz} answers 503
 * {@code draining} while the edge goes on answering every request, in flight or new, for {@code --drain}; a load
 * balancer that honours readiness takes it out of rotation meanwhile, so that when the edge closes no device
 * request is lost. Thread-safe.
 */
final class Drain {
  private final Duration period;
  private volatile long sinceNanos;
  private volatile boolean started;

  Drain(Duration period) {
    this.period = period;
  }

  /** {@code --drain}: how long the edge serves after {@code /readyz} turned 503. */
  Duration period() {
    return period;
  }

  /** Starts the drain ({@code /readyz} 503 from now on); false when it had already started. */
  synchronized boolean start(long nowNanos) {
    if (started) {
      return false;
    }
    sinceNanos = nowNanos;
    started = true;
    return true;
  }

  /** Whether the drain has started: {@code /readyz} answers 503. */
  boolean started() {
    return started;
  }

  /** Seconds left of the drain at {@code nowNanos} (0 once it is over). */
  double secondsLeft(long nowNanos) {
    return Math.max(0, (period.toNanos() - (nowNanos - sinceNanos)) / 1e9);
  }
}
