package dev.updraft.edge.assets;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The asset route's counters: launch assets served as a patch or in full, bytes sent, bytes a patch
 * saved (the full bundle in the encoding the device would have got, minus the patch), patch requests
 * answered in full by reason, interim copies the edge encoded itself, and storage failures. Thread-safe.
 */
final class AssetMetrics {
  private final MeterRegistry registry;
  private final Counter patches;
  private final Counter fulls;
  private final Counter patchBytes;
  private final Counter fullBytes;
  private final Counter saved;
  private final Counter upstream;
  private final ConcurrentHashMap<String, Counter> misses = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, Counter> interim = new ConcurrentHashMap<>();

  AssetMetrics(MeterRegistry registry) {
    this.registry = registry;
    this.patches = Counter.builder("updraft.edge.assets.served").tag("kind", "patch").description("Launch assets served, by kind").register(registry);
    this.fulls = Counter.builder("updraft.edge.assets.served").tag("kind", "full").description("Launch assets served, by kind").register(registry);
    this.patchBytes = Counter.builder("updraft.edge.assets.bytes").tag("kind", "patch").description("Launch-asset bytes sent, by kind").register(registry);
    this.fullBytes = Counter.builder("updraft.edge.assets.bytes").tag("kind", "full").description("Launch-asset bytes sent, by kind").register(registry);
    this.saved = Counter.builder("updraft.edge.patch.bytes.saved")
        .description("Bytes patches saved: the full bundle in the device's encoding minus the patch").register(registry);
    this.upstream = Counter.builder("updraft.edge.assets.storage.failures")
        .description("Full launch-asset requests storage did not answer with the expected bytes (502)").register(registry);
    for (String r : new String[] {"no-base", "same-update", "unknown-base", "not-loaded", "failing-base"}) {
      miss(r, false);
    }
    for (String o : new String[] {"made", "not-smaller", "failed", "too-large", "served"}) {
      interim(o, false);
    }
  }

  /** An interim (edge-made) copy: made, not-smaller, failed or too-large; or served (one answer sent with one). */
  void interim(String outcome) {
    interim(outcome, true);
  }

  private void interim(String outcome, boolean count) {
    Counter c = interim.computeIfAbsent(outcome, o -> Counter.builder("updraft.edge.assets.interim").tag("outcome", o)
        .description("Interim encoded copies of launch assets the edge made before the stored ones existed, by outcome").register(registry));
    if (count) {
      c.increment();
    }
  }

  void patch(long bytes, long fullSize) {
    patches.increment();
    patchBytes.increment(bytes);
    saved.increment(Math.max(0, fullSize - bytes));
  }

  void full(long bytes) {
    fulls.increment();
    fullBytes.increment(bytes);
  }

  void upstreamFailure() {
    upstream.increment();
  }

  void miss(String reason) {
    miss(reason, true);
  }

  private void miss(String reason, boolean count) {
    Counter c = misses.computeIfAbsent(reason, r -> Counter.builder("updraft.edge.patch.misses").tag("reason", r)
        .description("Patch requests answered with the full bundle, by reason").register(registry));
    if (count) {
      c.increment();
    }
  }
}
