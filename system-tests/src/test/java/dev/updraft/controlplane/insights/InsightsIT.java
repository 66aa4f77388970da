package dev.updraft.controlplane.insights;

import static dev.updraft.controlplane.insights.TelemetryFixture.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.updraft.events.CheckIn;
import dev.updraft.events.EventPayload;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Insights over twelve hand-built check-ins put through Kafka and the ingester. Every expected number is
 * worked out by hand in the comments from the list below.
 *
 * <p>It lives in system-tests, in the insights package (to reach its package-private types), because it
 * runs the control plane's insights against the real ingester: control-plane does not depend on the ingester,
 * not even in its tests.
 */
@ExtendWith(RealInfrastructure.class)
class InsightsIT {
  static final String APP = "shop";
  static final Instant NOW = Instant.parse("2026-03-10T12:30:00Z");
  // windows: 24 h starts 2026-03-09T13:00Z, 7 d starts 2026-03-03T13:00Z (whole hours, see UpdateStats)
  static final String EMB_IOS = "emb-ios";
  static final String EMB_ANDROID = "emb-android";
  static final String A_IOS = "a-ios";
  static final String A_ANDROID = "a-android";
  static final String B_IOS = "b-ios";

  private static TelemetryFixture fixture;
  private static Insights insights;

  private static Instant ago(Duration d) {
    return NOW.minus(d);
  }

  private static CheckIn c(String client, String platform, String channel, String current, List<String> failed,
      String outcome, String reason, String served, Instant at) {
    String embedded = "ios".equals(platform) ? EMB_IOS : EMB_ANDROID;
    return TelemetryFixture.checkIn(APP, client, platform, channel, current, embedded, failed, outcome, reason, served, at);
  }

  @BeforeAll
  static void ingest(Infra infra) throws Exception {
    String up = CheckIn.OUTCOME_UPDATE;
    String no = CheckIn.OUTCOME_NO_UPDATE;
    List<CheckIn> list = new ArrayList<>();
    // #1  i3, staging, runs A: older than 7 d
    list.add(c("i3", "ios", "staging", A_IOS, List.of(), no, CheckIn.REASON_ALREADY_LATEST, null, ago(Duration.ofDays(8))));
    // #2  a1 on its embedded bundle is served A
    list.add(c("a1", "android", "production", EMB_ANDROID, List.of(), up, CheckIn.REASON_NEW_UPDATE, A_ANDROID,
        ago(Duration.ofDays(6))));
    // #3  i3 runs A, 3 days ago
    list.add(c("i3", "ios", "staging", A_IOS, List.of(), no, CheckIn.REASON_ALREADY_LATEST, null, ago(Duration.ofDays(3))));
    // #4  no client id, runs A (android) and reports it failed: a launch and a failure report, not a device
    list.add(c(null, "android", "production", A_ANDROID, List.of(A_ANDROID), no, CheckIn.REASON_PREVIOUSLY_FAILED, null,
        ago(Duration.ofDays(2))));
    // #5  i1 on its embedded bundle is served A
    list.add(c("i1", "ios", "production", EMB_IOS, List.of(), up, CheckIn.REASON_NEW_UPDATE, A_IOS, ago(Duration.ofHours(30))));
    // #6  a2 has a runtime version nothing was published for
    list.add(CheckIn.builder()
        .checkInId("a2-6")
        .appId(APP)
        .platform("android")
        .runtimeVersion("2.0.0")
        .channel("production")
        .clientId("a2")
        .currentUpdateId(EMB_ANDROID)
        .embeddedUpdateId(EMB_ANDROID)
        .outcome(no)
        .reason(CheckIn.REASON_NO_UPDATE_FOR_RUNTIME)
        .branch("production")
        .atEpochMillis(ago(Duration.ofHours(20)).toEpochMilli())
        .edgeId("edge-2")
        .build());
    // #7  i3 runs A
    list.add(c("i3", "ios", "staging", A_IOS, List.of(), no, CheckIn.REASON_ALREADY_LATEST, null, ago(Duration.ofHours(5))));
    // #8  i2 on its embedded bundle is served A
    list.add(c("i2", "ios", "production", EMB_IOS, List.of(), up, CheckIn.REASON_NEW_UPDATE, A_IOS, ago(Duration.ofHours(3))));
    // #9  i1 now runs A
    list.add(c("i1", "ios", "production", A_IOS, List.of(), no, CheckIn.REASON_ALREADY_LATEST, null, ago(Duration.ofHours(2))));
    // #10 A crashed on i2: back on its embedded bundle, reports A failed, sends the fatal error once
    list.add(CheckIn.builder()
        .checkInId("i2-10")
        .appId(APP)
        .platform("ios")
        .runtimeVersion("1.0.0")
        .channel("production")
        .clientId("i2")
        .currentUpdateId(EMB_IOS)
        .embeddedUpdateId(EMB_IOS)
        .failedUpdateIds(List.of(A_IOS))
        .outcome(no)
        .reason(CheckIn.REASON_PREVIOUSLY_FAILED)
        .branch("production")
        .fatalError("TypeError: undefined is not a function")
        .atEpochMillis(ago(Duration.ofHours(1)).toEpochMilli())
        .edgeId("edge-1")
        .build());
    // #11 no client id, runs A (ios)
    list.add(c(null, "ios", "production", A_IOS, List.of(), no, CheckIn.REASON_ALREADY_LATEST, null, ago(Duration.ofHours(1))));
    // #12 a1 now runs A
    list.add(c("a1", "android", "production", A_ANDROID, List.of(), no, CheckIn.REASON_ALREADY_LATEST, null,
        ago(Duration.ofMinutes(10))));
    // #13, #14 i4 (channel qa) on its embedded bundle is served B twice: it asked again without running it
    list.add(c("i4", "ios", "qa", EMB_IOS, List.of(), up, CheckIn.REASON_NEW_UPDATE, B_IOS, ago(Duration.ofHours(6))));
    list.add(c("i4", "ios", "qa", EMB_IOS, List.of(), up, CheckIn.REASON_NEW_UPDATE, B_IOS, ago(Duration.ofHours(1))));
    // #15 i5 (qa) is served B once
    list.add(c("i5", "ios", "qa", EMB_IOS, List.of(), up, CheckIn.REASON_NEW_UPDATE, B_IOS, ago(Duration.ofHours(2))));
    fixture = TelemetryFixture.ingest(infra, "insights", list);
    insights = Insights.create(fixture.pool);
  }

