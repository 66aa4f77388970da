package dev.updraft.controlplane;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.updraft.controlplane.core.Role;
import dev.updraft.controlplane.spi.ActiveRollout;
import dev.updraft.controlplane.spi.ControlPlaneExtension;
import dev.updraft.events.EventEnvelope;
import dev.updraft.events.UpdateEvents.PlatformUpdate;
import dev.updraft.events.SigningEvents.SigningKeyRegistered;
import dev.updraft.events.UpdateEvents.UpdateGroup;
import dev.updraft.events.UpdateEvents.UpdatePublished;
import dev.updraft.events.RolloutEvents.RolloutReverted;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import io.vertx.core.Vertx;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Publishing both fixture exports through the HTTP API produces events whose manifests and signatures
 * pass the checks of protocol.md section 8, and whose asset URLs serve the hashed bytes.
 */
@ExtendWith(RealInfrastructure.class)
class PublishIT {
  static Vertx vertx;
  static ControlPlane cp;
  static Http admin;

  @BeforeAll
  static void start(Infra infra, @TempDir Path dir) {
    vertx = Vertx.vertx();
    ControlPlaneExtension ping =
        ctx -> {
          ctx.router()
              .get("/v1/apps/:app/ping")
              .handler(ctx.authorize(Role.READ))
              .handler(rc -> rc.response().end("pong " + ctx.actor(rc)));
          return io.vertx.core.Future.succeededFuture();
        };
    cp = TestSupport.await(ControlPlane.start(vertx, TestSupport.config(infra, dir, "asset-encoding", "best"), List.of(ping)));
    admin = new Http("http://127.0.0.1:" + cp.port(), TestSupport.ADMIN);
  }

  @AfterAll
  static void stop() {
    TestSupport.await(cp.close());
    TestSupport.await(vertx.close());
  }

  private static ObjectNode signedApp(String app) throws Exception {
    ObjectNode b = Http.JSON.createObjectNode();
    b.put("appId", app);
    b.put("certificatePem", Files.readString(Fixtures.certificatePem()));
    b.put("privateKeyPem", Files.readString(Fixtures.privateKeyPkcs1Pem()));
    return b;
  }

