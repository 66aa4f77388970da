package dev.updraft.testing.protocol;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.Signature;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;

/**
 * Verifies a signature in chain mode as expo-updates does with
 * {@code codeSigningIncludeManifestResponseCertificateChain} (Android {@code CodeSigningConfiguration.kt},
 * {@code CertificateChain.kt}; iOS {@code CodeSigningConfiguration.swift}, {@code CertificateChain.swift}):
 * the PEM certificates of the {@code certificate_chain} part, in order, followed by the root the binary
 * embeds, make the chain; every certificate is in date; each one's issuer is the next one's subject and
 * it verifies with that one's key; the last is self-signed; with more than one certificate the root and
 * every certificate between it and the leaf are CAs (basicConstraints, keyUsage keyCertSign) within the
 * path length; the leaf has keyUsage digitalSignature and extendedKeyUsage codeSigning; the signature
 * verifies with the leaf's key (SHA256withRSA). The {@code keyid} is not checked in this mode. Immutable and
 * thread-safe.
 */
public final class CertificateChainVerifier {
  private static final String CODE_SIGNING = "1.3.6.1.5.5.7.3.3";

  private final String embeddedRootPem;

  /** A verifier for a binary that embeds {@code embeddedRootPem}. */
  public CertificateChainVerifier(String embeddedRootPem) {
    this.embeddedRootPem = embeddedRootPem;
  }

  /**
   * The leaf (code-signing) certificate of {@code responseChainPem} plus the embedded root.
   *
   * @throws CertificateException naming the rule the chain breaks, as the client would fail the answer
   */
  public X509Certificate codeSigningCertificate(String responseChainPem) throws CertificateException {
    List<String> pems = separate(responseChainPem == null ? "" : responseChainPem);
    pems.add(embeddedRootPem);
    List<X509Certificate> chain = new ArrayList<>();
    CertificateFactory cf = CertificateFactory.getInstance("X.509");
    for (String pem : pems) {
      X509Certificate c = (X509Certificate) cf.generateCertificate(new ByteArrayInputStream(pem.getBytes(StandardCharsets.US_ASCII)));
      c.checkValidity();
      chain.add(c);
    }
    validate(chain);
    X509Certificate leaf = chain.get(0);
    boolean[] ku = leaf.getKeyUsage();
    List<String> eku = leaf.getExtendedKeyUsage();
    if (ku == null || ku.length == 0 || !ku[0] || eku == null || !eku.contains(CODE_SIGNING)) {
      throw new CertificateException("first certificate in chain is not a code signing certificate");
    }
    return leaf;
  }

  /** Whether {@code signature} verifies over {@code signed} with the chain's leaf; false for a chain the client refuses. */
  public boolean verify(String responseChainPem, byte[] signed, ExpoSignature signature) {
    X509Certificate leaf;
    try {
      leaf = codeSigningCertificate(responseChainPem);
    } catch (CertificateException e) {
      return false;
    }
    try {
      Signature s = Signature.getInstance("SHA256withRSA");
      s.initVerify(leaf.getPublicKey());
      s.update(signed);
      return s.verify(signature.signature());
    } catch (GeneralSecurityException e) {
      return false;
    }
  }

  private static void validate(List<X509Certificate> chain) throws CertificateException {
    for (int i = 0; i < chain.size() - 1; i++) {
      X509Certificate cert = chain.get(i);
      X509Certificate issuer = chain.get(i + 1);
      if (!cert.getIssuerX500Principal().equals(issuer.getSubjectX500Principal())) {
        throw new CertificateException("certificates do not chain at " + i);
      }
      verifyWith(cert, issuer);
    }
    X509Certificate root = chain.get(chain.size() - 1);
    if (!root.getIssuerX500Principal().equals(root.getSubjectX500Principal())) {
      throw new CertificateException("root certificate not self-signed");
    }
    verifyWith(root, root);
    if (chain.size() > 1) {
      if (!isCa(root)) {
        throw new CertificateException("root certificate subject must be a certificate authority");
      }
      int maxPathLength = root.getBasicConstraints();
      for (int i = chain.size() - 2; i >= 1; i--) {
        X509Certificate cert = chain.get(i);
        if (!isCa(cert)) {
          throw new CertificateException("non-leaf certificate subject must be a certificate authority");
        }
        if (maxPathLength <= 0) {
          throw new CertificateException("pathLenConstraint violated by intermediate certificate");
        }
        maxPathLength = Math.min(cert.getBasicConstraints(), maxPathLength - 1);
      }
    }
  }

  private static void verifyWith(X509Certificate cert, X509Certificate issuer) throws CertificateException {
    try {
      cert.verify(issuer.getPublicKey());
    } catch (GeneralSecurityException e) {
      throw new CertificateException("certificate " + cert.getSubjectX500Principal() + " does not verify with "
          + issuer.getSubjectX500Principal() + ": " + e.getMessage(), e);
    }
  }

  private static boolean isCa(X509Certificate c) {
    boolean[] ku = c.getKeyUsage();
    return c.getBasicConstraints() > -1 && ku != null && ku.length > 5 && ku[5];
  }

  /** The PEM blocks of {@code text}, BEGIN to END, in order ({@code separateCertificateChain}). */
  private static List<String> separate(String text) {
    String begin = "-----BEGIN CERTIFICATE-----";
    String end = "-----END CERTIFICATE-----";
    List<String> out = new ArrayList<>();
    int from = 0;
    while (true) {
      int s = text.indexOf(begin, from);
      int e = text.indexOf(end, from);
      if (s < 0 || e < 0) {
        return out;
      }
      out.add(text.substring(s, e + end.length()));
      from = e + end.length();
    }
  }
}