  @AfterAll
  static void close() throws Exception {
    if (fixture != null) {
      await(insights.close());
      fixture.close();
    }
  }

  @Test
  void reportsDevicesLaunchesAndFailuresOfAnUpdateGroupPerPlatformAndInTotal() throws Exception {
    GroupInsights g =
        await(insights.group(APP, List.of(new UpdateRef("ios", A_IOS), new UpdateRef("android", A_ANDROID)), NOW));
    assertThat(g.since24h()).isEqualTo(Instant.parse("2026-03-09T13:00:00Z"));
    assertThat(g.since7d()).isEqualTo(Instant.parse("2026-03-03T13:00:00Z"));

    UpdateStats ios = g.platforms().get(0);
    // devices on A now: i1 (#9) and i3 (#7); i2 went back to its embedded bundle (#10)
    assertThat(ios.devicesNow()).isEqualTo(2);
    // launches on A in 24 h: #7, #9, #11 (no client id still launches); in 7 d also #3; #1 is older
    assertThat(ios.launches24h()).isEqualTo(3);
    assertThat(ios.launches7d()).isEqualTo(4);
    // failure reports: #10
    assertThat(ios.failureReports24h()).isEqualTo(1);
    assertThat(ios.failureReports7d()).isEqualTo(1);
    // failed: i2; received: i1 (#5) and i2 (#8); rate 1 of {i1, i2}
    assertThat(ios.failedDevices()).isEqualTo(1);
    assertThat(ios.receivedDevices()).isEqualTo(2);
    assertThat(ios.failureRatePercent()).isEqualTo(50.0);

    UpdateStats android = g.platforms().get(1);
    assertThat(android.platform()).isEqualTo("android");
    // a1 (#12); launches: #12 in 24 h, and #4 (no client id) in 7 d
    assertThat(android.devicesNow()).isEqualTo(1);
    assertThat(android.launches24h()).isEqualTo(1);
    assertThat(android.launches7d()).isEqualTo(2);
    // #4 reported it failed but has no client id: a report, no failing device
    assertThat(android.failureReports24h()).isZero();
    assertThat(android.failureReports7d()).isEqualTo(1);
    assertThat(android.failedDevices()).isZero();
    assertThat(android.receivedDevices()).isEqualTo(1);
    assertThat(android.failureRatePercent()).isEqualTo(0.0);

    UpdateStats total = g.total();
    assertThat(total.devicesNow()).isEqualTo(3);
    assertThat(total.launches24h()).isEqualTo(4);
    assertThat(total.launches7d()).isEqualTo(6);
    assertThat(total.failureReports7d()).isEqualTo(2);
    assertThat(total.failedDevices()).isEqualTo(1);
    assertThat(total.receivedDevices()).isEqualTo(3);
    assertThat(total.failureRatePercent()).isCloseTo(100.0 / 3, within(1e-9));
  }

