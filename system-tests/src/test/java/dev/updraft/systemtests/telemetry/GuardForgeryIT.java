package dev.updraft.systemtests.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Telemetry a stranger cannot forge into a revert (issue 42), with the real edge, Kafka, ingester, PostgreSQL and
 * control plane. A guarded rollout (at most 20 % failures among at least 10 devices within an hour) has 40 healthy
 * devices, each on a network of its own. A stranger on one network (127.0.0.1: one /24, one address bucket) makes
 * 30 fresh client ids fetch the update and then report it failed: 30 of 70 devices would be 42.9 %, but one address
 * bucket counts for at most 10 failing devices (the default {@code --guard-max-failures-per-address}), 10 of 70 is
 * 14.3 %, and the guard holds. The same numbers from devices on 30 networks of their own fire it. The source
 * networks are real: each request's socket is bound to its own 127.x.y.1 (Linux routes all of 127/8 to lo), so the
 * edge sees the peer address it would see in production; no X-Forwarded-For is trusted.
 */
@ExtendWith(RealInfrastructure.class)
class GuardForgeryIT {
  static TelemetryStack stack;
  static long sent;

  @BeforeAll
  static void start(Infra infra, @TempDir Path dir) {
    stack = TelemetryStack.start(infra.kafkaBootstrap(), infra.topicPrefix(), infra.pgHost() + ":" + infra.pgPort() + "/" + infra.database(),
        infra.pgUser(), dir, Duration.ofMillis(200));
  }

  @AfterAll
  static void stop() {
    if (stack != null) {
      stack.close();
    }
  }

  @Test
  void freshClientIdsFromOneNetworkDoNotFireTheGuardButServedDevicesOnTheirOwnNetworksDo() {
    Rollout forged = rollout("forged");
    Rollout real = rollout("real");
    List<String> forgedIds = TelemetryEndToEndIT.clientsIn(forged.rolloutId, "f", 70, true);
    List<String> realIds = TelemetryEndToEndIT.clientsIn(real.rolloutId, "r", 70, true);
    for (int i = 0; i < 70; i++) { // every device fetches the update: 40 healthy, each on its own network, then 30 more
      served(forged, i < 40 ? "127.1." + i + ".1" : "127.0.0.1", forgedIds.get(i));
      served(real, i < 40 ? "127.1." + i + ".1" : "127.2." + i + ".1", realIds.get(i));
    }
    // every serve is in PostgreSQL before the first failure is sent: the guard never sees a failure among fewer than the
    // 70 served devices (a failure ingested ahead of other devices' serves, from another partition, would otherwise be
    // a share of fewer devices, and 10 capped failures of 45 devices are above 20 %)
    stack.awaitCheckInsSent(sent);
    stack.awaitIngested(sent);
    for (int i = 40; i < 70; i++) {
      // the stranger's 30 fresh ids, all from 127.0.0.1, report the update failed
      failed(forged, "127.0.0.1", forgedIds.get(i));
      // 30 real devices, each on a network of its own: the same requests
      failed(real, "127.2." + i + ".1", realIds.get(i));
    }
    stack.awaitCheckInsSent(sent);
    stack.awaitIngested(sent);

    TelemetryStack.poll(() -> status(real).equals("reverted"), () -> "the guard did not revert the rollout whose served devices failed");
    // the 70 served devices were all counted before any failure arrived: the guard fired at f failed of 70, the first f
    // above its 20 % being 15 (the forged rollout, one bucket capped at 10 of 70, stays active)
    Matcher m = Pattern.compile("guard fired: (\\d+) of (\\d+) devices").matcher(revert(real).get("summary").asText());
    assertThat(m.find()).as(revert(real).get("summary").asText()).isTrue();
    int f = Integer.parseInt(m.group(1));
    int n = Integer.parseInt(m.group(2));
    assertThat(n).as("devices the guard counted").isEqualTo(70);
    assertThat(f).as("failed devices the guard counted").isBetween(15, 30);
    assertThat(f * 100.0 / n).as("failure share when it fired").isGreaterThan(20.0);
    // with every check-in in PostgreSQL, the guard looked at the forged rollout at least twice more: it holds
    double passes = stack.controlMetric("updraft_guard_passes_total");
    TelemetryStack.poll(() -> stack.controlMetric("updraft_guard_passes_total") >= passes + 2, () -> "the guard did not run");
    assertThat(status(forged)).as("the rollout flooded from one network").isEqualTo("active");
    assertThat(revert(forged)).isNull();
    // what the ingester stored: one bucket for the stranger's 30 ids, 30 for the real devices; never an address
    assertThat(buckets("forged")).hasSize(1).allMatch(b -> b.matches("[0-9a-f]{16}"));
    assertThat(buckets("real")).hasSize(30).allMatch(b -> b.matches("[0-9a-f]{16}"));
    // the insights still show every report (they count devices, not the guard's cap)
    assertThat(stack.get("/v1/apps/forged/insights/updates/" + forged.group).get("total").get("failedDevices").asLong()).isEqualTo(30);
  }

