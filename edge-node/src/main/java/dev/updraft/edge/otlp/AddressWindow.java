package dev.updraft.edge.otlp;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Requests per address bucket in the current minute, refused past {@code limit}: one network cannot make an edge
 * decode an unbounded stream of error reports. The map is cleared when the minute turns (and when it holds more
 * than {@link #MAX_BUCKETS} buckets, so a spray of addresses costs bounded memory). Thread-safe.
 */
final class AddressWindow {
  static final int MAX_BUCKETS = 100_000;
  private final int limit;
  private final ConcurrentHashMap<String, AtomicInteger> counts = new ConcurrentHashMap<>();
  private volatile long minute;

  AddressWindow(int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("requests per address and minute must be >= 1: limit=" + limit);
    }
    this.limit = limit;
  }

  /** Counts a request from {@code bucket} (null: no address known, never limited); false when over the limit. */
  boolean admit(String bucket, long nowMillis) {
    if (bucket == null) {
      return true;
    }
    long m = nowMillis / 60_000;
    if (m != minute || counts.size() > MAX_BUCKETS) {
      minute = m;
      counts.clear();
    }
    return counts.computeIfAbsent(bucket, b -> new AtomicInteger()).incrementAndGet() <= limit;
  }
}