  @Test
  void takesTheUpdatesOfAPublishedGroup() throws Exception {
    EventPayload.UpdateGroup group =
        new EventPayload.UpdateGroup("group-a", EventPayload.UpdateGroup.KIND_UPDATE, "production", "1.0.0", "A", null,
            null, null, null,
            List.of(new EventPayload.PlatformUpdate("android", A_ANDROID, "2026-03-01T00:00:00.000Z", "{}", null, null, null)));
    GroupInsights g = await(insights.group(APP, group, NOW));
    assertThat(g.platforms()).extracting(UpdateStats::updateId).containsExactly(A_ANDROID);
    assertThat(g.total().devicesNow()).isEqualTo(1);
    assertThat(g.total().launches7d()).isEqualTo(2);
  }

  @Test
  void reportsAdoptionByUpdateAndTheEmbeddedSplitOfAChannel() throws Exception {
    ChannelInsights p = await(insights.channel(APP, "production", NOW));
    // i1 on A (ota), i2 on its embedded bundle, a1 on A (ota), a2 on its embedded bundle
    assertThat(p.devices()).isEqualTo(4);
    assertThat(p.embeddedDevices()).isEqualTo(2);
    assertThat(p.otaDevices()).isEqualTo(2);
    assertThat(p.unknownDevices()).isZero();
    assertThat(p.updates())
        .extracting(a -> a.platform() + " " + a.updateId() + " " + a.devices() + " " + a.embeddedDevices() + " "
            + a.otaDevices() + " " + a.sharePercent())
        .containsExactlyInAnyOrder(
            "ios a-ios 1 0 1 25.0", "ios emb-ios 1 1 0 25.0", "android a-android 1 0 1 25.0",
            "android emb-android 1 1 0 25.0");
    // 7 d launches on production: #2 #4 #5 #6 #8 #9 #10 #11 #12; embedded: #2 #5 #6 #8 #10
    assertThat(p.launches7d()).isEqualTo(9);
    assertThat(p.embeddedLaunches7d()).isEqualTo(5);
    assertThat(p.otaLaunches7d()).isEqualTo(4);

    ChannelInsights staging = await(insights.channel(APP, "staging", NOW));
    assertThat(staging.devices()).isEqualTo(1);
    assertThat(staging.otaDevices()).isEqualTo(1);
    assertThat(staging.launches7d()).as("#3 and #7; #1 is older").isEqualTo(2);
    assertThat(staging.updates()).singleElement().satisfies(a -> {
      assertThat(a.updateId()).isEqualTo(A_IOS);
      assertThat(a.sharePercent()).isEqualTo(100.0);
    });
  }

  @Test
  void explainsWhyADeviceGotNoUpdateFromWhatItLastReported() throws Exception {
    DeviceRecord i2 = await(insights.device(APP, "i2")).orElseThrow();
    assertThat(i2.platform()).isEqualTo("ios");
    assertThat(i2.channel()).isEqualTo("production");
    assertThat(i2.currentUpdateId()).isEqualTo(EMB_IOS);
    assertThat(i2.source()).isEqualTo("embedded");
    assertThat(i2.failedUpdateIds()).containsExactly(A_IOS);
    assertThat(i2.fatalError()).isEqualTo("TypeError: undefined is not a function");
    assertThat(i2.fatalErrorAt()).isEqualTo(ago(Duration.ofHours(1)));
    assertThat(i2.firstSeen()).isEqualTo(ago(Duration.ofHours(3)));
    assertThat(i2.lastSeen()).isEqualTo(ago(Duration.ofHours(1)));
    assertThat(i2.checkIns()).isEqualTo(2);
    assertThat(i2.served().outcome()).isEqualTo(CheckIn.OUTCOME_NO_UPDATE);
    assertThat(i2.served().reason()).isEqualTo(CheckIn.REASON_PREVIOUSLY_FAILED);
    assertThat(i2.explanation())
        .isEqualTo("channel \"production\" → branch \"production\" → no update: this device reported the newest update"
            + " failed (failed: a-ios)");

    DeviceRecord a2 = await(insights.device(APP, "a2")).orElseThrow();
    assertThat(a2.runtimeVersion()).isEqualTo("2.0.0");
    assertThat(a2.explanation()).contains("no update: the branch has no update for android runtime version \"2.0.0\"; the"
        + " answer carries no filters, so the device keeps running ");
    assertThat(a2.served().filters()).as("a 'no update' carries no expo-manifest-filters").isNull();

    DeviceRecord i1 = await(insights.device(APP, "I1")).orElseThrow(); // client ids compare in lower case
    assertThat(i1.checkIns()).isEqualTo(2);
    assertThat(i1.explanation()).endsWith("no update: already runs the newest update a-ios");
  }

