package dev.updraft.common.loop;

import java.util.concurrent.TimeUnit;

/**
 * The time a loop reads and waits on: a monotonic nanosecond clock and a sleep. {@link #SYSTEM} in production; a
 * test's fake moves its time forward when asked to sleep, so idling and backoff are tested without waiting.
 */
public interface LoopClock {
  /** {@link System#nanoTime()} and {@link Thread#sleep}. */
  LoopClock SYSTEM = new LoopClock() {
    @Override
    public long nanoTime() {
      return System.nanoTime();
    }

    @Override
    public void sleep(long nanos) throws InterruptedException {
      TimeUnit.NANOSECONDS.sleep(nanos);
    }
  };

  /** Monotonic time in nanoseconds, arbitrary origin (compare differences only). */
  long nanoTime();

  /** Waits about {@code nanos} (more than 0). */
  void sleep(long nanos) throws InterruptedException;
}
