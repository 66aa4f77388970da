package dev.updraft.controlplane.insights;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.updraft.common.ConfigException;
import dev.updraft.common.Settings;
import dev.updraft.controlplane.state.AppState;
import dev.updraft.controlplane.state.GroupState;
import dev.updraft.controlplane.state.RolloutState;
import dev.updraft.controlplane.telemetry.TelemetryDb;
import dev.updraft.events.CheckIn;
import dev.updraft.events.UpdateEvents.PlatformUpdate;
import dev.updraft.events.UpdateEvents.UpdateGroup;
import io.vertx.pgclient.PgException;
import io.vertx.sqlclient.ClosedConnectionException;
import java.net.ConnectException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The extension's configuration, its outage classification and the rollout note of a device's story. */
class InsightsExtensionTest {
  static final Instant T = Instant.parse("2026-03-10T12:00:00Z");

  @Test
  void readsTheGuardIntervalAndRefusesOneOutsideItsBounds() {
    assertThat(InsightsExtension.from(Settings.of(Map.of(), Map.of())).guardInterval()).isEqualTo(Duration.ofSeconds(30));
    assertThat(InsightsExtension.from(Settings.of(Map.of("guard-interval", "250ms"), Map.of())).guardInterval())
        .isEqualTo(Duration.ofMillis(250));
    assertThat(InsightsExtension.from(Settings.of(Map.of(), Map.of("UPDRAFT_GUARD_INTERVAL", "2m"))).guardInterval())
        .isEqualTo(Duration.ofMinutes(2));
    assertThat(InsightsExtension.from(Settings.of(Map.of("guard-interval", "0s"), Map.of())).guardInterval()).isZero();
    assertThatThrownBy(() -> InsightsExtension.from(Settings.of(Map.of("guard-interval", "10ms"), Map.of())))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("--guard-interval")
        .hasMessageContaining("got 10ms");
    assertThatThrownBy(() -> InsightsExtension.from(Settings.of(Map.of("guard-interval", "2h"), Map.of())))
        .isInstanceOf(ConfigException.class);
    assertThatThrownBy(() -> InsightsExtension.from(Settings.of(Map.of("guard-interval", "soon"), Map.of())))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("--guard-interval");
  }

  @Test
  void readsTheQueryTimeoutAndRefusesOneOutsideItsBounds() {
    assertThat(InsightsExtension.from(Settings.of(Map.of(), Map.of())).queryTimeout()).isEqualTo(Duration.ofSeconds(5));
    assertThat(InsightsExtension.from(Settings.of(Map.of("insights-timeout", "750ms"), Map.of())).queryTimeout())
        .isEqualTo(Duration.ofMillis(750));
    assertThat(InsightsExtension.from(Settings.of(Map.of(), Map.of("UPDRAFT_INSIGHTS_TIMEOUT", "20s"))).queryTimeout())
        .isEqualTo(Duration.ofSeconds(20));
    assertThatThrownBy(() -> InsightsExtension.from(Settings.of(Map.of("insights-timeout", "0s"), Map.of())))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("--insights-timeout")
        .hasMessageContaining("got 0ms");
    assertThatThrownBy(() -> InsightsExtension.from(Settings.of(Map.of("insights-timeout", "2m"), Map.of())))
        .isInstanceOf(ConfigException.class);
    assertThat(InsightsExtension.FLAGS).contains("guard-interval", "insights-timeout");
  }

  @Test
  void readsTheGuardsCapPerAddressAndRefusesOneUnderOne() {
    assertThat(InsightsExtension.from(Settings.of(Map.of(), Map.of())).maxFailuresPerAddress()).isEqualTo(10);
    assertThat(InsightsExtension.from(Settings.of(Map.of("guard-max-failures-per-address", "3"), Map.of())).maxFailuresPerAddress())
        .isEqualTo(3);
    assertThat(InsightsExtension.from(Settings.of(Map.of(), Map.of("UPDRAFT_GUARD_MAX_FAILURES_PER_ADDRESS", "50")))
        .maxFailuresPerAddress()).isEqualTo(50);
    assertThatThrownBy(() -> InsightsExtension.from(Settings.of(Map.of("guard-max-failures-per-address", "0"), Map.of())))
        .hasMessageContaining("guard-max-failures-per-address");
  }

  @Test
  void tellsAnOutageFromABugInAQuery() {
    assertThat(TelemetryDb.isOutage(new ConnectException("Connection refused"))).isTrue();
    assertThat(TelemetryDb.isOutage(ClosedConnectionException.INSTANCE)).isTrue();
    assertThat(TelemetryDb.isOutage(new PgException("the database system is starting up", "FATAL", "57P03", null))).isTrue();
    assertThat(TelemetryDb.isOutage(new PgException("terminating connection due to administrator command", "FATAL", "57P01", null)))
        .isTrue();
    assertThat(TelemetryDb.isOutage(new PgException("database \"x\" does not exist", "FATAL", "3D000", null))).isTrue();
    assertThat(TelemetryDb.isOutage(new PgException("relation \"devices\" does not exist", "ERROR", "42P01", null))).isFalse();
    assertThat(TelemetryDb.isOutage(new PgException("syntax error", "ERROR", "42601", null))).isFalse();
    assertThat(TelemetryDb.isOutage(new NullPointerException())).isFalse();
    assertThat(TelemetryDb.isOutage(new PgException("canceling statement due to statement timeout", "ERROR", "57014", null)))
        .as("the server gave up after --insights-timeout").isTrue();
    assertThat(TelemetryDb.isOutage(new java.util.concurrent.TimeoutException("no answer within 1000 ms (--insights-timeout)")))
        .isTrue();
  }

