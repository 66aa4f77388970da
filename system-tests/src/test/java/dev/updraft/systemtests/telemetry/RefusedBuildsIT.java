package dev.updraft.systemtests.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Through a real edge, Kafka, the ingester and PostgreSQL, with the real control plane and CLI: builds that
 * send no channel are refused and show in insights, the CLI and the API the first day ("5 devices on runtime
 * 1.0.0 send no channel"), counted exactly per reason, runtime version and embedded update, until the app
 * gets a default channel; and a device whose newest update crashed is served the earlier one, which its
 * device record explains ("skipped <id>: reported failed").
 */
@ExtendWith(RealInfrastructure.class)
class RefusedBuildsIT {
  static final String EMBEDDED_1 = "e1000000-0000-4000-8000-000000000001";
  static final String EMBEDDED_2 = "e2000000-0000-4000-8000-000000000002";
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

  static JsonNode publish(String app, String branch, Path export) {
    return stack.ok("publish", "--app", app, "--branch", branch, "--runtime-version", TelemetryStack.RUNTIME, "--dist", export.toString(),
        "--json").json();
  }

  static String id(JsonNode group, String platform) {
    for (JsonNode p : group.get("platforms")) {
      if (p.get("platform").asText().equals(platform)) {
        return p.get("updateId").asText();
      }
    }
    throw new AssertionError("no " + platform + " in " + group);
  }

  @Test
  void buildsWithoutAChannelAreCountedPerRuntimeAndEmbeddedUpdateUntilTheAppHasADefaultChannel() {
    String app = "deaf-fleet";
    stack.ok("apps", "create", app);
    JsonNode g = publish(app, "production", Fixtures.update1());
    stack.awaitEdgeCaughtUp();
    for (int i = 0; i < 5; i++) {
      for (int repeat = 0; repeat < 2; repeat++) {
        assertThat(stack.device(app, "deaf-1-" + i, "android", "1.0.0", null, EMBEDDED_1, EMBEDDED_1, List.of()).status()).isEqualTo(400);
      }
    }
    assertThat(stack.device(app, null, "android", "1.0.0", null, EMBEDDED_1, EMBEDDED_1, List.of()).status()).isEqualTo(400);
    for (int i = 0; i < 2; i++) {
      assertThat(stack.device(app, "deaf-2-" + i, "ios", "2.0.0", null, EMBEDDED_2, EMBEDDED_2, List.of()).status()).isEqualTo(400);
    }
    assertThat(stack.device(app, "fine", "ios", "production", EMBEDDED_2, EMBEDDED_2, List.of()).status()).isEqualTo(200);
    stack.awaitAllIngested();

    List<JsonNode> items = new ArrayList<>();
    TelemetryStack.poll(() -> {
      items.clear();
      stack.get("/v1/apps/" + app + "/insights/refusals").get("items").forEach(items::add);
      return items.stream().mapToLong(n -> n.get("requests").asLong()).sum() == 13;
    }, () -> "the ingester did not count 13 refusals: " + items);
    assertThat(items).hasSize(2);
    JsonNode v1 = items.get(0);
    assertThat(v1.get("reason").asText()).isEqualTo("missing-channel");
    assertThat(v1.get("runtimeVersion").asText()).isEqualTo("1.0.0");
    assertThat(v1.get("embeddedUpdateId").asText()).isEqualTo(EMBEDDED_1);
    assertThat(v1.get("devices").asLong()).as("distinct devices, each refused twice").isEqualTo(5);
    assertThat(v1.get("requests").asLong()).as("with the one without a client id").isEqualTo(11);
    assertThat(v1.get("summary").asText())
        .isEqualTo("5 devices on runtime 1.0.0 (embedded update " + EMBEDDED_1 + ") send no channel (expo-channel-name); set "
            + "updates.requestHeaders or a default channel");
    assertThat(items.get(1).get("runtimeVersion").asText()).isEqualTo("2.0.0");
    assertThat(items.get(1).get("devices").asLong()).isEqualTo(2);

    TelemetryStack.Run cli = stack.ok("insights", "--app", app, "--refused");
    assertThat(cli.out().lines().findFirst().orElseThrow()).startsWith(v1.get("summary").asText() + "  (missing-channel, last ");
    assertThat(stack.ok("insights", "--app", app, "--refused", "--json").json().get("items")).hasSize(2);

    stack.ok("apps", "update", app, "--default-channel", "production");
    stack.awaitEdgeCaughtUp();
    TelemetryStack.Answer served = stack.device(app, "deaf-1-0", "android", "1.0.0", null, EMBEDDED_1, EMBEDDED_1, List.of());
    assertThat(served.status()).as("answered for the default channel").isEqualTo(200);
    assertThat(served.updateId()).isEqualTo(id(g, "android"));
    assertThat(stack.get("/v1/apps/" + app).get("defaultChannel").asText()).isEqualTo("production");
  }

  @Test
  void aDeviceWhoseNewestUpdateCrashedIsServedTheEarlierOneAndItsRecordSaysWhy() {
    String app = "crashy";
    stack.ok("apps", "create", app);
    JsonNode good = publish(app, "production", Fixtures.update1());
    JsonNode crashing = publish(app, "production", Fixtures.update2());
    stack.awaitEdgeCaughtUp();
    String device = "c0000000-0000-4000-8000-000000000001";
    TelemetryStack.Answer first = stack.device(app, device, "android", "production", EMBEDDED_1, EMBEDDED_1, List.of());
    assertThat(first.updateId()).isEqualTo(id(crashing, "android"));
    // it crashed on the newest update, fell back to its embedded bundle and reports the update failed
    TelemetryStack.Answer after = stack.device(app, device, "android", "production", EMBEDDED_1, EMBEDDED_1, List.of(id(crashing, "android")));
    assertThat(after.kind()).isEqualTo("manifest");
    assertThat(after.updateId()).isEqualTo(id(good, "android"));
    stack.awaitAllIngested();

    List<JsonNode> record = new ArrayList<>();
    TelemetryStack.poll(() -> {
      TelemetryStack.Resp r = stack.api("/v1/apps/" + app + "/devices/" + device);
      record.clear();
      if (r.status() == 200) {
        record.add(r.json());
      }
      return r.status() == 200 && r.json().get("checkIns").asLong() == 2;
    }, () -> "the device's two check-ins did not reach insights: " + record);
    JsonNode d = record.get(0);
    assertThat(d.get("served").get("reason").asText()).isEqualTo("skipped-failed-update");
    assertThat(d.get("served").get("skippedUpdateIds")).extracting(JsonNode::asText).containsExactly(id(crashing, "android"));
    assertThat(d.get("explanation").asText())
        .isEqualTo("channel \"production\" → branch \"production\" → update " + id(good, "android") + " (group "
            + good.get("groupId").asText() + "): the newest this device did not report failed; skipped " + id(crashing, "android")
            + ": reported failed");
    assertThat(Map.of("cli", stack.ok("devices", "get", "--app", app, "--client-id", device).out().lines().findFirst().orElseThrow()))
        .containsEntry("cli", d.get("explanation").asText());
  }
}
