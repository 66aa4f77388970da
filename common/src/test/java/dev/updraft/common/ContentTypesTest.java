package dev.updraft.common;

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

  /** The entries the CLI (upload Content-Type) and the control plane (manifest contentType) both rely on. */
  @Test
  void pinsTheTypesAnExpoExportNeeds() {
    assertThat(ContentTypes.of("js")).isEqualTo("application/javascript");
    assertThat(ContentTypes.of("hbc")).isEqualTo("application/javascript");
    assertThat(ContentTypes.of("json")).isEqualTo("application/json");
    assertThat(ContentTypes.of("png")).isEqualTo("image/png");
    assertThat(ContentTypes.of("jpg")).isEqualTo("image/jpeg");
    assertThat(ContentTypes.of("JPEG")).isEqualTo("image/jpeg");
    assertThat(ContentTypes.of("gif")).isEqualTo("image/gif");
    assertThat(ContentTypes.of("webp")).isEqualTo("image/webp");
    assertThat(ContentTypes.of("svg")).isEqualTo("image/svg+xml");
    assertThat(ContentTypes.of("ttf")).isEqualTo("font/ttf");
    assertThat(ContentTypes.of("otf")).isEqualTo("font/otf");
    assertThat(ContentTypes.of("woff")).isEqualTo("font/woff");
    assertThat(ContentTypes.of("woff2")).isEqualTo("font/woff2");
    assertThat(ContentTypes.of("mp3")).isEqualTo("audio/mpeg");
    assertThat(ContentTypes.of("wav")).isEqualTo("audio/wav");
    assertThat(ContentTypes.of("mp4")).isEqualTo("video/mp4");
    // the CLI used to upload these as octet-stream while the control plane rendered them typed
    assertThat(ContentTypes.of("bmp")).isEqualTo("image/bmp");
    assertThat(ContentTypes.of("avif")).isEqualTo("image/avif");
    assertThat(ContentTypes.of("m4a")).isEqualTo("audio/mp4");
    assertThat(ContentTypes.of("mjs")).isEqualTo("application/javascript");
    assertThat(ContentTypes.of("")).isEqualTo("application/octet-stream");
    assertThat(ContentTypes.of(null)).isEqualTo("application/octet-stream");
  }
}
