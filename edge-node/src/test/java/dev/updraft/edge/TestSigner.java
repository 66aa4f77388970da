package dev.updraft.edge;

import dev.updraft.testing.Fixtures;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.PrivateKey;
import java.security.Signature;
import java.util.Base64;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;

/**
 * Signs bodies as a control plane would at publish time: by default with the fixture's PKCS#1 private key
 * (test-only key), {@code sig="<base64>", keyid="main", alg="rsa-v1_5-sha256"}; or with any key under
 * another keyid (a key ring's second key, a chain's leaf).
 */
final class TestSigner {
  static final String KEY_ID = "main";
  private final PrivateKey key;
  private final String keyId;

  private TestSigner(PrivateKey key, String keyId) {
    this.key = key;
    this.keyId = keyId;
  }

  /** A signer with {@code key} under {@code keyId}. */
  static TestSigner of(String keyId, PrivateKey key) {
    return new TestSigner(key, keyId);
  }

  String keyId() {
    return keyId;
  }

  static TestSigner fixture() {
    try (Reader r = Files.newBufferedReader(Fixtures.privateKeyPkcs1Pem(), StandardCharsets.US_ASCII);
        PEMParser p = new PEMParser(r)) {
      PEMKeyPair pair = (PEMKeyPair) p.readObject();
      return new TestSigner(new JcaPEMKeyConverter().getKeyPair(pair).getPrivate(), KEY_ID);
    } catch (Exception e) {
      throw new IllegalStateException("cannot read fixture private key: " + e.getMessage(), e);
    }
  }

  /** The complete {@code expo-signature} value for the UTF-8 bytes of {@code body}. */
  String signatureHeader(String body) {
    try {
      Signature s = Signature.getInstance("SHA256withRSA");
      s.initSign(key);
      s.update(body.getBytes(StandardCharsets.UTF_8));
      String sig = Base64.getEncoder().encodeToString(s.sign());
      return "sig=\"" + sig + "\", keyid=\"" + keyId + "\", alg=\"rsa-v1_5-sha256\"";
    } catch (Exception e) {
      throw new IllegalStateException("signing failed: " + e.getMessage(), e);
    }
  }
}
