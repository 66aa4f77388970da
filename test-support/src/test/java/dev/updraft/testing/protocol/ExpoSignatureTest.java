package dev.updraft.testing.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.updraft.testing.Fixtures;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * Signature header rules and verification against the fixture certificate. The expected signatures were
 * made outside Java with {@code printf 'hello' | openssl dgst -sha256 -sign private-key.pem | base64}.
 */
class ExpoSignatureTest {
  /** openssl's SHA256withRSA signature of {@code hello} with the fixture key. */
  static final String HELLO_SIG =
      "kY5l9KO0Uz3BH9IQLEAGAoZG/fPMNUEe7W7GDk1R+wjG3SJ9fATM0Tb0AaEtv556665VOHVFaUChP1Kcs/uJlqc7zNPq1uAU/IMzOz9dIpz9"
          + "JPlDzaShjLWQoai07kUU40tlnDX94MoMC3b434kuKDj9SaHMsBG9HG4iCQptiW5/Mk8v21Nl14iuUBQZeviAPjWL0Glbpp4XIqVGpjh+vB"
          + "YbSxmbg8yJFDonkrROOZAYwaWyZvSW0Pv5VbroXZIq2y2MXnfR+hUazgfOLGgyYQDgY4Spzu2nYPWWoFPFOvxtlQ6HPQZUfHHJRA38ZfZL"
          + "giXI5HtBsu4dMJzfSzP1RQ==";

  @Test
  void parsesTheMembersClientsRead() {
    ExpoSignature s = ExpoSignature.parse("sig=\"" + HELLO_SIG + "\", keyid=\"main\", alg=\"rsa-v1_5-sha256\"");
    assertThat(s.keyId()).isEqualTo("main");
    assertThat(s.alg()).isEqualTo("rsa-v1_5-sha256");
    assertThat(s.signature()).hasSize(256);
  }

  @Test
  void missingKeyIdMeansRoot() {
    assertThat(ExpoSignature.parse("sig=\"" + HELLO_SIG + "\"").keyId()).isEqualTo("root");
  }

  @Test
  void rejectsByteSequenceSig() {
    assertThatThrownBy(() -> ExpoSignature.parse("sig=:" + HELLO_SIG + ":, keyid=\"main\""))
        .hasMessageContaining("not an SF string");
  }

  @Test
  void rejectsBase64UrlSig() {
    String url = HELLO_SIG.replace('+', '-').replace('/', '_');
    assertThatThrownBy(() -> ExpoSignature.parse("sig=\"" + url + "\""))
        .hasMessageContaining("standard padded base64");
  }

  @Test
  void rejectsUnpaddedSig() {
    String unpadded = HELLO_SIG.substring(0, HELLO_SIG.length() - 2);
    assertThatThrownBy(() -> ExpoSignature.parse("sig=\"" + unpadded + "\""))
        .hasMessageContaining("standard padded base64");
  }

  @Test
  void rejectsTokenMembersAndUnknownAlg() {
    assertThatThrownBy(() -> ExpoSignature.parse("sig=\"" + HELLO_SIG + "\", keyid=main"))
        .hasMessageContaining("keyid is not an SF string");
    assertThatThrownBy(() -> ExpoSignature.parse("sig=\"" + HELLO_SIG + "\", alg=\"rsa-pss\""))
        .hasMessageContaining("unknown alg");
  }

  @Test
  void rejectsSomethingThatIsNotADictionary() {
    assertThatThrownBy(() -> ExpoSignature.parse("sig=\"unterminated")).hasMessageContaining("RFC 8941");
  }

  @Test
  void verifiesOpensslSignatureAndRejectsOneChangedByte() {
    SignatureVerifier v = SignatureVerifier.fromCertificatePem(Fixtures.certificatePem());
    ExpoSignature s = ExpoSignature.parse("sig=\"" + HELLO_SIG + "\", keyid=\"main\"");

    assertThat(v.verify("hello".getBytes(StandardCharsets.UTF_8), s)).isTrue();
    assertThat(v.verify("hellp".getBytes(StandardCharsets.UTF_8), s)).isFalse();
    byte[] bad = s.signature();
    bad[17] ^= 1;
    assertThat(v.verify("hello".getBytes(StandardCharsets.UTF_8), bad)).isFalse();
  }
}
