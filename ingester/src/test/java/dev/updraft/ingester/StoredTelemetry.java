package dev.updraft.ingester;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.events.CheckIn;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Asserts that PostgreSQL holds exactly what a {@link CheckInScenario} implies: nothing lost, nothing twice. */
final class StoredTelemetry {
  private StoredTelemetry() {}

  static void assertExactly(TestDb db, CheckInScenario s) {
    String app = s.appId;
    int n = s.checkIns.size();

    assertThat(db.scalar("SELECT sum(launches) FROM update_hourly WHERE app_id = ?", app))
        .as("launches: every check-in once").isEqualTo(n);
    assertThat(db.counts("SELECT update_id, sum(launches) FROM update_hourly WHERE app_id = ? AND launches > 0"
            + " GROUP BY update_id", app))
        .as("launches per update").isEqualTo(s.launchesByUpdate());
    assertThat(db.scalar("SELECT sum(embedded_launches) FROM update_hourly WHERE app_id = ?", app))
        .as("launches on the embedded bundle").isEqualTo(s.embeddedLaunches());

    assertThat(db.scalar("SELECT count(*) FROM devices WHERE app_id = ?", app))
        .as("distinct devices (check-ins without a client id are not devices)").isEqualTo(s.devices().size());
    assertThat(db.scalar("SELECT sum(check_ins) FROM devices WHERE app_id = ?", app))
        .as("check-ins with a client id").isEqualTo(n - s.anonymous());
    assertThat(db.counts("SELECT client_id, check_ins FROM devices WHERE app_id = ?", app))
        .as("check-ins per device").isEqualTo(s.checkInsByDevice());

    Map<String, CheckIn> last = s.lastByDevice();
    Map<String, Long> first = new HashMap<>();
    Map<String, Long> lastSeen = new HashMap<>();
    for (CheckIn c : s.checkIns) {
      if (c.clientId() != null) {
        first.merge(c.clientId(), c.atEpochMillis(), Math::min);
        lastSeen.merge(c.clientId(), c.atEpochMillis(), Math::max);
      }
    }
    List<List<Object>> rows =
        db.rows("SELECT client_id, platform, channel, current_update_id, outcome, served_update_id, last_check_in_id,"
            + " (extract(epoch FROM first_seen) * 1000)::bigint, (extract(epoch FROM last_seen) * 1000)::bigint"
            + " FROM devices WHERE app_id = ?", app);
    for (List<Object> r : rows) {
      String client = (String) r.get(0);
      CheckIn c = last.get(client);
      assertThat(c).as("device %s was sent", client).isNotNull();
      assertThat(r.subList(1, 7))
          .as("device %s holds its newest check-in", client)
          .containsExactly(c.platform(), c.channel(), c.currentUpdateId(), c.outcome(), c.servedUpdateId(), c.checkInId());
      assertThat(((Number) r.get(7)).longValue()).as("first seen of %s", client).isEqualTo(first.get(client));
      assertThat(((Number) r.get(8)).longValue()).as("last seen of %s", client).isEqualTo(lastSeen.get(client));
    }

    assertThat(db.counts("SELECT update_id || '|' || platform || '|' || channel || '|' || source, devices"
            + " FROM device_counts WHERE app_id = ? AND devices <> 0", app))
        .as("devices on each update now, per platform, channel and source").isEqualTo(s.devicesNow());

    assertThat(db.counts("SELECT update_id, count(*) FROM update_failures WHERE app_id = ? GROUP BY update_id", app))
        .as("distinct devices reporting each update failed").isEqualTo(s.failingDevicesByUpdate());
    assertThat(db.counts("SELECT update_id, sum(failure_reports) FROM update_hourly WHERE app_id = ?"
            + " AND failure_reports > 0 GROUP BY update_id", app))
        .as("failure reports per update").isEqualTo(s.failureReportsByUpdate());
    assertThat(db.counts("SELECT update_id, count(*) FROM update_receipts WHERE app_id = ? GROUP BY update_id", app))
        .as("distinct devices served each update").isEqualTo(s.servedDevicesByUpdate());
    assertThat(db.counts("SELECT update_id || '|' || stage || '|' || client_id, (extract(epoch FROM first_at) * 1000)::bigint"
            + " FROM update_funnel WHERE app_id = ?", app))
        .as("the download funnel: each device at each stage once, at the first time it was seen there")
        .isEqualTo(s.funnelFirstTimes());
    SetCountsRecount.assertMatches(db, app);
  }
}
