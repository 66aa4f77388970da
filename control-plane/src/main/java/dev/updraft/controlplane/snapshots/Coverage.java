package dev.updraft.controlplane.snapshots;

import dev.updraft.events.SnapshotCodec.SnapshotManifest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Which events of {@code updraft.events} the latest snapshots cover: per app its partition, the offset of
 * its last event, the first offset its latest snapshot does not cover, and how many events it has had
 * since. From that, which apps are due a snapshot and the partition markers. Command thread only.
 */
final class Coverage {
  /** One app's position. */
  static final class App {
    final String appId;
    int partition = -1;
    long lastOffset = -1;
    /** -1: every event of the app is in its latest snapshot. */
    long firstUncovered = -1;
    long eventsSince;
    Instant lastSnapshotAt;
    /** Of the latest snapshot (its chunks are deleted when the next is written); null when none. */
    String snapshotId;
    int chunks;

    App(String appId, Instant since) {
      this.appId = appId;
      this.lastSnapshotAt = since;
    }
  }

  private final Map<String, App> apps = new HashMap<>();
  /** Per partition, the offset after the last event folded. */
  private final Map<Integer, Long> partitionEnd = new TreeMap<>();

  /** The app starts from this snapshot, written at {@code at} (or found at start). */
  void restored(SnapshotManifest m, Instant at) {
    App a = app(m.appId(), at);
    a.partition = m.partition();
    a.lastOffset = Math.max(a.lastOffset, m.offset());
    a.snapshotId = m.snapshotId();
    a.chunks = m.chunks();
    partitionEnd.merge(m.partition(), m.offset() + 1, Math::max);
  }

  /** A snapshot of the app was found but cannot be used: its chunks are still replaced by the next. */
  void unusable(SnapshotManifest m, Instant now) {
    App a = app(m.appId(), now);
    a.snapshotId = m.snapshotId();
    a.chunks = m.chunks();
  }

  /** An event of the app was folded. */
  void folded(String appId, int partition, long offset, Instant now) {
    App a = app(appId, now);
    a.partition = partition;
    a.lastOffset = offset;
    if (a.firstUncovered < 0) {
      a.firstUncovered = offset;
    }
    a.eventsSince++;
    partitionEnd.merge(partition, offset + 1, Math::max);
  }

  /** The apps due a snapshot at {@code now}. */
  List<App> due(Instant now, SnapshotPolicy policy) {
    List<App> out = new ArrayList<>();
    for (App a : apps.values()) {
      if (a.eventsSince > 0 && a.lastOffset >= 0
          && (a.eventsSince >= policy.everyEvents() || Duration.between(a.lastSnapshotAt, now).compareTo(policy.every()) >= 0)) {
        out.add(a);
      }
    }
    out.sort((x, y) -> x.appId.compareTo(y.appId));
    return out;
  }

  /** The app's snapshot {@code snapshotId} in {@code chunks} chunks now covers every event folded. */
  void written(App a, String snapshotId, int chunks, Instant now) {
    a.firstUncovered = -1;
    a.eventsSince = 0;
    a.lastSnapshotAt = now;
    a.snapshotId = snapshotId;
    a.chunks = chunks;
  }

  /**
   * Per partition seen, from which offset its events are needed: the smallest offset of an event no
   * snapshot covers, or the offset after its last event when snapshots cover all.
   */
  Map<Integer, Long> markers() {
    Map<Integer, Long> out = new TreeMap<>(partitionEnd);
    for (App a : apps.values()) {
      if (a.firstUncovered >= 0 && a.partition >= 0) {
        out.merge(a.partition, a.firstUncovered, Math::min);
      }
    }
    return out;
  }

  /** The markers once the snapshots of {@code apps} (covering every event they have) are written. */
  Map<Integer, Long> markersIfWritten(List<App> written) {
    Map<Integer, Long> out = new TreeMap<>(partitionEnd);
    java.util.Set<App> done = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    done.addAll(written); // a set: with thousands of apps a list's contains made this quadratic
    for (App a : apps.values()) {
      if (a.firstUncovered >= 0 && a.partition >= 0 && !done.contains(a)) {
        out.merge(a.partition, a.firstUncovered, Math::min);
      }
    }
    return out;
  }

  private App app(String appId, Instant since) {
    return apps.computeIfAbsent(appId, id -> new App(id, since));
  }
}
