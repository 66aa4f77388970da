package dev.updraft.controlplane;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.updraft.events.UpdateEvents.PlatformUpdate;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Pattern;
import org.greenbytes.http.sfv.Dictionary;
import org.greenbytes.http.sfv.ListElement;
import org.greenbytes.http.sfv.Parser;
import org.greenbytes.http.sfv.StringItem;

/**
 * The manifest and signing checks of protocol.md section 8 that apply to what the control plane renders,
 * worked out from the fixture files and the fixture certificate (never from the code under test).
 */
final class ManifestChecks {
  static final Pattern CREATED_AT = Pattern.compile("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z");
  static final Pattern UUID_TEXT = Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");

  /** Key to hash across every manifest checked (check 22). */
  final Map<String, String> keyToHash = new HashMap<>();
  final X509Certificate certificate;

  ManifestChecks(Path certificatePem) {
    this.certificate = certificate(certificatePem);
  }

  static X509Certificate certificate(Path pem) {
    try (InputStream in = Files.newInputStream(pem)) {
      return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Checks one platform's manifest against the export folder it was published from, on {@code branch}.
   *
   * @return the parsed manifest
   */
  JsonNode manifest(PlatformUpdate p, Path export, String runtimeVersion, String branch) throws IOException {
    JsonNode m = Http.JSON.readTree(p.body());
    // 17: id is a UUID, createdAt exactly yyyy-MM-ddTHH:mm:ss.SSSZ
    assertThat(m.get("id").asText()).matches(UUID_TEXT).isEqualTo(p.updateId());
    assertThat(UUID.fromString(m.get("id").asText()).toString()).isEqualTo(m.get("id").asText());
    assertThat(m.get("createdAt").asText()).matches(CREATED_AT).isEqualTo(p.createdAt());
    // 18: runtimeVersion byte-equal
    assertThat(m.get("runtimeVersion").asText()).isEqualTo(runtimeVersion);
    // the branch, which edges name in expo-manifest-filters (branchname, compared in lower case)
    assertThat(m.get("metadata")).isEqualTo(Http.JSON.createObjectNode().put("branchName", branch));
    if (Files.exists(export.resolve("expoConfig.json"))) {
      JsonNode config = Http.JSON.readTree(Files.readAllBytes(export.resolve("expoConfig.json")));
      assertThat(m.get("extra").get("expoClient")).isEqualTo(config);
      JsonNode projectId = config.path("extra").path("eas").path("projectId");
      if (projectId.isTextual()) {
        assertThat(m.get("extra").get("eas").get("projectId").asText()).isEqualTo(projectId.asText());
      } else {
        assertThat(m.get("extra").has("eas")).as("no extra.eas.projectId in the app config: no extra.eas").isFalse();
      }
    }
    JsonNode fm = ExportFixture.metadata(export).get("fileMetadata").get(p.platform());
    // launch asset: the platform's bundle, application/javascript, no fileExtension
    JsonNode launch = m.get("launchAsset");
    byte[] bundle = Files.readAllBytes(export.resolve(fm.get("bundle").asText()));
    assertThat(launch.has("fileExtension")).isFalse();
    assertThat(launch.get("contentType").asText()).isEqualTo("application/javascript");
    checkAsset(launch, bundle);
    assertThat(p.launchAssetKey()).isEqualTo(ExportFixture.md5(bundle));
    // 20, 21, 23: every listed asset once, keyed by MD5, with its extension and type
    Map<String, String> expectedExt = new HashMap<>();
    for (JsonNode a : fm.get("assets")) {
      byte[] bytes = Files.readAllBytes(export.resolve(a.get("path").asText()));
      expectedExt.put(ExportFixture.md5(bytes), "." + a.get("ext").asText());
    }
    Set<String> keys = new HashSet<>();
    keys.add(launch.get("key").asText());
    Set<String> hashes = new HashSet<>();
    hashes.add(launch.get("hash").asText());
    for (JsonNode a : m.get("assets")) {
      String key = a.get("key").asText();
      assertThat(keys.add(key)).as("duplicate key %s", key).isTrue();
      assertThat(hashes.add(a.get("hash").asText())).as("identical content twice").isTrue();
      assertThat(expectedExt).containsKey(key);
      assertThat(a.get("fileExtension").asText()).startsWith(".").isEqualTo(expectedExt.get(key));
      assertThat(a.get("contentType").asText()).isEqualTo("image/png");
      byte[] bytes = null;
      for (JsonNode fa : fm.get("assets")) {
        byte[] candidate = Files.readAllBytes(export.resolve(fa.get("path").asText()));
        if (ExportFixture.md5(candidate).equals(key)) {
          bytes = candidate;
        }
      }
      checkAsset(a, bytes);
    }
    assertThat(m.get("assets").size()).isEqualTo(expectedExt.size());
    return m;
  }

  private void checkAsset(JsonNode a, byte[] bytes) {
    String hash = a.get("hash").asText();
    // 19: base64url SHA-256 of the bytes, no padding
    assertThat(hash).doesNotContain("=", "+", "/");
    assertThat(hash).isEqualTo(Base64.getUrlEncoder().withoutPadding().encodeToString(ExportFixture.digest("SHA-256", bytes)));
    // 23: key = MD5 hex
    assertThat(a.get("key").asText()).isEqualTo(ExportFixture.md5(bytes));
    assertThat(a.get("url").asText()).startsWith("http");
    // 22: one key, one hash, across every update
    String earlier = keyToHash.putIfAbsent(a.get("key").asText(), hash);
    if (earlier != null) {
      assertThat(hash).isEqualTo(earlier);
    }
  }

  /** 25-27: the expo-signature value parses as an SF dictionary of strings and verifies over the body. */
  void signature(String body, String header) throws GeneralSecurityException {
    assertThat(header).isNotNull();
    Dictionary d = Parser.parseDictionary(header);
    Map<String, ListElement<? extends Object>> map = d.get();
    assertThat(map.get("sig")).isInstanceOf(StringItem.class);
    assertThat(map.get("keyid")).isInstanceOf(StringItem.class);
    assertThat(((StringItem) map.get("keyid")).get()).isEqualTo("main");
    assertThat(((StringItem) map.get("alg")).get()).isEqualTo("rsa-v1_5-sha256");
    String sig = ((StringItem) map.get("sig")).get();
    assertThat(sig).doesNotContain("-", "_").matches("[A-Za-z0-9+/]+={0,2}");
    assertThat(sig.length() % 4).isZero();
    byte[] raw = Base64.getDecoder().decode(sig);
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    assertThat(verify(bytes, raw)).as("signature verifies with the fixture certificate").isTrue();
    byte[] tampered = bytes.clone();
    tampered[tampered.length / 2] ^= 1;
    assertThat(verify(tampered, raw)).as("one changed byte fails verification").isFalse();
  }

  private boolean verify(byte[] bytes, byte[] sig) throws GeneralSecurityException {
    Signature v = Signature.getInstance("SHA256withRSA");
    v.initVerify(certificate.getPublicKey());
    v.update(bytes);
    return v.verify(sig);
  }
}
