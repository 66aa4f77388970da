package dev.updraft.load.check;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.Map;
import java.util.TreeMap;

/**
 * The generator's check of one signed multipart manifest response ({@link ResponseCheck#check}, signature verified),
 * one thread, wall and CPU µs per check, five rounds (docs/benchmarks/load-generator.md, "The response check").
 * Not a test: run {@code java -cp load/target/classes:load/target/test-classes:JACKSON_JARS
 * dev.updraft.load.check.ResponseCheckBench fixtures/codesigning 20000}.
 */
public final class ResponseCheckBench {
  public static void main(String[] a) throws Exception {
    Path codesigning = Path.of(a[0]);
    String id = "9f1c1f4e-8d5a-4d8e-9a53-0b1f2c3d4e5f";
    String manifest = "{\"id\":\"" + id + "\",\"createdAt\":\"2026-11-30T10:00:05.000Z\",\"runtimeVersion\":\"1.0.0\","
        + "\"launchAsset\":{\"hash\":\"dzAAwFZchzfqBMfur18PkI6EZWpSsu-T4dC_xsDdOx8\",\"key\":\"a15905a5\",\"contentType\":\"application/javascript\","
        + "\"url\":\"http://127.0.0.1:8080/assets/a15905a5\"},\"assets\":[{\"hash\":\"x\",\"key\":\"b1\",\"contentType\":\"image/png\","
        + "\"fileExtension\":\".png\",\"url\":\"http://127.0.0.1:8080/assets/b1\"}],\"metadata\":{},\"extra\":{}}";
    String pem = Files.readString(codesigning.resolve("private-key.pkcs8.pem")).replace("-----BEGIN PRIVATE KEY-----", "")
        .replace("-----END PRIVATE KEY-----", "").replaceAll("\\s", "");
    PrivateKey pk = KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(pem)));
    Signature s = Signature.getInstance("SHA256withRSA");
    s.initSign(pk);
    s.update(manifest.getBytes(StandardCharsets.UTF_8));
    String sig = Base64.getEncoder().encodeToString(s.sign());
    String body = "--BOUND\r\ncontent-type: application/json\r\ncontent-disposition: inline; name=\"manifest\"\r\nexpo-signature: sig=\""
        + sig + "\", keyid=\"main\", alg=\"rsa-v1_5-sha256\"\r\n\r\n" + manifest + "\r\n--BOUND--\r\n";
    PublicKey key;
    try (InputStream in = Files.newInputStream(codesigning.resolve("certificate.pem"))) {
      key = CertificateFactory.getInstance("X.509").generateCertificate(in).getPublicKey();
    }
    Map<String, String> h = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    h.put("content-type", "multipart/mixed; boundary=BOUND");
    h.put("expo-protocol-version", "1");
    h.put("cache-control", "private, max-age=0");
    ResponseCheck check = new ResponseCheck(key);
    int n = Integer.parseInt(a[1]);
    for (int round = 0; round < 5; round++) {
      java.lang.management.ThreadMXBean tm = java.lang.management.ManagementFactory.getThreadMXBean();
      long c0 = tm.getCurrentThreadCpuTime();
      long t0 = System.nanoTime();
      for (int i = 0; i < n; i++) {
        byte[] b = body.getBytes(StandardCharsets.UTF_8); // a fresh array per response, as the HTTP client gives
        if (!check.check(200, h::get, b, "1.0.0", true).ok()) {
          throw new IllegalStateException("rejected");
        }
      }
      System.out.printf("round %d: %.2f us per check wall, %.2f us CPU%n", round, (System.nanoTime() - t0) / 1e3 / n,
          (tm.getCurrentThreadCpuTime() - c0) / 1e3 / n);
    }
  }
}
