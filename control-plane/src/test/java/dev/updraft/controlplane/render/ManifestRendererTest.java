package dev.updraft.controlplane.render;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.updraft.testing.Fixtures;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Manifests rendered from the fixture files, compared with text written by hand from the fixture README
 * (base64url SHA-256 of every file) and {@code md5sum} of the files.
 */
class ManifestRendererTest {
  static final Path U1 = Fixtures.update1();
  static final String IOS_BUNDLE = "_expo/static/js/ios/index-a15905a51887436352fc107e5a9c5ef6.hbc";
  static final String FAVICON = "assets/d9f444efbdfbe7931aa93beada07318a";
  static final String SPLASH = "assets/97dae5a0e62ad8551d8a31897b425e63";
  /** Fake URLs that name only the kind of asset, so the expected text needs no hash of our own. */
  static final UrlSource URLS = (sha, ext, type) -> "https://cdn.test/" + (ext == null ? "launch" : ext.substring(1)) + "/" + sha.substring(0, 8);

  static AssetRef ref(String path, String contentType, String ext) throws Exception {
    byte[] b = Files.readAllBytes(U1.resolve(path));
    return new AssetRef(
        HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b)),
        HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(b)),
        contentType,
        ext);
  }

  @Test
  void rendersTheManifestOfTheFixtureExportExactly() throws Exception {
    AssetRef launch = ref(IOS_BUNDLE, "application/javascript", null);
    AssetRef favicon = ref(FAVICON, "image/png", ".png");
    AssetRef splash = ref(SPLASH, "image/png", ".png");
    String body =
        ManifestRenderer.manifest(
            UUID.fromString("9f1c1f4e-8d5a-4d8e-9a53-0b1f2c3d4e5f"),
            "2026-11-30T10:00:05.000Z",
            "1.0.0",
            "main",
            launch,
            List.of(favicon, splash, favicon),
            null,
            URLS);
    // launch key: md5sum of the bundle; asset keys: their file names (Metro's MD5); hashes from the README
    String expected =
        "{\"id\":\"9f1c1f4e-8d5a-4d8e-9a53-0b1f2c3d4e5f\",\"createdAt\":\"2026-11-30T10:00:05.000Z\",\"runtimeVersion\":\"1.0.0\","
            + "\"launchAsset\":{\"hash\":\"dzAAwFZchzfqBMfur18PkI6EZWpSsu-T4dC_xsDdOx8\",\"key\":\"16048232bb5c50812e11549a1c7fc705\","
            + "\"contentType\":\"application/javascript\",\"url\":\"https://cdn.test/launch/77300" + "0c0\"},"
            + "\"assets\":["
            + "{\"hash\":\"pOAwaXp1cbPpXTGGDk2lXS-Y5ehh4rVeQU9FqFVoKLo\",\"key\":\"d9f444efbdfbe7931aa93beada07318a\",\"contentType\":\"image/png\",\"fileExtension\":\".png\",\"url\":\"https://cdn.test/png/a4e03069\"},"
            + "{\"hash\":\"X0wKcytjJb9AcdkSTSrmfgN8sk_MnEgu-CvqdCEJo7g\",\"key\":\"97dae5a0e62ad8551d8a31897b425e63\",\"contentType\":\"image/png\",\"fileExtension\":\".png\",\"url\":\"https://cdn.test/png/5f4c0a73\"}"
            + "],\"metadata\":{\"branchName\":\"main\"},\"extra\":{}}";
    assertThat(body).isEqualTo(expected);
  }

  @Test
  void putsThePublicAppConfigInExtraExpoClient() throws Exception {
    ObjectMapper json = new ObjectMapper();
    ObjectNode config = (ObjectNode) json.readTree(Files.readAllBytes(U1.resolve("expoConfig.json")));
    String body =
        ManifestRenderer.manifest(
            UUID.randomUUID(), "2026-11-30T10:00:05.000Z", "1.0.0", "main", ref(IOS_BUNDLE, "application/javascript", null), List.of(),
            config, URLS);
    assertThat(json.readTree(body).get("extra").get("expoClient")).isEqualTo(config);
    assertThat(json.readTree(body).get("extra").get("expoClient").get("slug").asText()).isEqualTo("expoapp");
  }

  @Test
  void rerenderingKeepsEverythingButIdCreatedAtAndUrls() throws Exception {
    String body =
        ManifestRenderer.manifest(
            UUID.fromString("9f1c1f4e-8d5a-4d8e-9a53-0b1f2c3d4e5f"), "2026-11-30T10:00:05.000Z", "1.0.0", "main",
            ref(IOS_BUNDLE, "application/javascript", null), List.of(ref(FAVICON, "image/png", ".png")), null, URLS);
    String renewed = ManifestRenderer.rerender(body, null, null, null, (sha, ext, type) -> "https://signed.test/" + sha.substring(0, 4));
    assertThat(renewed)
        .isEqualTo(
            body.replace("https://cdn.test/launch/773000c0", "https://signed.test/7730")
                .replace("https://cdn.test/png/a4e03069", "https://signed.test/a4e0"));
    String republished =
        ManifestRenderer.rerender(body, UUID.fromString("00000000-0000-4000-8000-000000000001"), "2026-12-01T00:00:00.001Z", "main",
            URLS);
    assertThat(republished)
        .isEqualTo(
            body.replace("9f1c1f4e-8d5a-4d8e-9a53-0b1f2c3d4e5f", "00000000-0000-4000-8000-000000000001")
                .replace("2026-11-30T10:00:05.000Z", "2026-12-01T00:00:00.001Z"));
    String elsewhere = ManifestRenderer.rerender(body, UUID.fromString("00000000-0000-4000-8000-000000000001"),
        "2026-12-01T00:00:00.001Z", "hotfix", URLS);
    assertThat(elsewhere).as("a republish on another branch names that branch")
        .isEqualTo(republished.replace("\"branchName\":\"main\"", "\"branchName\":\"hotfix\""));
    String old = body.replace("\"metadata\":{\"branchName\":\"main\"}", "\"metadata\":{}");
    assertThat(ManifestRenderer.rerender(old, null, null, null, URLS)).as("a renewal keeps a body's metadata as it was")
        .contains("\"metadata\":{}");
    assertThat(ManifestRenderer.rerender(old, UUID.randomUUID(), "2026-12-01T00:00:00.001Z", "main", URLS))
        .as("a republish of a group published before branch metadata gets it").contains("\"metadata\":{\"branchName\":\"main\"}");
    assertThat(ManifestRenderer.assetSha256s(body)).hasSize(2);
  }

  @Test
  void putsTheEasProjectIdOfTheAppConfigInExtraEas() throws Exception {
    ObjectMapper json = new ObjectMapper();
    ObjectNode config = (ObjectNode) json.readTree(Files.readAllBytes(U1.resolve("expoConfig.json")));
    assertThat(json.readTree(ManifestRenderer.manifest(UUID.randomUUID(), "2026-11-30T10:00:05.000Z", "1.0.0", "main",
        ref(IOS_BUNDLE, "application/javascript", null), List.of(), config, URLS)).get("extra").has("eas"))
        .as("no extra.eas.projectId in the config: no extra.eas").isFalse();
    config.putObject("extra").putObject("eas").put("projectId", "3c7bb3a7-8a8e-4a7a-9d39-3f3c1c1b7f6e");
    JsonNode m = json.readTree(ManifestRenderer.manifest(UUID.randomUUID(), "2026-11-30T10:00:05.000Z", "1.0.0", "main",
        ref(IOS_BUNDLE, "application/javascript", null), List.of(), config, URLS));
    assertThat(m.get("extra").get("eas").get("projectId").asText()).isEqualTo("3c7bb3a7-8a8e-4a7a-9d39-3f3c1c1b7f6e");
    assertThat(m.get("extra").get("expoClient")).isEqualTo(config);
  }

  @Test
  void rendersDirectivesAsTheClientsExpectThem() {
    assertThat(ManifestRenderer.rollBackToEmbedded("2026-11-30T11:00:00.000Z"))
        .isEqualTo("{\"type\":\"rollBackToEmbedded\",\"parameters\":{\"commitTime\":\"2026-11-30T11:00:00.000Z\"}}");
    assertThat(ManifestRenderer.NO_UPDATE_AVAILABLE).isEqualTo("{\"type\":\"noUpdateAvailable\"}");
  }

  @Test
  void convertsBetweenHexAndUnpaddedBase64Url() {
    // SHA-256 of the empty string
    String hex = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
    assertThat(ManifestRenderer.base64UrlOfHex(hex)).isEqualTo("47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU");
    assertThat(ManifestRenderer.hexOfBase64Url("47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU")).isEqualTo(hex);
  }
}
