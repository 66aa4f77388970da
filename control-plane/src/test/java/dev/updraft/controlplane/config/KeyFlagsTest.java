package dev.updraft.controlplane.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.updraft.common.ConfigException;
import dev.updraft.common.Settings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code --key-in-use-days}: 30 days unless given, 1 to 3650. */
class KeyFlagsTest {

  private static KeyFlags flags(Map<String, String> f) {
    return KeyFlags.from(Settings.of(f, Map.of()), Path.of("/tmp/updraft-keyflags-test"));
  }

  @Test
  void aKeyIsInUseForThirtyDaysAfterAnAskUnlessConfigured() {
    assertThat(flags(Map.of()).keyInUseWindow()).isEqualTo(Duration.ofDays(30));
    assertThat(flags(Map.of("key-in-use-days", "7")).keyInUseWindow()).isEqualTo(Duration.ofDays(7));
  }

  @Test
  void aWindowOutsideOneDayToTenYearsIsRefused() {
    assertThatThrownBy(() -> flags(Map.of("key-in-use-days", "0"))).isInstanceOf(ConfigException.class).hasMessageContaining("key-in-use-days");
    assertThatThrownBy(() -> flags(Map.of("key-in-use-days", "3651"))).isInstanceOf(ConfigException.class);
  }
}
