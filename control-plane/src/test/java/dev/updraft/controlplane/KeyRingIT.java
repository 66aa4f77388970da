package dev.updraft.controlplane;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.updraft.events.EventEnvelope;
import dev.updraft.events.AppEvents.AppUpdated;
import dev.updraft.events.UpdateEvents.ManifestsRenewed;
import dev.updraft.events.UpdateEvents.PlatformUpdate;
import dev.updraft.events.UpdateEvents.Renewal;
import dev.updraft.events.SigningEvents.SigningKeyRegistered;
import dev.updraft.events.SigningEvents.SigningKeyRetired;
import dev.updraft.events.UpdateEvents.UpdateGroup;
import dev.updraft.events.UpdateEvents.UpdatePublished;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import dev.updraft.testing.TestCertificates;
import dev.updraft.testing.protocol.ExpoSignature;
import dev.updraft.testing.protocol.SignatureVerifier;
import io.vertx.core.Vertx;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * An app's key ring through the publisher API against real Kafka: a second key joins (everything servable
 * re-signed with both, each signature verified with its own certificate), publishes sign with every key,
 * keys are listed with their expiry (and the expiry gauge), retired (never the last one), and a
 * certificate chain is registered for chain mode and refused when devices would refuse it. Also the
 * default channel and the manifest's branch and EAS project id.
 */
@ExtendWith(RealInfrastructure.class)
class KeyRingIT {
  static Vertx vertx;
  static ControlPlane cp;
  static Http admin;

  @BeforeAll
  static void start(Infra infra, @TempDir Path dir) {
    vertx = Vertx.vertx();
    // the telemetry database the key-in-use check reads (no device asked for a key here: retiring one is not refused)
    String pg = "postgresql://" + infra.pgUser() + "@" + infra.pgHost() + ":" + infra.pgPort() + "/" + infra.database();
    cp = TestSupport.start(vertx, TestSupport.config(infra, dir, "postgres-url", pg));
    admin = new Http("http://127.0.0.1:" + cp.port(), TestSupport.ADMIN);
  }

  @AfterAll
  static void stop() {
    TestSupport.await(cp.close());
    TestSupport.await(vertx.close());
  }

  private static ObjectNode key(String keyId, String certificatePem, String privateKeyPem) {
    ObjectNode b = Http.JSON.createObjectNode();
    b.put("keyId", keyId);
    b.put("certificatePem", certificatePem);
    b.put("privateKeyPem", privateKeyPem);
    return b;
  }

  private static void verifies(String body, String header, SignatureVerifier cert, String keyId) {
    ExpoSignature sig = ExpoSignature.parse(header);
    assertThat(sig.keyId()).isEqualTo(keyId);
    assertThat(cert.verify(body.getBytes(StandardCharsets.UTF_8), sig)).as("%s's signature verifies with its certificate", keyId)
        .isTrue();
  }

