package dev.updraft.controlplane.insights;

import static dev.updraft.controlplane.insights.TelemetryFixture.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.updraft.controlplane.guard.GuardCheck;
import dev.updraft.controlplane.guard.GuardVerdict;
import dev.updraft.controlplane.guard.RolloutGuardEvaluator;
import dev.updraft.events.CheckIn;
import dev.updraft.events.EventPayload;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The automatic-revert guard against real rows: devices are served an update, some report it failed.
 * Guard used throughout: more than 10 % failing among at least 20 devices served within the last hour.
 *
 * <p>It lives in system-tests, in the insights package (to reach its package-private types), because it
 * runs the control plane's insights against the real ingester: control-plane does not depend on the ingester,
 * not even in its tests.
 */
@ExtendWith(RealInfrastructure.class)
class RolloutGuardEvaluatorIT {
  static final String APP = "guarded";
  static final Instant NOW = Instant.parse("2026-03-10T12:30:00Z");
  static final EventPayload.RolloutGuard GUARD = new EventPayload.RolloutGuard(10.0, 20, 3600);

  private static TelemetryFixture fixture;
  private static RolloutGuardEvaluator evaluator;

  /**
   * {@code received} devices of {@code platform} are served {@code update} at {@code servedAt}; the first
   * {@code failing} of them report it failed ten minutes later.
   */
  private static void fleet(List<CheckIn> out, String update, String platform, int received, int failing, Instant servedAt) {
    for (int d = 0; d < received; d++) {
      String client = update + "-dev-" + d;
      out.add(TelemetryFixture.checkIn(APP, client, platform, "production", "emb", "emb", List.of(),
          CheckIn.OUTCOME_UPDATE, CheckIn.REASON_NEW_UPDATE, update, servedAt));
      if (d < failing) {
        out.add(TelemetryFixture.checkIn(APP, client, platform, "production", "emb", "emb", List.of(update),
            CheckIn.OUTCOME_NO_UPDATE, CheckIn.REASON_PREVIOUSLY_FAILED, null, servedAt.plus(Duration.ofMinutes(10))));
      }
    }
  }