  @Test
  void publishedManifestsPassProtocolChecksAndAssetsServeTheHashedBytes(Infra infra) throws Exception {
    String app = "publish-checks";
    assertThat(admin.post("/v1/apps", signedApp(app)).status()).isEqualTo(201);

    // upload: storage lacks everything at first, then only update-2's new bundles
    ObjectNode body1 = ExportFixture.publishBody(Fixtures.update1(), "production", "1.0.0");
    List<String> shas1 = shas(body1);
    assertThat(missing(app, shas1)).containsExactlyInAnyOrderElementsOf(shas1);
    ExportFixture.upload(admin, app, Fixtures.update1());
    assertThat(missing(app, shas1)).isEmpty();
    byte[] again = Files.readAllBytes(Fixtures.update1().resolve("assets/d9f444efbdfbe7931aa93beada07318a"));
    Http.Resp reupload = admin.putBytes("/v1/apps/" + app + "/assets/" + ExportFixture.sha256(again), again, "image/png");
    assertThat(reupload.status()).isEqualTo(200);
    assertThat(reupload.json().get("stored").asBoolean()).isFalse();

    body1.put("message", "first");
    body1.put("gitCommitHash", "abc123");
    Http.Resp p1 = admin.post("/v1/apps/" + app + "/updates", body1, Map.of("Idempotency-Key", "pub-1"));
    assertThat(p1.status()).as(p1.toString()).isEqualTo(201);

    ObjectNode body2 = ExportFixture.publishBody(Fixtures.update2(), "production", "1.0.0");
    List<String> newBundles = new ArrayList<>();
    for (String p : List.of(
        "_expo/static/js/ios/index-0f63bc1de4ba17d0731559070d24f6ca.hbc",
        "_expo/static/js/android/index-df8496f89d9675b89bf24f3d5342c90d.hbc")) {
      newBundles.add(ExportFixture.sha256(Files.readAllBytes(Fixtures.update2().resolve(p))));
    }
    assertThat(missing(app, shas(body2))).containsExactlyInAnyOrderElementsOf(newBundles);
    ExportFixture.upload(admin, app, Fixtures.update2());
    Http.Resp p2 = admin.post("/v1/apps/" + app + "/updates", body2, Map.of("Idempotency-Key", "pub-2"));
    assertThat(p2.status()).as(p2.toString()).isEqualTo(201);
    Http.Resp retry = admin.post("/v1/apps/" + app + "/updates", body2, Map.of("Idempotency-Key", "pub-2"));
    assertThat(retry.status()).isEqualTo(200);
    assertThat(retry.json().get("replayed").asBoolean()).isTrue();
    assertThat(retry.json().get("groupId").asText()).isEqualTo(p2.json().get("groupId").asText());

    // republish update-1 (check 33: new ids, createdAt later than everything before)
    ObjectNode rb = Http.JSON.createObjectNode();
    rb.put("branch", "production");
    rb.put("runtimeVersion", "1.0.0");
    rb.put("toGroupId", p1.json().get("groupId").asText());
    Http.Resp p3 = admin.post("/v1/apps/" + app + "/rollbacks", rb);
    assertThat(p3.status()).as(p3.toString()).isEqualTo(201);

    List<EventEnvelope> events = TestSupport.events(infra, app);
    assertThat(events).extracting(e -> e.type().wireName())
        .containsExactly("app.created", "signing-key.registered", "update.published", "update.published", "update.published");
    for (int i = 0; i < events.size(); i++) {
      assertThat(events.get(i).sequence()).isEqualTo(i + 1);
    }
    ManifestChecks checks = new ManifestChecks(Fixtures.certificatePem());

    SigningKeyRegistered key = (SigningKeyRegistered) events.get(1).payload();
    assertThat(key.noUpdateDirectiveBody()).isEqualTo("{\"type\":\"noUpdateAvailable\"}");
    checks.signature(key.noUpdateDirectiveBody(), key.noUpdateDirectiveSignature());
    assertThat(key.certificatePem()).doesNotContain("PRIVATE");
    for (EventEnvelope e : events) {
      assertThat(new String(dev.updraft.events.EventCodec.encode(e), java.nio.charset.StandardCharsets.UTF_8))
          .doesNotContain("PRIVATE KEY");
    }

    UpdateGroup g1 = ((UpdatePublished) events.get(2).payload()).group();
    UpdateGroup g2 = ((UpdatePublished) events.get(3).payload()).group();
    UpdateGroup g3 = ((UpdatePublished) events.get(4).payload()).group();
    assertThat(g1.idempotencyKey()).isEqualTo("pub-1");
    assertThat(g1.message()).isEqualTo("first");
    assertThat(g1.gitCommitHash()).isEqualTo("abc123");
    assertThat(g3.republishedFrom()).isEqualTo(g1.groupId());
    Instant last = null;
    List<String> ids = new ArrayList<>();
    for (var pair : List.of(Map.entry(g1, Fixtures.update1()), Map.entry(g2, Fixtures.update2()), Map.entry(g3, Fixtures.update1()))) {
      UpdateGroup g = pair.getKey();
      assertThat(g.platforms()).extracting(PlatformUpdate::platform).containsExactly("android", "ios");
      Instant created = Instant.parse(g.platforms().get(0).createdAt());
      if (last != null) {
        assertThat(created).isAfter(last);
      }
      last = created;
      for (PlatformUpdate p : g.platforms()) {
        assertThat(p.createdAt()).isEqualTo(g.platforms().get(0).createdAt());
        JsonNode m = checks.manifest(p, pair.getValue(), "1.0.0", "production");
        checks.signature(p.body(), p.signature());
        ids.add(p.updateId());
        assetsServeTheirBytes(m, pair.getValue(), p.platform());
      }
    }
    assertThat(ids).doesNotHaveDuplicates();
  }

