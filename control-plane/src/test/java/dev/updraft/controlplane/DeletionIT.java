package dev.updraft.controlplane;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.updraft.events.EventEnvelope;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Deleting groups, branches, channels and apps over the API on real Kafka: each delete is an event with its
 * actor, deleted things stop being listed, and each refusal is a 4xx JSON error saying why and what to do.
 */
@ExtendWith(RealInfrastructure.class)
class DeletionIT {
  static Vertx vertx;
  static ControlPlane cp;
  static Http admin;
  static Path keyDir;

  @BeforeAll
  static void start(Infra infra, @TempDir Path dir) {
    vertx = Vertx.vertx();
    cp = TestSupport.start(vertx, TestSupport.config(infra, dir));
    admin = new Http("http://127.0.0.1:" + cp.port(), TestSupport.ADMIN);
    keyDir = dir.resolve("keys");
  }

  @AfterAll
  static void stop() {
    TestSupport.await(cp.close());
    TestSupport.await(vertx.close());
  }

  static String publish(String app, String branch) {
    ObjectNode body = ExportFixture.publishBody(Fixtures.update1(), branch, "1.0.0");
    Http.Resp r = admin.post("/v1/apps/" + app + "/updates", body);
    assertThat(r.status()).as(r.toString()).isEqualTo(201);
    return r.json().get("groupId").asText();
  }

  static String republish(String app, String branch, String groupId) {
    ObjectNode b = Http.JSON.createObjectNode();
    b.put("branch", branch);
    b.put("runtimeVersion", "1.0.0");
    b.put("toGroupId", groupId);
    Http.Resp r = admin.post("/v1/apps/" + app + "/rollbacks", b);
    assertThat(r.status()).as(r.toString()).isEqualTo(201);
    return r.json().get("groupId").asText();
  }

  static void map(String app, String channel, String branch) {
    assertThat(admin.put("/v1/apps/" + app + "/channels/" + channel, Map.of("branch", branch)).status()).isEqualTo(200);
  }

  static List<String> listed(String app) {
    List<String> out = new ArrayList<>();
    for (JsonNode g : admin.get("/v1/apps/" + app + "/updates").json().get("items")) {
      out.add(g.get("groupId").asText());
    }
    return out;
  }

  @Test
  void deletingAGroupAChannelServesIsRefusedUnlessForcedAndAnOlderOneIsNot(Infra infra) {
    String app = "del-groups";
    assertThat(admin.post("/v1/apps", Map.of("appId", app)).status()).isEqualTo(201);
    ExportFixture.upload(admin, app, Fixtures.update1());
    String g1 = publish(app, "main");
    String g2 = republish(app, "main", g1);
    String g3 = republish(app, "main", g1);
    map(app, "production", "main");

    Http.Resp refused = admin.delete("/v1/apps/" + app + "/updates/" + g3);
    assertThat(refused.status()).isEqualTo(409);
    assertThat(refused.errorCode()).isEqualTo("served-by-channel");
    assertThat(refused.errorMessage()).contains("channels main, production").contains("--force").contains("republish");

    Http.Resp older = admin.delete("/v1/apps/" + app + "/updates/" + g2);
    assertThat(older.status()).as(older.toString()).isEqualTo(200);
    assertThat(listed(app)).containsExactly(g3, g1);
    assertThat(admin.get("/v1/apps/" + app + "/updates/" + g2).status()).isEqualTo(404);
    assertThat(admin.delete("/v1/apps/" + app + "/updates/" + g2).errorCode()).isEqualTo("update-not-found");

    Http.Resp forced = admin.delete("/v1/apps/" + app + "/updates/" + g3 + "?force=true");
    assertThat(forced.status()).as(forced.toString()).isEqualTo(200);
    assertThat(listed(app)).containsExactly(g1);
    JsonNode branches = admin.get("/v1/apps/" + app + "/branches").json().get("items").get(0).get("runtimeVersions").get(0);
    assertThat(branches.get("latestGroupId").asText()).isEqualTo(g1);
    assertThat(branches.get("groupCount").asInt()).isEqualTo(1);

    List<EventEnvelope> events = TestSupport.events(infra, app);
    EventEnvelope last = events.get(events.size() - 1);
    assertThat(last.type().wireName()).isEqualTo("updates.deleted");
    assertThat(last.actor()).isEqualTo("admin");
    assertThat(events).extracting(e -> e.type().wireName()).contains("update.published");
  }

  @Test
  void aRolloutAndItsControlCannotBeDeleted() {
    String app = "del-rollout";
    assertThat(admin.post("/v1/apps", Map.of("appId", app)).status()).isEqualTo(201);
    ExportFixture.upload(admin, app, Fixtures.update1());
    String control = publish(app, "main");
    ObjectNode body = ExportFixture.publishBody(Fixtures.update1(), "main", "1.0.0");
    body.put("rolloutPercentage", 10);
    String rolling = admin.post("/v1/apps/" + app + "/updates", body).json().get("groupId").asText();
    for (String g : List.of(rolling, control)) {
      Http.Resp r = admin.delete("/v1/apps/" + app + "/updates/" + g + "?force=true");
      assertThat(r.status()).isEqualTo(409);
      assertThat(r.errorCode()).isEqualTo("rollout-in-progress");
      assertThat(r.errorMessage()).contains("--finish | --revert");
    }
  }

