package dev.updraft.controlplane;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.contrib.nio.testing.LocalStorageHelper;
import dev.updraft.controlplane.storage.GcsSigning;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.AzuriteServer;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import dev.updraft.testing.S3Bucket;
import io.vertx.core.Vertx;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Asset prune on local storage, on the GCS fake, on a real S3 API server and on Azurite, over the API on real Kafka: it deletes exactly the
 * objects no remaining group references that are older than the grace period (a dry run lists the same ones
 * first), and a publish racing prunes never loses an asset: it either finds every object it names stored
 * afterwards, or is refused to upload again.
 */
@ExtendWith(RealInfrastructure.class)
class PruneIT {

  @ParameterizedTest
  @ValueSource(strings = {"local", "gcs"})
  void deletesExactlyTheUnreferencedObjectsPastTheGraceAndLosesNothingToARacingPublish(String kind, Infra infra, @TempDir Path dir)
      throws Exception {
    MutableClock clock = new MutableClock(Instant.now());
    Storage gcs = null;
    String[] flags = {};
    if (kind.equals("gcs")) {
      Path credentials = dir.resolve("sa.json");
      Files.writeString(credentials, GcsSigning.json(GcsSigning.keyPair()));
      gcs = LocalStorageHelper.getOptions().toBuilder().setClock(clock).build().getService();
      flags = new String[] {"storage", "gcs", "gcs-bucket", "updates", "gcs-credentials", credentials.toString()};
    }
    pruneAndRace(kind, infra, dir, clock, flags, gcs);
  }

  /**
   * The same on S3 storage against a real S3 API server (S3Proxy): the objects' ages are the server's
   * {@code LastModified}, the control plane's clock is moved past the grace instead.
   */
  @Test
  void onS3DeletesExactlyTheUnreferencedObjectsPastTheGraceAndLosesNothingToARacingPublish(Infra infra, S3Bucket s3, @TempDir Path dir)
      throws Exception {
    S3Bucket.Exported credentials = s3.exportCredentials();
    try {
      pruneAndRace("s3", infra, dir, new MutableClock(Instant.now()), s3.controlPlaneFlags().toArray(new String[0]), null);
    } finally {
      credentials.close();
    }
  }

  /** The same on Azure Blob storage against Azurite: the blobs' ages are the service's creation times. */
  @Test
  void onAzureDeletesExactlyTheUnreferencedObjectsPastTheGraceAndLosesNothingToARacingPublish(Infra infra, @TempDir Path dir) throws Exception {
    try (AzuriteServer azurite = AzuriteServer.start(dir.resolve("azurite"))) {
      new com.azure.storage.blob.BlobServiceClientBuilder()
          .endpoint(azurite.endpoint())
          .credential(new com.azure.storage.common.StorageSharedKeyCredential(AzuriteServer.ACCOUNT, AzuriteServer.ACCOUNT_KEY))
          .buildClient()
          .createBlobContainer("prune");
      String[] flags = {
        "storage", "azure", "azure-account", AzuriteServer.ACCOUNT, "azure-container", "prune", "azure-endpoint", azurite.endpoint(),
        "azure-account-key", AzuriteServer.ACCOUNT_KEY
      };
      pruneAndRace("azure", infra, dir.resolve("cp"), new MutableClock(Instant.now()), flags, null);
    }
  }

