package dev.updraft.load.check;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.testing.Fixtures;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** Multipart parsing and response validation: valid manifests, directives, and malformed bodies by kind. */
class ResponseCheckTest {
  static final String ID = "9f1c1f4e-8d5a-4d8e-9a53-0b1f2c3d4e5f";
  static final String MANIFEST = "{\"id\":\"" + ID + "\",\"createdAt\":\"2026-11-30T10:00:05.000Z\",\"runtimeVersion\":\"1.0.0\","
      + "\"launchAsset\":{\"hash\":\"dzAAwFZchzfqBMfur18PkI6EZWpSsu-T4dC_xsDdOx8\",\"key\":\"a15905a5\",\"contentType\":\"application/javascript\","
      + "\"url\":\"http://127.0.0.1:8080/assets/a15905a5\"},\"assets\":[{\"hash\":\"x\",\"key\":\"b1\",\"contentType\":\"image/png\","
      + "\"fileExtension\":\".png\",\"url\":\"http://127.0.0.1:8080/assets/b1\"}],\"metadata\":{},\"extra\":{}}";
  static final String CT = "multipart/mixed; boundary=BOUND";

  static String part(String name, String extraHeaders, String body) {
    return "--BOUND\r\ncontent-type: application/json\r\ncontent-disposition: inline; name=\"" + name + "\"\r\n" + extraHeaders + "\r\n" + body;
  }

