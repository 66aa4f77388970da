package dev.updraft.controlplane;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.storage.blob.BlobServiceClient;
import com.azure.storage.blob.BlobServiceClientBuilder;
import com.azure.storage.blob.models.BlobItem;
import com.azure.storage.common.StorageSharedKeyCredential;
import com.fasterxml.jackson.databind.JsonNode;
import dev.updraft.controlplane.config.ControlPlaneConfig;
import dev.updraft.events.EventCodec;
import dev.updraft.events.EventEnvelope;
import dev.updraft.events.UpdateEvents.ManifestsRenewed;
import dev.updraft.events.UpdateEvents.PlatformUpdate;
import dev.updraft.events.UpdateEvents.Renewal;
import dev.updraft.events.UpdateEvents.UpdatePublished;
import dev.updraft.testing.AzuriteServer;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import io.vertx.core.Vertx;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The control plane on Azure Blob storage against Azurite (Microsoft's emulator, run as a process), as a
 * publisher and devices see it: a publish stores every file in the container; a plain HTTP client downloads
 * every asset of the publish by the SAS URL its manifest names, with the hash and type the manifest names;
 * SAS URLs are renewed (a {@code manifests.renewed} event) before they expire and the old ones stop working;
 * the account key appears in no event.
 */
@ExtendWith(RealInfrastructure.class)
class AzureStorageIT {
  static AzuriteServer azurite;
  static BlobServiceClient admin;
  final HttpClient http = HttpClient.newHttpClient();

  @TempDir static Path azuriteDir;

  /** Starts Azurite for the class's first test (a test without Azurite is reported skipped, or fails in CI). */
  @BeforeEach
  void startAzurite() throws Exception {
    if (azurite != null) {
      return;
    }
    azurite = AzuriteServer.start(azuriteDir.resolve("azurite"));
    admin =
        new BlobServiceClientBuilder()
            .endpoint(azurite.endpoint())
            .credential(new StorageSharedKeyCredential(AzuriteServer.ACCOUNT, AzuriteServer.ACCOUNT_KEY))
            .buildClient();
  }

  @AfterAll
  static void stopAzurite() {
    if (azurite != null) {
      azurite.close();
      azurite = null;
    }
  }

  /** A control plane on a new private container of Azurite's. */
  static ControlPlaneConfig config(Infra infra, Path dir, String container, String... extra) {
    admin.createBlobContainer(container);
    List<String> flags =
        new ArrayList<>(
            List.of(
                "storage", "azure", "azure-account", AzuriteServer.ACCOUNT, "azure-container", container, "azure-endpoint", azurite.endpoint(),
                "azure-account-key", AzuriteServer.ACCOUNT_KEY));
    flags.addAll(List.of(extra));
    return TestSupport.config(infra, dir, flags.toArray(new String[0]));
  }

  static String container() {
    return "cp-" + UUID.randomUUID().toString().substring(0, 8);
  }

  @Test
  void publishStoresEveryFileAndEveryAssetDownloadsByItsSasUrl(Infra infra, @TempDir Path dir) throws Exception {
    String container = container();
    Vertx vertx = Vertx.vertx();
    ControlPlane cp = TestSupport.start(vertx, config(infra, dir, container));
    try {
      Http h = S3StorageIT.createApp(cp, "azpub");
      ExportFixture.upload(h, "azpub", Fixtures.update1());
      Http.Resp p = h.post("/v1/apps/azpub/updates", ExportFixture.publishBody(Fixtures.update1(), "production", "1.0.0"));
      assertThat(p.status()).as(p.toString()).isEqualTo(201);

      List<String> names = new ArrayList<>();
      for (BlobItem b : admin.getBlobContainerClient(container).listBlobs()) {
        names.add(b.getName());
      }
      List<String> expected = new ArrayList<>();
      for (String path : ExportFixture.paths(Fixtures.update1())) {
        String name = "assets/azpub/" + ExportFixture.sha256(ExportFixture.read(Fixtures.update1().resolve(path)));
        if (!expected.contains(name)) {
          expected.add(name);
        }
      }
      assertThat(names).containsExactlyInAnyOrderElementsOf(expected);

      ManifestChecks checks = new ManifestChecks(Fixtures.certificatePem());
      List<EventEnvelope> events = TestSupport.events(infra, "azpub");
      List<PlatformUpdate> published = ((UpdatePublished) events.get(events.size() - 1).payload()).group().platforms();
      assertThat(published).hasSize(2);
      for (PlatformUpdate u : published) {
        JsonNode m = checks.manifest(u, Fixtures.update1(), "1.0.0", "production");
        checks.signature(u.body(), u.signature());
        assertEveryAssetDownloads(m, container, "azpub");
      }
      for (EventEnvelope e : events) {
        String json = new String(EventCodec.encode(e), StandardCharsets.UTF_8);
        assertThat(json).as("no account key in event %s", e.type().wireName()).doesNotContain(AzuriteServer.ACCOUNT_KEY);
      }
    } finally {
      TestSupport.await(cp.close());
      TestSupport.await(vertx.close());
    }
  }

  @Test
  void sasUrlsAreRenewedBeforeTheyExpireAndTheOldOnesStopWorking(Infra infra, @TempDir Path dir) throws Exception {
    Duration ttl = Duration.ofSeconds(12);
    String container = container();
    Vertx vertx = Vertx.vertx();
    ControlPlane cp = TestSupport.start(vertx, config(infra, dir, container, "azure-sas-ttl", "12s"));
    try {
      Http h = S3StorageIT.createApp(cp, "azrenew");
      ExportFixture.upload(h, "azrenew", Fixtures.update1());
      Http.Resp p = h.post("/v1/apps/azrenew/updates", ExportFixture.publishBody(Fixtures.update1(), "production", "1.0.0"));
      assertThat(p.status()).as(p.toString()).isEqualTo(201);
      List<PlatformUpdate> published = ((UpdatePublished) last(TestSupport.events(infra, "azrenew")).payload()).group().platforms();
      Instant signedAt = Instant.parse(published.get(0).createdAt());
      String oldUrl = Http.JSON.readTree(published.get(0).body()).get("launchAsset").get("url").asText();
      assertThat(oldUrl).contains("sig=").contains("se=");
      assertThat(status(oldUrl)).isEqualTo(200);
      assertThat(TestSupport.metric(h, "updraft_control_presigned_url_life_left_ratio")).as("just rendered").isBetween(0.75, 1.0);

      // the control plane's own timer renews past half the lifetime; nobody calls it here
      ManifestsRenewed renewed = awaitRenewal(infra, "azrenew", signedAt.plus(ttl).plusSeconds(5));
      EventEnvelope renewal = lastOfType(TestSupport.events(infra, "azrenew"), "manifests.renewed");
      assertThat(renewal.actor()).isEqualTo("system");
      assertThat(renewal.occurredAt()).as("renewed before the old URLs expire").isBefore(signedAt.plus(ttl));
      assertThat(renewed.renewals()).extracting(Renewal::updateId).containsExactlyInAnyOrderElementsOf(published.stream().map(PlatformUpdate::updateId).toList());

      ManifestChecks checks = new ManifestChecks(Fixtures.certificatePem());
      List<String> renewedUrls = new ArrayList<>();
      for (Renewal r : renewed.renewals()) {
        PlatformUpdate old = published.stream().filter(u -> u.updateId().equals(r.updateId())).findFirst().orElseThrow();
        JsonNode m = checks.manifest(new PlatformUpdate(old.platform(), old.updateId(), old.createdAt(), r.body(), r.signature(), old.launchAssetKey(), old.assetKeys()), Fixtures.update1(), "1.0.0", "production");
        checks.signature(r.body(), r.signature());
        assertEveryAssetDownloads(m, container, "azrenew");
        renewedUrls.add(m.get("launchAsset").get("url").asText());
      }
      assertThat(renewedUrls).doesNotContain(oldUrl);

      long wait = Duration.between(Instant.now(), signedAt.plus(ttl).plusSeconds(2)).toMillis();
      if (wait > 0) {
        Thread.sleep(wait);
      }
      assertThat(status(oldUrl)).as("the first URL has expired").isEqualTo(403);
      String current = Http.JSON.readTree(h.get("/v1/apps/azrenew/updates/" + p.json().get("groupId").asText()).json().get("platforms").get(0).get("body").asText()).get("launchAsset").get("url").asText();
      assertThat(status(current)).as("the URL the control plane serves now still works").isEqualTo(200);
    } finally {
      TestSupport.await(cp.close());
      TestSupport.await(vertx.close());
    }
  }

  private void assertEveryAssetDownloads(JsonNode m, String container, String app) throws Exception {
    List<JsonNode> assets = new ArrayList<>();
    assets.add(m.get("launchAsset"));
    m.get("assets").forEach(assets::add);
    for (JsonNode a : assets) {
      String url = a.get("url").asText();
      assertThat(url).startsWith(azurite.endpoint() + "/" + container + "/assets/" + app + "/").contains("sig=").contains("sp=r&");
      assertThat(url).doesNotContain(AzuriteServer.ACCOUNT_KEY);
      HttpResponse<byte[]> r = http.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofByteArray());
      assertThat(r.statusCode()).as("GET %s", url).isEqualTo(200);
      String hash = Base64.getUrlEncoder().withoutPadding().encodeToString(ExportFixture.digest("SHA-256", r.body()));
      assertThat(hash).as("the bytes behind %s", a.get("key").asText()).isEqualTo(a.get("hash").asText());
      assertThat(r.headers().firstValue("content-type")).hasValue(a.get("contentType").asText());
    }
  }

  private int status(String url) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
  }

  private static ManifestsRenewed awaitRenewal(Infra infra, String app, Instant deadline) throws InterruptedException {
    while (Instant.now().isBefore(deadline)) {
      EventEnvelope e = lastOfType(TestSupport.events(infra, app), "manifests.renewed");
      if (e != null) {
        return (ManifestsRenewed) e.payload();
      }
      Thread.sleep(250);
    }
    throw new AssertionError("no manifests.renewed event for " + app + " by " + deadline);
  }

  private static EventEnvelope lastOfType(List<EventEnvelope> events, String type) {
    EventEnvelope found = null;
    for (EventEnvelope e : events) {
      if (e.type().wireName().equals(type)) {
        found = e;
      }
    }
    return found;
  }

  private static EventEnvelope last(List<EventEnvelope> events) {
    return events.get(events.size() - 1);
  }
}
