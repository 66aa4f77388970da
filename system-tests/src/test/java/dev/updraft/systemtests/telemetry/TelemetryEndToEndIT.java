package dev.updraft.systemtests.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.updraft.systemtests.telemetry.Ledger.Sent;
import dev.updraft.systemtests.telemetry.TelemetryStack.Answer;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Device requests through a real edge, Kafka, the ingester and PostgreSQL, with updates published
 * through the real control plane and CLI, read back through the insights routes and the CLI: exact
 * counts across an ingester killed in the middle of the stream, device explanations, and the
 * automatic-revert guard fed by failure reports sent as devices send them.
 */
@ExtendWith(RealInfrastructure.class)
class TelemetryEndToEndIT {
  static final String EMB_IOS = "e0000000-0000-4000-8000-00000000001a";
  static final String EMB_ANDROID = "e0000000-0000-4000-8000-00000000002b";
  static TelemetryStack stack;

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

  static String embedded(String platform) {
    return platform.equals("ios") ? EMB_IOS : EMB_ANDROID;
  }

  /** Publishes an export through the CLI; returns the group's JSON. */
  static JsonNode publish(String app, String branch, Path export, String... extra) {
    List<String> args = new ArrayList<>(List.of("publish", "--app", app, "--branch", branch, "--runtime-version", TelemetryStack.RUNTIME,
        "--dist", export.toString(), "--json"));
    args.addAll(List.of(extra));
    return stack.ok(args.toArray(new String[0])).json();
  }

  static Map<String, String> ids(JsonNode group) {
    Map<String, String> out = new LinkedHashMap<>();
    for (JsonNode p : group.get("platforms")) {
      out.put(p.get("platform").asText(), p.get("updateId").asText());
    }
    return out;
  }

  /** Sends one device request, checks the answer against what the protocol says it must be, and records it. */
  static Answer send(Ledger ledger, String app, String clientId, String platform, String channel, String current, List<String> failed,
      String expectedUpdate) {
    Answer a = stack.device(app, clientId, platform, channel, current, embedded(platform), failed);
    assertThat(a.status()).isEqualTo(200);
    if (expectedUpdate == null) {
      assertThat(a.kind()).as("%s %s on %s running %s", clientId, platform, channel, current).isEqualTo("noUpdateAvailable");
    } else {
      assertThat(a.kind()).as("%s %s on %s running %s", clientId, platform, channel, current).isEqualTo("manifest");
      assertThat(a.updateId()).isEqualTo(expectedUpdate);
    }
    ledger.add(new Sent(clientId, platform, channel, current, embedded(platform), failed, a.updateId()));
    return a;
  }

