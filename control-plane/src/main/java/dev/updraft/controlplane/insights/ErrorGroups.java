package dev.updraft.controlplane.insights;

import dev.updraft.controlplane.state.AppState;
import dev.updraft.controlplane.state.GroupState;
import dev.updraft.events.UpdateEvents.PlatformUpdate;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads an update group's error groups from {@code error_reports}/{@code error_groups} (written by the ingester from
 * the errors apps report over OTLP/HTTP): per group its type, top frame, sample message, occurrences, distinct devices
 * (client ids; reports without one count as occurrences only), fatal occurrences, and whether it is new in this
 * update: no report of it from the previous update (the rollout's control group, else the next older group on the
 * same branch and runtime version). Thread-safe.
 */
final class ErrorGroups {
  static final int LIMIT = 100;
  static final String SQL =
      "SELECT r.group_key, g.error_type, g.top_frame, g.sample_message, min(r.occurred_at), max(r.occurred_at), count(*),"
          + " count(DISTINCT r.client_id), count(*) FILTER (WHERE r.fatal),"
          + " NOT EXISTS (SELECT 1 FROM error_reports p WHERE p.app_id = $1 AND p.group_key = r.group_key AND p.update_id = ANY($3))"
          + ", (SELECT s.update_id || E'\\n' || s.stacktrace FROM error_reports s WHERE s.app_id = $1 AND s.update_id = ANY($2)"
          + " AND s.group_key = r.group_key AND s.stacktrace IS NOT NULL ORDER BY s.occurred_at DESC LIMIT 1)"
          + " FROM error_reports r JOIN error_groups g ON g.app_id = r.app_id AND g.group_key = r.group_key"
          + " WHERE r.app_id = $1 AND r.update_id = ANY($2)"
          + " GROUP BY r.group_key, g.error_type, g.top_frame, g.sample_message"
          + " ORDER BY count(DISTINCT r.client_id) DESC, count(*) DESC, r.group_key LIMIT " + LIMIT;
  static final String DEVICES_SQL =
      "SELECT count(DISTINCT client_id) FROM error_reports WHERE app_id = $1 AND update_id = ANY($2)";

  /**
   * One error group of an update.
   *
   * @param sample nullable: the latest report's update id, a newline and its stack trace (whose top frame is resolved
   *     through that update's source map)
   */
  record Group(String key, String errorType, String topFrame, String sampleMessage, Instant firstSeen, Instant lastSeen, long occurrences,
      long devices, long fatal, boolean newInUpdate, String sample) {}

  /** An update group's errors: the devices that reported any, and the groups (most devices first, at most {@link #LIMIT}). */
  record Report(String groupId, List<String> updateIds, String previousGroupId, long devices, List<Group> groups) {}

  private ErrorGroups() {}

  /** The group compared with to tell new errors: the rollout's control group, else the next older group of the branch and runtime; null: none. */
  static GroupState previous(AppState app, GroupState g) {
    if (g.rollout() != null && g.rollout().controlGroupId() != null) {
      GroupState c = app.group(g.rollout().controlGroupId());
      if (c != null) {
        return c;
      }
    }
    List<GroupState> line = app.groupsNewestFirst(g.group().branch(), g.group().runtimeVersion());
    for (int i = 0; i < line.size() - 1; i++) {
      if (line.get(i).groupId().equals(g.groupId())) {
        return line.get(i + 1);
      }
    }
    return null;
  }

  static String[] updateIds(GroupState g) {
    List<String> ids = new ArrayList<>();
    if (g != null && g.group().platforms() != null) {
      for (PlatformUpdate p : g.group().platforms()) {
        ids.add(p.updateId());
      }
    }
    return ids.toArray(new String[0]);
  }

  static Future<Report> read(Pool pool, AppState app, GroupState g) {
    GroupState prev = previous(app, g);
    String[] ids = updateIds(g);
    String[] before = updateIds(prev);
    return pool.preparedQuery(SQL).execute(Tuple.of(app.appId(), ids, before)).compose(rows -> {
      List<Group> groups = new ArrayList<>();
      for (Row r : rows) {
        groups.add(new Group(r.getString(0), r.getString(1), r.getString(2), r.getString(3), r.getOffsetDateTime(4).toInstant(),
            r.getOffsetDateTime(5).toInstant(), r.getLong(6), r.getLong(7), r.getLong(8), r.getBoolean(9), r.getString(10)));
      }
      return pool.preparedQuery(DEVICES_SQL).execute(Tuple.of(app.appId(), (Object) ids))
          .map(d -> new Report(g.groupId(), List.of(ids), prev == null ? null : prev.groupId(), d.iterator().next().getLong(0), groups));
    });
  }
}
