package dev.updraft.controlplane.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.updraft.common.ConfigException;
import dev.updraft.testing.RealInfrastructure;
import dev.updraft.testing.S3Bucket;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;

/**
 * S3 storage against a real S3 API server (S3Proxy on its filesystem backend; MinIO with the
 * testcontainers provider): what is stored and how, presigned URLs that the server honours, listing and
 * deleting for pruning, and the start-up checks. Credentials reach the code only through the AWS default
 * provider chain.
 */
@ExtendWith(RealInfrastructure.class)
class S3AssetStorageIT {
  static S3Bucket.Exported credentials;
  final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  static void exportCredentials(S3Bucket s3) {
    credentials = s3.exportCredentials();
  }

  @AfterAll
  static void restore() {
    credentials.close();
  }

  static S3Connect.Options options(S3Bucket s3, String baseUrl, Duration ttl) {
    return new S3Connect.Options(s3.bucket(), URI.create(s3.endpoint()), s3.region(), true, baseUrl, ttl);
  }

  @Test
  void storesBytesWithTypeCacheControlAndHashMetadataAndServesThemThroughPresignedUrls(S3Bucket s3, @TempDir Path dir) throws Exception {
    try (S3AssetStorage s = S3Connect.open(options(s3, null, Duration.ofHours(2)))) {
      byte[] png = "not really a png, but bytes".getBytes(StandardCharsets.UTF_8);
      String sha = StorageContract.sha256(png);
      assertThat(s.stat("demo", sha)).isNull();
      Path f = dir.resolve("f");
      Files.write(f, png);
      StoredAsset stored = s.put("demo", sha, f, StorageContract.md5(png), png.length, "image/png");
      assertThat(stored).isEqualTo(new StoredAsset(sha, StorageContract.md5(png), png.length));
      assertThat(s.stat("demo", sha)).isEqualTo(stored);
      assertThat(s.stat("other-app", sha)).as("storage is per app").isNull();
      assertThat(s.put("demo", sha, f, StorageContract.md5(png), png.length, "image/png")).as("storing again is harmless").isEqualTo(stored);
      try (S3Client c = s3.client()) {
        HeadObjectResponse h = c.headObject(r -> r.bucket(s3.bucket()).key("assets/demo/" + sha));
        assertThat(h.contentType()).isEqualTo("image/png");
        assertThat(h.cacheControl()).isEqualTo("public, max-age=31536000, immutable");
        assertThat(h.metadata()).containsEntry("md5hex", StorageContract.md5(png)).containsEntry("size", Integer.toString(png.length));
        assertThat(h.contentEncoding()).as("no transfer encoding (aws-chunked) is stored with the object").isNull();
      }

      String url = s.urls("demo").url(sha, ".png", "image/png");
      assertThat(url).startsWith(s3.endpoint() + "/" + s3.bucket() + "/assets/demo/" + sha + "?").contains("X-Amz-Expires=7200");
      assertThat(url).as("the secret never appears in a URL").doesNotContain(s3.secretKey());
      HttpResponse<byte[]> got = http.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofByteArray());
      assertThat(got.statusCode()).isEqualTo(200);
      assertThat(got.body()).isEqualTo(png);
      assertThat(got.headers().firstValue("content-type")).hasValue("image/png");
      assertThat(got.headers().firstValue("content-encoding"))
          .as("a strict client, proxy or CDN honours Content-Encoding: the stored bytes are identity").isEmpty();
      HttpResponse<byte[]> unsigned =
          http.send(HttpRequest.newBuilder(URI.create(url.substring(0, url.indexOf('?')))).build(), HttpResponse.BodyHandlers.ofByteArray());
      assertThat(unsigned.statusCode()).as("the bucket itself is private").isEqualTo(403);
      assertThat(s.urlTtl()).isEqualTo(Duration.ofHours(2));
      assertThat(s.describe()).contains(s3.bucket(), s3.endpoint()).doesNotContain(s3.secretKey()).doesNotContain(s3.accessKey());
    }
  }

  @Test
  void aPublicBaseUrlGivesPlainUrlsThatNeverExpire(S3Bucket s3) {
    try (S3AssetStorage s = S3Connect.open(options(s3, "https://cdn.example.com", Duration.ofDays(7)))) {
      String sha = "ab".repeat(32);
      assertThat(s.urls("demo").url(sha, ".png", "image/png")).isEqualTo("https://cdn.example.com/assets/demo/" + sha);
      assertThat(s.urlTtl()).as("CDN URLs never expire").isNull();
    }
  }

  @Test
  void listsAnAppsAssetsWithSizesAndAgesAndDeletesOne(S3Bucket s3, @TempDir Path dir) throws Exception {
    try (S3AssetStorage s = S3Connect.open(options(s3, null, Duration.ofHours(1)))) {
      StorageContract.listsAndDeletes(s, dir);
      StorageContract.keepsEdgeImages(s);
    }
  }

  @Test
  void bytesThatDoNotMatchTheirMd5AreRefusedByTheServerAndNothingIsStored(S3Bucket s3, @TempDir Path dir) throws Exception {
    try (S3AssetStorage s = S3Connect.open(options(s3, null, Duration.ofHours(1)))) {
      byte[] b = "the bytes that were hashed".getBytes(StandardCharsets.UTF_8);
      Path damaged = dir.resolve("damaged");
      Files.write(damaged, "the bytes that arrived!!!!".getBytes(StandardCharsets.UTF_8));
      String sha = StorageContract.sha256(b);
      assertThatThrownBy(() -> s.put("demo", sha, damaged, StorageContract.md5(b), b.length, "image/png"))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("s3://" + s3.bucket() + "/assets/demo/" + sha);
      assertThat(s.stat("demo", sha)).isNull();
    }
  }

  @Test
  void aMissingBucketIsAStartUpErrorNamingTheFlag(S3Bucket s3) {
    assertThatThrownBy(() -> S3Connect.open(options(s3.named("no-such-bucket-here"), null, Duration.ofHours(1))))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("--s3-bucket")
        .hasMessageContaining("no-such-bucket-here does not exist");
  }

  @Test
  void refusedCredentialsAreAStartUpErrorThatNeverShowsThem(S3Bucket s3) {
    S3Bucket.Exported wrong = s3.withSecret("wrong-secret-0123456789").exportCredentials();
    try {
      assertThatThrownBy(() -> S3Connect.open(options(s3, null, Duration.ofHours(1))))
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("S3 refused the AWS credentials for bucket " + s3.bucket())
          .hasMessageContaining("HTTP 403")
          .satisfies(e -> assertThat(e.getMessage()).doesNotContain("wrong-secret-0123456789"));
    } finally {
      wrong.close();
    }
  }

  @Test
  void anUnreachableEndpointIsAStartUpErrorNamingTheFlag(S3Bucket s3) throws Exception {
    int closedPort;
    try (java.net.ServerSocket ss = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      closedPort = ss.getLocalPort();
    }
    S3Connect.Options o = new S3Connect.Options(s3.bucket(), URI.create("http://127.0.0.1:" + closedPort), s3.region(), true, null, Duration.ofHours(1));
    assertThatThrownBy(() -> S3Connect.open(o)).isInstanceOf(ConfigException.class).hasMessageContaining("cannot reach S3").hasMessageContaining("--s3-endpoint");
  }
}