  @BeforeAll
  static void ingest(Infra infra) throws Exception {
    Instant inWindow = NOW.minus(Duration.ofMinutes(40));
    Instant beforeWindow = NOW.minus(Duration.ofHours(2));
    List<CheckIn> list = new ArrayList<>();
    fleet(list, "over", "ios", 30, 4, inWindow); //            4 / 30 = 13.3 % > 10 %
    fleet(list, "at-limit", "ios", 30, 3, inWindow); //        3 / 30 = 10.0 %, not above
    fleet(list, "too-few", "ios", 19, 10, inWindow); //       10 / 19 = 52.6 % but 19 < 20 devices
    fleet(list, "old-failures", "ios", 25, 0, inWindow); //    0 / 25 in the window ...
    fleet(list, "healthy-android", "android", 100, 0, inWindow);
    // ... while 20 other devices served it two hours ago all failed: outside the window
    for (int d = 0; d < 20; d++) {
      String client = "early-" + d;
      list.add(TelemetryFixture.checkIn(APP, client, "ios", "production", "emb", "emb", List.of(),
          CheckIn.OUTCOME_UPDATE, CheckIn.REASON_NEW_UPDATE, "old-failures", beforeWindow));
      list.add(TelemetryFixture.checkIn(APP, client, "ios", "production", "emb", "emb", List.of("old-failures"),
          CheckIn.OUTCOME_NO_UPDATE, CheckIn.REASON_PREVIOUSLY_FAILED, null, NOW.minus(Duration.ofMinutes(5))));
    }
    // 25 devices report "reported-first" failed before an edge ever served it to them, then are served it
    for (int d = 0; d < 25; d++) {
      String client = "first-" + d;
      list.add(TelemetryFixture.checkIn(APP, client, "ios", "production", "emb", "emb", List.of("reported-first"),
          CheckIn.OUTCOME_NO_UPDATE, CheckIn.REASON_PREVIOUSLY_FAILED, null, inWindow));
      list.add(TelemetryFixture.checkIn(APP, client, "ios", "production", "emb", "emb", List.of(),
          CheckIn.OUTCOME_UPDATE, CheckIn.REASON_NEW_UPDATE, "reported-first", inWindow.plus(Duration.ofMinutes(5))));
    }
    // 30 devices served "capped"; then 15 report it failed from address bucket b1, 5 from b2, 4 with no bucket
    for (int d = 0; d < 30; d++) {
      String client = "capped-" + d;
      list.add(TelemetryFixture.checkIn(APP, client, "ios", "production", "emb", "emb", List.of(),
          CheckIn.OUTCOME_UPDATE, CheckIn.REASON_NEW_UPDATE, "capped", inWindow));
      if (d < 24) {
        CheckIn report = TelemetryFixture.checkIn(APP, client, "ios", "production", "emb", "emb", List.of("capped"),
            CheckIn.OUTCOME_NO_UPDATE, CheckIn.REASON_PREVIOUSLY_FAILED, null, inWindow.plus(Duration.ofMinutes(10)));
        list.add(report.toBuilder().addressBucket(d < 15 ? "b1" : d < 20 ? "b2" : null).build());
      }
    }
    // Expo-Fatal-Error: 30 devices served "hdr"; 15 then send the header running it from bucket b1; 5 running it but listing
    // a newer update failed (b2: that launch's crash, a failure of the newer update); one before it was served (b4); and 5
    // ids never served "hdr" send it running it (b3). Only b1's count
    for (int d = 0; d < 30; d++) {
      String client = "hdr-" + d;
      list.add(TelemetryFixture.checkIn(APP, client, "ios", "production", "emb", "emb", List.of(),
          CheckIn.OUTCOME_UPDATE, CheckIn.REASON_NEW_UPDATE, "hdr", inWindow));
      if (d < 20) {
        CheckIn crash = TelemetryFixture.checkIn(APP, client, "ios", "production", "hdr", "emb", d < 15 ? List.of() : List.of("hdr-newer"),
            CheckIn.OUTCOME_NO_UPDATE, CheckIn.REASON_ALREADY_LATEST, null, inWindow.plus(Duration.ofMinutes(10)));
        list.add(crash.toBuilder().fatalError("TypeError: x").addressBucket(d < 15 ? "b1" : "b2").build());
      }
    }
    for (int d = 0; d < 5; d++) {
      list.add(TelemetryFixture.checkIn(APP, "hdr-stranger-" + d, "ios", "production", "hdr", "emb", List.of(),
          CheckIn.OUTCOME_NO_UPDATE, CheckIn.REASON_ALREADY_LATEST, null, inWindow.plus(Duration.ofMinutes(10)))
          .toBuilder().fatalError("TypeError: x").addressBucket("b3").build());
    }
    list.add(list.stream().filter(c -> "hdr-29".equals(c.clientId())).findFirst().orElseThrow().toBuilder()
        .checkInId("hdr-29-early").currentUpdateId("hdr").outcome(CheckIn.OUTCOME_NO_UPDATE).servedUpdateId(null).servedGroupId(null)
        .atEpochMillis(inWindow.minus(Duration.ofMinutes(5)).toEpochMilli()).fatalError("TypeError: x").addressBucket("b4").build());
    // a failure report without a client id never counts
    list.add(TelemetryFixture.checkIn(APP, null, "ios", "production", "emb", "emb", List.of("at-limit"),
        CheckIn.OUTCOME_NO_UPDATE, CheckIn.REASON_PREVIOUSLY_FAILED, null, NOW.minus(Duration.ofMinutes(5))));
    fixture = TelemetryFixture.ingest(infra, "guard", list);
    // fatal OTLP reports of "hdr" (group g, also reported on the control update "ctl", so not new) from hdr-0..4, which
    // sent the header too, and from hdr-15..19, whose header was a failed launch's: each device counts once either way
    StringBuilder reports = new StringBuilder("INSERT INTO error_reports (report_id, app_id, update_id, group_key, client_id,"
        + " address_bucket, source, fatal, occurred_at, received_at) VALUES ('ctl-0', '" + APP + "', 'ctl', 'g', 'ctl-dev', 'b9',"
        + " 'otlp-logs', false, '" + inWindow + "', '" + inWindow + "')");
    for (int d : new int[] {0, 1, 2, 3, 4, 15, 16, 17, 18, 19}) {
      String at = "'" + inWindow.plus(Duration.ofMinutes(15)) + "'";
      reports.append(", ('hdr-otlp-").append(d).append("', '").append(APP).append("', 'hdr', 'g', 'hdr-").append(d)
          .append("', 'b5', 'otlp-logs', true, ").append(at).append(", ").append(at).append(')');
    }
    await(fixture.pool.query(reports.toString()).execute());
    evaluator = new RolloutGuardEvaluator(fixture.pool);
  }

