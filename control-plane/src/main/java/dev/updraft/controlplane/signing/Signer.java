package dev.updraft.controlplane.signing;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.Signature;
import java.util.Base64;

/**
 * Signs manifest and directive bodies: RSASSA-PKCS1-v1_5 with SHA-256 over the exact UTF-8 bytes, as the
 * {@code expo-signature} structured-header value {@code sig="<padded standard base64>", keyid="…",
 * alg="rsa-v1_5-sha256"} (every member an SF string, as iOS requires). Thread-safe.
 */
public final class Signer {
  public static final String ALG = "rsa-v1_5-sha256";

  private Signer() {}

  /** The complete {@code expo-signature} value for {@code body}. */
  public static String signatureHeader(PrivateKey key, String keyId, String body) {
    return "sig=\"" + sign(key, body) + "\", keyid=\"" + keyId + "\", alg=\"" + ALG + "\"";
  }

  /** Standard padded base64 of the signature over the UTF-8 bytes of {@code body}. */
  public static String sign(PrivateKey key, String body) {
    try {
      Signature s = Signature.getInstance("SHA256withRSA");
      s.initSign(key);
      s.update(body.getBytes(StandardCharsets.UTF_8));
      return Base64.getEncoder().encodeToString(s.sign());
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot sign with key algorithm=" + key.getAlgorithm(), e);
    }
  }
}
