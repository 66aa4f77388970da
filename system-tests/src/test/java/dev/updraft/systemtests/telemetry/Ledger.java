package dev.updraft.systemtests.telemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Every device request a test sent and what the edge answered: the ground truth the insights are checked
 * against. The expected numbers are worked out here from their definitions (docs/api/openapi.yaml,
 * {@code UpdateStats}): launches are requests running an update, failure reports requests listing it as
 * failed, a device is a client id (compared in lower case) and its state is its newest request.
 * Nothing here reads the server's numbers.
 */
final class Ledger {
  /** One request: what the device sent and the update the edge served it (null: none). */
  record Sent(String clientId, String platform, String channel, String current, String embedded, List<String> failed, String served) {
    String device() {
      return clientId == null ? null : clientId.toLowerCase(Locale.ROOT);
    }
  }

  private final List<Sent> sent = new ArrayList<>();

  synchronized void add(Sent s) {
    sent.add(s);
  }

  synchronized int size() {
    return sent.size();
  }

  synchronized List<Sent> all() {
    return List.copyOf(sent);
  }

  /** Each device's newest request, by lower-cased client id. */
  Map<String, Sent> newest() {
    Map<String, Sent> out = new LinkedHashMap<>();
    for (Sent s : all()) {
      if (s.device() != null) {
        out.put(s.device(), s);
      }
    }
    return out;
  }

  Set<String> devices() {
    return newest().keySet();
  }

  long launches(String update) {
    return all().stream().filter(s -> update.equals(s.current())).count();
  }

  long failureReports(String update) {
    return all().stream().filter(s -> s.failed().contains(update)).count();
  }

  long devicesNow(String update) {
    return newest().values().stream().filter(s -> update.equals(s.current())).count();
  }

  Set<String> failedDevices(String update) {
    Set<String> out = new HashSet<>();
    for (Sent s : all()) {
      if (s.device() != null && s.failed().contains(update)) {
        out.add(s.device());
      }
    }
    return out;
  }

  Set<String> receivedDevices(String update) {
    Set<String> out = new HashSet<>();
    for (Sent s : all()) {
      if (s.device() != null && update.equals(s.served())) {
        out.add(s.device());
      }
    }
    return out;
  }

  /**
   * Checks {@code GET …/insights/updates/{group}} against this ledger: each platform's numbers, and the
   * total as their sums (a device runs one platform).
   */
  void assertGroup(JsonNode g, Map<String, String> updateIdByPlatform) {
    assertThat(g.get("platforms")).hasSize(updateIdByPlatform.size());
    long[] sum = new long[7];
    long union = 0;
    for (JsonNode p : g.get("platforms")) {
      String platform = p.get("platform").asText();
      String u = updateIdByPlatform.get(platform);
      assertThat(p.get("updateId").asText()).as(platform).isEqualTo(u);
      Set<String> failed = failedDevices(u);
      Set<String> received = receivedDevices(u);
      Set<String> either = new HashSet<>(failed);
      either.addAll(received);
      long[] v = {devicesNow(u), launches(u), launches(u), failureReports(u), failureReports(u), failed.size(), received.size()};
      String[] names = {"devicesNow", "launches24h", "launches7d", "failureReports24h", "failureReports7d", "failedDevices", "receivedDevices"};
      for (int i = 0; i < v.length; i++) {
        assertThat(p.get(names[i]).asLong()).as(platform + " " + names[i]).isEqualTo(v[i]);
        sum[i] += v[i];
      }
      union += either.size();
      rate(p.get("failureRatePercent"), failed.size(), either.size(), platform);
    }
    JsonNode t = g.get("total");
    String[] names = {"devicesNow", "launches24h", "launches7d", "failureReports24h", "failureReports7d", "failedDevices", "receivedDevices"};
    for (int i = 0; i < names.length; i++) {
      assertThat(t.get(names[i]).asLong()).as("total " + names[i]).isEqualTo(sum[i]);
    }
    rate(t.get("failureRatePercent"), sum[5], union, "total");
  }

  private static void rate(JsonNode actual, long failed, long devices, String what) {
    if (devices == 0) {
      assertThat(actual.isNull()).as(what + " failure rate with no devices").isTrue();
    } else {
      assertThat(actual.asDouble()).as(what + " failure rate").isCloseTo(100.0 * failed / devices, within(1e-9));
    }
  }

  /** Checks {@code GET …/insights/channels/{channel}} against this ledger. */
  void assertChannel(JsonNode c, String channel) {
    List<Sent> onIt = new ArrayList<>();
    for (Sent s : newest().values()) {
      if (channel.equals(s.channel())) {
        onIt.add(s);
      }
    }
    long embedded = onIt.stream().filter(s -> s.current().equals(s.embedded())).count();
    assertThat(c.get("devices").asLong()).as(channel + " devices").isEqualTo(onIt.size());
    assertThat(c.get("embeddedDevices").asLong()).as(channel + " embedded devices").isEqualTo(embedded);
    assertThat(c.get("otaDevices").asLong()).as(channel + " ota devices").isEqualTo(onIt.size() - embedded);
    assertThat(c.get("unknownDevices").asLong()).isZero();
    List<Sent> launches = all().stream().filter(s -> channel.equals(s.channel())).toList();
    long embeddedLaunches = launches.stream().filter(s -> s.current().equals(s.embedded())).count();
    assertThat(c.get("launches7d").asLong()).as(channel + " launches").isEqualTo(launches.size());
    assertThat(c.get("embeddedLaunches7d").asLong()).as(channel + " embedded launches").isEqualTo(embeddedLaunches);
    assertThat(c.get("otaLaunches7d").asLong()).as(channel + " ota launches").isEqualTo(launches.size() - embeddedLaunches);
    Map<String, long[]> rows = new TreeMap<>(); // platform update -> devices, embedded, ota
    for (Sent s : onIt) {
      long[] r = rows.computeIfAbsent(s.platform() + " " + s.current(), k -> new long[3]);
      r[0]++;
      r[s.current().equals(s.embedded()) ? 1 : 2]++;
    }
    Map<String, String> expected = new TreeMap<>();
    for (Map.Entry<String, long[]> e : rows.entrySet()) {
      long[] r = e.getValue();
      expected.put(e.getKey(), r[0] + " " + r[1] + " " + r[2] + " " + String.format(Locale.ROOT, "%.3f", 100.0 * r[0] / onIt.size()));
    }
    Map<String, String> actual = new TreeMap<>();
    for (JsonNode u : c.get("updates")) {
      actual.put(u.get("platform").asText() + " " + u.get("updateId").asText(),
          u.get("devices").asLong() + " " + u.get("embeddedDevices").asLong() + " " + u.get("otaDevices").asLong() + " "
              + String.format(Locale.ROOT, "%.3f", u.get("sharePercent").asDouble()));
    }
    assertThat(actual).as(channel + " adoption by update").isEqualTo(expected);
  }

  /**
   * A device's bucket in a rollout, computed here from the rule in docs/architecture.md ("a hash of the
   * lower-cased client id with the rollout's id"): SHA-256 of {@code clientId:rolloutId}, the first 8
   * bytes as an unsigned number, modulo 10,000.
   */
  static int bucket(String clientId, String rolloutId) {
    try {
      byte[] d = MessageDigest.getInstance("SHA-256")
          .digest((clientId.toLowerCase(Locale.ROOT) + ":" + rolloutId).getBytes(StandardCharsets.UTF_8));
      return new java.math.BigInteger(1, java.util.Arrays.copyOf(d, 8)).mod(java.math.BigInteger.valueOf(10_000)).intValue();
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
