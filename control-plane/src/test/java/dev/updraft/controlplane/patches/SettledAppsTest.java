package dev.updraft.controlplane.patches;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class SettledAppsTest {
  private static final Instant T0 = Instant.parse("2026-12-07T21:00:00Z");
  private final SettledApps settled = new SettledApps();
  private final Object app = new Object();
  private final Object deliveries = new Object();

  @Test
  void anAppNoPassHasJudgedIsNotSkipped() {
    assertThat(settled.skip("a", app, deliveries, T0)).isFalse();
  }

  @Test
  void aSettledAppIsSkippedUntilItsStateOrItsDeliveriesAreReplaced() {
    settled.settle("a", app, deliveries, null);
    assertThat(settled.skip("a", app, deliveries, T0.plusSeconds(3600))).isTrue();
    assertThat(settled.skip("a", new Object(), deliveries, T0)).as("a publish replaced the app's state").isFalse();
    assertThat(settled.skip("a", app, new Object(), T0)).as("a patch record replaced its deliveries").isFalse();
    assertThat(settled.skip("b", app, deliveries, T0)).as("another app").isFalse();
  }

  @Test
  void aSettledAppWithAFailedJobIsJudgedAgainWhenItsRetryComesDue() {
    settled.settle("a", app, deliveries, T0.plusSeconds(60));
    assertThat(settled.skip("a", app, deliveries, T0.plusSeconds(59))).isTrue();
    assertThat(settled.skip("a", app, deliveries, T0.plusSeconds(60))).isFalse();
  }

  @Test
  void anUnsettledOrDeletedAppIsJudgedAgain() {
    settled.settle("a", app, deliveries, null);
    settled.settle("b", app, deliveries, null);
    settled.unsettle("a");
    assertThat(settled.skip("a", app, deliveries, T0)).isFalse();
    settled.keepOnly(List.of("c"));
    assertThat(settled.skip("b", app, deliveries, T0)).isFalse();
    assertThat(settled.size()).isZero();
  }
}
