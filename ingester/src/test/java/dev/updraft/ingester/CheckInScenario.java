package dev.updraft.ingester;

import dev.updraft.events.CheckIn;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;

/**
 * A reproducible fleet's check-ins (repeats, two platforms, three channels including none, failure
 * reports, fatal errors, check-ins without a client id) and what PostgreSQL must hold after ingesting
 * them, worked out here straight from the list, without any code of the ingester.
 */
final class CheckInScenario {
  static final String[] PLATFORMS = {"ios", "android"};

  final String appId;
  final List<CheckIn> checkIns;

  private CheckInScenario(String appId, List<CheckIn> checkIns) {
    this.appId = appId;
    this.checkIns = checkIns;
  }

  static String id(String name, String platform) {
    return UUID.nameUUIDFromBytes((name + "/" + platform).getBytes(StandardCharsets.UTF_8)).toString();
  }

  static String embedded(String platform) {
    return id("embedded", platform);
  }

  static String u1(String platform) {
    return id("u1", platform);
  }

  static String u2(String platform) {
    return id("u2", platform);
  }

  /**
   * @param n check-ins
   * @param deviceCount size of the device pool (check-ins with a client id pick one at random)
   * @param startMillis edge time of the first check-in; each next one is 7 ms later
   */
  static CheckInScenario generate(String appId, long seed, int n, int deviceCount, long startMillis) {
    Random rnd = new Random(seed);
    String[] clients = new String[deviceCount];
    String[] platforms = new String[deviceCount];
    String[] channels = new String[deviceCount];
    for (int d = 0; d < deviceCount; d++) {
      clients[d] = new UUID(rnd.nextLong(), rnd.nextLong()).toString();
      platforms[d] = PLATFORMS[rnd.nextInt(2)];
      channels[d] = channel(rnd);
    }
    List<CheckIn> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      String client;
      String platform;
      String channel;
      if (rnd.nextInt(100) < 8) {
        client = null;
        platform = PLATFORMS[rnd.nextInt(2)];
        channel = channel(rnd);
      } else {
        int d = rnd.nextInt(deviceCount);
        client = clients[d];
        platform = platforms[d];
        channel = channels[d];
      }
      int r = rnd.nextInt(100);
      String current = r < 40 ? embedded(platform) : r < 75 ? u1(platform) : r < 95 ? u2(platform) : null;
      int f = rnd.nextInt(100);
      List<String> failed =
          f < 6 ? List.of(u2(platform)) : f < 8 ? List.of(u2(platform), u1(platform)) : List.of();
      int o = rnd.nextInt(100);
      String outcome;
      String reason;
      String served = null;
      String servedGroup = null;
      Integer bucket = null;
      if (o < 35) {
        outcome = CheckIn.OUTCOME_UPDATE;
        reason = CheckIn.REASON_NEW_UPDATE;
        served = u2(platform);
        servedGroup = id("u2", "group");
        bucket = rnd.nextInt(10_000);
      } else if (o < 90) {
        outcome = CheckIn.OUTCOME_NO_UPDATE;
        reason = CheckIn.REASON_ALREADY_LATEST;
      } else {
        outcome = CheckIn.OUTCOME_ROLLBACK;
        reason = CheckIn.REASON_ROLLBACK;
      }
      String fatal = rnd.nextInt(100) < 2 ? "Error: boom " + i : null;
      out.add(
          CheckIn.builder()
              .checkInId(appId + "-" + seed + "-" + i)
              .appId(appId)
              .platform(platform)
              .runtimeVersion("1.0.0")
              .channel(channel)
              .clientId(client)
              .currentUpdateId(current)
              .embeddedUpdateId(embedded(platform))
              .failedUpdateIds(failed)
              .outcome(outcome)
              .reason(reason)
              .branch(channel == null ? "main" : channel)
              .inBranchRollout(rnd.nextInt(10) == 0)
              .rolloutBucket(bucket)
              .servedUpdateId(served)
              .servedGroupId(servedGroup)
              .fatalError(fatal)
              .atEpochMillis(startMillis + 7L * i)
              .edgeId("edge-" + (i % 2))
              .build());
    }
    return new CheckInScenario(appId, out);
  }

  private static String channel(Random rnd) {
    int c = rnd.nextInt(10);
    return c < 6 ? "production" : c < 9 ? "staging" : null;
  }

  // ---- what PostgreSQL must hold, from the list alone ----

  /** Distinct client ids. */
  Set<String> devices() {
    Set<String> s = new HashSet<>();
    for (CheckIn c : checkIns) {
      if (c.clientId() != null) {
        s.add(c.clientId());
      }
    }
    return s;
  }

  long anonymous() {
    return checkIns.stream().filter(c -> c.clientId() == null).count();
  }

  /** Each device's newest check-in (the list is in sending order). */
  Map<String, CheckIn> lastByDevice() {
    Map<String, CheckIn> m = new LinkedHashMap<>();
    for (CheckIn c : checkIns) {
      if (c.clientId() != null) {
        m.put(c.clientId(), c);
      }
    }
    return m;
  }

  Map<String, Long> checkInsByDevice() {
    Map<String, Long> m = new HashMap<>();
    for (CheckIn c : checkIns) {
      if (c.clientId() != null) {
        m.merge(c.clientId(), 1L, Long::sum);
      }
    }
    return m;
  }

  /** Launches per current update ("" for none reported), with or without a client id. */
  Map<String, Long> launchesByUpdate() {
    Map<String, Long> m = new HashMap<>();
    for (CheckIn c : checkIns) {
      m.merge(c.currentUpdateId() == null ? "" : c.currentUpdateId(), 1L, Long::sum);
    }
    return m;
  }

  /** Launches on the embedded bundle (current = embedded). */
  long embeddedLaunches() {
    return checkIns.stream().filter(c -> c.currentUpdateId() != null && c.currentUpdateId().equals(c.embeddedUpdateId())).count();
  }

  /** Check-ins listing each update as failed. */
  Map<String, Long> failureReportsByUpdate() {
    Map<String, Long> m = new HashMap<>();
    for (CheckIn c : checkIns) {
      for (String f : c.failedUpdateIds()) {
        m.merge(f, 1L, Long::sum);
      }
    }
    return m;
  }

  /** Distinct devices listing each update as failed. */
  Map<String, Long> failingDevicesByUpdate() {
    Map<String, Set<String>> s = new HashMap<>();
    for (CheckIn c : checkIns) {
      if (c.clientId() != null) {
        for (String f : c.failedUpdateIds()) {
          s.computeIfAbsent(f, k -> new HashSet<>()).add(c.clientId());
        }
      }
    }
    Map<String, Long> m = new HashMap<>();
    s.forEach((k, v) -> m.put(k, (long) v.size()));
    return m;
  }

  /** Distinct devices served each update. */
  Map<String, Long> servedDevicesByUpdate() {
    Map<String, Set<String>> s = new HashMap<>();
    for (CheckIn c : checkIns) {
      if (c.clientId() != null && CheckIn.OUTCOME_UPDATE.equals(c.outcome()) && c.servedUpdateId() != null) {
        s.computeIfAbsent(c.servedUpdateId(), k -> new HashSet<>()).add(c.clientId());
      }
    }
    Map<String, Long> m = new HashMap<>();
    s.forEach((k, v) -> m.put(k, (long) v.size()));
    return m;
  }

  /**
   * The download funnel: "update|stage|client" to the first time (epoch milliseconds) the device was seen at the stage:
   * served (an {@code update} answer), launched (its current update), failed (each update it lists as failed). The
   * scenario has no refusals and no asset check-ins; check-ins without a client id are no device.
   */
  Map<String, Long> funnelFirstTimes() {
    Map<String, Long> m = new HashMap<>();
    for (CheckIn c : checkIns) {
      if (c.clientId() == null) {
        continue;
      }
      if (CheckIn.OUTCOME_UPDATE.equals(c.outcome())) {
        m.merge(c.servedUpdateId() + "|served|" + c.clientId(), c.atEpochMillis(), Math::min);
      }
      if (c.currentUpdateId() != null) {
        m.merge(c.currentUpdateId() + "|launched|" + c.clientId(), c.atEpochMillis(), Math::min);
      }
      for (String f : c.failedUpdateIds()) {
        m.merge(f + "|failed|" + c.clientId(), c.atEpochMillis(), Math::min);
      }
    }
    return m;
  }

  /**
   * Devices now per "update|platform|channel|source" from each device's newest check-in: source is
   * embedded when the current update is the embedded one, unknown when none is reported, ota otherwise;
   * absent update or channel are "".
   */
  Map<String, Long> devicesNow() {
    Map<String, Long> m = new HashMap<>();
    for (CheckIn c : lastByDevice().values()) {
      String source =
          c.currentUpdateId() == null ? "unknown" : c.currentUpdateId().equals(c.embeddedUpdateId()) ? "embedded" : "ota";
      String key = (c.currentUpdateId() == null ? "" : c.currentUpdateId()) + "|" + c.platform() + "|"
          + (c.channel() == null ? "" : c.channel()) + "|" + source;
      m.merge(key, 1L, Long::sum);
    }
    return m;
  }
}
