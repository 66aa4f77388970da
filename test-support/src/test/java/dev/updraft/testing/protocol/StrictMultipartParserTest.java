package dev.updraft.testing.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Bodies written out by hand: what iOS accepts, and each framing rule it enforces. */
class StrictMultipartParserTest {
  private static final String CT = "multipart/mixed; boundary=BB";
  private static final String GOOD =
      "--BB\r\n"
          + "content-type: application/json\r\n"
          + "content-disposition: inline; name=\"manifest\"\r\n"
          + "expo-signature: sig=\"AAAA\"\r\n"
          + "\r\n"
          + "{\"id\":\"x\"}\r\n"
          + "--BB\r\n"
          + "Content-Type: application/json\r\n"
          + "Content-Disposition: inline; name=\"extensions\"\r\n"
          + "\r\n"
          + "{\"assetRequestHeaders\":{}}\r\n"
          + "--BB--\r\n";

  @Test
  void readsPartsWithHeadersAsReceivedAndExactBodies() {
    MultipartBody body = StrictMultipartParser.parse(CT, bytes(GOOD));

    assertThat(body.boundary()).isEqualTo("BB");
    assertThat(body.preambleBytes()).isZero();
    assertThat(body.epilogueBytes()).isZero();
    assertThat(body.parts()).hasSize(2);
    MultipartPart manifest = body.part("manifest");
    assertThat(manifest.headerNames()).containsExactly("content-type", "content-disposition", "expo-signature");
    assertThat(manifest.headerExact("expo-signature")).isEqualTo("sig=\"AAAA\"");
    assertThat(manifest.bodyText()).isEqualTo("{\"id\":\"x\"}");
    MultipartPart ext = body.part("extensions");
    assertThat(ext.headerExact("content-type")).isNull();
    assertThat(ext.header("content-type")).isEqualTo("application/json");
    assertThat(ext.bodyText()).isEqualTo("{\"assetRequestHeaders\":{}}");
  }

  @Test
  void rejectsClosingDelimiterWithoutTrailingCrlf() {
    String noCrlf = GOOD.substring(0, GOOD.length() - 2);
    assertThatThrownBy(() -> StrictMultipartParser.parse(CT, bytes(noCrlf)))
        .isInstanceOf(MultipartFormatException.class)
        .hasMessageContaining("not followed by CRLF");
  }

  @Test
  void rejectsBodyWithoutClosingDelimiter() {
    String unclosed = GOOD.replace("\r\n--BB--\r\n", "\r\n");
    assertThatThrownBy(() -> StrictMultipartParser.parse(CT, bytes(unclosed)))
        .isInstanceOf(MultipartFormatException.class)
        .hasMessageContaining("no closing delimiter");
  }

  @Test
  void rejectsBodyWithoutFirstDelimiter() {
    assertThatThrownBy(() -> StrictMultipartParser.parse(CT, bytes("{\"id\":\"x\"}")))
        .isInstanceOf(MultipartFormatException.class)
        .hasMessageContaining("first delimiter");
  }

  @Test
  void rejectsSpaceAfterDelimiter() {
    String padded = GOOD.replaceFirst("--BB\r\n", "--BB \r\n");
    assertThatThrownBy(() -> StrictMultipartParser.parse(CT, bytes(padded)))
        .isInstanceOf(MultipartFormatException.class)
        .hasMessageContaining("not followed by CRLF");
  }

  @Test
  void reportsPreambleBeforeFirstDelimiter() {
    MultipartBody body = StrictMultipartParser.parse(CT, bytes("hello\r\n" + GOOD));
    assertThat(body.preambleBytes()).isEqualTo(7);
    assertThat(body.parts()).hasSize(2);
  }

  @Test
  void rejectsContentTypeWithoutBoundaryOrOfAnotherType() {
    assertThatThrownBy(() -> StrictMultipartParser.parse("multipart/mixed", bytes(GOOD)))
        .hasMessageContaining("no boundary");
    assertThatThrownBy(() -> StrictMultipartParser.parse("application/json", bytes(GOOD)))
        .hasMessageContaining("not multipart/mixed");
  }

  @Test
  void quotedBoundaryIsUnquoted() {
    MultipartBody body = StrictMultipartParser.parse("multipart/mixed; boundary=\"BB\"", bytes(GOOD));
    assertThat(body.parts()).hasSize(2);
  }

  @Test
  void okHttpReadsTheSameParts() {
    List<MultipartPart> parts = OkHttpMultipart.parse(CT, bytes(GOOD));
    assertThat(parts).hasSize(2);
    assertThat(parts.get(0).name()).isEqualTo("manifest");
    assertThat(parts.get(0).header("EXPO-SIGNATURE")).isEqualTo("sig=\"AAAA\"");
    assertThat(parts.get(0).bodyText()).isEqualTo("{\"id\":\"x\"}");
    assertThat(parts.get(1).name()).isEqualTo("extensions");
    assertThat(parts.get(1).bodyText()).isEqualTo("{\"assetRequestHeaders\":{}}");
  }

  @Test
  void okHttpRejectsTruncatedBody() {
    String truncated = GOOD.substring(0, GOOD.indexOf("--BB--"));
    assertThatThrownBy(() -> OkHttpMultipart.parse(CT, bytes(truncated)))
        .isInstanceOf(MultipartFormatException.class);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