  private static void pruneAndRace(String kind, Infra infra, Path dir, MutableClock clock, String[] flags, Storage gcs) throws Exception {
    Vertx vertx = Vertx.vertx();
    ControlPlane cp = TestSupport.start(vertx, TestSupport.config(infra, dir, flags), new Hooks(clock, null, gcs));
    try {
      Http h = new Http("http://127.0.0.1:" + cp.port(), TestSupport.ADMIN);
      String app = "prune-" + kind;
      assertThat(h.post("/v1/apps", Map.of("appId", app)).status()).isEqualTo(201);
      ExportFixture.upload(h, app, Fixtures.update1());
      ExportFixture.upload(h, app, Fixtures.update2());
      String g1 = publish(h, app, Fixtures.update1());
      publish(h, app, Fixtures.update2());
      byte[] orphan = "never published".getBytes(StandardCharsets.UTF_8);
      String orphanSha = ExportFixture.sha256(orphan);
      assertThat(h.putBytes("/v1/apps/" + app + "/assets/" + orphanSha, orphan, "application/octet-stream").status()).isEqualTo(201);

      Set<String> v1 = shas(Fixtures.update1());
      Set<String> v2 = shas(Fixtures.update2());
      Set<String> onlyV1 = new HashSet<>(v1);
      onlyV1.removeAll(v2);
      assertThat(onlyV1).isNotEmpty();

      assertThat(prune(h, app, true, "7d").get("count").asInt()).as("nothing is past the grace yet").isZero();
      clock.advance(Duration.ofDays(8));
      JsonNode dry = prune(h, app, true, "7d");
      assertThat(objects(dry)).containsExactly(orphanSha);
      assertThat(dry.get("bytes").asLong()).isEqualTo(orphan.length);
      assertThat(missing(h, app, List.of(orphanSha))).as("a dry run deletes nothing").isEmpty();

      assertThat(h.delete("/v1/apps/" + app + "/updates/" + g1).status()).isEqualTo(200);
      JsonNode withinGrace = prune(h, app, false, "9d");
      assertThat(withinGrace.get("count").asInt()).as("everything is within 9 days").isZero();
      assertThat(withinGrace.get("young").asInt()).isGreaterThanOrEqualTo(onlyV1.size() + 1);

      Set<String> expected = new HashSet<>(onlyV1);
      expected.add(orphanSha);
      JsonNode pruned = prune(h, app, false, "7d");
      Set<String> deleted = new HashSet<>();
      for (JsonNode o : pruned.get("objects")) {
        deleted.add(o.get("sha256").asText());
      }
      assertThat(deleted).containsAll(expected);
      deleted.removeAll(expected);
      assertThat(deleted).as("besides update 1's own files, only their stored encodings").hasSizeLessThanOrEqualTo(6);
      assertThat(missing(h, app, new ArrayList<>(expected))).containsExactlyInAnyOrderElementsOf(expected);
      assertThat(missing(h, app, new ArrayList<>(v2))).as("what the remaining group names stays").isEmpty();

      // update 1's files are garbage again in every round: a publish naming them races a prune
      for (int round = 0; round < 8; round++) {
        ExportFixture.upload(h, app, Fixtures.update1());
        clock.advance(Duration.ofDays(8));
        CompletableFuture<Http.Resp> pub = CompletableFuture.supplyAsync(
            () -> h.post("/v1/apps/" + app + "/updates", ExportFixture.publishBody(Fixtures.update1(), "main", "1.0.0")));
        CompletableFuture<JsonNode> pr = CompletableFuture.supplyAsync(() -> prune(h, app, false, "7d"));
        Http.Resp p = pub.get();
        pr.get();
        if (p.status() == 201) {
          assertThat(missing(h, app, new ArrayList<>(v1))).as("round %d: the published group's assets are stored", round).isEmpty();
          assertThat(h.delete("/v1/apps/" + app + "/updates/" + p.json().get("groupId").asText() + "?force=true").status()).isEqualTo(200);
        } else {
          assertThat(p.errorCode()).as("round %d: %s", round, p).isEqualTo("asset-not-uploaded");
        }
      }
    } finally {
      TestSupport.await(cp.close());
      TestSupport.await(vertx.close());
    }
  }

  static String publish(Http h, String app, Path export) {
    Http.Resp r = h.post("/v1/apps/" + app + "/updates", ExportFixture.publishBody(export, "main", "1.0.0"));
    assertThat(r.status()).as(r.toString()).isEqualTo(201);
    return r.json().get("groupId").asText();
  }

  static JsonNode prune(Http h, String app, boolean dryRun, String grace) {
    Http.Resp r = h.post("/v1/apps/" + app + "/assets/prune", Map.of("dryRun", dryRun, "grace", grace));
    assertThat(r.status()).as(r.toString()).isEqualTo(200);
    return r.json();
  }

  static List<String> objects(JsonNode result) {
    List<String> out = new ArrayList<>();
    result.get("objects").forEach(o -> out.add(o.get("sha256").asText()));
    return out;
  }

  static Set<String> shas(Path export) {
    Set<String> out = new HashSet<>();
    for (String p : ExportFixture.paths(export)) {
      out.add(ExportFixture.sha256(ExportFixture.read(export.resolve(p))));
    }
    return out;
  }

  static List<String> missing(Http h, String app, List<String> shas) {
    ObjectNode b = Http.JSON.createObjectNode();
    b.putArray("sha256").addAll(shas.stream().map(Http.JSON.getNodeFactory()::textNode).toList());
    List<String> out = new ArrayList<>();
    h.post("/v1/apps/" + app + "/assets/missing", b).json().get("missing").forEach(n -> out.add(n.asText()));
    return out;
  }
}