  @Test
  void aBranchWithASlashIsDeletedByItsEncodedName() {
    String app = "del-slash";
    assertThat(admin.post("/v1/apps", Map.of("appId", app)).status()).isEqualTo(201);
    ExportFixture.upload(admin, app, Fixtures.update1());
    String kept = publish(app, "main");
    String release = publish(app, "release/1.2");
    assertThat(admin.get("/v1/apps/" + app + "/branches").json().toString()).contains("\"release/1.2\"");

    assertThat(admin.delete("/v1/apps/" + app + "/branches/release/1.2").status()).as("an unencoded slash is another route").isEqualTo(404);
    Http.Resp deleted = admin.delete("/v1/apps/" + app + "/branches/release%2F1.2");
    assertThat(deleted.status()).as(deleted.toString()).isEqualTo(200);
    assertThat(deleted.json().get("deleted").asText()).isEqualTo("branch release/1.2");
    assertThat(deleted.json().get("groupIds")).extracting(JsonNode::asText).containsExactly(release);
    assertThat(listed(app)).containsExactly(kept);
    assertThat(admin.delete("/v1/apps/" + app + "/branches/release%2F1.2").errorCode()).isEqualTo("branch-not-found");
  }

  @Test
  void aBranchAChannelMapsCannotBeDeletedAndAnUnmappedOneGoesWithItsGroups() {
    String app = "del-branch";
    assertThat(admin.post("/v1/apps", Map.of("appId", app)).status()).isEqualTo(201);
    ExportFixture.upload(admin, app, Fixtures.update1());
    String kept = publish(app, "main");
    publish(app, "staging");
    map(app, "beta", "staging");
    map(app, "qa", "staging");

    Http.Resp refused = admin.delete("/v1/apps/" + app + "/branches/staging");
    assertThat(refused.status()).isEqualTo(409);
    assertThat(refused.errorCode()).isEqualTo("branch-mapped");
    assertThat(refused.errorMessage()).contains("channels beta, qa");

    assertThat(admin.put("/v1/apps/" + app + "/channels/beta", Map.of("branch", "main")).status()).isEqualTo(200);
    assertThat(admin.delete("/v1/apps/" + app + "/channels/qa").status()).isEqualTo(200);
    assertThat(admin.delete("/v1/apps/" + app + "/channels/qa").errorCode()).isEqualTo("channel-not-found");
    Http.Resp deleted = admin.delete("/v1/apps/" + app + "/branches/staging");
    assertThat(deleted.status()).as(deleted.toString()).isEqualTo(200);
    assertThat(deleted.json().get("groupIds")).hasSize(1);
    assertThat(listed(app)).containsExactly(kept);
    assertThat(admin.get("/v1/apps/" + app + "/branches").json().toString()).doesNotContain("staging");
    assertThat(admin.delete("/v1/apps/" + app + "/branches/staging").errorCode()).isEqualTo("branch-not-found");

    assertThat(admin.patch("/v1/apps/" + app, Map.of("defaultChannel", "beta")).status()).isEqualTo(200);
    Http.Resp defaultChannel = admin.delete("/v1/apps/" + app + "/channels/beta");
    assertThat(defaultChannel.status()).isEqualTo(409);
    assertThat(defaultChannel.errorCode()).isEqualTo("default-channel");
  }

  @Test
  void anAppDeleteNeedsItsIdAndEndsItsTokensAndKeys() throws Exception {
    String app = "del-app";
    ObjectNode create = Http.JSON.createObjectNode();
    create.put("appId", app);
    create.put("certificatePem", Files.readString(Fixtures.certificatePem()));
    create.put("privateKeyPem", Files.readString(Fixtures.privateKeyPkcs1Pem()));
    assertThat(admin.post("/v1/apps", create).status()).isEqualTo(201);
    String token = admin.post("/v1/apps/" + app + "/tokens", Map.of("role", "admin")).json().get("token").asText();
    Http own = admin.as(token);
    assertThat(own.get("/v1/apps/" + app).status()).isEqualTo(200);
    assertThat(Files.list(keyDir.resolve(app)).count()).isEqualTo(1);

    Http.Resp unconfirmed = own.delete("/v1/apps/" + app + "?confirm=other");
    assertThat(unconfirmed.status()).isEqualTo(400);
    assertThat(unconfirmed.errorCode()).isEqualTo("confirmation-mismatch");
    assertThat(unconfirmed.errorMessage()).contains("--confirm " + app);

    Http.Resp deleted = own.delete("/v1/apps/" + app + "?confirm=" + app);
    assertThat(deleted.status()).as(deleted.toString()).isEqualTo(200);
    assertThat(own.get("/v1/apps/" + app).status()).isEqualTo(401);
    assertThat(admin.get("/v1/apps/" + app).status()).isEqualTo(404);
    assertThat(Files.exists(keyDir.resolve(app))).as("its keys are destroyed").isFalse();
    assertThat(admin.post("/v1/apps", Map.of("appId", app)).status()).as("the id can be used again").isEqualTo(201);
    assertThat(admin.get("/v1/apps/" + app + "/updates").json().get("items")).isEmpty();
  }