  private void assetsServeTheirBytes(JsonNode m, Path export, String platform) throws Exception {
    JsonNode launch = m.get("launchAsset");
    JsonNode fm = ExportFixture.metadata(export).get("fileMetadata").get(platform);
    byte[] bundle = Files.readAllBytes(export.resolve(fm.get("bundle").asText()));
    Http plain = new Http("", null);
    Http.Resp r = plain.send("GET", launch.get("url").asText(), null, null, Map.of());
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.body()).isEqualTo(bundle);
    assertThat(r.header("content-type")).isEqualTo("application/javascript");
    assertThat(r.header("cache-control")).isEqualTo("public, max-age=31536000, immutable");
    Http.Resp gz = plain.send("GET", launch.get("url").asText(), null, null, Map.of("Accept-Encoding", "br, gzip"));
    assertThat(gz.header("content-encoding")).isEqualTo("gzip");
    assertThat(new GZIPInputStream(new ByteArrayInputStream(gz.body())).readAllBytes()).isEqualTo(bundle);
    for (JsonNode a : m.get("assets")) {
      // Android sends Accept: application/javascript for every asset: never negotiated
      Http.Resp png = plain.send("GET", a.get("url").asText(), null, null, Map.of("Accept", "application/javascript", "Accept-Encoding", "gzip"));
      assertThat(png.status()).isEqualTo(200);
      assertThat(png.header("content-type")).isEqualTo("image/png");
      byte[] bytes = png.body();
      if ("gzip".equals(png.header("content-encoding"))) {
        bytes = new GZIPInputStream(new ByteArrayInputStream(bytes)).readAllBytes();
      }
      assertThat(ExportFixture.md5(bytes)).isEqualTo(a.get("key").asText());
    }
  }

  private static List<String> shas(ObjectNode body) {
    List<String> out = new ArrayList<>();
    body.get("files").properties().forEach(e -> out.add(e.getValue().get("sha256").asText()));
    return out;
  }

  private static List<String> missing(String app, List<String> shas) {
    ObjectNode b = Http.JSON.createObjectNode();
    var arr = b.putArray("sha256");
    shas.forEach(arr::add);
    Http.Resp r = admin.post("/v1/apps/" + app + "/assets/missing", b);
    assertThat(r.status()).isEqualTo(200);
    List<String> out = new ArrayList<>();
    r.json().get("missing").forEach(n -> out.add(n.asText()));
    return out;
  }

  @Test
  void aPublishOfSeveralMegabytesFitsTheEventLogAndOneAboveItsLimitIs413AndWritesNothing(@TempDir Path dir) throws Exception {
    // Kafka refuses a record above its topic's max.message.bytes: the control plane answered 503 "retry" (the CLI retried
    // in vain), then 413 above 1 MB, which a large app's manifests with pre-signed URLs reach; its topic now takes 8 MiB
    assertThat(admin.post("/v1/apps", Map.of("appId", "huge")).status()).isEqualTo(201);
    Path export = ApiErrorsIT.smallExport(dir.resolve("small"));
    ExportFixture.upload(admin, "huge", export);
    ObjectNode body = ExportFixture.publishBody(export, "main", "1");
    body.putObject("expoConfig").putObject("extra").put("blob", "x".repeat(1_500_000)); // once per platform's manifest
    Http.Resp big = admin.post("/v1/apps/huge/updates", body);
    assertThat(big.status()).as("a 3 MB event: %s", big).isEqualTo(201);
    JsonNode served = admin.get("/v1/apps/huge/updates/" + big.json().get("groupId").asText()).json();
    assertThat(Http.JSON.readTree(served.get("platforms").get(0).get("body").asText()).get("extra").get("expoClient").get("extra")
        .get("blob").asText()).hasSize(1_500_000);

    body.putObject("expoConfig").putObject("extra").put("blob", "x".repeat(4_500_000));
    double appended = TestSupport.metric(admin, "updraft_control_events_appended_total");
    Http.Resp r = admin.post("/v1/apps/huge/updates", body);
    assertThat(r.status()).as(r.toString()).isEqualTo(413);
    assertThat(r.errorCode()).isEqualTo("event-too-large");
    assertThat(r.errorMessage()).contains("update.published").contains("above the event log's limit of 8372224 bytes")
        .contains("expoConfig").doesNotContain("kafka-configs");
    assertThat(TestSupport.metric(admin, "updraft_control_events_appended_total")).as("events appended").isEqualTo(appended);

    body.putObject("expoConfig").putObject("extra").put("blob", "x".repeat(1_000));
    Http.Resp ok = admin.post("/v1/apps/huge/updates", body);
    assertThat(ok.status()).as("the log still takes the next publish: %s", ok).isEqualTo(201);
  }

  @Test
  void onAnEventsTopicWithKafkasDefaultRecordLimitTheLimitFollowsTheTopicAndTheRefusalSaysHowToRaiseIt(Infra infra, @TempDir Path dir)
      throws Exception {
    // an events topic created before Updraft set max.message.bytes (or by an operator) keeps Kafka's 1 MiB
    String prefix = infra.topicPrefix() + "old.";
    try (Admin a = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, infra.kafkaBootstrap()))) {
      a.createTopics(List.of(new NewTopic(prefix + "updraft.events", 3, (short) 1))).all().get(30, TimeUnit.SECONDS);
    }
    ControlPlane old = TestSupport.start(vertx, TestSupport.config(infra, dir.resolve("cp"), "topic-prefix", prefix));
    try {
      Http h = new Http("http://127.0.0.1:" + old.port(), TestSupport.ADMIN);
      assertThat(h.post("/v1/apps", Map.of("appId", "big")).status()).isEqualTo(201);
      Path export = ApiErrorsIT.smallExport(dir.resolve("small"));
      ExportFixture.upload(h, "big", export);
      ObjectNode body = ExportFixture.publishBody(export, "main", "1");
      body.putObject("expoConfig").putObject("extra").put("blob", "x".repeat(600_000));

      Http.Resp r = h.post("/v1/apps/big/updates", body);

      assertThat(r.status()).as(r.toString()).isEqualTo(413);
      assertThat(r.errorMessage()).contains("above the event log's limit of 1032204 bytes")
          .contains("max.message.bytes is 1048588")
          .contains("--entity-name " + prefix + "updraft.events --add-config max.message.bytes=8388608");
      body.putObject("expoConfig").putObject("extra").put("blob", "x".repeat(300_000));
      assertThat(h.post("/v1/apps/big/updates", body).status()).as("600 kB in all still fits").isEqualTo(201);
    } finally {
      TestSupport.await(old.close());
    }
  }

  @Test
  void extensionsMountRoutesBehindTheSameAuthentication() {
    assertThat(admin.post("/v1/apps", Map.of("appId", "ext-a")).status()).isEqualTo(201);
    assertThat(admin.post("/v1/apps", Map.of("appId", "ext-b")).status()).isEqualTo(201);
    String tokenB = admin.post("/v1/apps/ext-b/tokens", Map.of("role", "read")).json().get("token").asText();
    assertThat(admin.get("/v1/apps/ext-a/ping").text()).isEqualTo("pong admin");
    assertThat(admin.as(null).get("/v1/apps/ext-a/ping").errorCode()).isEqualTo("unauthorized");
    assertThat(admin.as(tokenB).get("/v1/apps/ext-a/ping").status()).isEqualTo(403);
    assertThat(admin.as(tokenB).get("/v1/apps/ext-b/ping").text()).startsWith("pong tok_");
  }

  @Test
  void reportsHealthAndPrometheusMetrics() {
    assertThat(admin.as(null).get("/healthz").json().get("status").asText()).isEqualTo("ok");
    assertThat(admin.post("/v1/apps", Map.of("appId", "metrics")).status()).isEqualTo(201);
    String metrics = admin.as(null).get("/metrics").text();
    assertThat(metrics).contains("updraft_control_commands_total{command=\"create-app\",outcome=\"ok\"}");
    assertThat(metrics).contains("updraft_control_publish_seconds").contains("updraft_control_manifests_renewed_total");
    assertThat(admin.as(null).get("/v1/openapi.yaml").text()).startsWith("openapi: 3.0.3");
  }

  @Test
  void registeringAKeyLaterReSignsWhatDevicesCanStillBeServed(Infra infra) throws Exception {
    assertThat(admin.post("/v1/apps", Map.of("appId", "rotate")).status()).isEqualTo(201);
    ExportFixture.upload(admin, "rotate", Fixtures.update1());
    Http.Resp p = admin.post("/v1/apps/rotate/updates", ExportFixture.publishBody(Fixtures.update1(), "main", "1.0.0"));
    assertThat(p.json().get("platforms").get(0).get("signed").asBoolean()).isFalse();
    Http.Resp key = admin.put("/v1/apps/rotate/signing-key", Map.of(
        "certificatePem", Files.readString(Fixtures.certificatePem()), "privateKeyPem", Files.readString(Fixtures.privateKeyPkcs8Pem())));
    assertThat(key.status()).as(key.toString()).isEqualTo(200);
    String served = admin.get("/v1/apps/rotate/certificate").text();
    assertThat(served).startsWith("-----BEGIN CERTIFICATE-----");
    Path servedFile = Files.createTempFile("served", ".pem");
    Files.writeString(servedFile, served);
    assertThat(ManifestChecks.certificate(servedFile)).isEqualTo(ManifestChecks.certificate(Fixtures.certificatePem()));
    Files.delete(servedFile);

    List<EventEnvelope> events = TestSupport.events(infra, "rotate");
    SigningKeyRegistered k = (SigningKeyRegistered) events.get(events.size() - 1).payload();
    assertThat(k.resigned()).hasSize(2);
    ManifestChecks checks = new ManifestChecks(Fixtures.certificatePem());
    UpdateGroup g = ((UpdatePublished) events.get(1).payload()).group();
    for (var r : k.resigned()) {
      assertThat(r.body()).isEqualTo(g.platforms().stream().filter(u -> u.updateId().equals(r.updateId())).findFirst().orElseThrow().body());
      checks.signature(r.body(), r.signature());
    }
    JsonNode now = admin.get("/v1/apps/rotate/updates/" + p.json().get("groupId").asText()).json();
    assertThat(now.get("platforms").get(0).get("signed").asBoolean()).isTrue();
  }

  @Test
  void theGuardRevertsARolloutWithoutControlByRollingBackToEmbedded(Infra infra) throws Exception {
    assertThat(admin.post("/v1/apps", Map.of("appId", "guarded")).status()).isEqualTo(201);
    ExportFixture.upload(admin, "guarded", Fixtures.update1());
    ObjectNode b = ExportFixture.publishBody(Fixtures.update1(), "main", "1.0.0");
    b.put("rolloutPercentage", 5);
    b.set("rolloutGuard", Http.JSON.readTree("{\"maxFailureRatePercent\":2.5,\"minDevices\":10,\"windowSeconds\":600}"));
    Http.Resp p = admin.post("/v1/apps/guarded/updates", b);
    assertThat(p.status()).as(p.toString()).isEqualTo(201);
    String group = p.json().get("groupId").asText();
    ActiveRollout active = cp.rollouts().activeRollouts().stream().filter(r -> r.appId().equals("guarded")).findFirst().orElseThrow();
    assertThat(active.groupId()).isEqualTo(group);
    assertThat(active.percentage()).isEqualTo(5);
    assertThat(active.controlGroupId()).isNull();
    assertThat(active.guard().maxFailureRatePercent()).isEqualTo(2.5);
    assertThat(active.updateIds().keySet()).containsExactlyInAnyOrder("ios", "android");

    String replacement = TestSupport.await(cp.rollouts().revertByGuard("guarded", group, "failure rate 20.0% among 10 devices above 2.5%"));
    assertThat(cp.rollouts().activeRollouts()).noneMatch(r -> r.appId().equals("guarded"));
    List<EventEnvelope> events = TestSupport.events(infra, "guarded");
    EventEnvelope last = events.get(events.size() - 1);
    assertThat(last.actor()).isEqualTo("guard");
    RolloutReverted r = (RolloutReverted) last.payload();
    assertThat(r.reason()).isEqualTo("failure rate 20.0% among 10 devices above 2.5%");
    assertThat(r.replacement().groupId()).isEqualTo(replacement);
    assertThat(r.replacement().rollsBackToEmbedded()).isTrue();
    assertThat(r.replacement().platforms()).extracting(PlatformUpdate::platform).containsExactlyInAnyOrder("ios", "android");
    // a second revert finds nothing to revert
    assertThat(cp.rollouts().revertByGuard("guarded", group, "again").toCompletionStage().toCompletableFuture().handle((v, t) -> t).get())
        .hasMessageContaining("already reverted");
  }
}
