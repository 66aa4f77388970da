package dev.updraft.load.run;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The round-robin over several targets, as a load balancer that honours readiness. */
class TargetsTest {
  private static List<String> picks(Targets targets, int n) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(targets.pick().base());
    }
    return out;
  }

  @Test
  void upTargetsShareTheRequestsInTurn() {
    Targets targets = new Targets(List.of("http://127.0.0.1:3100", "http://127.0.0.1:3101"), 0);

    assertThat(picks(targets, 4)).containsExactly("http://127.0.0.1:3100", "http://127.0.0.1:3101",
        "http://127.0.0.1:3100", "http://127.0.0.1:3101");
  }

  @Test
  void aTargetNotYetReadyGetsNoRequestUntilItsProbeAnswers200() {
    Targets targets = new Targets(List.of("http://127.0.0.1:3100", "http://127.0.0.1:3101"), 0);
    Targets.Target restarted = targets.all.get(1);

    targets.notReady(restarted, 1_000_000_000L);

    assertThat(picks(targets, 5)).containsOnly("http://127.0.0.1:3100");
    assertThat(restarted.errors()).isZero();

    targets.answered(restarted, 3_500_000_000L);

    assertThat(picks(targets, 4)).contains("http://127.0.0.1:3100", "http://127.0.0.1:3101");
    assertThat(restarted.outages()).containsExactly(new Targets.Outage(1.0, 3.5, 0));
  }

  @Test
  void aFailedRequestTakesItsTargetOutAndCountsAsAnError() {
    Targets targets = new Targets(List.of("http://127.0.0.1:3100", "http://127.0.0.1:3101"), 0);
    Targets.Target killed = targets.all.get(0);

    targets.failed(killed, 2_000_000_000L);
    targets.failed(killed, 2_100_000_000L);

    assertThat(picks(targets, 3)).containsOnly("http://127.0.0.1:3101");
    assertThat(killed.errors()).isEqualTo(2);
    targets.close(4_000_000_000L);
    assertThat(killed.outages()).hasSize(1);
    assertThat(killed.outages().get(0).failedRequests()).isEqualTo(2);
    assertThat(killed.outages().get(0).endS()).isNaN();
  }

  @Test
  void withEveryTargetDownTheRequestsStillGoOutRatherThanNowhere() {
    Targets targets = new Targets(List.of("http://127.0.0.1:3100", "http://127.0.0.1:3101"), 0);
    targets.notReady(targets.all.get(0), 0);
    targets.notReady(targets.all.get(1), 0);

    assertThat(picks(targets, 4)).contains("http://127.0.0.1:3100", "http://127.0.0.1:3101");
  }
}
