package dev.updraft.controlplane.render;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ContentTypesTest {
  @Test
  void mapsExtensionsWithOrWithoutTheDot() {
    assertThat(ContentTypes.of("png")).isEqualTo("image/png");
    assertThat(ContentTypes.of(".PNG")).isEqualTo("image/png");
    assertThat(ContentTypes.of("hbc")).isEqualTo("application/javascript");
    assertThat(ContentTypes.of("ttf")).isEqualTo("font/ttf");
    assertThat(ContentTypes.of("weird")).isEqualTo("application/octet-stream");
    assertThat(ContentTypes.compressible("image/png")).isFalse();
    assertThat(ContentTypes.compressible("application/javascript")).isTrue();
  }
}
