package dev.updraft.controlplane.signing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.updraft.testing.Fixtures;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.util.Base64;
import org.junit.jupiter.api.Test;

class PemKeysTest {

  @Test
  void readsThePkcs1KeyExpoWritesAndThePkcs8FormAsTheSameKey() throws Exception {
    PrivateKey pkcs1 = PemKeys.parsePrivateKey(Files.readString(Fixtures.privateKeyPkcs1Pem()));
    PrivateKey pkcs8 = PemKeys.parsePrivateKey(Files.readString(Fixtures.privateKeyPkcs8Pem()));
    assertThat(Files.readString(Fixtures.privateKeyPkcs1Pem())).startsWith("-----BEGIN RSA PRIVATE KEY-----");
    assertThat(pkcs1.getEncoded()).isEqualTo(pkcs8.getEncoded());
    // and it signs what the fixture certificate verifies
    X509Certificate cert = PemKeys.parseCertificate(Files.readString(Fixtures.certificatePem()));
    String header = Signer.signatureHeader(pkcs1, "main", "{\"type\":\"noUpdateAvailable\"}");
    assertThat(header).matches("sig=\"[A-Za-z0-9+/]+={0,2}\", keyid=\"main\", alg=\"rsa-v1_5-sha256\"");
    String sig = header.substring(5, header.indexOf('"', 5));
    Signature v = Signature.getInstance("SHA256withRSA");
    v.initVerify(cert.getPublicKey());
    v.update("{\"type\":\"noUpdateAvailable\"}".getBytes(StandardCharsets.UTF_8));
    assertThat(v.verify(Base64.getDecoder().decode(sig))).isTrue();
  }

  @Test
  void writesKeysAsPkcs8AndReadsThemBack() throws Exception {
    PrivateKey k = PemKeys.parsePrivateKey(Files.readString(Fixtures.privateKeyPkcs1Pem()));
    String pem = PemKeys.toPkcs8Pem(k);
    assertThat(pem).startsWith("-----BEGIN PRIVATE KEY-----");
    assertThat(PemKeys.parsePrivateKey(pem).getEncoded()).isEqualTo(k.getEncoded());
  }

  @Test
  void refusesWhatIsNotASingleUnencryptedKeyOrCertificate() throws Exception {
    String cert = Files.readString(Fixtures.certificatePem());
    assertThatThrownBy(() -> PemKeys.parsePrivateKey(cert)).isInstanceOf(KeyMaterialException.class).hasMessageContaining("found a certificate");
    assertThatThrownBy(() -> PemKeys.parseCertificate(Files.readString(Fixtures.privateKeyPkcs8Pem())))
        .hasMessageContaining("expected a PEM certificate");
    assertThatThrownBy(() -> PemKeys.parseCertificate(cert + cert)).hasMessageContaining("more than one block");
    assertThatThrownBy(() -> PemKeys.parsePrivateKey("hello")).hasMessageContaining("no PEM block");
    assertThatThrownBy(() -> PemKeys.parsePrivateKey(""))
        .isInstanceOfSatisfying(KeyMaterialException.class, e -> assertThat(e.code()).isEqualTo("invalid-private-key"));
    String encrypted =
        "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,0123456789ABCDEF0123456789ABCDEF\n\nAAAA\n-----END RSA PRIVATE KEY-----\n";
    assertThatThrownBy(() -> PemKeys.parsePrivateKey(encrypted)).hasMessageContaining("encrypted");
  }

  @Test
  void identifiesACertificateBySha256OfItsDer() throws Exception {
    X509Certificate cert = PemKeys.parseCertificate(Files.readString(Fixtures.certificatePem()));
    String expected = java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(cert.getEncoded()));
    assertThat(PemKeys.sha256Hex(cert)).isEqualTo(expected).hasSize(64);
    assertThat(PemKeys.parseCertificate(PemKeys.toPem(cert))).isEqualTo(cert);
  }
}
