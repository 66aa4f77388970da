package dev.updraft.edge.image;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.events.UpdateEvents.PlatformUpdate;
import dev.updraft.testing.protocol.MultipartBody;
import dev.updraft.testing.protocol.StrictMultipartParser;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The prepared bytes, compared with framing written out by hand from protocol.md §2. */
class PreparedTest {
  private static final String BODY = "{\"id\":\"u1\"}";
  private static final String SIG = "sig=\"AAAA\", keyid=\"main\", alg=\"rsa-v1_5-sha256\"";

  /** A ring of one key, {@code main}, as an app registered before the key ring has it. */
  private static final List<SigningKey> MAIN =
      List.of(new SigningKey("main", "abc", "{\"type\":\"noUpdateAvailable\"}", null, null));

  private static PlatformUpdate update(String body, String sig) {
    return new PlatformUpdate("ios", "u1", "2026-01-01T00:00:00.000Z", body, sig, null, List.of());
  }

  @Test
  void manifestMultipartIsFramedForIos() {
    Prepared p = Prepared.manifest("g1", update(BODY, SIG), MAIN);
    String b = Prepared.boundaryFor(BODY.getBytes(StandardCharsets.UTF_8));
    String unsigned = "--" + b + "\r\n"
        + "content-type: application/json\r\n"
        + "content-disposition: inline; name=\"manifest\"\r\n"
        + "\r\n"
        + BODY + "\r\n"
        + "--" + b + "\r\n"
        + "content-type: application/json\r\n"
        + "content-disposition: inline; name=\"extensions\"\r\n"
        + "\r\n"
        + "{\"assetRequestHeaders\":{}}\r\n"
        + "--" + b + "--\r\n";
    String signed = unsigned.replace("name=\"manifest\"\r\n", "name=\"manifest\"\r\nexpo-signature: " + SIG + "\r\n");

    assertThat(p.multipart().toString(StandardCharsets.UTF_8)).isEqualTo(unsigned);
    assertThat(p.multipartSigned().toString(StandardCharsets.UTF_8)).isEqualTo(signed);
    assertThat(p.multipartContentType().toString()).isEqualTo("multipart/mixed; boundary=" + b);
    assertThat(p.json().toString(StandardCharsets.UTF_8)).isEqualTo(BODY);
    assertThat(p.signature().toString()).isEqualTo(SIG);
    assertThat(p.directive()).isFalse();
  }

  @Test
  void directiveHasOneDirectivePartAndNoJsonVariant() {
    String body = "{\"type\":\"noUpdateAvailable\"}";
    Prepared p = Prepared.noUpdate(body, List.of());
    String b = Prepared.boundaryFor(body.getBytes(StandardCharsets.UTF_8));
    assertThat(p.multipart().toString(StandardCharsets.UTF_8)).isEqualTo("--" + b + "\r\n"
        + "content-type: application/json\r\n"
        + "content-disposition: inline; name=\"directive\"\r\n"
        + "\r\n"
        + body + "\r\n"
        + "--" + b + "--\r\n");
    assertThat(p.multipartSigned()).isNull();
    assertThat(p.json()).isNull();
    assertThat(p.directive()).isTrue();
  }

  @Test
  void boundaryIsATokenOfAtMost70CharactersTheSameForTheSameBody() {
    String b = Prepared.boundaryFor(BODY.getBytes(StandardCharsets.UTF_8));
    assertThat(b).matches("updraft-[0-9a-f]{40}").hasSizeLessThanOrEqualTo(70);
    assertThat(Prepared.boundaryFor(BODY.getBytes(StandardCharsets.UTF_8))).isEqualTo(b);
    assertThat(Prepared.boundaryFor("{}".getBytes(StandardCharsets.UTF_8))).isNotEqualTo(b);
  }

