package dev.updraft.testing.protocol;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;

/**
 * Verifies RSASSA-PKCS1-v1_5 SHA-256 signatures ({@code SHA256withRSA}, Expo's {@code rsa-v1_5-sha256})
 * against the public key of a PEM X.509 certificate, as a client with that embedded certificate would.
 * Immutable and thread-safe (a fresh {@link Signature} per call).
 */
public final class SignatureVerifier {
  private final X509Certificate certificate;

  private SignatureVerifier(X509Certificate certificate) {
    this.certificate = certificate;
  }

  /** A verifier for the certificate in a PEM file. */
  public static SignatureVerifier fromCertificatePem(Path pem) {
    try {
      return fromCertificatePem(Files.readString(pem, StandardCharsets.US_ASCII));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read certificate " + pem, e);
    }
  }

  /** A verifier for a PEM certificate given as text. */
  public static SignatureVerifier fromCertificatePem(String pem) {
    try {
      CertificateFactory cf = CertificateFactory.getInstance("X.509");
      X509Certificate c =
          (X509Certificate) cf.generateCertificate(new ByteArrayInputStream(pem.getBytes(StandardCharsets.US_ASCII)));
      return new SignatureVerifier(c);
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException("not a PEM X.509 certificate: " + e.getMessage(), e);
    }
  }

  public X509Certificate certificate() {
    return certificate;
  }

  /** Whether {@code signature} is a valid SHA256withRSA signature of exactly {@code signed}. */
  public boolean verify(byte[] signed, byte[] signature) {
    try {
      Signature s = Signature.getInstance("SHA256withRSA");
      s.initVerify(certificate.getPublicKey());
      s.update(signed);
      return s.verify(signature);
    } catch (java.security.SignatureException e) {
      return false; // malformed signature bytes: not valid
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("SHA256withRSA unavailable or key unusable: " + e.getMessage(), e);
    }
  }

  /** Whether the {@code expo-signature} value {@code header} verifies over {@code signed}. */
  public boolean verify(byte[] signed, ExpoSignature header) {
    return verify(signed, header.signature());
  }
}
