package dev.updraft.controlplane.signing;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.updraft.testing.Fixtures;
import dev.updraft.testing.TestCertificates;
import java.math.BigInteger;
import java.nio.file.Files;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.nio.charset.StandardCharsets;
import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
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
  void refusesACertificateCarryingExpoProjectInformationNamingTheExtensionAndItsValue() throws Exception {
    X500Name n = new X500Name("CN=project bound");
    X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(n, BigInteger.TWO, Date.from(NOW.minus(Duration.ofDays(1))),
        Date.from(NOW.plus(Duration.ofDays(365))), n, kp.getPublic());
    b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature));
    b.addExtension(Extension.extendedKeyUsage, true, new ExtendedKeyUsage(KeyPurposeId.id_kp_codeSigning));
    // as @expo/code-signing-certificates writes it: the UTF-8 bytes of "<projectId>,<scopeKey>" as the value
    b.addExtension(new ASN1ObjectIdentifier("1.2.840.113556.1.8000.2554.43437.254.128.102.157.7894389.20439.2.1"), false,
        "285dc9ca-a25d-4f60-93be-36dc312266d7,@owner/app".getBytes(StandardCharsets.UTF_8));
    X509Certificate c = new JcaX509CertificateConverter().getCertificate(b.build(new JcaContentSignerBuilder("SHA256withRSA").build(kp.getPrivate())));
    assertThatThrownBy(() -> CertificateCheck.validate(c, kp.getPrivate(), NOW))
        .isInstanceOfSatisfying(KeyMaterialException.class,
            e -> org.assertj.core.api.Assertions.assertThat(e.code()).isEqualTo("certificate-has-expo-project-information"))
        .hasMessageContaining("1.2.840.113556.1.8000.2554.43437.254.128.102.157.7894389.20439.2.1")
        .hasMessageContaining("\"285dc9ca-a25d-4f60-93be-36dc312266d7,@owner/app\"")
        .hasMessageContaining("extra.scopeKey");
  }

  @Test
  void refusesAChainWhoseIntermediateCarriesExpoProjectInformation() throws Exception {
    TestCertificates.Chain ca = TestCertificates.chain("project", Duration.ofDays(30));
    Instant from = Instant.now().minus(Duration.ofMinutes(1));
    Instant to = Instant.now().plus(Duration.ofDays(30));
    KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
    g.initialize(2048);
    KeyPair interKeys = g.generateKeyPair();
    X509v3CertificateBuilder ib = new JcaX509v3CertificateBuilder(new X500Name(ca.root().certificate().getSubjectX500Principal().getName()),
        BigInteger.valueOf(7), Date.from(from), Date.from(to), new X500Name("CN=project bound CA"), interKeys.getPublic());
    ib.addExtension(Extension.basicConstraints, true, new BasicConstraints(0));
    ib.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.digitalSignature));
    ib.addExtension(new ASN1ObjectIdentifier("1.2.840.113556.1.8000.2554.43437.254.128.102.157.7894389.20439.2.1"), false,
        "a3c1e9f0-5d2b-4f7e-8c6a-1b2d3e4f5a6b,@team/app".getBytes(StandardCharsets.UTF_8));
    X509Certificate inter = new JcaX509CertificateConverter().getCertificate(
        ib.build(new JcaContentSignerBuilder("SHA256withRSA").build(ca.root().privateKey())));
    X509v3CertificateBuilder lb = new JcaX509v3CertificateBuilder(new X500Name("CN=project bound CA"), BigInteger.valueOf(8),
        Date.from(from), Date.from(to), new X500Name("CN=leaf"), kp.getPublic());
    lb.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature));
    lb.addExtension(Extension.extendedKeyUsage, true, new ExtendedKeyUsage(KeyPurposeId.id_kp_codeSigning));
    X509Certificate leaf = new JcaX509CertificateConverter().getCertificate(
        lb.build(new JcaContentSignerBuilder("SHA256withRSA").build(interKeys.getPrivate())));
    assertThatThrownBy(() -> CertificateCheck.validateChain(java.util.List.of(leaf, inter), kp.getPrivate(), Instant.now()))
        .isInstanceOfSatisfying(KeyMaterialException.class,
            e -> org.assertj.core.api.Assertions.assertThat(e.code()).isEqualTo("certificate-has-expo-project-information"))
        .hasMessageContaining("certificate 2 of the chain")
        .hasMessageContaining("a3c1e9f0-5d2b-4f7e-8c6a-1b2d3e4f5a6b,@team/app");
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
