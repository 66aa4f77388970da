package dev.updraft.common.loop;

import java.util.concurrent.TimeUnit;

/**
 * The one error policy of the loops: after the n-th failed duty cycle in a row, wait {@code min} doubled n-1 times, at
 * most {@code max}; a cycle that succeeds starts over from {@code min}.
 *
 * @param minNanos the wait after the first failure in a row
 * @param maxNanos the longest wait
 */
public record ErrorBackoff(long minNanos, long maxNanos) {
  /** 100 ms doubling up to 5 s: PostgreSQL or Kafka unreachable. */
  public static final ErrorBackoff DEFAULT = new ErrorBackoff(TimeUnit.MILLISECONDS.toNanos(100), TimeUnit.SECONDS.toNanos(5));

  public ErrorBackoff {
    if (minNanos <= 0 || maxNanos < minNanos) {
      throw new IllegalArgumentException("backoff needs 0 < min <= max: minNanos=" + minNanos + " maxNanos=" + maxNanos);
    }
  }

  /** A fixed wait after every failure. */
  public static ErrorBackoff fixed(long nanos) {
    return new ErrorBackoff(nanos, nanos);
  }

  /** The wait after the {@code inARow}-th failure in a row (1-based). */
  public long nanos(int inARow) {
    long n = minNanos;
    for (int i = 1; i < inARow && n < maxNanos; i++) {
      n = n > maxNanos / 2 ? maxNanos : n * 2;
    }
    return n;
  }
}
