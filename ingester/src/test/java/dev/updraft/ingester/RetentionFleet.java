package dev.updraft.ingester;

import dev.updraft.events.CheckIn;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * Check-ins of devices of many ages (days before a fixed "now"), and which rows of each table must
 * remain after a retention, worked out from the list alone, without any code of the ingester.
 */
final class RetentionFleet {
  static final long DAY = Duration.ofDays(1).toMillis();
  static final long HOUR = Duration.ofHours(1).toMillis();
  private static final int[] AGES_DAYS = {1, 6, 29, 31, 59, 61, 89, 91, 120, 179, 181, 400};

  final String appId;
  final Instant now;
  final List<CheckIn> checkIns = new ArrayList<>();

  RetentionFleet(String appId, Instant now) {
    this.appId = appId;
    this.now = now;
  }

  /**
   * {@code devices} devices, each with an earlier check-in on the embedded bundle 3 days before its last
   * one (so that it moves between counting keys), plus one check-in without a client id per device.
   */
  static RetentionFleet generate(String appId, Instant now, long seed, int devices) {
    RetentionFleet f = new RetentionFleet(appId, now);
    Random rnd = new Random(seed);
    for (int d = 0; d < devices; d++) {
      String client = String.format("dev-%04d-%s", d, Long.toHexString(rnd.nextLong()));
      String platform = rnd.nextBoolean() ? "ios" : "android";
      String channel = rnd.nextInt(5) == 0 ? null : rnd.nextBoolean() ? "production" : "staging";
      long last = now.toEpochMilli() - AGES_DAYS[rnd.nextInt(AGES_DAYS.length)] * DAY - rnd.nextInt((int) DAY);
      String current = rnd.nextInt(3) == 0 ? "u2-" + platform : "u1-" + platform;
      boolean fails = rnd.nextInt(4) == 0;
      boolean served = rnd.nextInt(3) == 0;
      f.checkIns.add(checkIn(appId, client + "-a", client, platform, channel, "emb-" + platform, List.of(), false,
          last - 3 * DAY));
      f.checkIns.add(checkIn(appId, client + "-b", client, platform, channel, current,
          fails ? List.of("u2-" + platform) : List.of(), served, last));
      f.checkIns.add(checkIn(appId, client + "-n", null, platform, channel, current, List.of(), false, last - HOUR));
    }
    return f;
  }

  static CheckIn checkIn(String app, String id, String client, String platform, String channel, String current,
      List<String> failed, boolean served, long at) {
    return CheckIn.builder()
        .checkInId(id)
        .appId(app)
        .platform(platform)
        .runtimeVersion("1.0.0")
        .channel(channel)
        .clientId(client)
        .currentUpdateId(current)
        .embeddedUpdateId("emb-" + platform)
        .failedUpdateIds(failed)
        .outcome(served ? CheckIn.OUTCOME_UPDATE : CheckIn.OUTCOME_NO_UPDATE)
        .reason(served ? CheckIn.REASON_NEW_UPDATE : CheckIn.REASON_ALREADY_LATEST)
        .branch("main")
        .servedUpdateId(served ? "u2-" + platform : null)
        .servedGroupId(served ? "g2" : null)
        .atEpochMillis(at)
        .edgeId("edge-1")
        .build();
  }

  private long cutoff(Duration keep) {
    return keep == null ? Long.MIN_VALUE : now.toEpochMilli() - keep.toMillis();
  }

  /** Each device's newest check-in, of the devices last seen within {@code keep}. */
  Map<String, CheckIn> devices(Duration keep) {
    Map<String, CheckIn> last = new LinkedHashMap<>();
    for (CheckIn c : checkIns) {
      if (c.clientId() != null) {
        CheckIn seen = last.get(c.clientId());
        if (seen == null || c.atEpochMillis() >= seen.atEpochMillis()) {
          last.put(c.clientId(), c);
        }
      }
    }
    last.values().removeIf(c -> c.atEpochMillis() < cutoff(keep));
    return last;
  }

  /** "update|platform|channel|source" to devices, over the devices kept. */
  Map<String, Long> deviceCounts(Duration keep) {
    Map<String, Long> m = new HashMap<>();
    for (CheckIn c : devices(keep).values()) {
      m.merge(countingKey(c), 1L, Long::sum);
    }
    return m;
  }

  static String countingKey(CheckIn c) {
    String source =
        c.currentUpdateId() == null ? "unknown" : c.currentUpdateId().equals(c.embeddedUpdateId()) ? "embedded" : "ota";
    return (c.currentUpdateId() == null ? "" : c.currentUpdateId()) + "|" + c.platform() + "|"
        + (c.channel() == null ? "" : c.channel()) + "|" + source;
  }

  /** "update|client" of the receipts first served within {@code keep}. */
  Set<String> receipts(Duration keep) {
    Map<String, Long> first = new HashMap<>();
    for (CheckIn c : checkIns) {
      if (c.clientId() != null && c.servedUpdateId() != null) {
        first.merge(c.servedUpdateId() + "|" + c.clientId(), c.atEpochMillis(), Math::min);
      }
    }
    return keptKeys(first, cutoff(keep));
  }

  /** "update|client" of the failures last reported within {@code keep}. */
  Set<String> failures(Duration keep) {
    Map<String, Long> last = new HashMap<>();
    for (CheckIn c : checkIns) {
      if (c.clientId() != null) {
        for (String f : c.failedUpdateIds()) {
          last.merge(f + "|" + c.clientId(), c.atEpochMillis(), Math::max);
        }
      }
    }
    return keptKeys(last, cutoff(keep));
  }

  /** "update|hour start millis|platform|channel" of the hours wholly or partly within {@code keep}. */
  Set<String> hours(Duration keep) {
    Map<String, Long> hours = new HashMap<>();
    for (CheckIn c : checkIns) {
      long hour = Math.floorDiv(c.atEpochMillis(), HOUR) * HOUR;
      String tail = "|" + hour + "|" + c.platform() + "|" + (c.channel() == null ? "" : c.channel());
      hours.put((c.currentUpdateId() == null ? "" : c.currentUpdateId()) + tail, hour);
      for (String f : c.failedUpdateIds()) {
        hours.put(f + tail, hour);
      }
      if (c.servedUpdateId() != null) {
        hours.put(c.servedUpdateId() + tail, hour);
      }
    }
    // an hour goes once its end is past the cutoff
    return keptKeys(hours, cutoff(keep) - HOUR);
  }

  private static Set<String> keptKeys(Map<String, Long> times, long cutoff) {
    Set<String> s = new HashSet<>();
    times.forEach((k, t) -> {
      if (t >= cutoff) {
        s.add(k);
      }
    });
    return s;
  }
}