  @Test
  void boundaryFoundInTheBodyIsReplaced() {
    // a body quoting its own would-be boundary: only possible by construction, but it must not break framing
    String probe = "{\"x\":\"\"}";
    String base = Prepared.boundaryFor(probe.getBytes(StandardCharsets.UTF_8));
    String body = "{\"x\":\"" + base + "\"}";
    String chosen = Prepared.boundaryFor(body.getBytes(StandardCharsets.UTF_8));
    assertThat(body).doesNotContain(chosen);
    Prepared p = Prepared.manifest("g", update(body, null), MAIN);
    MultipartBody parsed = StrictMultipartParser.parse(p.multipartContentType().toString(), bytes(p));
    assertThat(parsed.part("manifest").bodyText()).isEqualTo(body);
  }

  @Test
  void signatureThatCouldBreakTheFramingIsDropped() {
    Prepared p = Prepared.manifest("g", update(BODY, "sig=\"A\"\r\nx: y"), MAIN);
    assertThat(p.multipartSigned()).isNull();
    assertThat((Object) p.signature()).isNull();
  }

  @Test
  void multiByteBodiesKeepTheirExactBytes() {
    String body = "{\"extra\":{\"name\":\"Grüße ✓ 😀\"}}";
    Prepared p = Prepared.manifest("g", update(body, null), MAIN);
    MultipartBody parsed = StrictMultipartParser.parse(p.multipartContentType().toString(), bytes(p));
    assertThat(parsed.part("manifest").body()).isEqualTo(body.getBytes(StandardCharsets.UTF_8));
    assertThat(p.json().getBytes()).isEqualTo(body.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void eachKeyOfTheRingHasItsSignedVariantAndAChainKeyItsCertificateChainPart() {
    String next = "sig=\"BBBB\", keyid=\"next\", alg=\"rsa-v1_5-sha256\"";
    String chain = "-----BEGIN CERTIFICATE-----\nMIIC\n-----END CERTIFICATE-----\n";
    List<SigningKey> ring = List.of(new SigningKey("main", "a", null, null, null),
        new SigningKey("next", "b", null, null, chain), new SigningKey("gone", "c", null, null, null));
    PlatformUpdate u = new PlatformUpdate("ios", "u1", "2026-01-01T00:00:00.000Z", BODY, SIG, null, List.of(),
        java.util.Map.of("main", SIG, "next", next));
    Prepared p = Prepared.manifest("g1", u, ring);
    String b = Prepared.boundaryFor(BODY.getBytes(StandardCharsets.UTF_8));

    assertThat(p.signature(0).toString()).isEqualTo(SIG);
    assertThat(p.signature(1).toString()).isEqualTo(next);
    assertThat((Object) p.signature(2)).as("no signature of that key").isNull();
    assertThat(p.multipartSigned(2)).isNull();
    assertThat(p.multipartSigned(0).toString(StandardCharsets.UTF_8)).doesNotContain("certificate_chain").contains(SIG);
    assertThat(p.multipartSigned(1).toString(StandardCharsets.UTF_8)).endsWith("{\"assetRequestHeaders\":{}}\r\n"
        + "--" + b + "\r\n"
        + "content-type: application/x-pem-file\r\n"
        + "content-disposition: inline; name=\"certificate_chain\"\r\n"
        + "\r\n"
        + chain + "\r\n"
        + "--" + b + "--\r\n");
    MultipartBody parsed = StrictMultipartParser.parse(p.multipartContentType().toString(), p.multipartSigned(1).getBytes());
    assertThat(parsed.part("certificate_chain").bodyText()).isEqualTo(chain);
    assertThat(parsed.part("manifest").headerExact("expo-signature")).isEqualTo(next);
  }

  @Test
  void anEntrySignedBeforeTheKeyRingServesItsOneSignatureForTheKeyidItNames() {
    List<SigningKey> ring = List.of(new SigningKey("k2", "b", null, null, null), new SigningKey("main", "a", null, null, null));
    Prepared p = Prepared.manifest("g1", update(BODY, SIG), ring);
    assertThat((Object) p.signature(0)).isNull();
    assertThat(p.signature(1).toString()).isEqualTo(SIG);
    Prepared rootless = Prepared.manifest("g1", update(BODY, "sig=\"AAAA\""), List.of(new SigningKey("root", "r", null, null, null)));
    assertThat(rootless.signature(0).toString()).as("no keyid: root").isEqualTo("sig=\"AAAA\"");
  }

  @Test
  void theFirstKeysVariantIsOneSliceOfTheHeldBytesAndEveryVariantKeepsItsBytes() {
    String chain = "-----BEGIN CERTIFICATE-----\nMIIC\n-----END CERTIFICATE-----\n";
    String next = "sig=\"BBBB\", keyid=\"next\", alg=\"rsa-v1_5-sha256\"";
    // the first key is chain-mode: its tail is not the plain tail, which the unsigned variant still needs
    List<SigningKey> ring = List.of(new SigningKey("main", "a", null, null, chain), new SigningKey("next", "b", null, null, null));
    PlatformUpdate u = new PlatformUpdate("ios", "u1", "2026-01-01T00:00:00.000Z", BODY, SIG, null, List.of(),
        java.util.Map.of("main", SIG, "next", next));
    Prepared p = Prepared.manifest("g1", u, ring);
    String b = Prepared.boundaryFor(BODY.getBytes(StandardCharsets.UTF_8), ring);
    String unsigned = p.multipart().toString(StandardCharsets.UTF_8);
    String end = "\r\n--" + b + "--\r\n";
    String signedMain = unsigned.replace("name=\"manifest\"\r\n", "name=\"manifest\"\r\nexpo-signature: " + SIG + "\r\n")
        .replace(end, "\r\n--" + b + "\r\ncontent-type: application/x-pem-file\r\ncontent-disposition: inline; "
            + "name=\"certificate_chain\"\r\n\r\n" + chain + end);
    String signedNext = unsigned.replace("name=\"manifest\"\r\n", "name=\"manifest\"\r\nexpo-signature: " + next + "\r\n");

    assertThat(unsigned).startsWith("--" + b + "\r\n").contains(BODY).endsWith("{\"assetRequestHeaders\":{}}" + end);
    assertThat(p.multipartSigned(0).toString(StandardCharsets.UTF_8)).isEqualTo(signedMain);
    assertThat(p.multipartSigned(1).toString(StandardCharsets.UTF_8)).isEqualTo(signedNext);
    assertThat(p.json().toString(StandardCharsets.UTF_8)).isEqualTo(BODY);
    assertThat(p.signature(0).toString()).isEqualTo(SIG);
    assertThat(p.signature(1).toString()).isEqualTo(next);
    // served as one slice (Netty copies it once to the socket), the others as three
    assertThat(((io.vertx.core.internal.buffer.BufferInternal) p.multipartSigned(0)).getByteBuf().nioBufferCount()).isEqualTo(1);
    assertThat(((io.vertx.core.internal.buffer.BufferInternal) p.multipartSigned(1)).getByteBuf().nioBufferCount()).isEqualTo(3);
    // still held once: the unsigned variant, plus the first key's head and chain tail, plus the next key's head
    int nextHead = unsigned.indexOf(BODY) + signedNext.length() - unsigned.length();
    assertThat(p.bytes()).isEqualTo(unsigned.length() + signedMain.length() - BODY.length() + nextHead);

    Prepared unsignedOnly = Prepared.manifest("g1", update(BODY, null), List.of());
    assertThat(((io.vertx.core.internal.buffer.BufferInternal) unsignedOnly.multipart()).getByteBuf().nioBufferCount()).isEqualTo(1);
    assertThat(unsignedOnly.multipart().toString(StandardCharsets.UTF_8))
        .isEqualTo(Prepared.manifest("g1", update(BODY, SIG), MAIN).multipart().toString(StandardCharsets.UTF_8));
    assertThat(unsignedOnly.bytes()).isEqualTo(unsignedOnly.multipart().length());
  }

  private static byte[] bytes(Prepared p) {
    return p.multipart().getBytes();
  }
}
