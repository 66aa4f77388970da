package dev.updraft.edge;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Parsing of the request headers that need more than a lookup. */
class DeviceRequestTest {

  @Test
  void failedIdsAreReadFromAnSfListOfQuotedStrings() {
    assertThat(DeviceRequest.failedIds("\"a1\", \"B2\""))
        .containsExactly("a1", "b2");
    assertThat(DeviceRequest.failedIds("\"a1\";p=1,\"b2\"")).containsExactly("a1", "b2");
    assertThat(DeviceRequest.failedIds("a1, b2")).containsExactly("a1", "b2");
    assertThat(DeviceRequest.failedIds("")).isEmpty();
    assertThat(DeviceRequest.failedIds(null)).isEmpty();
    assertThat(DeviceRequest.failedIds("\"unterminated")).isEmpty();
  }

  @Test
  void failedIdsAreBounded() {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < 50; i++) {
      sb.append("\"id").append(i).append("\",");
    }
    assertThat(DeviceRequest.failedIds(sb.toString())).hasSize(DeviceRequest.MAX_FAILED_IDS);
  }

  @Test
  void clientIdIsLowerCased() {
    assertThat(DeviceRequest.lowerOrNull("ABCDEF01-AAAA")).isEqualTo("abcdef01-aaaa");
    String lower = "abcdef01-aaaa";
    assertThat(DeviceRequest.lowerOrNull(lower)).isSameAs(lower);
    assertThat(DeviceRequest.lowerOrNull("  ")).isNull();
    // non-ASCII upper case is still lowered; non-ASCII lower case and other ASCII are kept as they are
    assertThat(DeviceRequest.lowerOrNull("abc-\u00c9T\u00c9")).isEqualTo("abc-\u00e9t\u00e9");
    String kept = "abc-\u00e9t\u00e9-09_~";
    assertThat(DeviceRequest.lowerOrNull(kept)).isSameAs(kept);
    assertThat(DeviceRequest.lowerOrNull("@[`{Z")).isEqualTo("@[`{z");
  }

  @Test
  void theExpectedKeyIdIsWhatTheHeaderNamesWhateverWasReadBefore() {
    String[] headers = {"sig, keyid=\"main\", alg=\"rsa-v1_5-sha256\"", "sig", "sig, keyid=\"next\"", "",
        "sig, keyid=\"main\", alg=\"rsa-v1_5-sha256\"", "keyid=\"a\\\"b\"", "keyid=token", "sig, keyid=\"main\", alg=\"rsa-v1_5-sha256\""};
    String[] expected = {"main", "root", "next", "root", "main", "a\"b", "root", "main"};
    for (int round = 0; round < 3; round++) { // repeats (the remembered value) and changes (a miss) alike
      for (int i = 0; i < headers.length; i++) {
        assertThat(DeviceRequest.expectKeyId(headers[i])).as(headers[i]).isEqualTo(expected[i]);
        assertThat(DeviceRequest.expectKeyId(headers[i])).as(headers[i]).isEqualTo(expected[i]);
      }
    }
  }

  @Test
  void fatalErrorIsCutTo1024CharactersWithoutSplittingASurrogatePair() {
    assertThat(DeviceRequest.truncate("x".repeat(2000))).hasSize(1024);
    assertThat(DeviceRequest.truncate("short")).isEqualTo("short");
    String emoji = "x".repeat(1023) + "😀" + "tail";
    String cut = DeviceRequest.truncate(emoji);
    assertThat(cut).hasSize(1023).doesNotContain("\uD83D");
  }
}
