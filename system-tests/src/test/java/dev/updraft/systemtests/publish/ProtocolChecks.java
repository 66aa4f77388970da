package dev.updraft.systemtests.publish;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.updraft.events.UpdateEvents.PlatformUpdate;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Pattern;
import org.greenbytes.http.sfv.Dictionary;
import org.greenbytes.http.sfv.ListElement;
import org.greenbytes.http.sfv.Parser;
import org.greenbytes.http.sfv.StringItem;

/**
 * The checks of protocol.md section 8 that apply to published manifests and signatures (16-23, 25-27,
 * 33), with every expected value worked out from the fixture files and certificate.
 */
final class ProtocolChecks {
  static final ObjectMapper JSON = new ObjectMapper();
  static final Pattern CREATED_AT = Pattern.compile("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z");

  final Map<String, String> keyToHash = new HashMap<>();
  final X509Certificate certificate;

  ProtocolChecks(Path certificatePem) throws IOException, GeneralSecurityException {
    try (InputStream in = Files.newInputStream(certificatePem)) {
      certificate = (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
    }
  }

  static String hex(String alg, byte[] b) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance(alg).digest(b));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  static String b64url(byte[] b) throws GeneralSecurityException {
    return Base64.getUrlEncoder().withoutPadding().encodeToString(MessageDigest.getInstance("SHA-256").digest(b));
  }

  /** Checks one platform's manifest against the export folder it came from, published on {@code branch}; returns it parsed. */
  JsonNode manifest(PlatformUpdate p, Path export, String runtimeVersion, String branch) throws Exception {
    JsonNode m = JSON.readTree(p.body());
    assertThat(UUID.fromString(m.get("id").asText()).toString()).isEqualTo(m.get("id").asText()).isEqualTo(p.updateId());
    assertThat(m.get("createdAt").asText()).matches(CREATED_AT);
    assertThat(m.get("runtimeVersion").asText()).isEqualTo(runtimeVersion);
    // the branch, which edges name in expo-manifest-filters
    assertThat(m.get("metadata").size()).isEqualTo(1);
    assertThat(m.get("metadata").get("branchName").asText()).isEqualTo(branch);
    assertThat(m.get("extra").get("expoClient")).isEqualTo(JSON.readTree(Files.readAllBytes(export.resolve("expoConfig.json"))));
    JsonNode fm = JSON.readTree(Files.readAllBytes(export.resolve("metadata.json"))).get("fileMetadata").get(p.platform());
    byte[] bundle = Files.readAllBytes(export.resolve(fm.get("bundle").asText()));
    JsonNode launch = m.get("launchAsset");
    assertThat(launch.has("fileExtension")).isFalse();
    assertThat(launch.get("contentType").asText()).isEqualTo("application/javascript");
    asset(launch, bundle);
    Map<String, byte[]> byMd5 = new HashMap<>();
    for (JsonNode a : fm.get("assets")) {
      byte[] b = Files.readAllBytes(export.resolve(a.get("path").asText()));
      assertThat(a.get("ext").asText()).isEqualTo("png");
      byMd5.put(hex("MD5", b), b);
    }
    Set<String> keys = new HashSet<>();
    keys.add(launch.get("key").asText());
    for (JsonNode a : m.get("assets")) {
      assertThat(keys.add(a.get("key").asText())).isTrue();
      assertThat(byMd5).containsKey(a.get("key").asText());
      assertThat(a.get("fileExtension").asText()).isEqualTo(".png");
      assertThat(a.get("contentType").asText()).isEqualTo("image/png");
      asset(a, byMd5.get(a.get("key").asText()));
    }
    assertThat(m.get("assets")).hasSize(byMd5.size());
    return m;
  }

  private void asset(JsonNode a, byte[] bytes) throws GeneralSecurityException {
    assertThat(a.get("hash").asText()).isEqualTo(b64url(bytes)).doesNotContain("=", "+", "/");
    assertThat(a.get("key").asText()).isEqualTo(hex("MD5", bytes));
    assertThat(a.get("url").asText()).startsWith("http://");
    String earlier = keyToHash.putIfAbsent(a.get("key").asText(), a.get("hash").asText());
    if (earlier != null) {
      assertThat(a.get("hash").asText()).isEqualTo(earlier);
    }
  }

  void signature(String body, String header) throws GeneralSecurityException {
    Dictionary d = Parser.parseDictionary(header);
    Map<String, ListElement<? extends Object>> map = d.get();
    assertThat(((StringItem) map.get("keyid")).get()).isEqualTo("main");
    assertThat(((StringItem) map.get("alg")).get()).isEqualTo("rsa-v1_5-sha256");
    String sig = ((StringItem) map.get("sig")).get();
    assertThat(sig).matches("[A-Za-z0-9+/]+={0,2}");
    byte[] raw = Base64.getDecoder().decode(sig);
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    assertThat(verify(bytes, raw)).isTrue();
    bytes[bytes.length - 2] ^= 1;
    assertThat(verify(bytes, raw)).isFalse();
  }

  private boolean verify(byte[] bytes, byte[] sig) throws GeneralSecurityException {
    Signature v = Signature.getInstance("SHA256withRSA");
    v.initVerify(certificate.getPublicKey());
    v.update(bytes);
    return v.verify(sig);
  }
}