  @Test
  void aSecondKeyJoinsTheRingAndEverythingIsSignedWithBothUntilOneIsRetired(Infra infra) throws Exception {
    String app = "ring";
    assertThat(admin.post("/v1/apps", key("main", Files.readString(Fixtures.certificatePem()),
        Files.readString(Fixtures.privateKeyPkcs1Pem())).put("appId", app)).status()).isEqualTo(201);
    ExportFixture.upload(admin, app, Fixtures.update1());
    ExportFixture.upload(admin, app, Fixtures.update2());
    assertThat(admin.post("/v1/apps/" + app + "/updates", ExportFixture.publishBody(Fixtures.update1(), "production", "1.0.0"))
        .status()).isEqualTo(201);
    SignatureVerifier main = SignatureVerifier.fromCertificatePem(Fixtures.certificatePem());
    TestCertificates.Issued next = TestCertificates.selfSigned("Updraft ring test k2", Duration.ofDays(400));
    SignatureVerifier k2 = SignatureVerifier.fromCertificatePem(next.certificatePem());

    Http.Resp reg = admin.put("/v1/apps/" + app + "/signing-key", key("k2", next.certificatePem(), next.privateKeyPem()));
    assertThat(reg.status()).as(reg.toString()).isEqualTo(200);
    assertThat(reg.json().get("keyId").asText()).isEqualTo("k2");
    assertThat(Instant.parse(reg.json().get("notAfter").asText()))
        .isEqualTo(next.certificate().getNotAfter().toInstant());

    List<EventEnvelope> events = TestSupport.events(infra, app);
    SigningKeyRegistered joined = (SigningKeyRegistered) events.get(events.size() - 1).payload();
    assertThat(joined.joinsRing()).isTrue();
    assertThat(joined.resigned()).as("both platforms of the one group").hasSize(2);
    for (Renewal r : joined.resigned()) {
      assertThat(r.signatures()).containsOnlyKeys("main", "k2");
      verifies(r.body(), r.signatures().get("main"), main, "main");
      verifies(r.body(), r.signatures().get("k2"), k2, "k2");
      assertThat(r.signature()).as("the primary (first) key's, for readers before the ring").isEqualTo(r.signatures().get("main"));
    }
    verifies(joined.noUpdateDirectiveBody(), joined.noUpdateDirectiveSignature(), k2, "k2");

    JsonNode keys = admin.get("/v1/apps/" + app + "/keys").json();
    assertThat(keys.get("items")).extracting(k -> k.get("keyId").asText()).containsExactly("main", "k2");
    assertThat(keys.get("items").get(0).get("primary").asBoolean()).isTrue();
    assertThat(keys.get("items").get(1).get("notAfter").asText()).isEqualTo(next.certificate().getNotAfter().toInstant().toString());
    assertThat(admin.get("/v1/apps/" + app + "/certificate").text()).as("the newest key: what new builds embed")
        .isEqualTo(next.certificatePem().replace("\r", ""));
    assertThat(ManifestChecks.certificate(write(admin.get("/v1/apps/" + app + "/certificate?keyId=main").text())))
        .isEqualTo(ManifestChecks.certificate(Fixtures.certificatePem()));

    String metrics = admin.as(null).get("/metrics").text();
    double seconds = gauge(metrics, app, "k2");
    double expected = Duration.between(Instant.now(), next.certificate().getNotAfter().toInstant()).toSeconds();
    assertThat(seconds).isBetween(expected - 120, expected + 120);
    assertThat(gauge(metrics, app, "main")).isGreaterThan(0);

    Http.Resp p2 = admin.post("/v1/apps/" + app + "/updates", ExportFixture.publishBody(Fixtures.update2(), "production", "1.0.0"));
    assertThat(p2.status()).isEqualTo(201);
    assertThat(p2.json().get("platforms").get(0).get("signedWith")).extracting(JsonNode::asText).containsExactly("k2", "main");
    UpdateGroup g2 = published(infra, app, p2.json().get("groupId").asText());
    for (PlatformUpdate u : g2.platforms()) {
      verifies(u.body(), u.signatures().get("main"), main, "main");
      verifies(u.body(), u.signatures().get("k2"), k2, "k2");
      assertThat(u.signature()).isEqualTo(u.signatures().get("main"));
    }

    Http.Resp retired = admin.delete("/v1/apps/" + app + "/keys/main");
    assertThat(retired.status()).as(retired.toString()).isEqualTo(200);
    assertThat(retired.json().get("items")).extracting(k -> k.get("keyId").asText()).containsExactly("k2");
    events = TestSupport.events(infra, app);
    assertThat(events.get(events.size() - 1).payload()).isEqualTo(new SigningKeyRetired("main", null, null, null));
    Http.Resp last = admin.delete("/v1/apps/" + app + "/keys/k2");
    assertThat(last.status()).isEqualTo(409);
    assertThat(last.errorCode()).isEqualTo("last-key");
    assertThat(admin.delete("/v1/apps/" + app + "/keys/nope").errorCode()).isEqualTo("key-not-found");
    assertThat(gaugeLine(admin.as(null).get("/metrics").text(), app, "main")).as("a retired key leaves the gauge").isNull();

    Http.Resp p3 = admin.post("/v1/apps/" + app + "/updates", ExportFixture.publishBody(Fixtures.update1(), "production", "1.0.0"));
    UpdateGroup g3 = published(infra, app, p3.json().get("groupId").asText());
    for (PlatformUpdate u : g3.platforms()) {
      assertThat(u.signatures()).containsOnlyKeys("k2");
      verifies(u.body(), u.signature(), k2, "k2");
    }
  }

