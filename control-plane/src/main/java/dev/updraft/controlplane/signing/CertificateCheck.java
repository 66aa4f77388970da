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

  /**
   * Expo's project-information extension ({@code <projectId>,<scopeKey>}; expo-updates
   * {@code CertificateChain.kt} {@code EXPO_PROJECT_INFORMATION_OID}, @expo/code-signing-certificates
   * {@code expoProjectInformationOID}). A client whose signing certificate carries it refuses every manifest
   * whose {@code extra.eas.projectId} and {@code extra.scopeKey} differ from it, and every directive whose
   * {@code extra.signingInfo} does ({@code FileDownloader.parseDirective}, {@code checkCodeSigningAndCreateManifest});
   * Updraft renders one body per update for every key of an app's ring and sends neither, so such a
   * certificate is refused at registration.
   */
  public static final String EXPO_PROJECT_INFORMATION_OID =
      "1.2.840.113556.1.8000.2554.43437.254.128.102.157.7894389.20439.2.1";

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
    refuseProjectInformation(cert, "the certificate");
    if (!matches((RSAPublicKey) pub, key)) {
      throw new KeyMaterialException(
          "key-mismatch", "the private key does not belong to the certificate (their RSA moduli differ); give the key the certificate was made for");
    }
  }

  /**
   * Checks a chain registered for chain mode ({@code codeSigningIncludeManifestResponseCertificateChain}):
   * leaf first, then intermediates, the root left out (the binary embeds it). The leaf must pass
   * {@link #validate} with {@code key}; every certificate must be in date (devices check each one,
   * CertificateChain.kt {@code checkValidity}); each one's issuer must be the next one's subject and it must
   * verify with that one's key; every certificate after the leaf must be a CA (basicConstraints, keyUsage
   * keyCertSign); the last must not be self-signed.
   */
  public static void validateChain(List<X509Certificate> chain, PrivateKey key, Instant now) throws KeyMaterialException {
    validate(chain.get(0), key, now);
    for (int i = 0; i < chain.size(); i++) {
      X509Certificate c = chain.get(i);
      String which = i == 0 ? "the leaf" : "certificate " + (i + 1) + " of the chain (" + c.getSubjectX500Principal().getName() + ")";
      if (now.isAfter(c.getNotAfter().toInstant()) || now.isBefore(c.getNotBefore().toInstant())) {
        throw new KeyMaterialException("certificate-expired",
            which + " is valid only from " + c.getNotBefore().toInstant() + " to " + c.getNotAfter().toInstant()
                + "; devices reject a chain with a certificate out of date");
      }
      if (i > 0) {
        refuseProjectInformation(c, which);
        boolean[] ku = c.getKeyUsage();
        if (c.getBasicConstraints() < 0 || ku == null || ku.length <= 5 || !ku[5]) {
          throw new KeyMaterialException("certificate-chain-invalid",
              which + " is not a CA (basicConstraints CA and keyUsage keyCertSign): devices refuse the chain");
        }
      }
      if (i + 1 < chain.size()) {
        X509Certificate issuer = chain.get(i + 1);
        if (!c.getIssuerX500Principal().equals(issuer.getSubjectX500Principal())) {
          throw new KeyMaterialException("certificate-chain-invalid",
              which + " is issued by " + c.getIssuerX500Principal().getName() + ", not by the next certificate ("
                  + issuer.getSubjectX500Principal().getName() + "): give the chain leaf first, then each issuer");
        }
        try {
          c.verify(issuer.getPublicKey());
        } catch (GeneralSecurityException e) {
          throw new KeyMaterialException("certificate-chain-invalid",
              which + " does not verify with the key of the next certificate: " + e.getMessage());
        }
      }
    }
    X509Certificate last = chain.get(chain.size() - 1);
    if (last.getIssuerX500Principal().equals(last.getSubjectX500Principal())) {
      throw new KeyMaterialException("certificate-chain-invalid",
          "the last certificate of the chain is self-signed: leave the root out (the app binary embeds it as "
              + "updates.codeSigningCertificate) and give the leaf and the intermediates only");
    }
  }

  /** Throws when {@code c} carries {@link #EXPO_PROJECT_INFORMATION_OID}, naming it and its value. */
  private static void refuseProjectInformation(X509Certificate c, String which) throws KeyMaterialException {
    byte[] ext = c.getExtensionValue(EXPO_PROJECT_INFORMATION_OID);
    if (ext == null) {
      return;
    }
    String value = octets(ext);
    throw new KeyMaterialException(
        "certificate-has-expo-project-information",
        which + " carries Expo's project-information extension (OID " + EXPO_PROJECT_INFORMATION_OID
            + (value == null ? "" : ", value \"" + value + "\"")
            + "): expo-updates then refuses every manifest and directive that does not name that EAS project id and"
            + " scope key (extra.eas.projectId and extra.scopeKey, extra.signingInfo), which this server does not"
            + " send; give a certificate without it (`updraft keys generate` or `npx expo-updates codesigning:generate`)");
  }

  /**
   * The extension's value as text: {@code getExtensionValue} gives a DER OCTET STRING around the value, which
   * Expo writes as the UTF-8 bytes of {@code <projectId>,<scopeKey>}. Null when it is not that (or unprintable).
   */
  static String octets(byte[] der) {
    if (der.length < 2 || der[0] != 0x04) {
      return null;
    }
    int len = der[1] & 0xff;
    int at = 2;
    if (len > 0x7f) {
      int n = len & 0x7f;
      if (n > 2 || der.length < 2 + n) {
        return null;
      }
      len = 0;
      for (int i = 0; i < n; i++) {
        len = (len << 8) | (der[2 + i] & 0xff);
      }
      at = 2 + n;
    }
    if (at + len != der.length || len > 200) {
      return null;
    }
    String v = new String(der, at, len, StandardCharsets.UTF_8);
    for (int i = 0; i < v.length(); i++) {
      if (v.charAt(i) < 0x20 || v.charAt(i) == 0x7f || v.charAt(i) == '"') {
        return null;
      }
    }
    return v;
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
