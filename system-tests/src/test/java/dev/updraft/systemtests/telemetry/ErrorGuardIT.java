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
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The guard on the errors apps report (issue 42), with the real edge, Kafka, ingester, PostgreSQL, control plane and the
 * real OpenTelemetry JS SDK. Two guarded rollouts (at most 20 % among at least 10 devices within an hour), each with 20
 * devices the edge served the update to, each device on a network of its own (its sockets bound to 127.3.x.1 or
 * 127.4.x.1). In the first, 8 of the served devices report a TypeError no device reported on the control update: the
 * guard reverts it, and the audit entry names the error group and the numbers. In the second, 30 fresh client ids that
 * no edge served report the same new error from one address, and 10 served devices report an error the control update's
 * devices reported too: neither counts, and the rollout stays active. The crash guard is tested with fatal OTLP reports and
 * with the {@code Expo-Fatal-Error} header.
 */
@ExtendWith(RealInfrastructure.class)
class ErrorGuardIT {
  static final String STACK = "TypeError: undefined is not an object (evaluating 'user.name')\n    at LoginScreen (index.bundle:1:4321)";
  static final String OLD_STACK = "RangeError: Maximum call stack size exceeded\n    at deepClone (index.bundle:1:500)";
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
  void servedDevicesReportingANewErrorGroupFireTheGuardButUnservedIdsAndOldErrorsDoNot() throws Exception {
    Rollout real = rollout("err-real");
    Rollout flood = rollout("err-flood");
    List<String> realIds = TelemetryEndToEndIT.clientsIn(real.rolloutId, "r", 20, true);
    List<String> floodIds = TelemetryEndToEndIT.clientsIn(flood.rolloutId, "f", 20, true);
    for (int i = 0; i < 20; i++) {
      serve(real, "127.3." + i + ".1", realIds.get(i));
      serve(flood, "127.4." + i + ".1", floodIds.get(i));
    }
    stack.awaitCheckInsSent(sent);
    stack.awaitIngested(sent);

    // the control update's devices report the RangeError: on the rollout's update it is not new
    List<Map<String, String>> control = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      control.add(device(flood.app, flood.controlUpdateId, "control-" + i + "-0000-4000-8000-000000000000", null));
    }
    OtelJs.report(stack.edgeUrl(), "logs-json", control, "RangeError", "Maximum call stack size exceeded", OLD_STACK);
    // 30 fresh ids nobody served, all from 127.0.0.1, report a new TypeError on the flooded rollout's update
    List<Map<String, String>> fresh = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      fresh.add(device(flood.app, flood.updateId, String.format("fresh%03d-0000-4000-8000-000000000000", i), null));
    }
    OtelJs.report(stack.edgeUrl(), "logs-proto", fresh, "TypeError", "undefined is not an object", STACK);
    // 10 served devices of the flooded rollout report the old RangeError, each from its own network
    List<Map<String, String>> old = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      old.add(device(flood.app, flood.updateId, floodIds.get(i), "127.4." + i + ".1"));
    }
    OtelJs.report(stack.edgeUrl(), "logs-json", old, "RangeError", "Maximum call stack size exceeded", OLD_STACK);
    // 8 of the real rollout's 20 served devices report the new TypeError, each from its own network: 40 % > 20 %
    List<Map<String, String>> failing = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      failing.add(device(real.app, real.updateId, realIds.get(i), "127.3." + i + ".1"));
    }
    OtelJs.report(stack.edgeUrl(), "logs-json", failing, "TypeError", "undefined is not an object", STACK);

    TelemetryStack.poll(() -> status(real).equals("reverted"), () -> "the guard did not revert the rollout whose served devices reported a new error");
    String summary = revert(real).get("summary").asText();
    assertThat(summary).contains("error group TypeError at LoginScreen (index.bundle)").contains("new in this update");
    // the guard may fire before the last reports are in: above 20 % of the 20 served is 5 to 8 of them
    Matcher m = Pattern.compile("(\\d+) of (\\d+) devices").matcher(summary);
    assertThat(m.find()).as(summary).isTrue();
    assertThat(Integer.parseInt(m.group(2))).as("devices served").isEqualTo(20);
    assertThat(Integer.parseInt(m.group(1))).as("served devices that reported the new group").isBetween(5, 8);

    // with every report stored (all 45 of the flooded app's), the guard looked at the flooded rollout twice more: it holds
    String errors = "/v1/apps/" + flood.app + "/updates/" + flood.group + "/errors";
    TelemetryStack.poll(() -> OtlpErrorsIT.occurrences(stack.get(errors)) == 40, () -> "the flooded app's 40 reports were not stored: " + stack.get(errors));
    double passes = stack.controlMetric("updraft_guard_passes_total");
    TelemetryStack.poll(() -> stack.controlMetric("updraft_guard_passes_total") >= passes + 2, () -> "the guard did not run");
    assertThat(status(flood)).as("the rollout flooded by unserved ids and old errors").isEqualTo("active");
    assertThat(revert(flood)).isNull();
    // the error groups still show what was reported (30 devices with the new TypeError; the old RangeError not new)
    JsonNode groups = stack.get(errors).get("groups");
    assertThat(groups.get(0).get("errorType").asText()).isEqualTo("TypeError");
    assertThat(groups.get(0).get("devices").asLong()).isEqualTo(30);
    assertThat(groups.get(0).get("newInUpdate").asBoolean()).isTrue();
    assertThat(groups.get(1).get("newInUpdate").asBoolean()).isFalse();
  }

  /**
   * Crashes: on one rollout, 6 of its 20 served devices report a fatal error (log severity FATAL) of a group the control
   * update's devices reported too, so not new in the update: 30 % > 20 %, the guard reverts it and the audit entry names
   * the crashes and the numbers. On another, 3 of 20 report it fatal (15 %) and 8 more the same error not fatal: it holds.
   */
  @Test
  void servedDevicesReportingFatalErrorsAboveTheRateFireTheGuardEvenForAnOldErrorGroup() throws Exception {
    Rollout crash = rollout("crash-real");
    Rollout held = rollout("crash-held");
    List<String> crashIds = TelemetryEndToEndIT.clientsIn(crash.rolloutId, "c", 20, true);
    List<String> heldIds = TelemetryEndToEndIT.clientsIn(held.rolloutId, "h", 20, true);
    for (int i = 0; i < 20; i++) {
      serve(crash, "127.5." + i + ".1", crashIds.get(i));
      serve(held, "127.6." + i + ".1", heldIds.get(i));
    }
    stack.awaitCheckInsSent(sent);
    stack.awaitIngested(sent);
    for (Rollout r : List.of(crash, held)) {
      for (int i = 0; i < 3; i++) {
        postLog(r.app, r.controlUpdateId, "ctl" + i + "-" + r.app + "-0000-4000-8000-000000000000", "127.0.0.1", 21);
      }
    }
    for (int i = 0; i < 8; i++) {
      postLog(held.app, held.updateId, heldIds.get(i), "127.6." + i + ".1", i < 3 ? 21 : 17);
    }
    for (int i = 0; i < 6; i++) {
      postLog(crash.app, crash.updateId, crashIds.get(i), "127.5." + i + ".1", 21);
    }

    TelemetryStack.poll(() -> status(crash).equals("reverted"), () -> "the guard did not revert the rollout whose served devices crashed");
    String summary = revert(crash).get("summary").asText();
    assertThat(summary).contains("crashes").contains("fatal error");
    Matcher m = Pattern.compile("(\\d+) of (\\d+) devices").matcher(summary);
    assertThat(m.find()).as(summary).isTrue();
    assertThat(Integer.parseInt(m.group(2))).as("devices served").isEqualTo(20);
    // the guard may fire before the last reports are in: above 20 % of the 20 served is 5 or 6 of them
    assertThat(Integer.parseInt(m.group(1))).as("served devices that crashed").isBetween(5, 6);

    String errors = "/v1/apps/" + held.app + "/updates/" + held.group + "/errors";
    TelemetryStack.poll(() -> OtlpErrorsIT.occurrences(stack.get(errors)) == 8, () -> "the held app's 8 reports were not stored: " + stack.get(errors));
    double passes = stack.controlMetric("updraft_guard_passes_total");
    TelemetryStack.poll(() -> stack.controlMetric("updraft_guard_passes_total") >= passes + 2, () -> "the guard did not run");
    assertThat(status(held)).as("3 of 20 served devices crashed: 15 %").isEqualTo("active");
    assertThat(revert(held)).isNull();
  }

  /**
   * Crashes reported with {@code Expo-Fatal-Error}, the header expo-updates sends once with its next manifest request after
   * a fatal error. On one rollout, 6 of its 20 served devices send it while running the rollout's update: 30 % > 20 %, the
   * guard reverts it and the audit entry names the crashes and the numbers. On another it holds: 30 fresh client ids no
   * edge served send it from one address; 8 served devices send it running the rollout's update but listing a newer
   * update among their recent failed ones (that launch crashed, the device fell back: a failure of the newer update, not a
   * crash of this one, 40 % if it were); 3 served devices send it with the rollout's update failed and the embedded bundle
   * running (15 %): failures, counted once.
   */
  @Test
  void servedDevicesSendingExpoFatalErrorOnTheUpdateFireTheGuardButUnservedIdsAndFailedLaunchesDoNot() throws Exception {
    Rollout crash = rollout("hdr-crash");
    Rollout held = rollout("hdr-held");
    List<String> crashIds = TelemetryEndToEndIT.clientsIn(crash.rolloutId, "x", 20, true);
    List<String> heldIds = TelemetryEndToEndIT.clientsIn(held.rolloutId, "y", 20, true);
    for (int i = 0; i < 20; i++) {
      serve(crash, "127.7." + i + ".1", crashIds.get(i));
      serve(held, "127.8." + i + ".1", heldIds.get(i));
    }
    stack.awaitCheckInsSent(sent);
    stack.awaitIngested(sent);
    String newer = "f0000000-0000-4000-8000-00000000000f";
    for (int i = 0; i < 30; i++) {
      crashed(held, "127.0.0.1", String.format("hdrfr%03d-0000-4000-8000-000000000000", i), held.updateId, null);
    }
    for (int i = 0; i < 8; i++) {
      crashed(held, "127.8." + i + ".1", heldIds.get(i), held.updateId, newer);
    }
    for (int i = 8; i < 11; i++) {
      crashed(held, "127.8." + i + ".1", heldIds.get(i), TelemetryEndToEndIT.EMB_IOS, held.updateId);
    }
    for (int i = 0; i < 6; i++) {
      crashed(crash, "127.7." + i + ".1", crashIds.get(i), crash.updateId, null);
    }

    TelemetryStack.poll(() -> status(crash).equals("reverted"), () -> "the guard did not revert the rollout whose served devices sent Expo-Fatal-Error");
    String summary = revert(crash).get("summary").asText();
    assertThat(summary).contains("crashes").contains("Expo-Fatal-Error");
    Matcher m = Pattern.compile("(\\d+) of (\\d+) devices").matcher(summary);
    assertThat(m.find()).as(summary).isTrue();
    assertThat(Integer.parseInt(m.group(2))).as("devices served").isEqualTo(20);
    // the guard may fire before the last check-ins are in: above 20 % of the 20 served is 5 or 6 of them
    assertThat(Integer.parseInt(m.group(1))).as("served devices that crashed").isBetween(5, 6);

    stack.awaitCheckInsSent(sent);
    stack.awaitIngested(sent);
    double passes = stack.controlMetric("updraft_guard_passes_total");
    TelemetryStack.poll(() -> stack.controlMetric("updraft_guard_passes_total") >= passes + 2, () -> "the guard did not run");
    assertThat(status(held)).as("unserved ids and crashes of failed launches are not crashes of the update").isEqualTo("active");
    assertThat(revert(held)).isNull();
    assertThat(stack.get("/v1/apps/" + held.app + "/insights/updates/" + held.group).get("total").get("failedDevices").asLong())
        .as("the 3 launches that failed with a fatal error are failures of the update").isEqualTo(3);
  }

  /** A manifest request running {@code current} with {@code Expo-Fatal-Error} (and {@code failedId} as recent failed), from {@code source}. */
  static void crashed(Rollout r, String source, String clientId, String current, String failedId) {
    String answer = manifest(r, source, clientId, current, "expo-fatal-error: TypeError: undefined is not an object (evaluating 'user.name')\r\n"
        + (failedId == null ? "" : "expo-recent-failed-update-ids: \"" + failedId + "\"\r\n"));
    assertThat(answer).as("%s from %s", clientId, source).startsWith("HTTP/1.1 200");
  }

  /** One OTLP/JSON log record with an exception (severity {@code severity}: 21 is FATAL) posted from a socket bound to {@code source}. */
  static void postLog(String app, String updateId, String clientId, String source, int severity) {
    String body = "{\"resourceLogs\":[{\"resource\":{\"attributes\":[" + attr("expo.app.id", app) + "," + attr("expo.update.id", updateId) + ","
        + attr("os.name", "ios") + "," + attr("expo.client.id", clientId) + "]},\"scopeLogs\":[{\"logRecords\":[{\"severityNumber\":" + severity
        + ",\"attributes\":[" + attr("exception.type", "RangeError") + "," + attr("exception.message", "Maximum call stack size exceeded") + ","
        + attr("exception.stacktrace", OLD_STACK.replace("\n", "\\n")) + "]}]}]}]}";
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    URI edge = URI.create(stack.edgeUrl());
    String head = "POST /v1/logs HTTP/1.1\r\nhost: 127.0.0.1:" + edge.getPort() + "\r\ncontent-type: application/json\r\ncontent-length: "
        + bytes.length + "\r\nconnection: close\r\n\r\n";
    try (Socket s = new Socket()) {
      s.bind(new InetSocketAddress(source, 0));
      s.connect(new InetSocketAddress("127.0.0.1", edge.getPort()), 10_000);
      s.setSoTimeout(30_000);
      OutputStream out = s.getOutputStream();
      out.write(head.getBytes(StandardCharsets.US_ASCII));
      out.write(bytes);
      out.flush();
      String answer = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(answer).as("report of %s from %s", clientId, source).startsWith("HTTP/1.1 200");
    } catch (IOException e) {
      throw new AssertionError("report from " + source + " failed: " + e, e);
    }
  }

  static String attr(String key, String value) {
    return "{\"key\":\"" + key + "\",\"value\":{\"stringValue\":\"" + value + "\"}}";
  }

  record Rollout(String app, String group, String rolloutId, String updateId, String controlUpdateId) {}

  static Rollout rollout(String app) {
    stack.ok("apps", "create", app);
    JsonNode base = publish(app, Fixtures.update1());
    JsonNode rolled = publish(app, Fixtures.update2(), "--rollout-percentage", "50", "--guard-max-failure-rate", "20",
        "--guard-min-devices", "10", "--guard-window", "1h");
    stack.awaitEdgeCaughtUp();
    return new Rollout(app, rolled.get("groupId").asText(), rolled.get("rollout").get("rolloutId").asText(),
        TelemetryEndToEndIT.ids(rolled).get("ios"), TelemetryEndToEndIT.ids(base).get("ios"));
  }

  static JsonNode publish(String app, Path export, String... extra) {
    List<String> args = new ArrayList<>(List.of("publish", "--app", app, "--branch", "main", "--runtime-version", TelemetryStack.RUNTIME,
        "--dist", export.toString(), "--json"));
    args.addAll(List.of(extra));
    return stack.ok(args.toArray(new String[0])).json();
  }

  static Map<String, String> device(String app, String updateId, String clientId, String localAddress) {
    Map<String, String> d = new HashMap<>();
    d.put("appId", app);
    d.put("updateId", updateId);
    d.put("channel", "main");
    d.put("runtimeVersion", TelemetryStack.RUNTIME);
    d.put("platform", "ios");
    d.put("clientId", clientId);
    if (localAddress != null) {
      d.put("localAddress", localAddress);
    }
    return d;
  }

  static String status(Rollout r) {
    return stack.rolloutStatus(r.app, r.group);
  }

  static JsonNode revert(Rollout r) {
    return stack.guardRevert(r.app);
  }

  /** A launch from the embedded bundle, from a socket bound to {@code source}: the rollout's update is served. */
  static void serve(Rollout r, String source, String clientId) {
    String answer = manifest(r, source, clientId, TelemetryEndToEndIT.EMB_IOS, "");
    assertThat(answer).as("%s from %s", clientId, source).startsWith("HTTP/1.1 200").contains(r.updateId);
  }

  /** One iOS manifest request running {@code current}, with {@code extra} header lines, from a socket bound to {@code source}; the whole answer. */
  static String manifest(Rollout r, String source, String clientId, String current, String extra) {
    URI edge = URI.create(stack.edgeUrl());
    String head = "GET /apps/" + r.app + "/manifest HTTP/1.1\r\n"
        + "host: 127.0.0.1:" + edge.getPort() + "\r\n"
        + "accept: multipart/mixed,application/expo+json,application/json\r\n"
        + "expo-platform: ios\r\n"
        + "expo-protocol-version: 1\r\n"
        + "expo-runtime-version: " + TelemetryStack.RUNTIME + "\r\n"
        + "expo-channel-name: main\r\n"
        + "expo-current-update-id: " + current + "\r\n"
        + "expo-embedded-update-id: " + TelemetryEndToEndIT.EMB_IOS + "\r\n"
        + "eas-client-id: " + clientId + "\r\n"
        + extra
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
