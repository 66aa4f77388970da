package dev.updraft.ingester.funnel;

import dev.updraft.events.CheckIn;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The download funnel's rows of one batch: per (app, update, stage, device) the first time the batch saw the device
 * reach the stage, written by one insert into {@code update_funnel} (V12) that keeps an existing row as it is (the
 * first time stays; a device reaching a stage again writes nothing). Stages, from the check-ins the edges send:
 * <ul>
 *   <li>{@value #SERVED}: a manifest request answered with the update ({@code outcome update}, {@code servedUpdateId});
 *   <li>{@value #FULL}: the launch-asset route sent the full bundle for it (outcome {@code patch}, reason
 *       {@code full-served}, {@code servedUpdateId} the requested update);
 *   <li>{@value #PATCH}: the launch-asset route sent a bundle patch to it (reason {@code patch-served});
 *   <li>{@value #LAUNCHED}: a manifest request from a device running it ({@code currentUpdateId});
 *   <li>{@value #FAILED}: a manifest request listing it in {@code expo-recent-failed-update-ids}.
 * </ul>
 * A check-in without a client id is no device and is not counted; an asset request that names no requested update
 * (clients that send no {@code Expo-Requested-Update-ID} nor {@code If-Match}) cannot be tied to an update and is not
 * counted either. One device's check-ins share a partition (key = client id) and come in offset order, so the first
 * row written is the device's first time at the stage.
 *
 * <p>Not thread-safe: filled on the consumer thread with its batch, then only read by the writer.
 */
public final class FunnelRows {
  public static final String SERVED = "served";
  public static final String FULL = "full";
  public static final String PATCH = "patch";
  public static final String LAUNCHED = "launched";
  public static final String FAILED = "failed";

  /** Key order (app, update, stage, client), so concurrent writers lock index entries in one order. */
  public static final String SQL =
      "INSERT INTO update_funnel (app_id, update_id, stage, client_id, platform, first_at)"
          + " SELECT unnest($1::text[]), unnest($2::text[]), unnest($3::text[]), unnest($4::text[]), unnest($5::text[]),"
          + " to_timestamp(unnest($6::bigint[])::float8 / 1000)"
          + " ON CONFLICT (app_id, update_id, stage, client_id) DO NOTHING";

  /** A row's primary key. */
  record Key(String appId, String updateId, String stage, String clientId) implements Comparable<Key> {
    @Override
    public int compareTo(Key o) {
      int c = appId.compareTo(o.appId);
      if (c == 0) {
        c = updateId.compareTo(o.updateId);
      }
      if (c == 0) {
        c = stage.compareTo(o.stage);
      }
      return c != 0 ? c : clientId.compareTo(o.clientId);
    }
  }

  /** A row's other columns: the platform and the first time (epoch milliseconds) the batch saw the device there. */
  record Row(String platform, long at) {}

  private final Map<Key, Row> rows = new HashMap<>();

  /** Notes the stages {@code c} shows (a cleaned check-in: client id lower case or null, platform ios/android or null). */
  public void add(CheckIn c) {
    String client = c.clientId();
    if (client == null || c.appId() == null) {
      return;
    }
    String platform = c.platform() == null ? "" : c.platform();
    if (CheckIn.OUTCOME_PATCH.equals(c.outcome())) {
      if (CheckIn.REASON_FULL_SERVED.equals(c.reason())) {
        note(c, c.servedUpdateId(), FULL, platform);
      } else if (CheckIn.REASON_PATCH_SERVED.equals(c.reason())) {
        note(c, c.servedUpdateId(), PATCH, platform);
      }
      return;
    }
    if (CheckIn.OUTCOME_ERROR.equals(c.outcome())) {
      return; // refused: the device launched nothing we can trust, and was served nothing
    }
    if (CheckIn.OUTCOME_UPDATE.equals(c.outcome())) {
      note(c, c.servedUpdateId(), SERVED, platform);
    }
    note(c, c.currentUpdateId(), LAUNCHED, platform);
    for (String failed : c.failedUpdateIds()) {
      note(c, failed, FAILED, platform);
    }
  }

  private void note(CheckIn c, String updateId, String stage, String platform) {
    if (updateId == null || updateId.isEmpty()) {
      return;
    }
    Key k = new Key(c.appId(), updateId, stage, c.clientId());
    Row before = rows.get(k);
    if (before == null || c.atEpochMillis() < before.at()) {
      rows.put(k, new Row(platform, c.atEpochMillis()));
    }
  }

  /** How many rows the insert writes at most. */
  public int rows() {
    return rows.size();
  }

  /** The insert's parameters in key order, or null when the batch showed no stage. */
  public Tuple tuple() {
    return tuple(sorted(), null, 0);
  }

  /** The rows in key order (the insert's). */
  List<Map.Entry<Key, Row>> sorted() {
    List<Map.Entry<Key, Row>> sorted = new ArrayList<>(rows.entrySet());
    sorted.sort(Map.Entry.comparingByKey());
    return sorted;
  }

  /**
   * The insert's parameters for {@code sorted} but the rows {@code skip} marks, or null when none is left.
   *
   * @param skip null: none; otherwise one flag per row of {@code sorted}, {@code skipped} of them set
   */
  static Tuple tuple(List<Map.Entry<Key, Row>> sorted, boolean[] skip, int skipped) {
    int n = sorted.size() - (skip == null ? 0 : skipped);
    if (n == 0) {
      return null;
    }
    String[] app = new String[n];
    String[] update = new String[n];
    String[] stage = new String[n];
    String[] client = new String[n];
    String[] platform = new String[n];
    Long[] at = new Long[n];
    int i = 0;
    for (int r = 0; r < sorted.size(); r++) {
      if (skip != null && skip[r]) {
        continue;
      }
      Map.Entry<Key, Row> e = sorted.get(r);
      Key k = e.getKey();
      app[i] = k.appId();
      update[i] = k.updateId();
      stage[i] = k.stage();
      client[i] = k.clientId();
      platform[i] = e.getValue().platform();
      at[i] = e.getValue().at();
      i++;
    }
    return Tuple.of(app, update, stage, client, platform, at);
  }
}
