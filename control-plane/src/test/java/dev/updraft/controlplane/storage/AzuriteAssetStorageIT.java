package dev.updraft.controlplane.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.azure.storage.blob.BlobContainerClient;
import com.azure.storage.blob.BlobServiceClient;
import com.azure.storage.blob.BlobServiceClientBuilder;
import com.azure.storage.blob.models.BlobProperties;
import com.azure.storage.blob.sas.BlobContainerSasPermission;
import com.azure.storage.blob.sas.BlobServiceSasSignatureValues;
import com.azure.storage.common.StorageSharedKeyCredential;
import dev.updraft.common.ConfigException;
import dev.updraft.testing.AzuriteServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.HexFormat;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Azure Blob storage against Azurite (Microsoft's emulator, a real Blob service API server run as a process):
 * the storage contract every backend passes, what is stored and how, SAS URLs that the service honours and
 * that carry no credential, a SAS token with a CDN base URL, and the start-up checks.
 */
class AzuriteAssetStorageIT {
  static AzuriteServer azurite;
  static BlobServiceClient admin;
  final HttpClient http = HttpClient.newHttpClient();

  @TempDir static Path azuriteDir;

  /** Starts Azurite for the class's first test (a test without Azurite is reported skipped, or fails in CI). */
  @BeforeEach
  void startAzurite() throws IOException {
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

  /** A new private container. */
  static String container() {
    String name = "updraft-" + UUID.randomUUID().toString().substring(0, 8);
    admin.createBlobContainer(name);
    return name;
  }

  static AzureConnect.Options keyed(String endpoint, String container, String baseUrl, Duration ttl) {
    return new AzureConnect.Options(AzuriteServer.ACCOUNT, container, URI.create(endpoint), AzuriteServer.ACCOUNT_KEY, null, baseUrl, ttl);
  }

  @Test
  void listsAnAppsAssetsWithSizesAndAgesAndDeletesOne(@TempDir Path dir) throws Exception {
    try (AzureAssetStorage s = AzureConnect.open(keyed(azurite.endpoint(), container(), null, Duration.ofHours(1)))) {
      StorageContract.listsAndDeletes(s, dir);
      StorageContract.keepsEdgeImages(s);
    }
  }

  @Test
  void storesBytesWithTypeCacheControlAndHashMetadataAndServesThemThroughSasUrls(@TempDir Path dir) throws Exception {
    String container = container();
    try (AzureAssetStorage s = AzureConnect.open(keyed(azurite.endpoint(), container, null, Duration.ofHours(2)))) {
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
      BlobProperties p = admin.getBlobContainerClient(container).getBlobClient("assets/demo/" + sha).getProperties();
      assertThat(p.getContentType()).isEqualTo("image/png");
      assertThat(p.getCacheControl()).isEqualTo("public, max-age=31536000, immutable");
      assertThat(HexFormat.of().formatHex(p.getContentMd5())).isEqualTo(StorageContract.md5(png));
      assertThat(p.getMetadata()).containsEntry("md5hex", StorageContract.md5(png)).containsEntry("size", Integer.toString(png.length));
      try (InputStream in = s.open("demo", sha)) {
        assertThat(in.readAllBytes()).isEqualTo(png);
      }
      assertThatThrownBy(() -> s.open("demo", "ab".repeat(32))).isInstanceOf(NoSuchFileException.class);

      String url = s.urls("demo").url(sha, ".png", "application/octet-stream");
      assertThat(url).startsWith(azurite.endpoint() + "/" + container + "/assets/demo/" + sha + "?").contains("sig=").contains("sp=r&");
      assertThat(url).as("the key never appears in a URL").doesNotContain(AzuriteServer.ACCOUNT_KEY);
      HttpResponse<byte[]> got = http.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofByteArray());
      assertThat(got.statusCode()).isEqualTo(200);
      assertThat(got.body()).isEqualTo(png);
      assertThat(got.headers().firstValue("content-type")).as("the manifest's type wins over the upload's").hasValue("application/octet-stream");
      HttpResponse<byte[]> unsigned =
          http.send(HttpRequest.newBuilder(URI.create(url.substring(0, url.indexOf('?')))).build(), HttpResponse.BodyHandlers.ofByteArray());
      assertThat(unsigned.statusCode()).as("the container itself is private").isBetween(400, 499);
      HttpResponse<byte[]> put =
          http.send(
              HttpRequest.newBuilder(URI.create(url)).header("x-ms-blob-type", "BlockBlob").PUT(HttpRequest.BodyPublishers.ofString("replaced")).build(),
              HttpResponse.BodyHandlers.ofByteArray());
      assertThat(put.statusCode()).as("a device's URL cannot write").isEqualTo(403);
      assertThat(s.urlTtl()).isEqualTo(Duration.ofHours(2));
      assertThat(s.describe()).contains(container, azurite.endpoint()).doesNotContain(AzuriteServer.ACCOUNT_KEY);
    }
  }

  @Test
  void aLargeBundleIsStoredWholeAndReadBackByteForByte(@TempDir Path dir) throws Exception {
    byte[] big = new byte[24 * 1024 * 1024 + 17];
    new java.security.SecureRandom().nextBytes(big);
    Path f = dir.resolve("big");
    Files.write(f, big);
    String sha = StorageContract.sha256(big);
    try (AzureAssetStorage s = AzureConnect.open(keyed(azurite.endpoint(), container(), null, Duration.ofHours(1)))) {
      assertThat(s.put("big", sha, f, StorageContract.md5(big), big.length, "application/javascript").size()).isEqualTo(big.length);
      try (InputStream in = s.open("big", sha)) {
        assertThat(StorageContract.sha256(in.readAllBytes())).isEqualTo(sha);
      }
      HttpResponse<byte[]> got =
          http.send(HttpRequest.newBuilder(URI.create(s.urls("big").url(sha, ".js", "application/javascript"))).build(), HttpResponse.BodyHandlers.ofByteArray());
      assertThat(got.statusCode()).isEqualTo(200);
      assertThat(StorageContract.sha256(got.body())).isEqualTo(sha);
    }
  }

  @Test
  void anEncodingIsStoredUnderItsOwnAddressAndServedByItsSasUrl(@TempDir Path dir) throws Exception {
    try (AzureAssetStorage s = AzureConnect.open(keyed(azurite.endpoint(), container(), null, Duration.ofHours(1)))) {
      StoredAsset asset = StorageContract.put(s, "enc", dir, "the identity bytes of a bundle, compressible compressible compressible");
      byte[] gz = "pretend these are the gzip bytes".getBytes(StandardCharsets.UTF_8);
      Path f = dir.resolve("gz");
      Files.write(f, gz);
      String gzSha = StorageContract.sha256(gz);
      StoredAsset variant = s.putVariant("enc", asset.sha256Hex(), "gzip", f, gzSha, StorageContract.md5(gz), gz.length);
      assertThat(variant).isEqualTo(new StoredAsset(gzSha, StorageContract.md5(gz), gz.length));
      assertThat(s.list("enc")).extracting(ListedAsset::sha256Hex).containsExactlyInAnyOrder(asset.sha256Hex(), gzSha);
      HttpResponse<byte[]> got =
          http.send(HttpRequest.newBuilder(URI.create(s.urls("enc").url(gzSha, null, "application/octet-stream"))).build(), HttpResponse.BodyHandlers.ofByteArray());
      assertThat(got.statusCode()).isEqualTo(200);
      assertThat(got.body()).isEqualTo(gz);
    }
  }

  @Test
  void bytesThatDoNotMatchTheirMd5AreRefusedByTheServiceAndNothingIsStored(@TempDir Path dir) throws Exception {
    try (AzureAssetStorage s = AzureConnect.open(keyed(azurite.endpoint(), container(), null, Duration.ofHours(1)))) {
      byte[] b = "the bytes that were hashed".getBytes(StandardCharsets.UTF_8);
      Path damaged = dir.resolve("damaged");
      Files.write(damaged, "the bytes that arrived!!!!".getBytes(StandardCharsets.UTF_8));
      String sha = StorageContract.sha256(b);
      assertThatThrownBy(() -> s.put("demo", sha, damaged, StorageContract.md5(b), b.length, "image/png"))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("assets/demo/" + sha);
      assertThat(s.stat("demo", sha)).isNull();
    }
  }

  @Test
  void aSasTokenWithAPublicBaseUrlStoresAndGivesPlainUrlsThatNeverExpire(@TempDir Path dir) throws Exception {
    String container = container();
    BlobContainerClient c = admin.getBlobContainerClient(container);
    BlobContainerSasPermission perms = BlobContainerSasPermission.parse("racwdl");
    String token = c.generateSas(new BlobServiceSasSignatureValues(OffsetDateTime.now().plusHours(1), perms));
    AzureConnect.Options o =
        new AzureConnect.Options(AzuriteServer.ACCOUNT, container, URI.create(azurite.endpoint()), null, token, "https://cdn.example.com", Duration.ofDays(7));
    try (AzureAssetStorage s = AzureConnect.open(o)) {
      StorageContract.listsAndDeletes(s, dir);
      String sha = "ab".repeat(32);
      assertThat(s.urls("demo").url(sha, ".png", "image/png")).isEqualTo("https://cdn.example.com/assets/demo/" + sha);
      assertThat(s.urlTtl()).as("CDN URLs never expire").isNull();
      assertThat(s.describe()).doesNotContain(token.substring(token.indexOf("sig=")));
    }
  }

  @Test
  void aMissingContainerIsAStartUpErrorNamingTheFlag() {
    assertThatThrownBy(() -> AzureConnect.open(keyed(azurite.endpoint(), "no-such-container", null, Duration.ofHours(1))))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("--azure-container")
        .hasMessageContaining("no-such-container does not exist");
  }

  @Test
  void aRefusedKeyIsAStartUpErrorThatNeverShowsIt() {
    String wrong = java.util.Base64.getEncoder().encodeToString("a wrong key of sixty-four bytes, which the account does not have".getBytes(StandardCharsets.UTF_8));
    AzureConnect.Options o = new AzureConnect.Options(AzuriteServer.ACCOUNT, container(), URI.create(azurite.endpoint()), wrong, null, null, Duration.ofHours(1));
    assertThatThrownBy(() -> AzureConnect.open(o))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("Azure refused the credentials")
        .hasMessageContaining("HTTP 403")
        .hasMessageContaining("--azure-account-key")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain(wrong));
  }

  @Test
  void anUnreachableEndpointIsAStartUpErrorNamingTheFlag() throws Exception {
    int closedPort;
    try (java.net.ServerSocket ss = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      closedPort = ss.getLocalPort();
    }
    AzureConnect.Options o = keyed("http://127.0.0.1:" + closedPort + "/" + AzuriteServer.ACCOUNT, "any-container", null, Duration.ofHours(1));
    assertThatThrownBy(() -> AzureConnect.open(o)).isInstanceOf(ConfigException.class).hasMessageContaining("cannot reach Azure").hasMessageContaining("--azure-endpoint");
  }
}