  @Test
  void aKeyJoiningAnAppWithManyLargeManifestsReSignsThemAllInEventsTheLogTakes(Infra infra, @TempDir Path dir) throws Exception {
    // the registration carried every re-signed body in one event: with many branches of large manifests it was above
    // the events topic's limit (413 event-too-large), so no key could join. Here the topic takes 200 kB records
    String prefix = infra.topicPrefix() + "keys200k.";
    try (Admin a = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, infra.kafkaBootstrap()))) {
      a.createTopics(List.of(new NewTopic(prefix + "updraft.events", 3, (short) 1).configs(Map.of("max.message.bytes", "200000"))))
          .all().get(30, TimeUnit.SECONDS);
    }
    ControlPlane small = TestSupport.start(vertx, TestSupport.config(infra, dir.resolve("cp"), "topic-prefix", prefix));
    try {
      Http h = new Http("http://127.0.0.1:" + small.port(), TestSupport.ADMIN);
      String app = "bigring";
      assertThat(h.post("/v1/apps", key("main", Files.readString(Fixtures.certificatePem()),
          Files.readString(Fixtures.privateKeyPkcs1Pem())).put("appId", app)).status()).isEqualTo(201);
      Path export = ExportFixture.manyAssets(dir.resolve("export"), 160);
      ExportFixture.upload(h, app, export);
      Set<String> servable = new TreeSet<>();
      for (int b = 0; b < 4; b++) {
        Http.Resp p = h.post("/v1/apps/" + app + "/updates", ExportFixture.publishBody(export, "branch-" + b, "1"));
        assertThat(p.status()).as(p.toString()).isEqualTo(201);
        p.json().get("platforms").forEach(u -> servable.add(u.get("updateId").asText()));
      }
      TestCertificates.Issued next = TestCertificates.selfSigned("Updraft ring test k2", Duration.ofDays(400));

      Http.Resp reg = h.put("/v1/apps/" + app + "/signing-key", key("k2", next.certificatePem(), next.privateKeyPem()));

      assertThat(reg.status()).as(reg.toString()).isEqualTo(200);
      List<EventEnvelope> events = TestSupport.events(infra, prefix + "updraft.events", app);
      int at = 0;
      while (!(events.get(at).payload() instanceof SigningKeyRegistered k && "k2".equals(k.keyId()))) {
        at++;
      }
      List<Renewal> resigned = new ArrayList<>(((SigningKeyRegistered) events.get(at).payload()).resigned());
      for (EventEnvelope e : events.subList(at + 1, events.size())) {
        resigned.addAll(((ManifestsRenewed) e.payload()).renewals());
      }
      assertThat(events.size() - at).as("the registration and the renewals after it").isGreaterThan(1);
      // one transaction: each event but the last says how many follow, so edges never serve the new key in part
      List<String> expectedMore = new ArrayList<>();
      for (int i = at; i < events.size(); i++) {
        expectedMore.add(i == events.size() - 1 ? "" : Integer.toString(events.size() - 1 - i));
      }
      Map<Long, String> more = TestSupport.moreHeaders(infra, prefix + "updraft.events", app);
      assertThat(more.values().stream().skip(at).toList()).isEqualTo(expectedMore);
      assertThat(resigned).extracting(Renewal::updateId).containsExactlyInAnyOrderElementsOf(servable);
      SignatureVerifier main = SignatureVerifier.fromCertificatePem(Fixtures.certificatePem());
      SignatureVerifier k2 = SignatureVerifier.fromCertificatePem(next.certificatePem());
      for (Renewal r : resigned) {
        verifies(r.body(), r.signatures().get("main"), main, "main");
        verifies(r.body(), r.signatures().get("k2"), k2, "k2");
      }
      assertThat(h.get("/v1/apps/" + app + "/keys").json().get("items")).extracting(item -> item.get("keyId").asText())
          .containsExactly("main", "k2");
    } finally {
      TestSupport.await(small.close());
    }
  }

  @Test
  void aCommandOfSeveralEventsIsMarkedInTheLogAndReachesReadersWhole(Infra infra, @TempDir Path dir) throws Exception {
    // a control plane of its own: nothing else writes while the command is read back
    String prefix = infra.topicPrefix() + "whole.";
    ControlPlane own = TestSupport.start(vertx, TestSupport.config(infra, dir.resolve("cp"), "topic-prefix", prefix));
    try {
      Http h = new Http("http://127.0.0.1:" + own.port(), TestSupport.ADMIN);
      long before = own.stateVersion();

      assertThat(h.post("/v1/apps", key("main", Files.readString(Fixtures.certificatePem()),
          Files.readString(Fixtures.privateKeyPkcs1Pem())).put("appId", "whole")).status()).isEqualTo(201);

      List<EventEnvelope> events = TestSupport.events(infra, prefix + "updraft.events", "whole");
      assertThat(events).extracting(e -> e.type().wireName()).containsExactly("app.created", "signing-key.registered");
      assertThat(TestSupport.moreHeaders(infra, prefix + "updraft.events", "whole").values()).containsExactly("1", "");
      assertThat(own.stateVersion() - before).as("states the API's readers could see for one two-event command").isEqualTo(1);
      assertThat(own.state().app("whole").key("main")).as("the key registered with the app").isNotNull();
    } finally {
      TestSupport.await(own.close());
    }
  }

  @Test
  void aCertificateChainIsRegisteredForChainModeAndRefusedWhenDevicesWouldRefuseIt(Infra infra) throws Exception {
    String app = "chained";
    assertThat(admin.post("/v1/apps", Map.of("appId", app)).status()).isEqualTo(201);
    TestCertificates.Chain chain = TestCertificates.chain("Updraft chain test", Duration.ofDays(90));
    ObjectNode b = Http.JSON.createObjectNode();
    b.put("keyId", "ca");
    b.put("certificateChainPem", chain.servedChainPem());
    b.put("privateKeyPem", chain.leaf().privateKeyPem());
    Http.Resp reg = admin.put("/v1/apps/" + app + "/signing-key", b);
    assertThat(reg.status()).as(reg.toString()).isEqualTo(200);
    assertThat(reg.json().get("chain").asBoolean()).isTrue();
    assertThat(reg.json().get("certificateChainPem").asText()).isEqualTo(chain.servedChainPem().replace("\r", ""));
    List<EventEnvelope> events = TestSupport.events(infra, app);
    SigningKeyRegistered k = (SigningKeyRegistered) events.get(events.size() - 1).payload();
    assertThat(k.certificateChainPem()).isEqualTo(chain.servedChainPem().replace("\r", ""));
    assertThat(k.certificatePem()).isEqualTo(chain.leaf().certificatePem().replace("\r", ""));
    verifies(k.noUpdateDirectiveBody(), k.noUpdateDirectiveSignature(), SignatureVerifier.fromCertificatePem(chain.leaf().certificatePem()), "ca");

    ObjectNode withRoot = b.deepCopy().put("certificateChainPem", chain.servedChainPem() + chain.root().certificatePem());
    Http.Resp root = admin.put("/v1/apps/" + app + "/signing-key", withRoot);
    assertThat(root.status()).isEqualTo(400);
    assertThat(root.errorCode()).isEqualTo("certificate-chain-invalid");
    assertThat(root.errorMessage()).contains("leave the root out");
    ObjectNode reversed = b.deepCopy().put("certificateChainPem", chain.intermediate().certificatePem() + chain.leaf().certificatePem());
    Http.Resp wrongOrder = admin.put("/v1/apps/" + app + "/signing-key", reversed);
    assertThat(wrongOrder.status()).isEqualTo(400);
    ObjectNode both = b.deepCopy().put("certificatePem", chain.leaf().certificatePem());
    assertThat(admin.put("/v1/apps/" + app + "/signing-key", both).errorCode()).isEqualTo("missing-field");
  }

  @Test
  void theDefaultChannelIsSetAndRemoved(Infra infra) {
    String app = "deaf";
    assertThat(admin.post("/v1/apps", Map.of("appId", app)).status()).isEqualTo(201);
    Http.Resp set = admin.patch("/v1/apps/" + app, Map.of("defaultChannel", "production"));
    assertThat(set.status()).as(set.toString()).isEqualTo(200);
    assertThat(set.json().get("defaultChannel").asText()).isEqualTo("production");
    assertThat(admin.get("/v1/apps/" + app).json().get("defaultChannel").asText()).isEqualTo("production");
    int before = TestSupport.events(infra, app).size();
    assertThat(admin.patch("/v1/apps/" + app, Map.of("defaultChannel", "production")).status()).isEqualTo(200);
    assertThat(TestSupport.events(infra, app)).as("the same value again appends nothing").hasSize(before);
    assertThat(admin.patch("/v1/apps/" + app, Map.of("defaultChannel", "no spaces")).errorCode()).isEqualTo("invalid-channel");
    assertThat(admin.patch("/v1/apps/" + app, Map.of()).errorCode()).isEqualTo("missing-field");
    ObjectNode none = Http.JSON.createObjectNode().putNull("defaultChannel");
    assertThat(admin.patch("/v1/apps/" + app, none).json().get("defaultChannel").isNull()).isTrue();
    List<EventEnvelope> events = TestSupport.events(infra, app);
    assertThat(events.get(events.size() - 1).payload()).isEqualTo(new AppUpdated(null));
    assertThat(events.get(events.size() - 2).payload()).isEqualTo(new AppUpdated("production"));
    assertThat(admin.as(null).patch("/v1/apps/" + app, Map.of("defaultChannel", "x")).status()).isEqualTo(401);
  }

  @Test
  void manifestsNameTheirBranchAndCarryTheEasProjectIdOfTheAppConfig(Infra infra) throws Exception {
    String app = "eas-project";
    assertThat(admin.post("/v1/apps", Map.of("appId", app)).status()).isEqualTo(201);
    ExportFixture.upload(admin, app, Fixtures.update1());
    ObjectNode body = ExportFixture.publishBody(Fixtures.update1(), "hotfix", "1.0.0");
    ((ObjectNode) body.get("expoConfig")).putObject("extra").putObject("eas").put("projectId", "3c7bb3a7-8a8e-4a7a-9d39-3f3c1c1b7f6e");
    Http.Resp p = admin.post("/v1/apps/" + app + "/updates", body);
    assertThat(p.status()).as(p.toString()).isEqualTo(201);
    for (PlatformUpdate u : published(infra, app, p.json().get("groupId").asText()).platforms()) {
      JsonNode m = Http.JSON.readTree(u.body());
      assertThat(m.get("metadata").get("branchName").asText()).isEqualTo("hotfix");
      assertThat(m.get("extra").get("eas").get("projectId").asText()).isEqualTo("3c7bb3a7-8a8e-4a7a-9d39-3f3c1c1b7f6e");
      assertThat(m.get("extra").get("expoClient")).isEqualTo(body.get("expoConfig"));
    }
    ObjectNode rb = Http.JSON.createObjectNode();
    rb.put("branch", "production");
    rb.put("runtimeVersion", "1.0.0");
    rb.put("toGroupId", p.json().get("groupId").asText());
    Http.Resp moved = admin.post("/v1/apps/" + app + "/rollbacks", rb);
    assertThat(moved.status()).as(moved.toString()).isEqualTo(201);
    for (PlatformUpdate u : published(infra, app, moved.json().get("groupId").asText()).platforms()) {
      assertThat(Http.JSON.readTree(u.body()).get("metadata").get("branchName").asText())
          .as("a republish names the branch it is put on").isEqualTo("production");
    }
  }

  private static UpdateGroup published(Infra infra, String app, String groupId) {
    for (EventEnvelope e : TestSupport.events(infra, app)) {
      if (e.payload() instanceof UpdatePublished && ((UpdatePublished) e.payload()).group().groupId().equals(groupId)) {
        return ((UpdatePublished) e.payload()).group();
      }
    }
    throw new AssertionError("no update.published for group " + groupId);
  }

  private static Path write(String pem) throws Exception {
    Path f = Files.createTempFile("served", ".pem");
    Files.writeString(f, pem);
    f.toFile().deleteOnExit();
    return f;
  }

  private static String gaugeLine(String metrics, String app, String keyId) {
    for (String line : metrics.split("\n")) {
      if (line.startsWith("updraft_control_signing_certificate_expiry_seconds{") && line.contains("app=\"" + app + "\"")
          && line.contains("keyid=\"" + keyId + "\"")) {
        return line;
      }
    }
    return null;
  }

  private static double gauge(String metrics, String app, String keyId) {
    String line = gaugeLine(metrics, app, keyId);
    assertThat(line).as("expiry gauge of %s/%s in\n%s", app, keyId, metrics).isNotNull();
    Matcher m = Pattern.compile("\\} (\\S+)").matcher(line);
    assertThat(m.find()).isTrue();
    return Double.parseDouble(m.group(1));
  }
}
