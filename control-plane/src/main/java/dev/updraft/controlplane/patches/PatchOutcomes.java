package dev.updraft.controlplane.patches;

import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One app's bundle patches served and failed (devices that fetched the full bundle right after the 226: they
 * could not use it), from the telemetry database's {@code patch_outcomes}, and the bases patches are no longer
 * made or served from: a base update id (a registered build's embedded id is its base) is stopped once
 * {@link #MIN_FAILURES} of its patches failed and those are at least half of the patches served from it, all
 * updates and edges together (each edge also stops it on its own count, at the same rule). Immutable.
 */
final class PatchOutcomes {
  /** Failures a base needs before it is stopped (also at least half of its patches served). */
  static final long MIN_FAILURES = 20;
  static final PatchOutcomes NONE = new PatchOutcomes(List.of());

  /** One row: patches from {@code baseUpdateId} to {@code updateId}. */
  record Row(String baseUpdateId, String updateId, String platform, boolean fromEmbedded, long served, long failed) {}

  private final List<Row> rows;
  private final Map<String, long[]> byBase = new HashMap<>();

  PatchOutcomes(List<Row> rows) {
    this.rows = List.copyOf(rows);
    for (Row r : rows) {
      long[] t = byBase.computeIfAbsent(r.baseUpdateId(), k -> new long[2]);
      t[0] += r.served();
      t[1] += r.failed();
    }
  }

  /** Patches served and failed from {@code baseUpdateId}, all updates: {served, failed}. */
  long[] ofBase(String baseUpdateId) {
    long[] t = byBase.get(baseUpdateId);
    return t == null ? new long[2] : t.clone();
  }

  /** The rows of patches to {@code updateId}, one per base and platform. */
  List<Row> rowsOf(String updateId) {
    List<Row> out = new java.util.ArrayList<>();
    for (Row r : rows) {
      if (r.updateId().equals(updateId)) {
        out.add(r);
      }
    }
    return out;
  }

  /** Whether patches from {@code baseUpdateId} are stopped. */
  boolean stopped(String baseUpdateId) {
    long[] t = byBase.get(baseUpdateId);
    return t != null && t[1] >= MIN_FAILURES && t[1] * 2 >= t[0];
  }

  /** Every stopped base. */
  Set<String> stopped() {
    Set<String> out = new LinkedHashSet<>();
    for (String b : byBase.keySet()) {
      if (stopped(b)) {
        out.add(b);
      }
    }
    return out;
  }
}