  private static GroupState group(String id, String iosUpdateId, RolloutState rollout) {
    UpdateGroup g =
        new UpdateGroup(id, UpdateGroup.KIND_UPDATE, "canary", "1.0.0", null, null, null, null, null,
            List.of(new PlatformUpdate("ios", iosUpdateId, "2026-03-01T00:00:00.000Z", "{}", null, null, null)));
    return new GroupState(g, 1, T, "admin", Map.of(), rollout, null);
  }

  private static AppState app(GroupState... groups) {
    return new AppState("shop", null, T, "admin", 3, Map.of(), null, Map.of(), List.of(groups), List.of());
  }

  private static DeviceRecord device(String current, String outcome, String reason, Integer bucket, String servedUpdate, String servedGroup) {
    return new DeviceRecord("shop", "d1", "ios", "1.0.0", "canary", current, "emb", current.equals("emb") ? "embedded" : "ota",
        List.of(), null, null, T, T, 1, "c1", "edge-1",
        new DeviceRecord.Served(outcome, reason, "canary", false, bucket, servedUpdate, servedGroup), List.of());
  }

  @Test
  void saysWhetherTheBucketIsInsideOrOutsideThePerUpdateRolloutThatDecided() {
    GroupState control = group("g-control", "u-control", null);
    GroupState rolled = group("g-new", "u-new", new RolloutState("r1", 50, "g-control", null, RolloutState.ACTIVE, T, T));
    AppState app = app(control, rolled);

    DeviceRecord outside = device("emb", CheckIn.OUTCOME_UPDATE, CheckIn.REASON_NEW_UPDATE, 6234, "u-control", "g-control");
    assertThat(InsightsRoutes.rolloutNote(app, outside))
        .isEqualTo("bucket 6234 is outside the rollout of group g-new (now at 50 %, which takes buckets 0–4999),"
            + " so the device gets the rollout's control group g-control");

    DeviceRecord inside = device("emb", CheckIn.OUTCOME_UPDATE, CheckIn.REASON_NEW_UPDATE, 417, "u-new", "g-new");
    assertThat(InsightsRoutes.rolloutNote(app, inside))
        .isEqualTo("bucket 417 is inside the rollout of group g-new (now at 50 %, which takes buckets 0–4999)");

    // served nothing: the group it runs tells which side it is on
    DeviceRecord stays = device("u-control", CheckIn.OUTCOME_NO_UPDATE, CheckIn.REASON_ALREADY_LATEST, 6234, null, null);
    assertThat(InsightsRoutes.rolloutNote(app, stays)).startsWith("bucket 6234 is outside the rollout of group g-new");

    // no bucket: no per-update rollout was consulted
    assertThat(InsightsRoutes.rolloutNote(app, device("emb", CheckIn.OUTCOME_UPDATE, CheckIn.REASON_NEW_UPDATE, null, "u-control", "g-control")))
        .isNull();

    GroupState reverted = group("g-new", "u-new", new RolloutState("r1", 10, "g-control", null, RolloutState.REVERTED, T, T));
    assertThat(InsightsRoutes.rolloutNote(app(control, reverted), outside))
        .isEqualTo("bucket 6234 is outside the rollout of group g-new (which was at 10 %, which takes buckets 0–999, since reverted),"
            + " so the device gets the rollout's control group g-control");
  }

  @Test
  void aNoUpdateAnswerIsExplainedAsCarryingNoFiltersSoTheDeviceKeepsWhatItRuns() {
    DeviceRecord paused = device("u-beta", CheckIn.OUTCOME_NO_UPDATE, CheckIn.REASON_CHANNEL_PAUSED, null, null, null);
    assertThat(paused.served().filters()).isNull();
    assertThat(paused.explanation()).isEqualTo("channel \"canary\" → branch \"canary\" → no update: the channel is paused"
        + " (`updraft channels resume` serves it again); the answer carries no filters, so the device keeps running u-beta");
    DeviceRecord empty = device("u-main", CheckIn.OUTCOME_NO_UPDATE, CheckIn.REASON_NO_UPDATE_FOR_RUNTIME, null, null, null);
    assertThat(empty.explanation()).endsWith("no update: the branch has no update for ios runtime version \"1.0.0\";"
        + " the answer carries no filters, so the device keeps running u-main");
    // the channel "canary" is mapped by nobody in this state: the note says it serves the branch of its name
    assertThat(InsightsRoutes.unmappedNote(app(), empty))
        .isEqualTo("channel \"canary\" is not mapped (never, or its mapping was deleted), so it serves the branch of its own name");
    assertThat(InsightsRoutes.unmappedNote(app(), paused)).as("only for an answer with nothing for the runtime").isNull();
    assertThat(device("emb", CheckIn.OUTCOME_UPDATE, CheckIn.REASON_NEW_UPDATE, null, "u-new", "g-new").served().filters())
        .isEqualTo("branchname=\"canary\"");
    assertThat(device("u-x", CheckIn.OUTCOME_ROLLBACK, CheckIn.REASON_ROLLBACK, null, null, "g-rb").served().filters())
        .isEqualTo("branchname=\"canary\"");
    assertThat(device("u-x", CheckIn.OUTCOME_NO_UPDATE, CheckIn.REASON_ALREADY_LATEST, null, null, null).served().filters()).isNull();
  }
}
