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

    targets.notReady(restarted, 900_000_000L, 1_000_000_000L);

    assertThat(picks(targets, 5)).containsOnly("http://127.0.0.1:3100");
    assertThat(restarted.errors()).isZero();

    targets.ready(restarted, 3_500_000_000L);

    assertThat(picks(targets, 4)).contains("http://127.0.0.1:3100", "http://127.0.0.1:3101");
    assertThat(restarted.outages()).containsExactly(new Targets.Outage(1.0, 3.5, 0));
  }

  @Test
  void aDrainingTargetTakenOutByItsProbeStaysOutThoughItsRequestsInFlightAnswer200() {
    Targets targets = new Targets(List.of("http://127.0.0.1:3100", "http://127.0.0.1:3101"), 0);
    Targets.Target draining = targets.all.get(0);
    // its /readyz says 503 (draining after SIGTERM) at 1 s; requests sent before still come back 200 after that
    targets.notReady(draining, 900_000_000L, 1_000_000_000L);
    targets.answered(draining, 1_010_000_000L);
    targets.answered(draining, 1_020_000_000L);

    assertThat(picks(targets, 6)).as("no new request to the draining edge").containsOnly("http://127.0.0.1:3101");

    // back once its probe answers 200 (the restarted edge, ready)
    targets.ready(draining, 9_000_000_000L);
    assertThat(picks(targets, 4)).contains("http://127.0.0.1:3100", "http://127.0.0.1:3101");
    assertThat(draining.outages()).containsExactly(new Targets.Outage(1.0, 9.0, 0));
  }

  @Test
  void aProbeAnswerOlderThanTheTargetsRecoveryDoesNotTakeItOutAgain() {
    Targets targets = new Targets(List.of("http://127.0.0.1:3100"), 0);
    Targets.Target edge = targets.all.get(0);
    targets.failed(edge, 1_000_000_000L);
    // a probe goes out at 1.05 s while the edge is still down; a request is answered 200 at 1.1 s; the probe's 503
    // arrives at 1.12 s: it speaks of the edge before it was back
    targets.answered(edge, 1_100_000_000L);
    targets.notReady(edge, 1_050_000_000L, 1_120_000_000L);

    assertThat(edge.down).as("a stale probe answer opened a second outage").isFalse();
    assertThat(edge.outages()).containsExactly(new Targets.Outage(1.0, 1.1, 1));

    // a probe sent after the recovery that answers 503 does take it out
    targets.notReady(edge, 1_150_000_000L, 1_200_000_000L);
    targets.ready(edge, 1_300_000_000L);
    assertThat(edge.outages()).hasSize(2);
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
    targets.notReady(targets.all.get(0), 0, 0);
    targets.notReady(targets.all.get(1), 0, 0);

    assertThat(picks(targets, 4)).contains("http://127.0.0.1:3100", "http://127.0.0.1:3101");
  }
}
