package dev.updraft.ingester;

import dev.updraft.events.CheckIn;
import io.vertx.sqlclient.Tuple;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Bundle patches the edges served and those devices could not use (the launch-asset route's check-ins), folded per
 * batch into one row per (app, base update, update, platform) and written by one upsert into {@code patch_outcomes}
 * (V7, {@link Tables#PATCH_OUTCOMES}).
 *
 * <p>Not thread-safe: filled on the consumer thread with its {@link Batch}, then only read by the writer.
 */
final class PatchOutcomes {
  /** A row of {@code patch_outcomes}: patches from one base update to one update. */
  record Key(String appId, String baseUpdateId, String updateId, String platform) implements Comparable<Key> {
    @Override
    public int compareTo(Key o) {
      int c = appId.compareTo(o.appId);
      if (c == 0) {
        c = baseUpdateId.compareTo(o.baseUpdateId);
      }
      if (c == 0) {
        c = updateId.compareTo(o.updateId);
      }
      return c != 0 ? c : platform.compareTo(o.platform);
    }
  }

  /** Patches served and patches devices could not use (a full download followed), of one key, in this batch. */
  static final class Outcome {
    final Key key;
    boolean fromEmbedded;
    long served;
    long failed;
    long last = Long.MIN_VALUE;

    Outcome(Key key) {
      this.key = key;
    }
  }

  private final Map<Key, Outcome> rows = new HashMap<>();

  /**
   * Counts the patch check-in {@code c} (outcome {@code patch}) at {@code at} as served or failed under its key; one
   * without both ids, or a full download ({@code full-served}), is not counted.
   */
  void add(CheckIn c, long at) {
    if (c.currentUpdateId() == null || c.servedUpdateId() == null || CheckIn.REASON_FULL_SERVED.equals(c.reason())) {
      return;
    }
    Outcome o = rows.computeIfAbsent(
        new Key(c.appId(), c.currentUpdateId(), c.servedUpdateId(), c.platform() == null ? "" : c.platform()), Outcome::new);
    o.fromEmbedded |= c.currentUpdateId().equals(c.embeddedUpdateId());
    if (CheckIn.REASON_PATCH_FAILED.equals(c.reason())) {
      o.failed++;
    } else {
      o.served++;
    }
    o.last = Math.max(o.last, at);
  }

  /** The rows counted so far, by key. */
  Map<Key, Outcome> rows() {
    return rows;
  }

  /** The upsert's parameters in key order (concurrent writers lock the rows in one order), or null when there is none. */
  Tuple tuple() {
    return rows.isEmpty() ? null : Tables.PATCH_OUTCOMES.tuple(new TreeMap<>(rows).values());
  }
}
