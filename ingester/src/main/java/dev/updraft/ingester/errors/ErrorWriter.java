package dev.updraft.ingester.errors;

import dev.updraft.events.ErrorReport;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Tuple;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes a poll's error reports in one transaction: each report once ({@code ON CONFLICT (report_id) DO NOTHING}: a
 * record read again after a crash counts once), and its group created or its {@code last_seen} moved. Thread-safe
 * (the pool is).
 */
final class ErrorWriter {
  static final String INSERT_REPORT =
      "INSERT INTO error_reports (report_id, app_id, update_id, group_key, client_id, address_bucket, platform, channel, runtime_version,"
          + " source, fatal, message, stacktrace, edge_id, occurred_at) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15)"
          + " ON CONFLICT (report_id) DO NOTHING";
  static final String UPSERT_GROUP =
      "INSERT INTO error_groups (app_id, group_key, error_type, top_frame, sample_message, first_update_id, first_seen, last_seen)"
          + " VALUES ($1,$2,$3,$4,$5,$6,$7,$7) ON CONFLICT (app_id, group_key) DO UPDATE SET"
          + " last_seen = greatest(error_groups.last_seen, EXCLUDED.last_seen),"
          + " first_seen = least(error_groups.first_seen, EXCLUDED.first_seen)";

  private final Pool pool;

  ErrorWriter(Pool pool) {
    this.pool = pool;
  }

  Future<Void> write(List<ErrorReport> reports) {
    if (reports.isEmpty()) {
      return Future.succeededFuture();
    }
    List<Tuple> rows = new ArrayList<>(reports.size());
    Map<String, Tuple> groups = new LinkedHashMap<>();
    for (ErrorReport r : reports) {
      String top = ErrorGroupKey.topFrame(r.stacktrace());
      String key = ErrorGroupKey.key(r.errorType(), top);
      OffsetDateTime at = OffsetDateTime.ofInstant(Instant.ofEpochMilli(r.atEpochMillis()), ZoneOffset.UTC);
      rows.add(Tuple.from(new Object[] {r.reportId(), r.appId(), r.updateId(), key, r.clientId(), r.addressBucket(), r.platform(), r.channel(),
          r.runtimeVersion(), r.source(), r.fatal(), r.message(), r.stacktrace(), r.edgeId(), at}));
      groups.putIfAbsent(r.appId() + "\n" + key, Tuple.from(new Object[] {r.appId(), key, r.errorType(), top, r.message(), r.updateId(), at}));
    }
    // groups in key order: two ingesters upserting the same groups never wait on each other in a cycle
    List<Tuple> groupRows = new ArrayList<>(new java.util.TreeMap<>(groups).values());
    return pool.withTransaction(c -> c.preparedQuery(UPSERT_GROUP).executeBatch(groupRows)
        .compose(x -> c.preparedQuery(INSERT_REPORT).executeBatch(rows))).mapEmpty();
  }
}
