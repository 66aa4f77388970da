package dev.updraft.controlplane.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.updraft.common.ConfigException;
import dev.updraft.testing.S3Bucket;
import dev.updraft.testing.S3Servers;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The same S3 storage against MinIO in Docker (one more S3 implementation); skipped, and reported as
 * skipped, where no Docker engine answers. S3AssetStorageIT covers S3 everywhere else.
 */
class MinioAssetStorageIT {

  @Test
  void storesListsDeletesAndServesPresignedUrlsOnMinio(@TempDir Path dir) throws Exception {
    S3Bucket s3 = S3Servers.minio("updraft-minio-it");
    try (S3Bucket.Exported credentials = s3.exportCredentials();
        S3AssetStorage s = S3Connect.open(S3AssetStorageIT.options(s3, null, Duration.ofMinutes(5)))) {
      StorageContract.listsAndDeletes(s, dir);
      StorageContract.keepsEdgeImages(s);
      StoredAsset a = StorageContract.put(s, "demo", dir, "served by minio");
      HttpResponse<String> r =
          HttpClient.newHttpClient()
              .send(HttpRequest.newBuilder(URI.create(s.urls("demo").url(a.sha256Hex(), ".png", "image/png"))).build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(r.body()).isEqualTo("served by minio");
      assertThat(credentials).isNotNull();
    }
    try (S3Bucket.Exported credentials = s3.exportCredentials()) {
      assertThat(credentials).isNotNull();
      assertThatThrownBy(() -> S3Connect.open(S3AssetStorageIT.options(s3.named("updraft-minio-missing"), null, Duration.ofMinutes(5))))
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("does not exist");
    }
  }
}