  @AfterAll
  static void close() throws Exception {
    if (fixture != null) {
      fixture.close();
    }
  }

  @Test
  void aFailureReportedBeforeTheDeviceWasServedTheUpdateDoesNotCount() throws Exception {
    GuardVerdict v = await(evaluator.evaluate(APP, List.of("reported-first"), GUARD, NOW));
    assertThat(v.total().receivedDevices()).isEqualTo(25);
    assertThat(v.total().failedDevices()).isZero();
    assertThat(v.fire()).isFalse();
  }

  @Test
  void oneAddressBucketCountsAtMostTheCapAndReportsWithoutABucketAreNotCapped() throws Exception {
    // default cap 10: b1 counts 10 of its 15, b2 its 5, the 4 without a bucket all
    GuardVerdict v = await(evaluator.evaluate(APP, List.of("capped"), GUARD, NOW));
    assertThat(v.total().receivedDevices()).isEqualTo(30);
    assertThat(v.total().failedDevices()).isEqualTo(19);
    // cap 3: 3 + 3 + 4
    GuardVerdict tight = await(new RolloutGuardEvaluator(fixture.pool, 3).evaluate(APP, List.of("capped"), GUARD, NOW));
    assertThat(tight.total().failedDevices()).isEqualTo(10);
  }

  @Test
  void expoFatalErrorCountsFromServedDevicesAfterTheServeNotAfterAFailedLaunchAndAtMostTheCapPerBucket() throws Exception {
    // a client's bucket is the smallest of its reports': hdr-0..14 are b1's (15, the cap 10 of them), hdr-15..19 b5's (5)
    GuardVerdict v = await(evaluator.evaluate(APP, List.of("hdr"), List.of("ctl"), GUARD, NOW));
    assertThat(v.fire()).isTrue();
    assertThat(v.reason()).startsWith("guard fired: crashes: 15 of 30 devices (50.0 %) that received the rollout's updates since"
        + " 2026-03-10T11:30:00Z reported a fatal error of them (OTLP or Expo-Fatal-Error)");
    GuardVerdict tight = await(new RolloutGuardEvaluator(fixture.pool, 3).evaluate(APP, List.of("hdr"), List.of("ctl"), GUARD, NOW));
    assertThat(tight.reason()).as("cap 3: 3 + 3").startsWith("guard fired: crashes: 6 of 30 devices");
    // no cap to speak of: the 15 header crashes of b1 and hdr-15..19's fatal reports; hdr-0..4 reported both, counted once
    GuardVerdict wide = await(new RolloutGuardEvaluator(fixture.pool, 100).evaluate(APP, List.of("hdr"), List.of("ctl"), GUARD, NOW));
    assertThat(wide.reason()).startsWith("guard fired: crashes: 20 of 30 devices");
  }

  @Test
  void firesWhenTheFailureRateIsAboveTheThresholdAmongEnoughDevices() throws Exception {
    GuardVerdict v = await(evaluator.evaluate(APP, List.of("over"), GUARD, NOW));
    assertThat(v.fire()).isTrue();
    assertThat(v.total().receivedDevices()).isEqualTo(30);
    assertThat(v.total().failedDevices()).isEqualTo(4);
    assertThat(v.total().failureRatePercent()).isEqualTo(400.0 / 30);
    assertThat(v.windowStart()).isEqualTo(Instant.parse("2026-03-10T11:30:00Z"));
    assertThat(v.reason())
        .isEqualTo("guard fired: 4 of 30 devices (13.3 %) that received the rollout's updates since 2026-03-10T11:30:00Z"
            + " reported it failed; the guard allows at most 10.0 % among at least 20 devices within 3600 s");
  }

