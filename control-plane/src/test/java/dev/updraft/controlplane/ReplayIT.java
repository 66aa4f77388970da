package dev.updraft.controlplane;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.updraft.controlplane.config.ControlPlaneConfig;
import dev.updraft.controlplane.state.AppState;
import dev.updraft.controlplane.state.ControlState;
import dev.updraft.controlplane.state.GroupState;
import dev.updraft.events.EventEnvelope;
import dev.updraft.events.RolloutEvents.RolloutReverted;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A scenario (create app, publish, rollout, revert, roll back to embedded, channel remap), then a fresh
 * control plane replays the log from offset 0 and holds exactly the same state, and goes on writing
 * gap-free.
 */
@ExtendWith(RealInfrastructure.class)
class ReplayIT {
  static Vertx vertx;

  @BeforeAll
  static void start() {
    vertx = Vertx.vertx();
  }

  @AfterAll
  static void stop() {
    TestSupport.await(vertx.close());
  }

  @Test
  void aFreshControlPlaneReplaysTheLogIntoExactlyTheSameState(Infra infra, @TempDir Path dir) throws Exception {
    ControlPlaneConfig config = TestSupport.config(infra, dir);
    ControlPlane first = TestSupport.start(vertx, config);
    ControlState before;
    String reverted;
    try {
      Http h = new Http("http://127.0.0.1:" + first.port(), TestSupport.ADMIN);
      ObjectNode app = Http.JSON.createObjectNode();
      app.put("appId", "replay");
      app.put("displayName", "Replay app");
      app.put("certificatePem", Files.readString(Fixtures.certificatePem()));
      app.put("privateKeyPem", Files.readString(Fixtures.privateKeyPkcs8Pem()));
      assertThat(h.post("/v1/apps", app).status()).isEqualTo(201);
      assertThat(h.post("/v1/apps", Map.of("appId", "replay-b")).status()).isEqualTo(201);
      String tokenId = h.post("/v1/apps/replay/tokens", Map.of("role", "publish", "label", "ci")).json().get("tokenId").asText();
      h.post("/v1/apps/replay-b/tokens", Map.of("role", "read"));
      h.post("/v1/apps/replay/tokens", Map.of("role", "read"));
      assertThat(h.delete("/v1/apps/replay/tokens/" + tokenId).status()).isEqualTo(200);

      ExportFixture.upload(h, "replay", Fixtures.update1());
      ExportFixture.upload(h, "replay", Fixtures.update2());
      Http.Resp p1 = h.post("/v1/apps/replay/updates", ExportFixture.publishBody(Fixtures.update1(), "production", "1.0.0"));
      assertThat(p1.status()).isEqualTo(201);
      ObjectNode rollout = ExportFixture.publishBody(Fixtures.update2(), "production", "1.0.0");
      rollout.put("rolloutPercentage", 25);
      rollout.set("rolloutGuard", Http.JSON.readTree("{\"maxFailureRatePercent\":5.0,\"minDevices\":100,\"windowSeconds\":3600}"));
      Http.Resp p2 = h.post("/v1/apps/replay/updates", rollout);
      assertThat(p2.status()).as(p2.toString()).isEqualTo(201);
      reverted = p2.json().get("groupId").asText();
      assertThat(p2.json().get("rollout").get("controlGroupId").asText()).isEqualTo(p1.json().get("groupId").asText());
      assertThat(h.patch("/v1/apps/replay/updates/" + reverted + "/rollout", Map.of("percentage", 50)).status()).isEqualTo(200);
      Http.Resp revert = h.post("/v1/apps/replay/updates/" + reverted + "/rollout/revert", Map.of("reason", "crash rate"));
      assertThat(revert.status()).as(revert.toString()).isEqualTo(200);
      JsonNode replacement = revert.json().get("replacement");
      assertThat(replacement.get("republishedFrom").asText()).isEqualTo(p1.json().get("groupId").asText());
      assertThat(Instant.parse(replacement.get("createdAt").asText())).isAfter(Instant.parse(p2.json().get("createdAt").asText()));

      Http.Resp rb = h.post("/v1/apps/replay/rollbacks", Map.of("branch", "production", "runtimeVersion", "1.0.0", "embedded", true));
      assertThat(rb.status()).as(rb.toString()).isEqualTo(201);
      JsonNode directive = Http.JSON.readTree(rb.json().get("platforms").get(0).get("body").asText());
      assertThat(directive.get("type").asText()).isEqualTo("rollBackToEmbedded");
      assertThat(Instant.parse(directive.get("parameters").get("commitTime").asText()))
          .isAfter(Instant.parse(replacement.get("createdAt").asText()));

      assertThat(h.put("/v1/apps/replay/channels/production", Map.of("branch", "production")).status()).isEqualTo(200);
      Http.Resp remap = h.put(
          "/v1/apps/replay/channels/production",
          Map.of("branch", "production", "rolloutBranch", "beta", "percentage", 10, "rolloutRuntimeVersion", "1.0.0"));
      assertThat(remap.status()).isEqualTo(200);
      Http.Resp raised = h.put("/v1/apps/replay/channels/production", Map.of("branch", "production", "rolloutBranch", "beta", "percentage", 30, "rolloutRuntimeVersion", "1.0.0"));
      assertThat(raised.json().get("rollout").get("rolloutId").asText())
          .as("raising the share keeps the bucketing salt")
          .isEqualTo(remap.json().get("rollout").get("rolloutId").asText());
      before = first.state();
    } finally {
      TestSupport.await(first.close());
    }

    ControlPlane second = TestSupport.start(vertx, config);
    try {
      ControlState after = second.state();
      assertThat(after).isEqualTo(before);
      AppState app = after.app("replay");
      assertThat(app.groups()).hasSize(4);
      GroupState g = app.group(reverted);
      assertThat(g.rollout().status()).isEqualTo("reverted");
      assertThat(g.rollout().percentage()).isEqualTo(50);
      assertThat(app.tokens().values()).filteredOn(t -> t.revoked()).hasSize(1);
      assertThat(after.tokensBySha256()).hasSize(2);

      // the new writer continues the same sequence
      Http h = new Http("http://127.0.0.1:" + second.port(), TestSupport.ADMIN);
      long last = app.lastSequence();
      assertThat(h.put("/v1/apps/replay/channels/staging", Map.of("branch", "staging")).status()).isEqualTo(200);
      List<EventEnvelope> events = TestSupport.events(infra, "replay");
      for (int i = 0; i < events.size(); i++) {
        assertThat(events.get(i).sequence()).isEqualTo(i + 1);
      }
      assertThat(events.get(events.size() - 1).sequence()).isEqualTo(last + 1);
      assertThat(events).extracting(e -> e.type().wireName()).containsExactly(
          "app.created", "signing-key.registered", "token.issued", "token.issued", "token.revoked",
          "update.published", "update.published", "rollout.changed", "rollout.reverted", "update.rolled-back-to-embedded",
          "channel.mapped", "channel.mapped", "channel.mapped", "channel.mapped");
      RolloutReverted r = (RolloutReverted) events.get(8).payload();
      assertThat(r.reason()).isEqualTo("crash rate");
      assertThat(events.get(8).actor()).isEqualTo("admin");
      // the audit of the new writer's event (newest first, by its actor, paged): system-tests HistoryIT, where an
      // ingester projects the log into PostgreSQL
    } finally {
      TestSupport.await(second.close());
    }
  }
}