  /**
   * 120 devices on two platforms and two channels (production → branch production, staff → branch beta),
   * each launched from its embedded bundle, served the branch's update, then running it, or (one in five)
   * reporting it failed; some repeat; four requests carry no client id. The ingester is killed while the
   * first requests are being written and a new one takes over; every number is exact.
   */
  @Test
  void countsEveryCheckInOnceAcrossAnIngesterKilledMidStreamAndExplainsDevices() throws Exception {
    String app = "fleet";
    stack.ok("apps", "create", app);
    String productionGroup = publish(app, "production", Fixtures.update1(), "--message", "first").get("groupId").asText();
    Map<String, String> production = ids(stack.get("/v1/apps/" + app + "/updates/" + productionGroup));
    JsonNode betaGroup = publish(app, "beta", Fixtures.update2(), "--message", "beta");
    Map<String, String> beta = ids(betaGroup);
    stack.ok("channel", "--app", app, "--channel", "staff", "--branch", "beta");
    // a per-update rollout on branch canary, for the "outside the rollout" explanation
    JsonNode control = publish(app, "canary", Fixtures.update1());
    JsonNode rollout = publish(app, "canary", Fixtures.update2(), "--rollout-percentage", "50");
    stack.awaitEdgeCaughtUp();

    Ledger ledger = new Ledger();
    int devices = 120;
    List<String> clients = new ArrayList<>();
    for (int i = 0; i < devices; i++) {
      String id = String.format(Locale.ROOT, "d%07d-0000-4000-8000-%012d", i, i);
      clients.add(i % 2 == 0 ? id.toUpperCase(Locale.ROOT) : id); // iOS sends it upper case
    }
    java.util.function.IntFunction<String> platform = i -> i % 2 == 0 ? "ios" : "android";
    java.util.function.IntFunction<String> channel = i -> i % 3 == 0 ? "staff" : "production";
    java.util.function.IntFunction<String> head = i -> (i % 3 == 0 ? beta : production).get(platform.apply(i));
    java.util.function.IntPredicate failing = i -> i % 5 == 2;

    // phase 1: every device launches from its embedded bundle and is served its branch's update, while
    // the first ingester writes; it is killed once it has committed something
    CompletableFuture<Void> phase1 =
        CompletableFuture.runAsync(() -> {
          for (int i = 0; i < devices; i++) {
            send(ledger, app, clients.get(i), platform.apply(i), channel.apply(i), embedded(platform.apply(i)), List.of(), head.apply(i));
          }
        });
    TelemetryStack.poll(() -> stack.checkInsCommitted() > 0, () -> "the first ingester committed nothing");
    long committedAtKill = stack.checkInsCommitted();
    stack.killIngester();
    phase1.get(120, TimeUnit.SECONDS);

    // phase 2, with no ingester running: the next launch runs the update, or reports it failed
    for (int i = 0; i < devices; i++) {
      String p = platform.apply(i);
      if (failing.test(i)) {
        send(ledger, app, clients.get(i), p, channel.apply(i), embedded(p), List.of(head.apply(i)), null);
      } else {
        send(ledger, app, clients.get(i), p, channel.apply(i), head.apply(i), List.of(), null);
      }
    }
    stack.startIngester();

    // phase 3: repeats, and requests without a client id (launches, but no device)
    for (int i = 0; i < devices; i++) {
      String p = platform.apply(i);
      if (failing.test(i) && i % 10 == 2) {
        send(ledger, app, clients.get(i), p, channel.apply(i), embedded(p), List.of(head.apply(i)), null);
      } else if (!failing.test(i) && i % 4 == 0) {
        send(ledger, app, clients.get(i), p, channel.apply(i), head.apply(i), List.of(), null);
      }
    }
    send(ledger, app, null, "ios", "production", production.get("ios"), List.of(), null);
    send(ledger, app, null, "ios", "production", production.get("ios"), List.of(), null);
    send(ledger, app, null, "android", "staff", EMB_ANDROID, List.of(), beta.get("android"));
    send(ledger, app, null, "ios", "production", EMB_IOS, List.of(production.get("ios")), null);

    // the canary: one device inside the 50 % rollout, one outside it
    String rolloutId = rollout.get("rollout").get("rolloutId").asText();
    String inside = null;
    String outside = null;
    for (int n = 0; inside == null || outside == null; n++) {
      String id = String.format(Locale.ROOT, "c%07d-0000-4000-8000-000000000000", n);
      if (Ledger.bucket(id, rolloutId) < 5000) {
        inside = inside == null ? id : inside;
      } else {
        outside = outside == null ? id : outside;
      }
    }
    send(ledger, app, inside, "ios", "canary", EMB_IOS, List.of(), ids(rollout).get("ios"));
    send(ledger, app, outside, "ios", "canary", EMB_IOS, List.of(), ids(control).get("ios"));

    int n = ledger.size();
    stack.awaitAllIngested();
    assertThat(committedAtKill).as("the first ingester had committed part of the stream when it was killed").isBetween(1L, (long) n - 1);
    assertThat(stack.ingestersStarted()).isEqualTo(2);

    // the numbers a user asks for, by hand: 120 launches from the embedded bundle, 120 second launches,
    // repeats by the 12 failing devices with i % 10 == 2 and the 24 others with i % 4 == 0, 4 requests
    // without a client id and 2 canaries: 282 requests from 122 devices, 24 of them failing
    assertThat(n).isEqualTo(282);
    assertThat(ledger.devices()).hasSize(122);
    long failingDevices = java.util.stream.IntStream.range(0, devices).filter(failing).count();
    assertThat(failingDevices).isEqualTo(24);

    JsonNode g1 = stack.get("/v1/apps/" + app + "/insights/updates/" + productionGroup);
    ledger.assertGroup(g1, production);
    JsonNode g2 = stack.get("/v1/apps/" + app + "/insights/updates/" + betaGroup.get("groupId").asText());
    ledger.assertGroup(g2, beta);
    // all devices that reported failures, across both groups: the K of the scenario
    assertThat(g1.get("total").get("failedDevices").asLong() + g2.get("total").get("failedDevices").asLong()).isEqualTo(24);
    assertThat(g1.get("total").get("receivedDevices").asLong() + g2.get("total").get("receivedDevices").asLong()).isEqualTo(120);
    ledger.assertChannel(stack.get("/v1/apps/" + app + "/insights/channels/production"), "production");
    ledger.assertChannel(stack.get("/v1/apps/" + app + "/insights/channels/staff"), "staff");
    ledger.assertGroup(stack.get("/v1/apps/" + app + "/insights/updates/" + rollout.get("groupId").asText()), ids(rollout));

    // a device that got no update because it reported the update failed (i = 7: android, production)
    JsonNode failed = stack.get("/v1/apps/" + app + "/devices/" + clients.get(7));
    assertThat(failed.get("clientId").asText()).isEqualTo(clients.get(7).toLowerCase(Locale.ROOT));
    assertThat(failed.get("checkIns").asLong()).isEqualTo(2);
    assertThat(failed.get("source").asText()).isEqualTo("embedded");
    assertThat(failed.get("served").get("reason").asText()).isEqualTo("update-previously-failed");
    assertThat(failed.get("explanation").asText())
        .isEqualTo("channel \"production\" → branch \"production\" → no update: this device reported the newest update failed (failed: "
            + production.get("android") + ")");
    // an iOS device asked for in upper case, as iOS sends its id, is the same device
    JsonNode upper = stack.get("/v1/apps/" + app + "/devices/" + clients.get(0));
    assertThat(upper.get("checkIns").asLong()).as("device 0: launch, run, repeat").isEqualTo(3);
    assertThat(upper.get("currentUpdateId").asText()).isEqualTo(beta.get("ios"));

    // a device outside the per-update rollout: its bucket and which side of the rollout it is on
    int b = Ledger.bucket(outside, rolloutId);
    JsonNode out = stack.get("/v1/apps/" + app + "/devices/" + outside);
    assertThat(out.get("served").get("rolloutBucket").asInt()).isEqualTo(b);
    assertThat(out.get("explanation").asText())
        .isEqualTo("channel \"canary\" → branch \"canary\" → rollout bucket " + b + " → update " + ids(control).get("ios") + " (group "
            + control.get("groupId").asText() + "): newer than the running " + EMB_IOS + "; bucket " + b + " is outside the rollout of group "
            + rollout.get("groupId").asText() + " (now at 50 %, which takes buckets 0–4999), so the device gets the rollout's control group "
            + control.get("groupId").asText());
    assertThat(stack.get("/v1/apps/" + app + "/devices/" + inside).get("explanation").asText())
        .endsWith("bucket " + Ledger.bucket(inside, rolloutId) + " is inside the rollout of group " + rollout.get("groupId").asText()
            + " (now at 50 %, which takes buckets 0–4999)");

    // the same through the CLI
    TelemetryStack.Run cliGroup = stack.ok("insights", "--app", app, "--update", productionGroup);
    String iosId = production.get("ios");
    assertThat(cliGroup.out().lines().filter(l -> l.startsWith("ios ")).findFirst().orElseThrow().split("\\s+"))
        .startsWith("ios", iosId, Long.toString(ledger.devicesNow(iosId)), Long.toString(ledger.launches(iosId)), Long.toString(ledger.launches(iosId)),
            ledger.failureReports(iosId) + "/" + ledger.failureReports(iosId), Long.toString(ledger.failedDevices(iosId).size()),
            Long.toString(ledger.receivedDevices(iosId).size()));
    assertThat(withoutTimes(stack.ok("insights", "--app", app, "--update", productionGroup, "--json").json())).isEqualTo(withoutTimes(g1));
    TelemetryStack.Run cliChannel = stack.ok("insights", "--app", app, "--channel", "staff");
    assertThat(cliChannel.out()).contains(ledger.newest().values().stream().filter(s -> s.channel().equals("staff")).count()
        + " devices last checked in on it");
    TelemetryStack.Run cliDevice = stack.ok("devices", "get", "--app", app, "--client-id", clients.get(7));
    assertThat(cliDevice.out().lines().findFirst().orElseThrow()).isEqualTo(failed.get("explanation").asText());
    assertThat(cliDevice.out()).contains("reported failed   " + production.get("android"));
    TelemetryStack.Run unknown = stack.cli("devices", "get", "--app", app, "--client-id", "never-seen");
    assertThat(unknown.status()).isEqualTo(1);
    assertThat(unknown.err().strip()).startsWith("error: no device with client id never-seen").endsWith("[device-not-found]");
  }

