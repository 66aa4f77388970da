package dev.updraft.controlplane.insights;

import static dev.updraft.controlplane.insights.TelemetryFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.controlplane.guard.RolloutGuardEvaluator;
import dev.updraft.events.CheckIn;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Every statement behind the insights routes and the guard reads by an index, never by a scan of a whole
 * table: with sequential scans priced out ({@code enable_seqscan = off}) PostgreSQL still plans none, so an
 * index can answer each of them. What keeps them under 200 ms at ten million devices
 * ({@code load/bench/insights-scale.sh}): they read counter rows or one device's row, not the fleet.
 */
@ExtendWith(RealInfrastructure.class)
class InsightsPlansIT {
  static final String APP = "plans";
  static final Instant NOW = Instant.parse("2026-03-10T12:30:00Z");

  private static TelemetryFixture fixture;

  @BeforeAll
  static void ingest(Infra infra) throws Exception {
    fixture = TelemetryFixture.ingest(infra, "plans", List.of(
        TelemetryFixture.checkIn(APP, "p1", "ios", "production", "emb", "emb", List.of(), CheckIn.OUTCOME_UPDATE,
            CheckIn.REASON_NEW_UPDATE, "u-ios", NOW.minusSeconds(600)),
        TelemetryFixture.checkIn(APP, "p1", "ios", "production", "emb", "emb", List.of("u-ios"), CheckIn.OUTCOME_NO_UPDATE,
            CheckIn.REASON_PREVIOUSLY_FAILED, null, NOW.minusSeconds(300))));
  }

  @AfterAll
  static void close() throws Exception {
    if (fixture != null) {
      fixture.close();
    }
  }

  private static String plan(String sql, Tuple params) throws Exception {
    return await(fixture.pool.withConnection(conn -> conn.query("SET enable_seqscan = off").execute()
        .compose(v -> conn.preparedQuery("EXPLAIN " + sql).execute(params))
        .map(rows -> {
          StringBuilder sb = new StringBuilder();
          for (Row r : rows) {
            sb.append(r.getString(0)).append('\n');
          }
          return sb.toString();
        })
        .eventually(() -> conn.query("RESET enable_seqscan").execute())));
  }

  @Test
  void theDeviceRouteReadsOneRowByThePrimaryKey() throws Exception {
    String p = plan(Insights.DEVICE_SQL, Tuple.of(APP, "p1"));
    assertThat(p).as(p).contains("Index Scan using devices_pkey").doesNotContain("Seq Scan");
  }

  @Test
  void theGroupRouteReadsCounterRowsByIndex() throws Exception {
    String[] ids = {"u-ios", "u-android"};
    for (String sql : List.of(Insights.DEVICES_NOW_SQL, Insights.DEVICE_SETS_SQL)) {
      String p = plan(sql, Tuple.tuple().addString(APP).addArrayOfString(ids));
      assertThat(p).as(p).doesNotContain("Seq Scan").doesNotContain("update_receipts").doesNotContain("update_failures");
    }
    String p = plan(Insights.WINDOWS_SQL, Tuple.of(APP, ids, Insights.utc(NOW), Insights.utc(NOW.minusSeconds(604_800))));
    assertThat(p).as(p).doesNotContain("Seq Scan");
  }

  @Test
  void theChannelRouteReadsCounterRowsByIndex() throws Exception {
    assertThat(plan(Insights.CHANNEL_DEVICES_SQL, Tuple.of(APP, "production"))).doesNotContain("Seq Scan");
    assertThat(plan(Insights.CHANNEL_LAUNCHES_SQL, Tuple.of(APP, "production", Insights.utc(NOW))))
        .doesNotContain("Seq Scan");
  }

  @Test
  void theGuardReadsMinuteCountersAndOnlyThePartialMinuteOfReceipts() throws Exception {
    String p = plan(RolloutGuardEvaluator.SQL, Tuple.of(APP, new String[] {"u-ios"}, Insights.utc(NOW.minusSeconds(3599)),
        Insights.utc(NOW.minusSeconds(3540)), 10L));
    assertThat(p).as(p).doesNotContain("Seq Scan").contains("receipt_minutes_pkey");
  }
}
