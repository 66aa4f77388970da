package dev.updraft.controlplane.signing;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.updraft.testing.Fixtures;
import java.math.BigInteger;
import java.nio.file.Files;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The certificate rules of expo-updates, with certificates made here by BouncyCastle. */
class CertificateCheckTest {
  static KeyPair kp;
  static final Instant NOW = Instant.parse("2026-11-30T12:00:00Z");

  @BeforeAll
  static void key() throws Exception {
    KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
    g.initialize(2048);
    kp = g.generateKeyPair();
  }

  static X509Certificate cert(KeyPair k, Instant from, Instant to, Integer keyUsage, KeyPurposeId eku) throws Exception {
    X500Name n = new X500Name("CN=test");
    X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(n, BigInteger.ONE, Date.from(from), Date.from(to), n, k.getPublic());
    if (keyUsage != null) {
      b.addExtension(Extension.keyUsage, true, new KeyUsage(keyUsage));
    }
    if (eku != null) {
      b.addExtension(Extension.extendedKeyUsage, true, new ExtendedKeyUsage(eku));
    }
    return new JcaX509CertificateConverter().getCertificate(b.build(new JcaContentSignerBuilder("SHA256withRSA").build(k.getPrivate())));
  }

  @Test
  void acceptsTheFixturePairExpoGenerated() throws Exception {
    X509Certificate c = PemKeys.parseCertificate(Files.readString(Fixtures.certificatePem()));
    PrivateKey k = PemKeys.parsePrivateKey(Files.readString(Fixtures.privateKeyPkcs1Pem()));
    assertThatCode(() -> CertificateCheck.validate(c, k, NOW)).doesNotThrowAnyException();
  }

  @Test
  void acceptsAValidCodeSigningCertificate() throws Exception {
    X509Certificate c = cert(kp, NOW.minus(Duration.ofDays(1)), NOW.plus(Duration.ofDays(365)), KeyUsage.digitalSignature, KeyPurposeId.id_kp_codeSigning);
    assertThatCode(() -> CertificateCheck.validate(c, kp.getPrivate(), NOW)).doesNotThrowAnyException();
  }

  @Test
  void refusesAnExpiredCertificate() throws Exception {
    X509Certificate c = cert(kp, NOW.minus(Duration.ofDays(400)), NOW.minus(Duration.ofSeconds(1)), KeyUsage.digitalSignature, KeyPurposeId.id_kp_codeSigning);
    assertThatThrownBy(() -> CertificateCheck.validate(c, kp.getPrivate(), NOW))
        .isInstanceOfSatisfying(KeyMaterialException.class, e -> org.assertj.core.api.Assertions.assertThat(e.code()).isEqualTo("certificate-expired"))
        .hasMessageContaining("expired");
  }

  @Test
  void refusesACertificateNotYetValid() throws Exception {
    X509Certificate c = cert(kp, NOW.plus(Duration.ofDays(1)), NOW.plus(Duration.ofDays(400)), KeyUsage.digitalSignature, KeyPurposeId.id_kp_codeSigning);
    assertThatThrownBy(() -> CertificateCheck.validate(c, kp.getPrivate(), NOW)).hasMessageContaining("not valid before");
  }

  @Test
  void refusesACertificateWithoutTheCodeSigningUsage() throws Exception {
    X509Certificate noEku = cert(kp, NOW.minus(Duration.ofDays(1)), NOW.plus(Duration.ofDays(365)), KeyUsage.digitalSignature, null);
    X509Certificate serverAuth = cert(kp, NOW.minus(Duration.ofDays(1)), NOW.plus(Duration.ofDays(365)), KeyUsage.digitalSignature, KeyPurposeId.id_kp_serverAuth);
    assertThatThrownBy(() -> CertificateCheck.validate(noEku, kp.getPrivate(), NOW)).hasMessageContaining("codeSigning");
    assertThatThrownBy(() -> CertificateCheck.validate(serverAuth, kp.getPrivate(), NOW)).hasMessageContaining("codeSigning");
  }

  @Test
  void refusesACertificateWithoutDigitalSignature() throws Exception {
    X509Certificate noKu = cert(kp, NOW.minus(Duration.ofDays(1)), NOW.plus(Duration.ofDays(365)), null, KeyPurposeId.id_kp_codeSigning);
    X509Certificate other = cert(kp, NOW.minus(Duration.ofDays(1)), NOW.plus(Duration.ofDays(365)), KeyUsage.keyCertSign, KeyPurposeId.id_kp_codeSigning);
    assertThatThrownBy(() -> CertificateCheck.validate(noKu, kp.getPrivate(), NOW)).hasMessageContaining("digitalSignature");
    assertThatThrownBy(() -> CertificateCheck.validate(other, kp.getPrivate(), NOW)).hasMessageContaining("digitalSignature");
  }

  @Test
  void refusesAKeyThatIsNotTheCertificates() throws Exception {
    X509Certificate c = cert(kp, NOW.minus(Duration.ofDays(1)), NOW.plus(Duration.ofDays(365)), KeyUsage.digitalSignature, KeyPurposeId.id_kp_codeSigning);
    PrivateKey fixture = PemKeys.parsePrivateKey(Files.readString(Fixtures.privateKeyPkcs8Pem()));
    assertThatThrownBy(() -> CertificateCheck.validate(c, fixture, NOW))
        .isInstanceOfSatisfying(KeyMaterialException.class, e -> org.assertj.core.api.Assertions.assertThat(e.code()).isEqualTo("key-mismatch"));
  }
}
