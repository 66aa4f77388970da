package dev.updraft.controlplane.signing;

import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.security.interfaces.RSAPrivateCrtKey;
import java.security.interfaces.RSAPublicKey;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;

/**
 * The rules expo-updates applies to an embedded code-signing certificate (CertificateChain.kt), checked
 * when a publisher registers a key, so that a certificate every device would reject is refused up front:
 * in date, keyUsage digitalSignature, extendedKeyUsage codeSigning, an RSA key matching the private key.
 */
public final class CertificateCheck {
  /** The codeSigning extended key usage OID. */
  public static final String CODE_SIGNING_OID = "1.3.6.1.5.5.7.3.3";

  private CertificateCheck() {}

  /** Throws naming the first rule the pair breaks. */
  public static void validate(X509Certificate cert, PrivateKey key, Instant now) throws KeyMaterialException {
    PublicKey pub = cert.getPublicKey();
    if (!(pub instanceof RSAPublicKey) || !"RSA".equals(key.getAlgorithm())) {
      throw new KeyMaterialException(
          "unsupported-key",
          "only RSA keys are supported (expo-updates signs with rsa-v1_5-sha256): certificate key is "
              + pub.getAlgorithm() + ", private key is " + key.getAlgorithm());
    }
    if (now.isAfter(cert.getNotAfter().toInstant())) {
      throw new KeyMaterialException(
          "certificate-expired",
          "the certificate expired at " + cert.getNotAfter().toInstant()
              + "; devices reject every update signed under an expired certificate. Generate a new pair with `updraft keys generate`");
    }
    if (now.isBefore(cert.getNotBefore().toInstant())) {
      throw new KeyMaterialException(
          "certificate-not-yet-valid",
          "the certificate is not valid before " + cert.getNotBefore().toInstant() + " (now " + now
              + "); devices would reject it until then");
    }
    boolean[] usage = cert.getKeyUsage();
    if (usage == null || usage.length == 0 || !usage[0]) {
      throw new KeyMaterialException(
          "certificate-missing-digital-signature",
          "the certificate lacks keyUsage digitalSignature, which expo-updates requires; generate one with `updraft keys generate` or `npx expo-updates codesigning:generate`");
    }
    List<String> eku;
    try {
      eku = cert.getExtendedKeyUsage();
    } catch (CertificateParsingException e) {
      throw new KeyMaterialException("invalid-certificate", "the certificate's extendedKeyUsage cannot be read: " + e.getMessage());
    }
    if (eku == null || !eku.contains(CODE_SIGNING_OID)) {
      throw new KeyMaterialException(
          "certificate-missing-code-signing",
          "the certificate lacks extendedKeyUsage codeSigning (1.3.6.1.5.5.7.3.3), which expo-updates requires; generate one with `updraft keys generate` or `npx expo-updates codesigning:generate`");
    }
    if (!matches((RSAPublicKey) pub, key)) {
      throw new KeyMaterialException(
          "key-mismatch", "the private key does not belong to the certificate (their RSA moduli differ); give the key the certificate was made for");
    }
  }

  private static boolean matches(RSAPublicKey pub, PrivateKey key) {
    if (key instanceof RSAPrivateCrtKey) {
      RSAPrivateCrtKey crt = (RSAPrivateCrtKey) key;
      if (!crt.getModulus().equals(pub.getModulus()) || !crt.getPublicExponent().equals(pub.getPublicExponent())) {
        return false;
      }
    }
    try {
      byte[] probe = "updraft key check".getBytes(StandardCharsets.US_ASCII);
      Signature s = Signature.getInstance("SHA256withRSA");
      s.initSign(key);
      s.update(probe);
      byte[] sig = s.sign();
      Signature v = Signature.getInstance("SHA256withRSA");
      v.initVerify(pub);
      v.update(probe);
      return v.verify(sig);
    } catch (GeneralSecurityException e) {
      return false;
    }
  }
}