  @Test
  void doesNotFireAtTheThreshold() throws Exception {
    GuardVerdict v = await(evaluator.evaluate(APP, List.of("at-limit"), GUARD, NOW));
    assertThat(v.fire()).isFalse();
    assertThat(v.trigger()).isNull();
    assertThat(v.total().receivedDevices()).isEqualTo(30);
    assertThat(v.total().failedDevices()).as("the report without a client id is not a device").isEqualTo(3);
    assertThat(v.total().failureRatePercent()).isEqualTo(10.0);
    assertThat(v.reason()).startsWith("guard holds: 3 of 30 devices (10.0 %)");
  }

  @Test
  void doesNotFireBelowTheMinimumNumberOfDevices() throws Exception {
    GuardVerdict v = await(evaluator.evaluate(APP, List.of("too-few"), GUARD, NOW));
    assertThat(v.fire()).isFalse();
    assertThat(v.total().receivedDevices()).isEqualTo(19);
    assertThat(v.total().failedDevices()).isEqualTo(10);
    assertThat(v.total().exceeds()).isFalse();
  }

  @Test
  void countsOnlyDevicesServedWithinTheWindow() throws Exception {
    GuardVerdict v = await(evaluator.evaluate(APP, List.of("old-failures"), GUARD, NOW));
    assertThat(v.fire()).isFalse();
    assertThat(v.total().receivedDevices()).isEqualTo(25);
    assertThat(v.total().failedDevices()).isZero();
    // with a 3 h window the 20 early devices count too: 20 failed of 45 = 44.4 %
    GuardVerdict wide = await(evaluator.evaluate(APP, List.of("old-failures"),
        new EventPayload.RolloutGuard(10.0, 20, 3 * 3600), NOW));
    assertThat(wide.fire()).isTrue();
    assertThat(wide.total().receivedDevices()).isEqualTo(45);
    assertThat(wide.total().failedDevices()).isEqualTo(20);
  }

  @Test
  void firesWhenOnePlatformFailsEvenIfTheOtherHidesItInTheTotal() throws Exception {
    // ios "over": 4 / 30; android: 0 / 100; together 4 / 130 = 3.1 %
    GuardVerdict v = await(evaluator.evaluate(APP, List.of("over", "healthy-android"), GUARD, NOW));
    assertThat(v.total().receivedDevices()).isEqualTo(130);
    assertThat(v.total().failedDevices()).isEqualTo(4);
    assertThat(v.total().exceeds()).isFalse();
    assertThat(v.perUpdate()).extracting(GuardCheck::updateId, GuardCheck::receivedDevices, GuardCheck::failedDevices,
            GuardCheck::exceeds)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("over", 30L, 4L, true),
            org.assertj.core.groups.Tuple.tuple("healthy-android", 100L, 0L, false));
    assertThat(v.fire()).isTrue();
    assertThat(v.trigger().updateId()).isEqualTo("over");
    assertThat(v.reason()).contains("that received update over since");
  }

  @Test
  void evaluatesTheGuardOfAPublishedRolloutAndRefusesAGroupWithoutOne() throws Exception {
    EventPayload.UpdateGroup group =
        new EventPayload.UpdateGroup("g", EventPayload.UpdateGroup.KIND_UPDATE, "production", "1.0.0", null, null, null,
            null, new EventPayload.Rollout("r1", 10, null, GUARD),
            List.of(new EventPayload.PlatformUpdate("ios", "over", "2026-03-10T11:00:00.000Z", "{}", null, null, null),
                new EventPayload.PlatformUpdate("android", "healthy-android", "2026-03-10T11:00:00.000Z", "{}", null,
                    null, null)));
    assertThat(await(evaluator.evaluate(APP, group, NOW)).fire()).isTrue();

    EventPayload.UpdateGroup unguarded =
        new EventPayload.UpdateGroup("g2", EventPayload.UpdateGroup.KIND_UPDATE, "production", "1.0.0", null, null, null,
            null, null, group.platforms());
    assertThatThrownBy(() -> evaluator.evaluate(APP, unguarded, NOW))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("groupId=g2");
    assertThatThrownBy(() -> evaluator.evaluate(APP, List.of("over"), new EventPayload.RolloutGuard(150, 1, 60), NOW))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxFailureRatePercent=150.0");
  }
}
