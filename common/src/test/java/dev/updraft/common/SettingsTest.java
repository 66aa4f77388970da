package dev.updraft.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SettingsTest {

  @Test
  void flagWinsOverEnvironmentVariable() {
    Settings s = Settings.parse(new String[] {"--edge-port", "3001"}, Map.of("UPDRAFT_EDGE_PORT", "3002"));
    assertThat(s.port("edge-port", 3000, false)).isEqualTo(3001);
    assertThat(Settings.parse(new String[0], Map.of("UPDRAFT_EDGE_PORT", "3002")).port("edge-port", 3000, false))
        .isEqualTo(3002);
  }

  @Test
  void parsesEqualsFormBareFlagsAndPositionals() {
    Settings s = Settings.parse(new String[] {"apps", "create", "demo", "--json", "--server=http://x"}, Map.of());
    assertThat(s.positional()).containsExactly("apps", "create", "demo");
    assertThat(s.bool("json", false)).isTrue();
    assertThat(s.string("server", null)).isEqualTo("http://x");
  }

  @Test
  void badValuesNameTheFlagAndItsEnvironmentVariable() {
    Settings s = Settings.parse(new String[] {"--edge-port", "abc", "--timeout", "5x"}, Map.of());
    assertThatThrownBy(() -> s.port("edge-port", 3000, false))
        .isInstanceOf(ConfigException.class)
        .hasMessage("--edge-port (UPDRAFT_EDGE_PORT) must be a whole number: got 'abc'");
    assertThatThrownBy(() -> s.duration("timeout", Duration.ZERO)).hasMessageContaining("--timeout");
    assertThatThrownBy(() -> Settings.parse(new String[] {"--edge-port", "70000"}, Map.of()).port("edge-port", 1, false))
        .hasMessageContaining("between 1 and 65535");
  }

  @Test
  void unknownFlagsAreRefusedByName() {
    Settings s = Settings.parse(new String[] {"--edge-prot", "1"}, Map.of());
    assertThatThrownBy(() -> s.rejectUnknown(Set.of("edge-port"))).hasMessageStartingWith("unknown flag --edge-prot");
  }

  @Test
  void durationsAcceptCommonUnits() {
    assertThat(Settings.parseDuration("250ms")).isEqualTo(Duration.ofMillis(250));
    assertThat(Settings.parseDuration("7d")).isEqualTo(Duration.ofDays(7));
  }
}
