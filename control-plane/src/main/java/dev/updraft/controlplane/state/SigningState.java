package dev.updraft.controlplane.state;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.Collection;

/**
 * One key of an app's key ring: its code-signing certificate (the private key stays in the key store,
 * found by {@code certificateSha256}) and its pre-signed {@code noUpdateAvailable} directive.
 *
 * @param certificatePem the certificate devices embed, or in chain mode the leaf
 * @param certificateChainPem nullable: chain mode, the certificates served in {@code certificate_chain}
 *     (leaf first, then intermediates)
 * @param notAfter nullable (a certificate that does not parse): when the first certificate of the key
 *     (of its chain) lapses; devices reject everything signed under it from then on
 */
public record SigningState(
    String keyId,
    String certificatePem,
    String certificateSha256,
    String noUpdateDirectiveBody,
    String noUpdateDirectiveSignature,
    Instant registeredAt,
    String certificateChainPem,
    Instant notAfter) {

  /** Whether the key is in chain mode. */
  public boolean chain() {
    return certificateChainPem != null;
  }

  /**
   * The earliest {@code notAfter} of the certificates in {@code pem} (one or more PEM blocks), or null
   * when none parses. Pure (no clock, no I/O): the fold calls it.
   */
  static Instant earliestNotAfter(String pem) {
    if (pem == null) {
      return null;
    }
    try {
      Collection<? extends java.security.cert.Certificate> all =
          CertificateFactory.getInstance("X.509").generateCertificates(new ByteArrayInputStream(pem.getBytes(StandardCharsets.US_ASCII)));
      Instant min = null;
      for (java.security.cert.Certificate c : all) {
        Instant t = ((X509Certificate) c).getNotAfter().toInstant();
        min = min == null || t.isBefore(min) ? t : min;
      }
      return min;
    } catch (CertificateException | ClassCastException e) {
      return null;
    }
  }
}
