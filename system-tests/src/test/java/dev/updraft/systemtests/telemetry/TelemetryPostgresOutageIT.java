package dev.updraft.systemtests.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.updraft.embedded.EmbeddedPostgresServer;
import dev.updraft.systemtests.telemetry.Ledger.Sent;
import dev.updraft.systemtests.telemetry.TelemetryStack.Answer;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * PostgreSQL stops while devices keep checking in and starts again later. Meanwhile the edge keeps
 * answering devices, the control plane keeps publishing and steering, and only the insights routes say
 * they are unavailable (503, never a 500); once PostgreSQL is back every check-in is counted exactly once.
 * PostgreSQL is a server of this test's own (so it can be stopped); Kafka is the shared one.
 */
@ExtendWith(RealInfrastructure.class)
class TelemetryPostgresOutageIT {
  static final String EMB_IOS = "e0000000-0000-4000-8000-00000000003c";
  static final String EMB_ANDROID = "e0000000-0000-4000-8000-00000000004d";

  static String embedded(String platform) {
    return platform.equals("ios") ? EMB_IOS : EMB_ANDROID;
  }

  @Test
  void insightsAnswer503WhilePostgresIsDownAndCountEveryCheckInOnceItIsBack(Infra infra, @TempDir Path dir) {
    EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(dir.resolve("pg"), 0, false);
    try {
      pg.createDatabase("telemetry");
      try (TelemetryStack stack = TelemetryStack.start(infra.kafkaBootstrap(), infra.topicPrefix(), "127.0.0.1:" + pg.port() + "/telemetry",
          EmbeddedPostgresServer.USER, dir.resolve("cp"), Duration.ofMillis(200))) {
        run(stack, pg);
      }
    } finally {
      pg.close();
    }
  }

  private static void run(TelemetryStack stack, EmbeddedPostgresServer pg) {
    String app = "outage";
    stack.ok("apps", "create", app);
    JsonNode group = stack.ok("publish", "--app", app, "--branch", "production", "--runtime-version", TelemetryStack.RUNTIME,
        "--dist", Fixtures.update1().toString(), "--json").json();
    Map<String, String> head = new LinkedHashMap<>();
    for (JsonNode p : group.get("platforms")) {
      head.put(p.get("platform").asText(), p.get("updateId").asText());
    }
    String path = "/v1/apps/" + app + "/insights/updates/" + group.get("groupId").asText();
    stack.awaitEdgeCaughtUp();

    // 20 devices launch and are served the update; PostgreSQL has it all
    Ledger ledger = new Ledger();
    int devices = 20;
    for (int i = 0; i < devices; i++) {
      String p = i % 2 == 0 ? "ios" : "android";
      send(stack, ledger, app, client(i), p, embedded(p), List.of(), head.get(p));
    }
    stack.awaitAllIngested();
    ledger.assertGroup(stack.get(path), head);

    pg.stop();
    // insights say why they cannot answer; unknown groups are still 404s (answered from the state)
    TelemetryStack.Resp down = stack.api(path);
    assertThat(down.status()).as(down.text()).isEqualTo(503);
    assertThat(down.errorCode()).isEqualTo("insights-unavailable");
    assertThat(down.json().path("error").path("message").asText()).contains("PostgreSQL at 127.0.0.1:" + pg.port() + "/telemetry");
    assertThat(stack.api("/v1/apps/" + app + "/devices/" + client(0)).status()).isEqualTo(503);
    assertThat(stack.api("/v1/apps/" + app + "/insights/channels/production").status()).isEqualTo(503);
    assertThat(stack.api("/v1/apps/" + app + "/insights/updates/0b6c2f0e-9f3a-4c1e-8d7b-5a4e3c2b1a00").errorCode()).isEqualTo("update-not-found");

    // the rest of the control plane works: reads, a channel mapping, health
    assertThat(stack.get("/v1/apps/" + app).get("appId").asText()).isEqualTo(app);
    stack.ok("channel", "--app", app, "--channel", "staff", "--branch", "production");
    assertThat(stack.api("/healthz").status()).isEqualTo(200);
    TelemetryStack.Run cli = stack.cli("insights", "--app", app, "--update", group.get("groupId").asText());
    assertThat(cli.status()).isEqualTo(1);
    assertThat(cli.err().strip()).startsWith("error: insights are unavailable").endsWith("[insights-unavailable]");

    // devices keep checking in: they run the update, 5 of them report it failed
    for (int i = 0; i < devices; i++) {
      String p = i % 2 == 0 ? "ios" : "android";
      if (i % 4 == 1) {
        send(stack, ledger, app, client(i), p, embedded(p), List.of(head.get(p)), null);
      } else {
        send(stack, ledger, app, client(i), p, head.get(p), List.of(), null);
      }
    }
    send(stack, ledger, app, null, "ios", head.get("ios"), List.of(), null);

    pg.restart();
    stack.awaitAllIngested();
    // 20 + 20 + 1 requests from 20 devices; 5 failing (i % 4 == 1), all android
    assertThat(ledger.size()).isEqualTo(41);
    JsonNode back = stack.get(path);
    ledger.assertGroup(back, head);
    assertThat(back.get("total").get("failedDevices").asLong()).isEqualTo(5);
    assertThat(back.get("total").get("devicesNow").asLong()).isEqualTo(15);
    ledger.assertChannel(stack.get("/v1/apps/" + app + "/insights/channels/production"), "production");
    assertThat(stack.get("/v1/apps/" + app + "/devices/" + client(1)).get("served").get("reason").asText()).isEqualTo("update-previously-failed");
    assertThat(stack.controlMetric("updraft_insights_unavailable_total")).isGreaterThanOrEqualTo(4);
  }

  static String client(int i) {
    return String.format(Locale.ROOT, "a%07d-0000-4000-8000-000000000000", i);
  }

  static void send(TelemetryStack stack, Ledger ledger, String app, String clientId, String platform, String current, List<String> failed,
      String expectedUpdate) {
    Answer a = stack.device(app, clientId, platform, "production", current, embedded(platform), failed);
    assertThat(a.status()).as("the edge answers devices whatever PostgreSQL does").isEqualTo(200);
    assertThat(a.kind()).isEqualTo(expectedUpdate == null ? "noUpdateAvailable" : "manifest");
    assertThat(a.updateId()).isEqualTo(expectedUpdate);
    ledger.add(new Sent(clientId, platform, "production", current, embedded(platform), failed, a.updateId()));
  }
}
