package dev.updraft.controlplane;

import java.io.StringWriter;
import java.math.BigInteger;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.Date;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/** Certificates made in tests with BouncyCastle: valid ones, expired ones, ones lacking a usage. */
final class TestCerts {
  private TestCerts() {}

  static KeyPair rsa() {
    try {
      KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
      g.initialize(2048);
      return g.generateKeyPair();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A self-signed certificate PEM for {@code kp}. */
  static String certificate(KeyPair kp, Instant notBefore, Instant notAfter, boolean digitalSignature, boolean codeSigning) {
    try {
      X500Name name = new X500Name("CN=updraft test");
      X509v3CertificateBuilder b =
          new JcaX509v3CertificateBuilder(name, BigInteger.valueOf(notBefore.toEpochMilli()), Date.from(notBefore), Date.from(notAfter), name, kp.getPublic());
      b.addExtension(Extension.keyUsage, true, new KeyUsage(digitalSignature ? KeyUsage.digitalSignature : KeyUsage.keyEncipherment));
      if (codeSigning) {
        b.addExtension(Extension.extendedKeyUsage, true, new ExtendedKeyUsage(KeyPurposeId.id_kp_codeSigning));
      } else {
        b.addExtension(Extension.extendedKeyUsage, true, new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth));
      }
      return pem(b.build(new JcaContentSignerBuilder("SHA256withRSA").build(kp.getPrivate())));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * A valid self-signed code-signing certificate PEM for {@code kp} that also carries Expo's project-information
   * extension with {@code value} ({@code <projectId>,<scopeKey>}), its bytes as the extension's value, as
   * {@code @expo/code-signing-certificates} writes it.
   */
  static String certificateWithProjectInformation(KeyPair kp, Instant notBefore, Instant notAfter, String value) {
    try {
      X500Name name = new X500Name("CN=updraft test project");
      X509v3CertificateBuilder b =
          new JcaX509v3CertificateBuilder(name, BigInteger.valueOf(notBefore.toEpochMilli()), Date.from(notBefore), Date.from(notAfter), name, kp.getPublic());
      b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature));
      b.addExtension(Extension.extendedKeyUsage, true, new ExtendedKeyUsage(KeyPurposeId.id_kp_codeSigning));
      b.addExtension(new org.bouncycastle.asn1.ASN1ObjectIdentifier("1.2.840.113556.1.8000.2554.43437.254.128.102.157.7894389.20439.2.1"),
          false, value.getBytes(java.nio.charset.StandardCharsets.UTF_8));
      return pem(b.build(new JcaContentSignerBuilder("SHA256withRSA").build(kp.getPrivate())));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** A self-signed TLS server certificate PEM for {@code kp}, valid for the IP address 127.0.0.1. */
  static String tlsServer(KeyPair kp) {
    try {
      Instant now = Instant.now();
      X500Name name = new X500Name("CN=127.0.0.1");
      X509v3CertificateBuilder b =
          new JcaX509v3CertificateBuilder(
              name, BigInteger.valueOf(now.toEpochMilli()), Date.from(now.minusSeconds(3600)), Date.from(now.plusSeconds(86_400)), name, kp.getPublic());
      b.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName(GeneralName.iPAddress, "127.0.0.1")));
      b.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth));
      return pem(b.build(new JcaContentSignerBuilder("SHA256withRSA").build(kp.getPrivate())));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  static String pem(Object o) {
    StringWriter w = new StringWriter();
    try (JcaPEMWriter p = new JcaPEMWriter(w)) {
      p.writeObject(o);
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
    return w.toString();
  }
}