  static byte[] body(String... parts) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < parts.length; i++) {
      b.append(i == 0 ? "" : "\r\n").append(parts[i]);
    }
    b.append("\r\n--BOUND--\r\n");
    return b.toString().getBytes(StandardCharsets.UTF_8);
  }

  static Map<String, String> headers(String contentType) {
    Map<String, String> h = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    h.put("content-type", contentType);
    h.put("expo-protocol-version", "1");
    h.put("cache-control", "private, max-age=0");
    return h;
  }

  ResponseCheck.Answer check(int status, Map<String, String> h, byte[] body, boolean sig) {
    return new ResponseCheck(null).check(status, h::get, body, "1.0.0", sig);
  }

  @Test
  void parsesAManifestPartWithExtensions() {
    byte[] b = body(part("manifest", "", MANIFEST), part("extensions", "", "{\"assetRequestHeaders\":{}}"));
    Multipart.Result r = Multipart.parse(CT, b);
    assertThat(r.ok()).isTrue();
    assertThat(r.parts()).extracting(Multipart.Part::name).containsExactly("manifest", "extensions");
    assertThat(r.part("manifest").bodyText()).isEqualTo(MANIFEST);
    ResponseCheck.Answer a = check(200, headers(CT), b, false);
    assertThat(a.error()).isNull();
    assertThat(a.kind()).isEqualTo(ResponseCheck.Kind.MANIFEST);
    assertThat(a.updateId()).isEqualTo(ID);
    assertThat(a.createdAt()).isEqualTo("2026-11-30T10:00:05.000Z");
    assertThat(a.launchHash()).isEqualTo("dzAAwFZchzfqBMfur18PkI6EZWpSsu-T4dC_xsDdOx8");
  }

  @Test
  void acceptsAPreambleAQuotedBoundaryAndFormDataDisposition() {
    String b = "preamble\r\n--BOUND\r\ncontent-disposition: form-data; name=directive\r\n\r\n{\"type\":\"noUpdateAvailable\"}\r\n--BOUND--\r\n";
    ResponseCheck.Answer a = check(200, headers("multipart/mixed; boundary=\"BOUND\""), b.getBytes(StandardCharsets.UTF_8), false);
    assertThat(a.error()).isNull();
    assertThat(a.kind()).isEqualTo(ResponseCheck.Kind.NO_UPDATE);
  }

  @Test
  void directivesNoUpdateAndRollback() {
    assertThat(check(200, headers(CT), body(part("directive", "", "{\"type\":\"noUpdateAvailable\"}")), false).kind())
        .isEqualTo(ResponseCheck.Kind.NO_UPDATE);
    ResponseCheck.Answer rb = check(200, headers(CT),
        body(part("directive", "", "{\"type\":\"rollBackToEmbedded\",\"parameters\":{\"commitTime\":\"2026-11-30T11:00:00.000Z\"}}")), false);
    assertThat(rb.kind()).isEqualTo(ResponseCheck.Kind.ROLLBACK);
    assertThat(rb.createdAt()).isEqualTo("2026-11-30T11:00:00.000Z");
    // an empty body and a 204 are "no update" too
    assertThat(check(200, headers(CT), new byte[0], false).kind()).isEqualTo(ResponseCheck.Kind.NO_UPDATE);
    Map<String, String> h204 = headers(CT);
    h204.remove("content-type");
    assertThat(check(204, h204, new byte[0], false).kind()).isEqualTo(ResponseCheck.Kind.NO_UPDATE);
  }

  @Test
  void malformedFramingIsCountedAsMultipart() {
    String noCloseCrlf = part("manifest", "", MANIFEST) + "\r\n--BOUND--";
    assertThat(check(200, headers(CT), noCloseCrlf.getBytes(StandardCharsets.UTF_8), false).error()).isEqualTo(ErrorKind.MULTIPART);
    String noClose = part("manifest", "", MANIFEST);
    assertThat(check(200, headers(CT), noClose.getBytes(StandardCharsets.UTF_8), false).error()).isEqualTo(ErrorKind.MULTIPART);
    String noHeaderEnd = "--BOUND\r\ncontent-disposition: inline; name=\"manifest\"\r\n--BOUND--\r\n";
    assertThat(check(200, headers(CT), noHeaderEnd.getBytes(StandardCharsets.UTF_8), false).error()).isEqualTo(ErrorKind.MULTIPART);
    String wrongBoundary = body(part("manifest", "", MANIFEST)).length + "";
    assertThat(check(200, headers("multipart/mixed; boundary=OTHER"), body(part("manifest", "", MANIFEST)), false).error())
        .as(wrongBoundary).isEqualTo(ErrorKind.MULTIPART);
    assertThat(check(200, headers("multipart/mixed"), body(part("manifest", "", MANIFEST)), false).error()).isEqualTo(ErrorKind.MULTIPART);
  }

  @Test
  void badBodiesAreCountedByKind() {
    assertThat(check(200, headers(CT), body(part("manifest", "", "{not json")), false).error()).isEqualTo(ErrorKind.MANIFEST_INVALID);
    assertThat(check(200, headers(CT), body(part("manifest", "", MANIFEST.replace("2026-11-30T10:00:05.000Z", "2026-11-30T10:00:05Z"))), false).error())
        .isEqualTo(ErrorKind.MANIFEST_INVALID);
    assertThat(check(200, headers(CT), body(part("manifest", "", MANIFEST.replace("\".png\"", "\"png\""))), false).error())
        .isEqualTo(ErrorKind.MANIFEST_INVALID);
    assertThat(check(200, headers(CT), body(part("manifest", "", MANIFEST.replace("\"1.0.0\"", "\"2.0.0\""))), false).error())
        .isEqualTo(ErrorKind.RUNTIME_MISMATCH);
    assertThat(check(200, headers(CT), body(part("directive", "", "{\"type\":\"restart\"}")), false).error()).isEqualTo(ErrorKind.UNKNOWN_DIRECTIVE);
    assertThat(check(200, headers(CT), body(part("directive", "", "{\"type\":\"rollBackToEmbedded\"}")), false).error())
        .isEqualTo(ErrorKind.DIRECTIVE_INVALID);
    assertThat(check(200, headers(CT), body(part("manifest", "", MANIFEST), part("directive", "", "{\"type\":\"noUpdateAvailable\"}")), false).error())
        .isEqualTo(ErrorKind.MANIFEST_AND_DIRECTIVE);
    assertThat(check(503, headers(CT), new byte[0], false).error()).isEqualTo(ErrorKind.STATUS_5XX);
    assertThat(check(404, headers(CT), new byte[0], false).error()).isEqualTo(ErrorKind.STATUS_4XX);
    assertThat(check(302, headers(CT), new byte[0], false).error()).isEqualTo(ErrorKind.STATUS_OTHER);
    Map<String, String> noProto = headers(CT);
    noProto.remove("expo-protocol-version");
    assertThat(check(200, noProto, body(part("manifest", "", MANIFEST)), false).error()).isEqualTo(ErrorKind.PROTOCOL_HEADER);
    Map<String, String> cached = headers(CT);
    cached.put("cache-control", "public, max-age=300");
    assertThat(check(200, cached, body(part("manifest", "", MANIFEST)), false).error()).isEqualTo(ErrorKind.CACHE_CONTROL);
    assertThat(check(200, headers("text/html"), "<html>".getBytes(StandardCharsets.UTF_8), false).error()).isEqualTo(ErrorKind.CONTENT_TYPE);
  }

  @Test
  void aSingleJsonManifestIsAccepted() {
    ResponseCheck.Answer a = check(200, headers("application/json"), MANIFEST.getBytes(StandardCharsets.UTF_8), false);
    assertThat(a.error()).isNull();
    assertThat(a.updateId()).isEqualTo(ID);
  }

  @Test
  void signaturesArePresentWellFormedAndVerified() throws Exception {
    byte[] unsigned = body(part("manifest", "", MANIFEST));
    assertThat(check(200, headers(CT), unsigned, true).error()).isEqualTo(ErrorKind.SIGNATURE_MISSING);
    // iOS looks the part header up case-sensitively: an upper-case name is as good as missing
    byte[] upper = body(part("manifest", "Expo-Signature: sig=\"AAAA\", keyid=\"main\"\r\n", MANIFEST));
    assertThat(check(200, headers(CT), upper, true).error()).isEqualTo(ErrorKind.SIGNATURE_MISSING);
    byte[] byteSeq = body(part("manifest", "expo-signature: sig=:AAAA:, keyid=\"main\"\r\n", MANIFEST));
    assertThat(check(200, headers(CT), byteSeq, true).error()).isEqualTo(ErrorKind.SIGNATURE_MALFORMED);

    String sig = sign(MANIFEST.getBytes(StandardCharsets.UTF_8));
    byte[] signed = body(part("manifest", "expo-signature: sig=\"" + sig + "\", keyid=\"main\", alg=\"rsa-v1_5-sha256\"\r\n", MANIFEST));
    PublicKey key;
    try (InputStream in = Files.newInputStream(Fixtures.certificatePem())) {
      key = CertificateFactory.getInstance("X.509").generateCertificate(in).getPublicKey();
    }
    ResponseCheck verifying = new ResponseCheck(key);
    assertThat(verifying.check(200, headers(CT)::get, signed, "1.0.0", true).error()).isNull();
    String tampered = MANIFEST.replace("\"metadata\":{}", "\"metadata\":{ }");
    byte[] bad = body(part("manifest", "expo-signature: sig=\"" + sig + "\", keyid=\"main\", alg=\"rsa-v1_5-sha256\"\r\n", tampered));
    assertThat(verifying.check(200, headers(CT)::get, bad, "1.0.0", true).error()).isEqualTo(ErrorKind.SIGNATURE_INVALID);
    // without a certificate only presence and syntax are checked
    assertThat(check(200, headers(CT), bad, true).error()).isNull();
  }

  @Test
  void aBodyDifferingByOneSignedByteFromOneAlreadyVerifiedIsStillRejected() throws Exception {
    String sig = sign(MANIFEST.getBytes(StandardCharsets.UTF_8));
    String sigHeader = "expo-signature: sig=\"" + sig + "\", keyid=\"main\", alg=\"rsa-v1_5-sha256\"\r\n";
    byte[] signed = body(part("manifest", sigHeader, MANIFEST));
    ResponseCheck verifying = new ResponseCheck(certificateKey());
    for (int i = 0; i < 3; i++) { // verified once, then remembered
      assertThat(verifying.check(200, headers(CT)::get, signed, "1.0.0", true).error()).as("signed body, time %d", i).isNull();
    }
    // the same signature over the manifest with one byte changed (the id's last hex digit): a different body, and a
    // manifest that parses, so only the signature can refuse it
    String oneByte = MANIFEST.replace(ID, ID.substring(0, ID.length() - 1) + "0");
    assertThat(oneByte).hasSameSizeAs(MANIFEST).isNotEqualTo(MANIFEST);
    byte[] tampered = body(part("manifest", sigHeader, oneByte));
    assertThat(verifying.check(200, headers(CT)::get, tampered, "1.0.0", true).error()).isEqualTo(ErrorKind.SIGNATURE_INVALID);
    // and again, now that the tampered body has been seen once
    assertThat(verifying.check(200, headers(CT)::get, tampered, "1.0.0", true).error()).isEqualTo(ErrorKind.SIGNATURE_INVALID);
    // the remembered body still passes; a tampered copy of it modified in place after its check does not pass next time
    assertThat(verifying.check(200, headers(CT)::get, signed, "1.0.0", true).error()).isNull();
    byte[] reused = signed.clone();
    assertThat(verifying.check(200, headers(CT)::get, reused, "1.0.0", true).error()).isNull();
    int at = new String(reused, StandardCharsets.UTF_8).indexOf(ID) + 3;
    reused[at] = (byte) (reused[at] == '0' ? '1' : '0');
    assertThat(verifying.check(200, headers(CT)::get, reused, "1.0.0", true).error()).isEqualTo(ErrorKind.SIGNATURE_INVALID);

    // a JSON manifest, its signature in the response header
    Map<String, String> h = headers("application/expo+json");
    h.put("expo-signature", "sig=\"" + sig + "\", keyid=\"main\"");
    assertThat(verifying.check(200, h::get, MANIFEST.getBytes(StandardCharsets.UTF_8), "1.0.0", true).error()).isNull();
    assertThat(verifying.check(200, h::get, oneByte.getBytes(StandardCharsets.UTF_8), "1.0.0", true).error())
        .isEqualTo(ErrorKind.SIGNATURE_INVALID);
  }

  static PublicKey certificateKey() throws Exception {
    try (InputStream in = Files.newInputStream(Fixtures.certificatePem())) {
      return CertificateFactory.getInstance("X.509").generateCertificate(in).getPublicKey();
    }
  }

  static String sign(byte[] data) throws Exception {
    String pem = Files.readString(Fixtures.privateKeyPkcs8Pem())
        .replace("-----BEGIN PRIVATE KEY-----", "").replace("-----END PRIVATE KEY-----", "").replaceAll("\\s", "");
    PrivateKey pk = KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(pem)));
    Signature s = Signature.getInstance("SHA256withRSA");
    s.initSign(pk);
    s.update(data);
    return Base64.getEncoder().encodeToString(s.sign());
  }
}
