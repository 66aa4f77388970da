package dev.updraft.controlplane.patches;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * When a post-publish job may start: not within {@link #QUIET} of the last publish, unless jobs have already waited
 * {@link #LONGEST}. A job diffs and compresses bundles for seconds and allocates arrays of megabytes; measured on the
 * 10,000-app benchmark (one core for the whole control plane, Kafka and PostgreSQL), each one started a G1 collection
 * and a concurrent cycle whose pauses (25-50 ms each) landed in the publishes of the same burst. Publishers publish in
 * bursts (a CI run, a rollback and its fix), so the jobs wait for the burst to end; a publish that lands while a job
 * runs still shares the core with it.
 *
 * <p>{@link #published} is called from any thread; {@link #waitNanos} from the worker thread only.
 */
final class PublishQuiet {
  static final Duration QUIET = Duration.ofSeconds(1);
  static final Duration LONGEST = Duration.ofSeconds(60);
  private static final long QUIET_NANOS = QUIET.toNanos();
  private static final long LONGEST_NANOS = LONGEST.toNanos();

  private final LongSupplier nanos;
  /** When the last publish was decided; a quiet period before the first one. */
  private volatile long lastPublish;
  /** Whether the worker has been told to wait, and since when. Worker thread. */
  private boolean waiting;
  private long waitingSince;

  PublishQuiet(LongSupplier nanos) {
    this.nanos = nanos;
    this.lastPublish = nanos.getAsLong() - QUIET_NANOS;
  }

  /** A publish is being decided now. */
  void published() {
    lastPublish = nanos.getAsLong();
  }

  /**
   * 0 when a job may start now; otherwise how long to wait before asking again (at most until {@link #QUIET} after the
   * last publish, or until the jobs have waited {@link #LONGEST}, whichever comes first).
   */
  long waitNanos() {
    long now = nanos.getAsLong();
    long since = now - lastPublish;
    if (since >= QUIET_NANOS) {
      waiting = false;
      return 0;
    }
    if (!waiting) {
      waiting = true;
      waitingSince = now;
    }
    long waited = now - waitingSince;
    if (waited >= LONGEST_NANOS) {
      waiting = false; // one job starts; the next one may wait again
      return 0;
    }
    return Math.min(QUIET_NANOS - since, LONGEST_NANOS - waited);
  }
}
