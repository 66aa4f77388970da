package dev.updraft.controlplane;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.contrib.nio.testing.LocalStorageHelper;
import dev.updraft.controlplane.config.ControlPlaneConfig;
import dev.updraft.controlplane.storage.GcsSigning;
import dev.updraft.events.EventEnvelope;
import dev.updraft.events.UpdateEvents.ManifestsRenewed;
import dev.updraft.events.UpdateEvents.PlatformUpdate;
import dev.updraft.events.UpdateEvents.Renewal;
import dev.updraft.events.UpdateEvents.UpdatePublished;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * GCS storage with V4 signed URLs: uploads land in the bucket, manifests carry signed URLs that verify
 * with the service account key, and past half their lifetime a {@code manifests.renewed} event carries
 * fresh bodies (same ids, new URLs) with valid code signatures.
 */
@ExtendWith(RealInfrastructure.class)
class GcsRenewalIT {

  @Test
  void renewsSignedAssetUrlsBeforeTheyExpire(Infra infra, @TempDir Path dir) throws Exception {
    KeyPair sa = GcsSigning.keyPair();
    Path credentials = dir.resolve("sa.json");
    Files.writeString(credentials, GcsSigning.json(sa));
    MutableClock clock = new MutableClock(Instant.now());
    Storage gcs = LocalStorageHelper.getOptions().toBuilder().setClock(clock).build().getService();
    ControlPlaneConfig config =
        TestSupport.config(
            infra, dir, "storage", "gcs", "gcs-bucket", "updates", "gcs-credentials", credentials.toString(), "gcs-signed-url-ttl", "2h");
    Vertx vertx = Vertx.vertx();
    ControlPlane cp = TestSupport.start(vertx, config, new Hooks(clock, null, gcs));
    try {
      Http h = new Http("http://127.0.0.1:" + cp.port(), TestSupport.ADMIN);
      Map<String, Object> app = new HashMap<>();
      app.put("appId", "gcs");
      app.put("certificatePem", Files.readString(Fixtures.certificatePem()));
      app.put("privateKeyPem", Files.readString(Fixtures.privateKeyPkcs1Pem()));
      assertThat(h.post("/v1/apps", app).status()).isEqualTo(201);
      ExportFixture.upload(h, "gcs", Fixtures.update1());
      Http.Resp p = h.post("/v1/apps/gcs/updates", ExportFixture.publishBody(Fixtures.update1(), "production", "1.0.0"));
      assertThat(p.status()).as(p.toString()).isEqualTo(201);

      byte[] png = Files.readAllBytes(Fixtures.update1().resolve("assets/97dae5a0e62ad8551d8a31897b425e63"));
      assertThat(gcs.readAllBytes("updates", "assets/gcs/" + ExportFixture.sha256(png))).isEqualTo(png);

      ManifestChecks checks = new ManifestChecks(Fixtures.certificatePem());
      List<PlatformUpdate> published = ((UpdatePublished) TestSupport.events(infra, "gcs").get(2).payload()).group().platforms();
      for (PlatformUpdate u : published) {
        JsonNode m = checks.manifest(u, Fixtures.update1(), "1.0.0", "production");
        assertSignedUrls(m, sa, "7200");
      }

      assertThat(TestSupport.await(cp.commands().renewals().renewDue())).as("nothing is due yet").isZero();
      clock.advance(Duration.ofMinutes(61));
      assertThat(TestSupport.await(cp.commands().renewals().renewDue())).isEqualTo(2);
      assertThat(TestSupport.await(cp.commands().renewals().renewDue())).as("renewed entries are fresh again").isZero();

      List<EventEnvelope> events = TestSupport.events(infra, "gcs");
      EventEnvelope last = events.get(events.size() - 1);
      assertThat(last.type().wireName()).isEqualTo("manifests.renewed");
      assertThat(last.actor()).isEqualTo("system");
      List<Renewal> renewals = ((ManifestsRenewed) last.payload()).renewals();
      assertThat(renewals).extracting(Renewal::updateId).containsExactlyInAnyOrderElementsOf(published.stream().map(PlatformUpdate::updateId).toList());
      for (Renewal r : renewals) {
        PlatformUpdate old = published.stream().filter(u -> u.updateId().equals(r.updateId())).findFirst().orElseThrow();
        assertThat(r.body()).isNotEqualTo(old.body());
        JsonNode m = checks.manifest(new PlatformUpdate(old.platform(), old.updateId(), old.createdAt(), r.body(), r.signature(), old.launchAssetKey(), old.assetKeys()), Fixtures.update1(), "1.0.0", "production");
        checks.signature(r.body(), r.signature());
        assertSignedUrls(m, sa, "7200");
        assertThat(GcsSigning.query(m.get("launchAsset").get("url").asText()).get("X-Goog-Date"))
            .isNotEqualTo(GcsSigning.query(Http.JSON.readTree(old.body()).get("launchAsset").get("url").asText()).get("X-Goog-Date"));
      }
      assertThat(h.get("/v1/apps/gcs/updates/" + p.json().get("groupId").asText()).json().get("platforms").get(0).get("body").asText())
          .isEqualTo(renewals.stream().filter(r -> r.updateId().equals(published.get(0).updateId())).findFirst().orElseThrow().body());
    } finally {
      TestSupport.await(cp.close());
      TestSupport.await(vertx.close());
    }
  }

  private static void assertSignedUrls(JsonNode m, KeyPair sa, String expires) throws Exception {
    List<JsonNode> assets = new java.util.ArrayList<>();
    assets.add(m.get("launchAsset"));
    m.get("assets").forEach(assets::add);
    for (JsonNode a : assets) {
      String url = a.get("url").asText();
      assertThat(url).startsWith("https://storage.googleapis.com/updates/assets/gcs/" + dev.updraft.controlplane.render.ManifestRenderer.hexOfBase64Url(a.get("hash").asText()) + "?");
      assertThat(GcsSigning.query(url).get("X-Goog-Expires")).isEqualTo(expires);
      assertThat(GcsSigning.verifies(url, sa.getPublic())).isTrue();
    }
  }
}
