package dev.updraft.controlplane.storage;

import com.google.auth.oauth2.ServiceAccountCredentials;
import java.net.URI;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.PublicKey;
import java.security.Signature;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;

/**
 * Test helpers for V4 signed URLs: a locally generated service account, and an independent check of a
 * signed URL's signature (canonical request and string to sign as GCS documents them).
 */
public final class GcsSigning {
  private GcsSigning() {}

  public static KeyPair keyPair() throws Exception {
    KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
    g.initialize(2048);
    return g.generateKeyPair();
  }

  public static ServiceAccountCredentials credentials(KeyPair kp) {
    return ServiceAccountCredentials.newBuilder()
        .setClientEmail("updraft-test@example-project.iam.gserviceaccount.com")
        .setClientId("1234567890")
        .setPrivateKey(kp.getPrivate())
        .setPrivateKeyId("test-key-1")
        .setProjectId("example-project")
        .build();
  }

  /** The service-account JSON key file Google issues, for {@code --gcs-credentials}. */
  public static String json(KeyPair kp) {
    String pem =
        "-----BEGIN PRIVATE KEY-----\n"
            + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(kp.getPrivate().getEncoded())
            + "\n-----END PRIVATE KEY-----\n";
    return "{\"type\":\"service_account\",\"project_id\":\"example-project\",\"private_key_id\":\"test-key-1\","
        + "\"private_key\":\"" + pem.replace("\n", "\\n") + "\","
        + "\"client_email\":\"updraft-test@example-project.iam.gserviceaccount.com\",\"client_id\":\"1234567890\","
        + "\"auth_uri\":\"https://accounts.google.com/o/oauth2/auth\",\"token_uri\":\"https://oauth2.googleapis.com/token\"}";
  }

  /** The URL's query parameters, decoded. */
  public static Map<String, String> query(String url) {
    Map<String, String> out = new TreeMap<>();
    for (String kv : URI.create(url).getRawQuery().split("&")) {
      int i = kv.indexOf('=');
      out.put(URLDecoder.decode(kv.substring(0, i), StandardCharsets.UTF_8), URLDecoder.decode(kv.substring(i + 1), StandardCharsets.UTF_8));
    }
    return out;
  }

  /** Whether the V4 signature of a GET URL verifies with {@code key}. */
  public static boolean verifies(String url, PublicKey key) throws Exception {
    URI u = URI.create(url);
    Map<String, String> q = query(url);
    String signature = q.remove("X-Goog-Signature");
    StringBuilder canonicalQuery = new StringBuilder();
    for (Map.Entry<String, String> e : q.entrySet()) {
      if (canonicalQuery.length() > 0) {
        canonicalQuery.append('&');
      }
      canonicalQuery.append(encode(e.getKey())).append('=').append(encode(e.getValue()));
    }
    String canonicalRequest =
        "GET\n" + u.getRawPath() + "\n" + canonicalQuery + "\nhost:" + u.getHost() + "\n\nhost\nUNSIGNED-PAYLOAD";
    String scope = q.get("X-Goog-Credential").substring(q.get("X-Goog-Credential").indexOf('/') + 1);
    String stringToSign =
        "GOOG4-RSA-SHA256\n" + q.get("X-Goog-Date") + "\n" + scope + "\n"
            + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(canonicalRequest.getBytes(StandardCharsets.UTF_8)));
    Signature v = Signature.getInstance("SHA256withRSA");
    v.initVerify(key);
    v.update(stringToSign.getBytes(StandardCharsets.UTF_8));
    return v.verify(HexFormat.of().parseHex(signature));
  }

  private static String encode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20").replace("*", "%2A").replace("%7E", "~");
  }
}
