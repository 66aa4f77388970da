package dev.updraft.ingester;

import dev.updraft.events.CheckIn;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The requests a {@link Batch}'s edges refused (unknown app, bad runtime version...), as the {@code refusals} and
 * {@code refused_devices} rows count them: per app, reason, runtime version and embedded update, how many requests
 * and when, and which devices with their first time. Not thread-safe: part of its batch.
 */
final class Refusals {
  /** A row of {@code refusals}: an app's refused requests of one reason, runtime version and embedded update ({@code ""}: none). */
  record RefusalKey(String appId, String reason, String runtimeVersion, String embeddedUpdateId)
      implements Comparable<RefusalKey> {
    @Override
    public int compareTo(RefusalKey o) {
      int c = appId.compareTo(o.appId);
      if (c == 0) {
        c = reason.compareTo(o.reason);
      }
      if (c == 0) {
        c = runtimeVersion.compareTo(o.runtimeVersion);
      }
      return c != 0 ? c : embeddedUpdateId.compareTo(o.embeddedUpdateId);
    }
  }

  /** The refused requests of one key in this batch; {@code devices} is added by the writer (new devices only). */
  static final class Refusal {
    final RefusalKey key;
    long requests;
    long devices;
    long first = Long.MAX_VALUE;
    long last = Long.MIN_VALUE;

    Refusal(RefusalKey key) {
      this.key = key;
    }
  }

  /** A device refused under one key, with the first time in this batch. */
  record RefusedDevice(RefusalKey key, String clientId, long first) {}

  private final Map<RefusalKey, Refusal> byKey = new HashMap<>();
  private final Map<RefusalKey, Map<String, Long>> devices = new HashMap<>();

  /** Counts a refused request under its (app, reason, runtime version, embedded update). */
  void add(CheckIn c, String app, String client, long at) {
    RefusalKey key = new RefusalKey(app, c.reason() == null ? "" : c.reason(),
        c.runtimeVersion() == null ? "" : c.runtimeVersion(), c.embeddedUpdateId() == null ? "" : c.embeddedUpdateId());
    Refusal r = byKey.computeIfAbsent(key, Refusal::new);
    r.requests++;
    r.first = Math.min(r.first, at);
    r.last = Math.max(r.last, at);
    if (client != null) {
      devices.computeIfAbsent(key, k -> new HashMap<>()).merge(client, at, Math::min);
    }
  }

  /** Refused requests per key. */
  Map<RefusalKey, Refusal> byKey() {
    return byKey;
  }

  /** The refused devices, one per key and client id. */
  List<RefusedDevice> devices() {
    List<RefusedDevice> out = new ArrayList<>();
    for (Map.Entry<RefusalKey, Map<String, Long>> e : devices.entrySet()) {
      for (Map.Entry<String, Long> d : e.getValue().entrySet()) {
        out.add(new RefusedDevice(e.getKey(), d.getKey(), d.getValue()));
      }
    }
    return out;
  }
}
