package dev.updraft.controlplane.api;

import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Limits failed authentications per source address: after {@code limit} presented tokens that are not
 * valid within {@code window} of the first, every authenticated request from that address is refused
 * (429, without looking at its token, so that guessing learns nothing) until the window has passed. A
 * missing token is not a guess and is not counted. Fixed windows per address, at most
 * {@value #MAX_SOURCES} addresses tracked (expired ones are dropped first; beyond that new addresses are
 * not throttled, which an attacker with that many addresses gains little from against 256-bit tokens).
 * Thread-safe.
 */
final class AuthThrottle {
  private static final Logger LOG = LoggerFactory.getLogger(AuthThrottle.class);
  static final int MAX_SOURCES = 100_000;

  private final int limit;
  private final long windowNanos;
  private final LongSupplier clock;
  private final Map<String, Window> bySource = new ConcurrentHashMap<>();
  private volatile boolean fullLogged;

  /** Failures of one address since {@code start}. Guarded by itself. */
  private static final class Window {
    final long start;
    int failures;

    Window(long start) {
      this.start = start;
    }
  }

  /**
   * @param limit failures allowed per window; 0 turns the throttle off
   * @param clock nanoseconds ({@link System#nanoTime} in production)
   */
  AuthThrottle(int limit, long windowNanos, LongSupplier clock) {
    this.limit = limit;
    this.windowNanos = windowNanos;
    this.clock = clock;
  }

  /** Seconds {@code source} must wait before its next attempt (rounded up), or 0 when it may try now. */
  long retryAfterSeconds(String source) {
    if (limit == 0) {
      return 0;
    }
    Window w = bySource.get(source);
    if (w == null) {
      return 0;
    }
    long now = clock.getAsLong();
    synchronized (w) {
      long left = w.start + windowNanos - now;
      if (left <= 0 || w.failures < limit) {
        return 0;
      }
      return Math.max(1, TimeUnit.NANOSECONDS.toSeconds(left + TimeUnit.SECONDS.toNanos(1) - 1));
    }
  }

  /** Records a failed attempt of {@code source}. */
  void failed(String source) {
    if (limit == 0) {
      return;
    }
    long now = clock.getAsLong();
    if (!bySource.containsKey(source) && bySource.size() >= MAX_SOURCES && !prune(now)) {
      return;
    }
    Window w = bySource.compute(source, (k, old) -> old == null || now - old.start >= windowNanos ? new Window(now) : old);
    synchronized (w) {
      w.failures++;
      if (w.failures == limit) {
        LOG.warn("authentication failures from source={}: {} within {} s; refusing it with 429 until the window ends",
            source, limit, TimeUnit.NANOSECONDS.toSeconds(windowNanos));
      }
    }
  }

  /** Drops expired windows; whether there is room now. */
  private boolean prune(long now) {
    for (Iterator<Window> it = bySource.values().iterator(); it.hasNext(); ) {
      Window w = it.next();
      synchronized (w) {
        if (now - w.start >= windowNanos) {
          it.remove();
        }
      }
    }
    if (bySource.size() < MAX_SOURCES) {
      return true;
    }
    if (!fullLogged) {
      fullLogged = true;
      LOG.warn("authentication failures tracked for {} addresses: further addresses are not throttled", MAX_SOURCES);
    }
    return false;
  }
}