  /** An answer without its clock-dependent fields (two answers computed a moment apart differ only there). */
  private static JsonNode withoutTimes(JsonNode n) {
    com.fasterxml.jackson.databind.node.ObjectNode copy = n.deepCopy();
    copy.remove(List.of("asOf", "since24h", "since7d"));
    return copy;
  }

  /**
   * A rollout at 50 % whose guard allows at most 20 % failures among at least 10 devices within an hour:
   * 2 of its 10 devices reporting it failed is not above the limit, and a guarded rollout whose 5 devices
   * all failed is below its minimum; the guard leaves both. A third failure among the 10 makes it revert the
   * rollout by itself, as actor {@code guard} with the numbers, visible in the audit log and the CLI, and
   * devices get the control group again. Failures are reported as devices report them, through the edge.
   */
  @Test
  void theGuardRevertsARolloutOnlyOnceFailureReportsPassItsLimit() {
    String app = "guarded";
    stack.ok("apps", "create", app);
    JsonNode base = publish(app, "main", Fixtures.update1());
    JsonNode rolled = publish(app, "main", Fixtures.update2(), "--rollout-percentage", "50",
        "--guard-max-failure-rate", "20", "--guard-min-devices", "10", "--guard-window", "1h");
    String group = rolled.get("groupId").asText();
    JsonNode smallControl = publish(app, "small", Fixtures.update1());
    JsonNode small = publish(app, "small", Fixtures.update2(), "--rollout-percentage", "50",
        "--guard-max-failure-rate", "20", "--guard-min-devices", "10", "--guard-window", "1h");
    stack.awaitEdgeCaughtUp();

    Ledger ledger = new Ledger();
    List<String> in = clientsIn(rolled.get("rollout").get("rolloutId").asText(), "g", 11, true);
    List<String> out = clientsIn(rolled.get("rollout").get("rolloutId").asText(), "g", 3, false);
    Map<String, String> rolledIds = ids(rolled);
    Map<String, String> baseIds = ids(base);
    // 10 devices inside the rollout get it; 3 outside get the control group, and 2 of those report the
    // control failed (not the rollout's update: the guard does not count them)
    for (int i = 0; i < 10; i++) {
      String p = i % 2 == 0 ? "ios" : "android";
      send(ledger, app, in.get(i), p, "main", embedded(p), List.of(), rolledIds.get(p));
    }
    for (int i = 0; i < 3; i++) {
      send(ledger, app, out.get(i), "ios", "main", EMB_IOS, List.of(), baseIds.get("ios"));
    }
    send(ledger, app, out.get(0), "ios", "main", EMB_IOS, List.of(baseIds.get("ios")), null);
    send(ledger, app, out.get(1), "ios", "main", EMB_IOS, List.of(baseIds.get("ios")), null);
    // 2 of the 10 report the rollout's update failed (20 %: not above the limit); they are served the
    // control group, the newest update they did not report (noUpdateAvailable before the fallback)
    send(ledger, app, in.get(0), "ios", "main", EMB_IOS, List.of(rolledIds.get("ios")), baseIds.get("ios"));
    send(ledger, app, in.get(1), "android", "main", EMB_ANDROID, List.of(rolledIds.get("android")), baseIds.get("android"));
    // the small rollout: 5 devices, all report it failed (100 %, but fewer than 10 devices)
    Map<String, String> smallIds = ids(small);
    for (String c : clientsIn(small.get("rollout").get("rolloutId").asText(), "s", 5, true)) {
      send(ledger, app, c, "android", "small", EMB_ANDROID, List.of(), smallIds.get("android"));
      send(ledger, app, c, "android", "small", EMB_ANDROID, List.of(smallIds.get("android")), ids(smallControl).get("android"));
    }
    stack.awaitAllIngested();
    JsonNode numbers = stack.get("/v1/apps/" + app + "/insights/updates/" + group);
    assertThat(numbers.get("total").get("receivedDevices").asLong()).isEqualTo(10);
    assertThat(numbers.get("total").get("failedDevices").asLong()).isEqualTo(2);
    assertThat(stack.get("/v1/apps/" + app + "/insights/updates/" + small.get("groupId").asText()).get("total").get("failedDevices").asLong())
        .isEqualTo(5);

    // with every check-in in PostgreSQL, let the guard look twice more: it must leave both rollouts alone
    double passes = stack.controlMetric("updraft_guard_passes_total");
    TelemetryStack.poll(() -> stack.controlMetric("updraft_guard_passes_total") >= passes + 2, () -> "the guard did not run");
    assertThat(stack.controlMetric("updraft_guard_evaluations_total{verdict=\"fires\"}")).isZero();
    assertThat(stack.controlMetric("updraft_guard_evaluations_total{verdict=\"holds\"}")).isGreaterThanOrEqualTo(4);
    assertThat(stack.get("/v1/apps/" + app + "/updates/" + group).get("rollout").get("status").asText()).isEqualTo("active");
    assertThat(stack.get("/v1/apps/" + app + "/updates/" + small.get("groupId").asText()).get("rollout").get("status").asText()).isEqualTo("active");
    for (JsonNode e : stack.get("/v1/apps/" + app + "/audit").get("items")) {
      assertThat(e.get("type").asText()).isNotEqualTo("rollout.reverted");
    }

    // a third device reports it failed: 3 of 10 devices, 30 % > 20 %
    send(ledger, app, in.get(2), "ios", "main", EMB_IOS, List.of(rolledIds.get("ios")), baseIds.get("ios"));
    TelemetryStack.poll(() -> stack.get("/v1/apps/" + app + "/updates/" + group).get("rollout").get("status").asText().equals("reverted"),
        () -> "the guard did not revert the rollout");
    JsonNode audit = stack.get("/v1/apps/" + app + "/audit");
    JsonNode reverted = null;
    for (JsonNode e : audit.get("items")) {
      if (e.get("type").asText().equals("rollout.reverted")) {
        assertThat(reverted).as("one revert").isNull();
        reverted = e;
      }
    }
    assertThat(reverted).isNotNull();
    String replacement = stack.get("/v1/apps/" + app + "/updates/" + group).get("revertedBy").asText();
    assertThat(reverted.get("actor").asText()).isEqualTo("guard");
    assertThat(reverted.get("summary").asText())
        .startsWith("rollout of group " + group + " reverted: guard fired: 3 of 10 devices (30.0 %) that received the rollout's updates since ")
        .endsWith("reported it failed; the guard allows at most 20.0 % among at least 10 devices within 3600 s; replaced by group " + replacement);
    assertThat(stack.controlMetric("updraft_guard_reverts_total")).isEqualTo(1.0);
    assertThat(stack.get("/v1/apps/" + app + "/updates/" + small.get("groupId").asText()).get("rollout").get("status").asText())
        .as("the small rollout stays: below its minimum of devices").isEqualTo("active");

    TelemetryStack.Run cliAudit = stack.ok("audit", "--app", app);
    assertThat(cliAudit.out().lines().filter(l -> l.contains("rollout of group " + group + " reverted")).findFirst().orElseThrow())
        .contains(" guard ").contains("guard fired: 3 of 10 devices (30.0 %)");

    // devices come back to the control group, republished as the replacement
    Map<String, String> replacementIds = ids(stack.get("/v1/apps/" + app + "/updates/" + replacement));
    stack.awaitEdgeCaughtUp();
    send(ledger, app, in.get(10), "ios", "main", EMB_IOS, List.of(), replacementIds.get("ios"));
  }

  /** {@code n} client ids (prefix {@code tag}) whose bucket in {@code rolloutId} at 50 % is inside (or outside) it. */
  static List<String> clientsIn(String rolloutId, String tag, int n, boolean inside) {
    List<String> out = new ArrayList<>();
    for (int i = 0; out.size() < n; i++) {
      String id = String.format(Locale.ROOT, "%s%07d-0000-4000-8000-000000000000", tag, i);
      if ((Ledger.bucket(id, rolloutId) < 5000) == inside) {
        out.add(id);
      }
    }
    return out;
  }
}
