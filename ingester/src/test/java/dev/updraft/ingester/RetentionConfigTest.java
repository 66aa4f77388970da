package dev.updraft.ingester;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.updraft.common.ConfigException;
import dev.updraft.common.Settings;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RetentionConfigTest {

  private static RetentionConfig from(Map<String, String> flags, Map<String, String> env) {
    return IngesterConfig.from(Settings.of(flags, env)).retention();
  }

  @Test
  void isOffUnlessAFlagAsksForIt() {
    RetentionConfig r = from(Map.of(), Map.of());
    assertThat(r.enabled()).isFalse();
    for (RetainedTable t : RetainedTable.values()) {
      assertThat(r.keep(t)).as(t.table).isNull();
    }
    assertThat(r.interval()).isEqualTo(Duration.ofHours(1));
    assertThat(r.batchSize()).isEqualTo(5_000);
    assertThat(r.toString()).isEqualTo("off");
  }

  @Test
  void theControlPlanesTopicRetentionInTheSameEnvironmentDeletesNothing() {
    // the dev stack and the Kubernetes ConfigMap give both processes one environment
    RetentionConfig r = from(Map.of(), Map.of("UPDRAFT_TELEMETRY_RETENTION", "3d"));
    assertThat(r.enabled()).isFalse();
  }

  @Test
  void theGeneralFlagAppliesToEveryTableAndATablesOwnFlagWins() {
    RetentionConfig r =
        from(Map.of("postgres-retention", "90d", "postgres-retention-hourly", "400d", "postgres-retention-rejects", "off",
            "postgres-retention-interval", "6h", "postgres-retention-batch", "2000"), Map.of());
    assertThat(r.enabled()).isTrue();
    assertThat(r.keep(RetainedTable.DEVICES)).isEqualTo(Duration.ofDays(90));
    assertThat(r.keep(RetainedTable.RECEIPTS)).isEqualTo(Duration.ofDays(90));
    assertThat(r.keep(RetainedTable.FAILURES)).isEqualTo(Duration.ofDays(90));
    assertThat(r.keep(RetainedTable.HOURLY)).isEqualTo(Duration.ofDays(400));
    assertThat(r.keep(RetainedTable.REJECTS)).as("off keeps that table").isNull();
    assertThat(r.interval()).isEqualTo(Duration.ofHours(6));
    assertThat(r.batchSize()).isEqualTo(2_000);
    assertThat(r.toString())
        .isEqualTo("[devices=90d, receipts=90d, failures=90d, crashes=90d, hourly=400d, rejects=off, errors=90d, funnel=90d, key-asks=90d,"
            + " patch-outcomes=90d, dead-letters=90d, interval=6h, batch=2000]");
  }

  @Test
  void oneTableAloneMayBeRetainedAndEnvironmentVariablesWork() {
    RetentionConfig r = from(Map.of(), Map.of("UPDRAFT_POSTGRES_RETENTION_DEVICES", "180d"));
    assertThat(r.enabled()).isTrue();
    assertThat(r.keep(RetainedTable.DEVICES)).isEqualTo(Duration.ofDays(180));
    assertThat(r.keep(RetainedTable.RECEIPTS)).isNull();
    assertThat(IngesterConfig.from(Settings.of(Map.of(), Map.of("UPDRAFT_POSTGRES_RETENTION_DEVICES", "180d"))).toString())
        .contains("retention=[devices=180d, receipts=off");
  }

  @Test
  void refusesARetentionShorterThanTheInsightsReadNamingTheFlagAndWhy() {
    assertThatThrownBy(() -> from(Map.of("postgres-retention-receipts", "7d"), Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("--postgres-retention-receipts (UPDRAFT_POSTGRES_RETENTION_RECEIPTS) must be at least 30d")
        .hasMessageContaining("rollout guard")
        .hasMessageContaining("got 7d");
    assertThatThrownBy(() -> from(Map.of("postgres-retention-hourly", "72h"), Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("--postgres-retention-hourly")
        .hasMessageContaining("at least 7d")
        .hasMessageContaining("got 3d");
    // "90m" meant as 90 days
    assertThatThrownBy(() -> from(Map.of("postgres-retention-devices", "90m"), Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("--postgres-retention-devices")
        .hasMessageContaining("at least 1d")
        .hasMessageContaining("got 90m");
  }

  @Test
  void aGeneralValueTooShortForOneTableNamesBothFlags() {
    assertThatThrownBy(() -> from(Map.of("postgres-retention", "14d"), Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("--postgres-retention (UPDRAFT_POSTGRES_RETENTION) is 14d, which would apply to update_receipts")
        .hasMessageContaining("give --postgres-retention-receipts (UPDRAFT_POSTGRES_RETENTION_RECEIPTS) 30d or longer");
    assertThatThrownBy(() -> from(Map.of("postgres-retention", "14d", "postgres-retention-receipts", "30d",
        "postgres-retention-failures", "off"), Map.of()))
        .as("the crash reports need 30 days too")
        .hasMessageContaining("which would apply to update_crashes")
        .hasMessageContaining("give --postgres-retention-crashes (UPDRAFT_POSTGRES_RETENTION_CRASHES) 30d or longer");
    assertThatThrownBy(() -> from(Map.of("postgres-retention", "14d", "postgres-retention-receipts", "30d",
        "postgres-retention-failures", "off", "postgres-retention-crashes", "30d"), Map.of()))
        .as("the error reports need 30 days too")
        .hasMessageContaining("which would apply to error_reports")
        .hasMessageContaining("give --postgres-retention-errors (UPDRAFT_POSTGRES_RETENTION_ERRORS) 30d or longer");
    // with the tables that need longer given their own, 14d is fine for the others
    RetentionConfig r =
        from(Map.of("postgres-retention", "14d", "postgres-retention-receipts", "30d", "postgres-retention-failures", "off",
            "postgres-retention-crashes", "30d", "postgres-retention-errors", "30d", "postgres-retention-key-asks", "off", "postgres-retention-patch-outcomes", "60d"),
            Map.of());
    assertThat(r.keep(RetainedTable.DEVICES)).isEqualTo(Duration.ofDays(14));
    assertThat(r.keep(RetainedTable.RECEIPTS)).isEqualTo(Duration.ofDays(30));
    assertThat(r.keep(RetainedTable.FAILURES)).isNull();
    assertThat(r.keep(RetainedTable.CRASHES)).isEqualTo(Duration.ofDays(30));
    assertThat(r.keep(RetainedTable.ERRORS)).isEqualTo(Duration.ofDays(30));
    assertThat(r.keep(RetainedTable.KEY_ASKS)).isNull();
    assertThat(r.keep(RetainedTable.PATCH_OUTCOMES)).isEqualTo(Duration.ofDays(60));
    assertThat(r.keep(RetainedTable.FUNNEL)).isEqualTo(Duration.ofDays(14));
    assertThat(r.keep(RetainedTable.DEAD_LETTERS)).isEqualTo(Duration.ofDays(14));
  }

  @Test
  void refusesValuesThatAreNotDurationsAndOutOfRangeSettings() {
    assertThatThrownBy(() -> from(Map.of("postgres-retention", "90 days"), Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("--postgres-retention (UPDRAFT_POSTGRES_RETENTION) must be a duration like 90d or 12h, or off")
        .hasMessageContaining("'90 days'");
    assertThatThrownBy(() -> from(Map.of("postgres-retention", "90d", "postgres-retention-interval", "10s"), Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("--postgres-retention-interval")
        .hasMessageContaining("between 1m and 7d: got 10s");
    assertThatThrownBy(() -> from(Map.of("postgres-retention", "90d", "postgres-retention-batch", "0"), Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("--postgres-retention-batch");
    assertThatThrownBy(() -> from(Map.of("postgres-retention-device", "90d"), Map.of()))
        .as("a misspelled table flag is an unknown flag")
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("unknown flag --postgres-retention-device;");
  }

  @Test
  void theGeneratedStatementsWalkByKeyOrByTheTimeIndex() {
    assertThat(RetainedTable.DEVICES.rangeEndSql)
        .isEqualTo("SELECT app_id, client_id FROM (SELECT app_id, client_id FROM devices WHERE (app_id, client_id) > ($1, $2)"
            + " ORDER BY app_id, client_id LIMIT $3) s ORDER BY app_id DESC, client_id DESC LIMIT 1");
    assertThat(RetainedTable.DEVICES.deleteSql)
        .startsWith("WITH v AS (SELECT app_id, client_id FROM devices WHERE (app_id, client_id) > ($1, $2)"
            + " AND (app_id, client_id) <= ($3, $4) AND last_seen < $5 FOR UPDATE SKIP LOCKED),")
        .endsWith("SELECT app_id, update_id, platform, channel, source, -count(*) FROM gone"
            + " GROUP BY app_id, update_id, platform, channel, source");
    assertThat(RetainedTable.RECEIPTS.deleteSql)
        .isEqualTo("WITH v AS (SELECT app_id, update_id, client_id FROM update_receipts WHERE first_served < $1"
            + " ORDER BY first_served LIMIT $2 FOR UPDATE SKIP LOCKED), gone AS (DELETE FROM update_receipts x USING v"
            + " WHERE x.app_id = v.app_id AND x.update_id = v.update_id AND x.client_id = v.client_id RETURNING"
            + " x.app_id, x.update_id, x.client_id, x.platform, (floor(extract(epoch FROM x.first_served) / 60)::bigint * 60000))"
            + " SELECT * FROM gone");
    // the pairs deleted, so that RetentionJob takes them out of the counters (SetCounts) in the same transaction
    assertThat(RetainedTable.FAILURES.deleteSql).endsWith("RETURNING x.app_id, x.update_id, x.client_id, x.platform)"
        + " SELECT * FROM gone");
    assertThat(RetainedTable.HOURLY.deleteSql).endsWith("RETURNING 1) SELECT count(*) FROM gone");
    assertThat(RetainedTable.RECEIPTS.rangeEndSql).isNull();
  }
}
