package dev.updraft.controlplane.storage;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.storage.Blob;
import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.contrib.nio.testing.LocalStorageHelper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GcsAssetStorageTest {
  static final String SHA = "ab".repeat(32);

  @Test
  void storesBytesWithTypeCacheControlAndHashMetadataAndFindsThemAgain(@TempDir Path dir) throws Exception {
    Storage gcs = LocalStorageHelper.getOptions().getService();
    GcsAssetStorage s = new GcsAssetStorage(gcs, "bucket", "https://cdn.example.com", Duration.ofDays(7), null);
    assertThat(s.stat("demo", SHA)).isNull();
    Path f = dir.resolve("f");
    Files.writeString(f, "hello");
    s.put("demo", SHA, f, "5d41402abc4b2a76b9719d911017c592", 5, "image/png");
    assertThat(s.stat("demo", SHA)).isEqualTo(new StoredAsset(SHA, "5d41402abc4b2a76b9719d911017c592", 5));
    Blob b = gcs.get(BlobId.of("bucket", "assets/demo/" + SHA));
    assertThat(b.getContentType()).isEqualTo("image/png");
    assertThat(b.getCacheControl()).isEqualTo("public, max-age=31536000, immutable");
    assertThat(new String(b.getContent(), StandardCharsets.US_ASCII)).isEqualTo("hello");
    assertThat(s.stat("other-app", SHA)).as("storage is per app").isNull();
    assertThat(s.urls("demo").url(SHA, ".png", "image/png")).isEqualTo("https://cdn.example.com/assets/demo/" + SHA);
    assertThat(s.urlTtl()).as("CDN URLs never expire").isNull();
  }

  @Test
  void signsV4UrlsOfflineThatVerifyWithTheServiceAccountKey() throws Exception {
    KeyPair kp = GcsSigning.keyPair();
    Storage gcs = LocalStorageHelper.getOptions().getService();
    GcsAssetStorage s = new GcsAssetStorage(gcs, "bucket", null, Duration.ofHours(6), GcsSigning.credentials(kp));
    String url = s.urls("demo").url(SHA, ".png", "image/png");
    assertThat(url).startsWith("https://storage.googleapis.com/bucket/assets/demo/" + SHA + "?");
    Map<String, String> q = GcsSigning.query(url);
    assertThat(q.get("X-Goog-Algorithm")).isEqualTo("GOOG4-RSA-SHA256");
    assertThat(q.get("X-Goog-Expires")).isEqualTo("21600");
    assertThat(q.get("X-Goog-Credential")).startsWith("updraft-test@example-project.iam.gserviceaccount.com/");
    assertThat(q.get("X-Goog-SignedHeaders")).isEqualTo("host");
    assertThat(GcsSigning.verifies(url, kp.getPublic())).isTrue();
    assertThat(GcsSigning.verifies(url.replace("/demo/", "/dem0/"), kp.getPublic())).as("another object fails").isFalse();
    assertThat(s.urlTtl()).isEqualTo(Duration.ofHours(6));
  }

  @Test
  void listsAnAppsAssetsWithSizesAndAgesAndDeletesOne(@TempDir Path dir) throws Exception {
    Storage gcs = LocalStorageHelper.getOptions().getService();
    GcsAssetStorage s = new GcsAssetStorage(gcs, "bucket", "https://cdn.example.com", Duration.ofDays(7), null);
    StorageContract.listsAndDeletes(s, dir);
    StorageContract.keepsEdgeImages(s);
  }
}
