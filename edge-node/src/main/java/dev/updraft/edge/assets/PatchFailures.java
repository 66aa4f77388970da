package dev.updraft.edge.assets;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Patches devices could not use. expo-updates falls back to a full download without {@code A-IM} (same
 * {@code EAS-Client-ID} and {@code expo-current-update-id}) when a patch fails to apply, fails its hash or
 * carries headers it does not accept ({@code FileDownloader.kt} {@code fallbackBundleDownload}; iOS alike). So a
 * full-bundle request for the launch asset a {@code 226} was sent for, from the same device and base, within
 * {@link #WINDOW_MS}, is a failed patch. Counted per base update id (a registered build's embedded update id is
 * its base: per build), on this edge, in memory.
 *
 * <p>A base whose patches fail stops being served here: once {@link #MIN_FAILURES} of its patches failed and
 * they are at least half of those served from it, every later request from that base gets the full bundle
 * ({@code updraft_edge_patch_misses_total{reason="failing-base"}}) until the edge restarts. Thread-safe.
 */
final class PatchFailures {
  /** How long after a 226 a full request of the same device counts as its fallback. */
  static final long WINDOW_MS = 10 * 60_000L;
  /** Failures a base needs before it is stopped (also at least half of the patches served from it). */
  static final int MIN_FAILURES = 20;
  /** At most this many 226 answers are remembered; beyond it the oldest half is forgotten (counted). */
  static final int MAX_PENDING = 200_000;

  /** Counts of one base (an update id) of one app. */
  static final class Base {
    final AtomicLong served = new AtomicLong();
    final AtomicLong failed = new AtomicLong();
    volatile boolean stopped;
  }

  private final LongSupplier clockMs;
  private final ConcurrentHashMap<String, Long> pending = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, Base> bases = new ConcurrentHashMap<>();
  private final Counter failedUpdate;
  private final Counter failedEmbedded;
  private final Counter forgotten;
  private final AtomicLong stopped = new AtomicLong();

  PatchFailures(MeterRegistry registry, LongSupplier clockMs) {
    this.clockMs = clockMs;
    this.failedUpdate = failures(registry, "update");
    this.failedEmbedded = failures(registry, "embedded");
    this.forgotten = Counter.builder("updraft.edge.patch.failures.untracked")
        .description("226 answers forgotten before their window ended (more than " + MAX_PENDING + " pending): a failure of theirs is not counted")
        .register(registry);
    Gauge.builder("updraft.edge.patch.bases.stopped", stopped, AtomicLong::get)
        .description("Bases this edge serves no more patches from: at least " + MIN_FAILURES + " failed, half of those served").register(registry);
  }

  private static Counter failures(MeterRegistry registry, String kind) {
    return Counter.builder("updraft.edge.patch.failures").tag("base", kind)
        .description("Patches devices could not use (a full download of the same bundle followed the 226), by kind of base").register(registry);
  }

  /** Whether patches from {@code baseUpdateId} are no longer served. */
  boolean stopped(String appId, String baseUpdateId) {
    Base b = bases.get(appId + '/' + baseUpdateId);
    return b != null && b.stopped;
  }

  /** A 226 went to {@code clientId} (nullable: not tracked) for {@code targetSha256} from {@code baseUpdateId}. */
  void served(String appId, String targetSha256, String baseUpdateId, String clientId) {
    bases.computeIfAbsent(appId + '/' + baseUpdateId, k -> new Base()).served.incrementAndGet();
    if (clientId == null) {
      return;
    }
    if (pending.size() >= MAX_PENDING) {
      trim();
    }
    pending.put(key(appId, targetSha256, baseUpdateId, clientId), clockMs.getAsLong() + WINDOW_MS);
  }

  /**
   * A full bundle is about to go to {@code clientId} running {@code currentUpdateId}: counts a failure when a
   * 226 for the same bundle went to that device from that base within the window.
   *
   * @return whether it was a failed patch
   */
  boolean full(String appId, String targetSha256, String currentUpdateId, String clientId, String embeddedUpdateId) {
    if (clientId == null || currentUpdateId == null || pending.isEmpty()) {
      return false;
    }
    Long until = pending.remove(key(appId, targetSha256, currentUpdateId, clientId));
    if (until == null || until < clockMs.getAsLong()) {
      return false;
    }
    (currentUpdateId.equals(embeddedUpdateId) ? failedEmbedded : failedUpdate).increment();
    Base b = bases.computeIfAbsent(appId + '/' + currentUpdateId, k -> new Base());
    long failed = b.failed.incrementAndGet();
    if (!b.stopped && failed >= MIN_FAILURES && failed * 2 >= b.served.get()) {
      b.stopped = true;
      stopped.incrementAndGet();
    }
    return true;
  }

  /** Served and failed patches of each base seen, by {@code appId/baseUpdateId}. */
  Map<String, Base> bases() {
    return java.util.Collections.unmodifiableMap(bases);
  }

  private void trim() {
    long now = clockMs.getAsLong();
    int dropped = 0;
    for (Iterator<Map.Entry<String, Long>> it = pending.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<String, Long> e = it.next();
      if (e.getValue() < now || pending.size() > MAX_PENDING / 2) {
        it.remove();
        dropped += e.getValue() < now ? 0 : 1;
      }
    }
    forgotten.increment(dropped);
  }

  private static String key(String appId, String target, String base, String clientId) {
    return appId + '/' + target + '/' + base + '/' + clientId;
  }
}
