package dev.updraft.testing.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.updraft.testing.TestCertificates;
import java.security.cert.CertificateException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The client's chain rules on chains made with BouncyCastle. */
class CertificateChainVerifierTest {
  private static final TestCertificates.Chain CHAIN = TestCertificates.chain("Rules", Duration.ofDays(30));

  @Test
  void shouldAcceptLeafAndIntermediateUnderTheEmbeddedRoot() throws Exception {
    assertThat(new CertificateChainVerifier(CHAIN.root().certificatePem()).codeSigningCertificate(CHAIN.servedChainPem()))
        .isEqualTo(CHAIN.leaf().certificate());
  }

  @Test
  void shouldRefuseChainsThatDoNotChainToTheEmbeddedRootInOrder() {
    CertificateChainVerifier device = new CertificateChainVerifier(CHAIN.root().certificatePem());
    assertThatThrownBy(() -> device.codeSigningCertificate(CHAIN.leaf().certificatePem()))
        .as("the leaf alone does not chain to the root").isInstanceOf(CertificateException.class);
    assertThatThrownBy(() -> device.codeSigningCertificate(CHAIN.intermediate().certificatePem() + CHAIN.leaf().certificatePem()))
        .isInstanceOf(CertificateException.class);
  }

  @Test
  void shouldRefuseARootThatIsNotACa() {
    TestCertificates.Issued self = TestCertificates.selfSigned("not a CA", Duration.ofDays(30));
    assertThatThrownBy(() -> new CertificateChainVerifier(self.certificatePem()).codeSigningCertificate(CHAIN.servedChainPem()))
        .isInstanceOf(CertificateException.class);
  }

  @Test
  void shouldAcceptASelfSignedCodeSigningCertificateAloneAsInEmbeddedOnlyMode() throws Exception {
    TestCertificates.Issued self = TestCertificates.selfSigned("alone", Duration.ofDays(30));
    assertThat(new CertificateChainVerifier(self.certificatePem()).codeSigningCertificate(null)).isEqualTo(self.certificate());
  }
}
