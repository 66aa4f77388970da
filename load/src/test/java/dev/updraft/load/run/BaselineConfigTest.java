package dev.updraft.load.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.common.Settings;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The trivial server's run is the target's run again, on the same footing. */
class BaselineConfigTest {
  @Test
  void theTrivialServerIsWarmedByTheGeneratorsWarmUpSinceItHasNoneOfItsOwn() {
    RunConfig target = RunConfig.forRun(Settings.parse(new String[] {"--target", "http://127.0.0.1:3100", "--baseline",
        "--warmup", "5000", "--baseline-cpus", "1", "--profile", "constant", "--rate", "5000"}, Map.of()));

    RunConfig baseline = target.forBaseline();

    assertThat(target.warmupMirror()).isTrue();
    assertThat(baseline.warmupMirror()).isFalse();
    assertThat(baseline.warmup()).isEqualTo(5000);
    assertThat(baseline.profile().durationS()).isEqualTo(target.profile().durationS());
    assertThat(baseline.baselineCpus()).isEqualTo("1");
    assertThat(baseline.metricsUrls()).isEmpty();
  }
}
