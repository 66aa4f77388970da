package dev.updraft.edge.image;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.events.EventPayload.PlatformUpdate;
import dev.updraft.testing.protocol.MultipartBody;
import dev.updraft.testing.protocol.StrictMultipartParser;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The prepared bytes, compared with framing written out by hand from protocol.md §2. */
class PreparedTest {
  private static final String BODY = "{\"id\":\"u1\"}";
  private static final String SIG = "sig=\"AAAA\", keyid=\"main\", alg=\"rsa-v1_5-sha256\"";

  private static PlatformUpdate update(String body, String sig) {
    return new PlatformUpdate("ios", "u1", "2026-01-01T00:00:00.000Z", body, sig, null, List.of());
  }

  @Test
  void manifestMultipartIsFramedForIos() {
    Prepared p = Prepared.manifest("g1", update(BODY, SIG));
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
    Prepared p = Prepared.noUpdate(body, null);
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
    Prepared p = Prepared.manifest("g", update(body, null));
    MultipartBody parsed = StrictMultipartParser.parse(p.multipartContentType().toString(), bytes(p));
    assertThat(parsed.part("manifest").bodyText()).isEqualTo(body);
  }

  @Test
  void signatureThatCouldBreakTheFramingIsDropped() {
    Prepared p = Prepared.manifest("g", update(BODY, "sig=\"A\"\r\nx: y"));
    assertThat(p.multipartSigned()).isNull();
    assertThat((Object) p.signature()).isNull();
  }

  @Test
  void multiByteBodiesKeepTheirExactBytes() {
    String body = "{\"extra\":{\"name\":\"Grüße ✓ 😀\"}}";
    Prepared p = Prepared.manifest("g", update(body, null));
    MultipartBody parsed = StrictMultipartParser.parse(p.multipartContentType().toString(), bytes(p));
    assertThat(parsed.part("manifest").body()).isEqualTo(body.getBytes(StandardCharsets.UTF_8));
    assertThat(p.json().getBytes()).isEqualTo(body.getBytes(StandardCharsets.UTF_8));
  }

  private static byte[] bytes(Prepared p) {
    return p.multipart().getBytes();
  }
}
