package dev.updraft.load.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.updraft.common.ConfigException;
import dev.updraft.common.Settings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code --server-prerun}: read, refused when it is not a duration, and the pre-run's own configuration. */
class ServerPrerunConfigTest {
  private static RunConfig run(String... flags) {
    return RunConfig.forRun(Settings.parse(flags, Map.of()));
  }

  @Test
  void noPrerunUnlessAsked() {
    assertThat(run("--target", "http://127.0.0.1:3100").serverPrerun()).isEqualTo(Duration.ZERO);
    assertThat(run("--target", "http://127.0.0.1:3100", "--server-prerun", "0s").serverPrerun()).isEqualTo(Duration.ZERO);
  }

  @Test
  void aPrerunIsTheSameTrafficForItsLengthWithoutTriggerMetricsOrDeviceLog() {
    RunConfig c = run("--target", "http://127.0.0.1:3100", "--profile", "constant", "--rate", "5000", "--duration", "60s",
        "--server-prerun", "30s", "--metrics", "edge=http://127.0.0.1:3100/metrics", "--device-log", "/tmp/devices.jsonl",
        "--trigger-url", "http://127.0.0.1:3000/v1/apps/demo/rollbacks", "--trigger-at", "10s", "--warmup", "20000");
    assertThat(c.serverPrerun()).isEqualTo(Duration.ofSeconds(30));

    RunConfig pre = c.forPrerun();

    // 5,000 req/s for 30 s: 150,000 requests
    assertThat(pre.profile().durationS()).isCloseTo(30, within(1e-9));
    assertThat(pre.profile().phases().get(0).totalCount()).isCloseTo(150_000, within(1e-6));
    assertThat(pre.profile().triggerAtS()).isNegative();
    assertThat(pre.trigger()).isNull();
    assertThat(pre.metricsUrls()).isEmpty();
    assertThat(pre.deviceLog()).isNull();
    assertThat(pre.baseline()).isFalse();
    // the generator warms up as for the measured run, and the devices are the same fleet
    assertThat(pre.warmup()).isEqualTo(20000);
    assertThat(pre.devices()).isEqualTo(c.devices());
    assertThat(pre.seed()).isEqualTo(c.seed());
    // the measured run itself is untouched
    assertThat(c.profile().durationS()).isCloseTo(60, within(1e-9));
    assertThat(c.deviceLog()).isEqualTo(Path.of("/tmp/devices.jsonl"));
  }

  @Test
  void theBaselinesPrerunIsOfTheBaselinesProfile() {
    RunConfig c = run("--target", "http://127.0.0.1:3100", "--baseline", "--baseline-profile", "constant", "--profile", "smoke",
        "--rate", "200", "--duration", "10s", "--server-prerun", "5s");

    RunConfig pre = c.forBaseline().forPrerun();

    assertThat(pre.profile().name()).isEqualTo("constant");
    assertThat(pre.profile().phases().get(0).totalCount()).isCloseTo(1000, within(1e-6));
    assertThat(c.forBaseline().serverPrerun()).isEqualTo(Duration.ofSeconds(5));
  }

  @Test
  void aNegativeOrUnitlessPrerunIsRefusedNamingTheFlagAndTheValue() {
    for (String bad : new String[] {"-5s", "30", "soon", "1.5s"}) {
      assertThatThrownBy(() -> run("--target", "http://127.0.0.1:3100", "--server-prerun", bad))
          .as(bad)
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("--server-prerun")
          .hasMessageContaining("'" + bad + "'");
    }
  }

  @Test
  void aReplayHasNoPrerun() {
    assertThatThrownBy(() -> RunConfig.forReplay(Settings.parse(new String[] {"--target", "http://127.0.0.1:3100", "--server-prerun", "5s"},
        Map.of()), Path.of("/nonexistent")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("--server-prerun");
  }
}