  /** The distinct address buckets of {@code app}'s rows in update_failures. */
  static Set<String> buckets(String app) {
    Set<String> out = new HashSet<>();
    try (Connection c = DriverManager.getConnection(stack.jdbcUrl());
        PreparedStatement q = c.prepareStatement("SELECT DISTINCT address_bucket FROM update_failures WHERE app_id = ?")) {
      q.setString(1, app);
      try (ResultSet rs = q.executeQuery()) {
        while (rs.next()) {
          out.add(String.valueOf(rs.getString(1)));
        }
      }
    } catch (SQLException e) {
      throw new AssertionError("reading update_failures: " + e, e);
    }
    return out;
  }

  record Rollout(String app, String group, String rolloutId, String updateId) {}

  static Rollout rollout(String app) {
    stack.ok("apps", "create", app);
    JsonNode base = publish(app, Fixtures.update1());
    JsonNode rolled = publish(app, Fixtures.update2(), "--rollout-percentage", "50", "--guard-max-failure-rate", "20",
        "--guard-min-devices", "10", "--guard-window", "1h");
    stack.awaitEdgeCaughtUp();
    Map<String, String> ids = TelemetryEndToEndIT.ids(rolled);
    assertThat(base.get("groupId").asText()).isNotEqualTo(rolled.get("groupId").asText());
    return new Rollout(app, rolled.get("groupId").asText(), rolled.get("rollout").get("rolloutId").asText(), ids.get("ios"));
  }

  static JsonNode publish(String app, Path export, String... extra) {
    List<String> args = new java.util.ArrayList<>(List.of("publish", "--app", app, "--branch", "main", "--runtime-version",
        TelemetryStack.RUNTIME, "--dist", export.toString(), "--json"));
    args.addAll(List.of(extra));
    return stack.ok(args.toArray(new String[0])).json();
  }

  static String status(Rollout r) {
    return stack.rolloutStatus(r.app, r.group);
  }

  static JsonNode revert(Rollout r) {
    return stack.guardRevert(r.app);
  }

  /** A launch from the embedded bundle: the rollout's update is served. */
  static void served(Rollout r, String source, String clientId) {
    String answer = request(r.app, source, clientId, null);
    assertThat(answer).as("%s from %s", clientId, source).startsWith("HTTP/1.1 200").contains(r.updateId);
  }

  /** The next launch reports the update failed: it is not served again (the control update, or a revert's replacement). */
  static void failed(Rollout r, String source, String clientId) {
    String answer = request(r.app, source, clientId, r.updateId);
    assertThat(answer).as("%s from %s", clientId, source).startsWith("HTTP/1.1 200").doesNotContain(r.updateId + "\"");
  }

  /** One iOS manifest request from a socket bound to {@code source}, as expo-updates sends it; the whole answer. */
  static String request(String app, String source, String clientId, String failedId) {
    URI edge = URI.create(stack.edgeUrl());
    String head = "GET /apps/" + app + "/manifest HTTP/1.1\r\n"
        + "host: 127.0.0.1:" + edge.getPort() + "\r\n"
        + "accept: multipart/mixed,application/expo+json,application/json\r\n"
        + "expo-platform: ios\r\n"
        + "expo-protocol-version: 1\r\n"
        + "expo-runtime-version: " + TelemetryStack.RUNTIME + "\r\n"
        + "expo-channel-name: main\r\n"
        + "expo-current-update-id: " + TelemetryEndToEndIT.EMB_IOS + "\r\n"
        + "expo-embedded-update-id: " + TelemetryEndToEndIT.EMB_IOS + "\r\n"
        + "eas-client-id: " + clientId + "\r\n"
        + (failedId == null ? "" : "expo-recent-failed-update-ids: \"" + failedId + "\"\r\n")
        + "connection: close\r\n\r\n";
    try (Socket s = new Socket()) {
      s.bind(new InetSocketAddress(source, 0));
      s.connect(new InetSocketAddress("127.0.0.1", edge.getPort()), 10_000);
      s.setSoTimeout(30_000);
      OutputStream out = s.getOutputStream();
      out.write(head.getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = s.getInputStream();
      sent++;
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new AssertionError("device request from " + source + " failed: " + e, e);
    }
  }
}
