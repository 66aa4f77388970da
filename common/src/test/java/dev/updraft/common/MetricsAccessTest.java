package dev.updraft.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --metrics-token}, {@code --metrics-token-file} and {@code --metrics-port}. */
class MetricsAccessTest {
  private static final String TOKEN = "scrape-secret-0123456789";

  private static MetricsAccess of(Map<String, String> flags, Map<String, String> env) {
    return MetricsAccess.from(Settings.of(flags, env), true);
  }

  @Test
  void withoutATokenMetricsArePublicOnThePublicPort() {
    MetricsAccess m = of(Map.of(), Map.of());

    assertThat(m.protectedByToken()).isFalse();
    assertThat(m.allows(null)).isTrue();
    assertThat(m.separatePort()).isFalse();
    assertThat(m.port()).isEqualTo(-1);
  }

  @Test
  void aTokenFromTheEnvironmentIsNeededAsABearerToken() {
    MetricsAccess m = of(Map.of(), Map.of("UPDRAFT_METRICS_TOKEN", TOKEN));

    assertThat(m.allows("Bearer " + TOKEN)).isTrue();
    assertThat(m.allows("bearer  " + TOKEN + " ")).isTrue();
    assertThat(m.allows(null)).isFalse();
    assertThat(m.allows("Bearer " + TOKEN + "x")).isFalse();
    assertThat(m.allows(TOKEN)).isFalse();
    assertThat(m.allows("Basic " + TOKEN)).isFalse();
    assertThat(m.toString()).doesNotContain(TOKEN).contains("<redacted>");
  }

  @Test
  void aTokenFileIsReadAndTrimmed(@TempDir Path dir) throws Exception {
    Path f = dir.resolve("metrics-token");
    Files.writeString(f, TOKEN + "\n");

    assertThat(of(Map.of("metrics-token-file", f.toString()), Map.of()).allows("Bearer " + TOKEN)).isTrue();
  }

  @Test
  void refusesAShortTokenBothFlagsOrAMissingFile(@TempDir Path dir) {
    assertThatThrownBy(() -> of(Map.of("metrics-token", "short"), Map.of()))
        .isInstanceOf(ConfigException.class).hasMessageContaining("at least 16 characters: got 5").hasMessageNotContaining("short");
    assertThatThrownBy(() -> of(Map.of("metrics-token", TOKEN, "metrics-token-file", "x"), Map.of()))
        .isInstanceOf(ConfigException.class).hasMessageContaining("not both");
    assertThatThrownBy(() -> of(Map.of("metrics-token-file", dir.resolve("absent").toString()), Map.of()))
        .isInstanceOf(ConfigException.class).hasMessageContaining("cannot read");
  }

  @Test
  void aMetricsPortMovesMetricsToTheirOwnListener() {
    assertThat(of(Map.of("metrics-port", "9464"), Map.of()).port()).isEqualTo(9464);
    assertThat(of(Map.of("metrics-port", "0"), Map.of()).separatePort()).isTrue();
    assertThat(MetricsAccess.from(Settings.of(Map.of("metrics-port", "9464"), Map.of()), false).separatePort()).isFalse();
    assertThatThrownBy(() -> of(Map.of("metrics-port", "70000"), Map.of())).isInstanceOf(ConfigException.class);
  }
}
