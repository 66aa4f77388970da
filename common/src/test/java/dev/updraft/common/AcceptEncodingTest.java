package dev.updraft.common;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class AcceptEncodingTest {
  static final List<String> ALL = List.of("identity", "gzip", "br", "zstd");

  @Test
  void shouldGiveEachClientItsBestStoredEncoding() {
    assertThat(AcceptEncoding.choose("zstd, br, gzip", ALL)).as("Android 57").isEqualTo("zstd");
    assertThat(AcceptEncoding.choose("br, gzip, deflate", ALL)).as("iOS").isEqualTo("br");
    assertThat(AcceptEncoding.choose("gzip", ALL)).isEqualTo("gzip");
    assertThat(AcceptEncoding.choose("zstd, br, gzip", List.of("identity", "gzip"))).isEqualTo("gzip");
  }

  @Test
  void shouldFollowQValuesAndFallBackToIdentity() {
    assertThat(AcceptEncoding.choose(null, ALL)).isEqualTo("identity");
    assertThat(AcceptEncoding.choose("deflate", ALL)).isEqualTo("identity");
    assertThat(AcceptEncoding.choose("zstd;q=0.5, gzip", ALL)).isEqualTo("gzip");
    assertThat(AcceptEncoding.choose("zstd;q=0, br;q=0", ALL)).isEqualTo("identity");
    assertThat(AcceptEncoding.choose("*", ALL)).isEqualTo("zstd");
    assertThat(AcceptEncoding.choose("gzip, identity;q=0", List.of("identity"))).isNull();
    assertThat(AcceptEncoding.choose("x-gzip", ALL)).isEqualTo("gzip");
  }
}