  @Test
  void saysWhenADeviceAskedAgainWithoutRunningTheUpdateItWasServed() throws Exception {
    DeviceRecord i4 = await(insights.device(APP, "i4")).orElseThrow();
    assertThat(i4.served().updateId()).isEqualTo(B_IOS);
    assertThat(i4.served().firstServedAt()).isEqualTo(ago(Duration.ofHours(6)));
    assertThat(i4.explanation()).endsWith("update b-ios (group group-b-ios): newer than the running emb-ios; it was first served this update at "
        + ago(Duration.ofHours(6)) + " and has asked again since without running it: its download fails, or the app has not"
        + " restarted since the download (its failed ids and fatal error say more)");

    DeviceRecord i5 = await(insights.device(APP, "i5")).orElseThrow();
    assertThat(i5.served().firstServedAt()).as("served once, at its newest check-in").isEqualTo(ago(Duration.ofHours(2)));
    assertThat(i5.explanation()).endsWith("update b-ios (group group-b-ios): newer than the running emb-ios");

    DeviceRecord i1 = await(insights.device(APP, "i1")).orElseThrow();
    assertThat(i1.served().firstServedAt()).as("served nothing at its newest check-in").isNull();
  }

  @Test
  void explainsAServedUpdateWithItsBranchRolloutAndBucket() {
    DeviceRecord r =
        new DeviceRecord(APP, "d", "ios", "1.0.0", "production", EMB_IOS, EMB_IOS, "embedded", List.of(), null, null,
            NOW, NOW, 1, "c", "edge-1",
            new DeviceRecord.Served(CheckIn.OUTCOME_UPDATE, CheckIn.REASON_NEW_UPDATE, "beta", true, 417, A_IOS, "g-a"), List.of());
    assertThat(r.explanation())
        .isEqualTo("channel \"production\" → branch \"beta\" (in the channel's branch rollout) → rollout bucket 417"
            + " → update a-ios (group g-a): newer than the running emb-ios");
  }

  @Test
  void connectsWithThePostgresUrlOfTheIngesterAndAppliesTheSchemaToAnEmptyDatabase(Infra infra) throws Exception {
    String url = "postgresql://" + infra.pgUser() + "@" + infra.pgHost() + ":" + infra.pgPort() + "/" + infra.database();
    Insights own = await(Insights.connect(fixture.vertx, url));
    try {
      assertThat(await(own.device(APP, "a1"))).map(DeviceRecord::checkIns).contains(2L);
    } finally {
      await(own.close());
    }
    String fresh = infra.database() + "_empty";
    fixture.pool.query("CREATE DATABASE " + fresh).execute().toCompletionStage().toCompletableFuture().get();
    Insights empty = await(Insights.connect(fixture.vertx, url.replace("/" + infra.database(), "/" + fresh)));
    try {
      ChannelInsights none = await(empty.channel(APP, "production", NOW));
      assertThat(none.devices()).isZero();
      assertThat(none.updates()).isEmpty();
      assertThat(await(empty.group(APP, List.of(new UpdateRef("ios", A_IOS)), NOW)).total().failureRatePercent())
          .as("no device received it: no rate").isNull();
    } finally {
      await(empty.close());
    }
  }

  @Test
  void findsNoRecordForADeviceThatNeverCheckedIn() throws Exception {
    Optional<DeviceRecord> none = await(insights.device(APP, "nobody"));
    assertThat(none).isEmpty();
    assertThat(await(insights.device("other-app", "i1"))).isEmpty();
  }
}