  @Test
  void retentionRefusesNonsenseAndShowsWhatIsSetAndPinned() {
    String app = "del-retention";
    assertThat(admin.post("/v1/apps", Map.of("appId", app)).status()).isEqualTo(201);
    ExportFixture.upload(admin, app, Fixtures.update1());
    String g1 = publish(app, "main");
    String g2 = republish(app, "main", g1);
    String g3 = republish(app, "main", g1);
    assertThat(admin.put("/v1/apps/" + app + "/retention", Map.of("keep", 0)).errorCode()).isEqualTo("invalid-keep");
    assertThat(admin.put("/v1/apps/" + app + "/retention", Map.of("keep", 1, "maxAge", "1h")).errorCode()).isEqualTo("invalid-max-age");
    assertThat(admin.put("/v1/apps/" + app + "/retention", Map.of("keep", 1, "maxAge", "soon")).errorCode()).isEqualTo("invalid-max-age");
    assertThat(admin.delete("/v1/apps/" + app + "/retention").errorCode()).isEqualTo("retention-not-found");
    assertThat(admin.put("/v1/apps/" + app + "/updates/" + g1 + "/pin", null).json().get("pinned").asBoolean()).isTrue();

    Http.Resp set = admin.put("/v1/apps/" + app + "/retention", Map.of("keep", 1, "maxAge", "90d"));
    assertThat(set.status()).as(set.toString()).isEqualTo(200);
    assertThat(set.json().get("policies").get(0).get("maxAgeSeconds").asLong()).isEqualTo(90L * 86400);
    assertThat(set.json().get("pinned")).extracting(JsonNode::asText).containsExactly(g1);
    assertThat(listed(app)).as("the newest and the pinned one").containsExactly(g3, g1);
    assertThat(listed(app)).doesNotContain(g2);
    assertThat(admin.delete("/v1/apps/" + app + "/updates/" + g1 + "/pin").json().get("pinned").asBoolean()).isFalse();
    assertThat(admin.post("/v1/apps/" + app + "/retention/apply", null).json().get("groupsDeleted").asInt()).isEqualTo(1);
    assertThat(listed(app)).containsExactly(g3);
    assertThat(admin.delete("/v1/apps/" + app + "/retention").json().get("policies")).isEmpty();
  }

  @Test
  void aPinnedGroupOutlivesTheWindowStaysRepublishableAndDeletableAndGoesOnceUnpinned() {
    String app = "del-pinned";
    assertThat(admin.post("/v1/apps", Map.of("appId", app)).status()).isEqualTo(201);
    ExportFixture.upload(admin, app, Fixtures.update1());
    String pinned = publish(app, "main");
    String unpinned = publish(app, "main");
    for (String g : List.of(pinned, unpinned)) {
      assertThat(admin.put("/v1/apps/" + app + "/updates/" + g + "/pin", null).json().get("pinned").asBoolean()).isTrue();
    }
    List<String> newer = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      newer.add(publish(app, "main"));
    }
    List<String> held = listed(app);
    assertThat(held).as("the newest 10 of the line and both pinned groups").hasSize(12).startsWith(newer.get(19)).endsWith(unpinned, pinned);
    assertThat(held).doesNotContain(newer.get(9));
    assertThat(admin.get("/v1/apps/" + app + "/updates/" + pinned).status()).isEqualTo(200);
    assertThat(admin.get("/v1/apps/" + app + "/retention").json().get("pinned")).extracting(JsonNode::asText).containsExactlyInAnyOrder(pinned, unpinned);

    String again = republish(app, "main", pinned);
    assertThat(listed(app).get(0)).isEqualTo(again);

    assertThat(admin.delete("/v1/apps/" + app + "/updates/" + unpinned + "/pin").json().get("pinned").asBoolean()).isFalse();
    assertThat(admin.get("/v1/apps/" + app + "/updates/" + unpinned).status()).as("held until its line is folded again").isEqualTo(200);
    String last = publish(app, "main");
    assertThat(admin.get("/v1/apps/" + app + "/updates/" + unpinned).status()).as("the next publish on its line drops it").isEqualTo(404);

    Http.Resp deleted = admin.delete("/v1/apps/" + app + "/updates/" + pinned);
    assertThat(deleted.status()).as(deleted.toString()).isEqualTo(200);
    assertThat(listed(app)).doesNotContain(pinned, unpinned).hasSize(10).startsWith(last, again);
    assertThat(admin.get("/v1/apps/" + app + "/retention").json().get("pinned")).isEmpty();
  }
}
