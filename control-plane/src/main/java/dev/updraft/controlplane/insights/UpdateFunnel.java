package dev.updraft.controlplane.insights;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.updraft.events.EventPayload;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The download funnel of an update group, per platform update, from {@code update_funnel} (written by the ingester:
 * one row per device and stage, the first time seen): distinct devices served the update, that fetched its launch
 * asset (in full only, as a patch only, or a patch then the full bundle: the fallback of a device that could not use
 * its patch), that launched it (a later check-in running it) and that reported it failed
 * ({@code expo-recent-failed-update-ids}); the devices that reported at least one error of it over OTLP ({@code error_reports}
 * by {@code expo.client.id}: erroring, whether or not an edge served them); and per hour, the devices that reached each stage first in that hour.
 * Each stage counts every device seen at it, whether or not the ingester saw the earlier stages (a device served
 * before the table existed, or whose check-in expired unread, still counts as launched). Thread-safe.
 */
final class UpdateFunnel {
  static final String TOTALS_SQL =
      "SELECT count(*) FILTER (WHERE served), count(*) FILTER (WHERE f OR p), count(*) FILTER (WHERE f AND NOT p),"
          + " count(*) FILTER (WHERE p AND NOT f), count(*) FILTER (WHERE p AND f), count(*) FILTER (WHERE launched),"
          + " count(*) FILTER (WHERE failed) FROM (SELECT client_id, bool_or(stage = 'served') AS served, bool_or(stage = 'full') AS f,"
          + " bool_or(stage = 'patch') AS p, bool_or(stage = 'launched') AS launched, bool_or(stage = 'failed') AS failed"
          + " FROM update_funnel WHERE app_id = $1 AND update_id = $2 GROUP BY client_id) d";
  /** Devices (by {@code expo.client.id}) that reported at least one error of the update over OTLP ({@code error_reports}, V11). */
  static final String ERRORING_SQL =
      "SELECT count(DISTINCT client_id) FROM error_reports WHERE app_id = $1 AND update_id = $2 AND client_id IS NOT NULL";
  /**
   * Per UTC hour (whatever the server's time zone): the devices whose first time at a stage fell in it (a fetch: the first of full or patch;
   * erroring: the first error report the ingester stored, by its {@code received_at}, never the time the app claims).
   */
  static final String HOURLY_SQL =
      "SELECT h, s, count(*) FROM (SELECT client_id, CASE WHEN stage IN ('full', 'patch') THEN 'fetched' ELSE stage END AS s,"
          + " date_trunc('hour', min(first_at), 'UTC') AS h FROM update_funnel WHERE app_id = $1 AND update_id = $2 GROUP BY client_id, s"
          + " UNION ALL SELECT client_id, 'erroring', date_trunc('hour', min(received_at), 'UTC') FROM error_reports"
          + " WHERE app_id = $1 AND update_id = $2 AND client_id IS NOT NULL GROUP BY client_id) x"
          + " GROUP BY h, s ORDER BY h, s";

  static final List<String> HOURLY_STAGES = List.of("served", "fetched", "launched", "failed", "erroring");

  /** One platform update's funnel. */
  record Stages(String platform, String updateId, long served, long fetched, long full, long patch, long patchThenFull, long launched,
      long failed, long erroring, Map<Instant, Map<String, Long>> hourly) {}

  private final Pool pool;

  UpdateFunnel(Pool pool) {
    this.pool = pool;
  }

  /** The funnel of every platform update of {@code group}, in the group's platform order. */
  Future<List<Stages>> of(String appId, EventPayload.UpdateGroup group) {
    List<Future<Stages>> each = new ArrayList<>();
    for (EventPayload.PlatformUpdate p : group.platforms()) {
      each.add(one(appId, p.platform(), p.updateId()));
    }
    return Future.all(each).map(all -> {
      List<Stages> out = new ArrayList<>();
      for (Future<Stages> f : each) {
        out.add(f.result());
      }
      return out;
    });
  }

  private Future<Stages> one(String appId, String platform, String updateId) {
    Tuple key = Tuple.of(appId, updateId);
    Future<Row> totals = pool.preparedQuery(TOTALS_SQL).execute(key).map(rows -> rows.iterator().next());
    Future<Long> erroring = pool.preparedQuery(ERRORING_SQL).execute(key).map(rows -> rows.iterator().next().getLong(0));
    Future<Map<Instant, Map<String, Long>>> hourly = pool.preparedQuery(HOURLY_SQL).execute(key).map(rows -> {
      Map<Instant, Map<String, Long>> byHour = new TreeMap<>();
      for (Row r : rows) {
        Map<String, Long> stages = byHour.computeIfAbsent(r.getOffsetDateTime(0).toInstant(), h -> new TreeMap<>());
        stages.put(r.getString(1), r.getLong(2));
      }
      return byHour;
    });
    return Future.all(totals, erroring, hourly).map(both -> {
      Row t = totals.result();
      return new Stages(platform, updateId, t.getLong(0), t.getLong(1), t.getLong(2), t.getLong(3), t.getLong(4), t.getLong(5),
          t.getLong(6), erroring.result(), hourly.result());
    });
  }

  /** The route's body. */
  static ObjectNode json(String groupId, Instant asOf, List<Stages> platforms) {
    ObjectNode n = InsightsJson.MAPPER.createObjectNode();
    n.put("groupId", groupId);
    n.put("asOf", asOf.toString());
    ArrayNode ps = n.putArray("platforms");
    for (Stages s : platforms) {
      ObjectNode p = ps.addObject();
      p.put("platform", s.platform());
      p.put("updateId", s.updateId());
      p.put("served", s.served());
      ObjectNode fetched = p.putObject("fetched");
      fetched.put("devices", s.fetched());
      fetched.put("full", s.full());
      fetched.put("patch", s.patch());
      fetched.put("patchThenFull", s.patchThenFull());
      p.put("launched", s.launched());
      p.put("failed", s.failed());
      p.put("erroring", s.erroring());
      ArrayNode hours = p.putArray("hourly");
      for (Map.Entry<Instant, Map<String, Long>> h : s.hourly().entrySet()) {
        ObjectNode row = hours.addObject();
        row.put("hour", h.getKey().toString());
        for (String stage : HOURLY_STAGES) {
          row.put(stage, h.getValue().getOrDefault(stage, 0L));
        }
      }
    }
    return n;
  }
}
