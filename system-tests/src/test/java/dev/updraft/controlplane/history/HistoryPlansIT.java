package dev.updraft.controlplane.history;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.dbschema.SchemaMigrations;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Every statement behind the audit API and the group history reads by an index (V6), never by a scan of a
 * whole table: with sequential scans priced out PostgreSQL still plans none, and the pages come in index
 * order (no sort of an app's whole history).
 */
@ExtendWith(RealInfrastructure.class)
class HistoryPlansIT {
  static final OffsetDateTime CREATED = OffsetDateTime.ofInstant(Instant.parse("2026-03-10T12:30:00Z"), ZoneOffset.UTC);
  static Vertx vertx;
  static Pool pool;

  static <T> T await(Future<T> f) throws Exception {
    return f.toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
  }

  @BeforeAll
  static void rows(Infra infra) throws Exception {
    vertx = Vertx.vertx();
    PgConnectOptions o = new PgConnectOptions().setHost(infra.pgHost()).setPort(infra.pgPort()).setDatabase(infra.database())
        .setUser(infra.pgUser()).setPassword(infra.pgPassword());
    pool = PgBuilder.pool().connectingTo(o).using(vertx).build();
    await(SchemaMigrations.apply(pool));
    await(pool.query("INSERT INTO history_audit (app_id, app_created_at, sequence, type, summary, kafka_partition, kafka_offset)"
        + " SELECT 'app-' || (n % 20), '2026-03-10T12:30:00Z', n, 'update.published', 'published', 0, n FROM generate_series(1, 20000) n")
        .execute());
    await(pool.query("INSERT INTO history_groups (app_id, app_created_at, group_id, sequence, kind, branch, runtime_version, platforms,"
        + " update_ids, published_at, group_json, kafka_partition, kafka_offset, deleted_at)"
        + " SELECT 'app-' || (n % 20), '2026-03-10T12:30:00Z', 'g' || n, n, 'update', 'b' || (n % 7), '1.0.' || (n % 3),"
        + " '{ios}', ARRAY['u' || n], now(), '{}', 0, n, CASE WHEN n % 11 = 0 THEN now() END FROM generate_series(1, 20000) n").execute());
    await(pool.query("INSERT INTO history_apps (app_id, app_created_at, last_sequence) SELECT 'app-' || n, '2026-03-10T12:30:00Z', 20000"
        + " FROM generate_series(0, 19) n").execute());
    await(pool.query("ANALYZE").execute());
  }

  @AfterAll
  static void close() throws Exception {
    if (pool != null) {
      await(pool.close());
    }
    if (vertx != null) {
      await(vertx.close());
    }
  }

  private static String plan(String sql, Tuple params) throws Exception {
    return await(pool.withConnection(conn -> conn.query("SET enable_seqscan = off").execute()
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
  void theAuditPageReadsThePrimaryKeyBackwards() throws Exception {
    String p = plan(HistoryReads.AUDIT_SQL, Tuple.of("app-3", CREATED, 10_000L, 51));
    assertThat(p).doesNotContain("Seq Scan").doesNotContain("Sort").contains("history_audit_pkey");
    assertThat(plan(HistoryReads.POSITION_SQL, Tuple.of("app-3"))).doesNotContain("Seq Scan").contains("history_apps_pkey");
  }

  @Test
  void theGroupPagesReadTheirIndexesInOrder() throws Exception {
    assertThat(plan(HistoryReads.GROUPS_SQL, Tuple.of("app-3", CREATED, Long.MAX_VALUE, 51)))
        .doesNotContain("Seq Scan").doesNotContain("Sort").contains("history_groups_by_sequence");
    assertThat(plan(HistoryReads.GROUPS_OF_BRANCH_SQL, Tuple.of("app-3", CREATED, Long.MAX_VALUE, 51, "b2")))
        .doesNotContain("Seq Scan").doesNotContain("Sort").contains("history_groups_by_branch");
    assertThat(plan(HistoryReads.GROUPS_OF_LINE_SQL, Tuple.of("app-3", CREATED, Long.MAX_VALUE, 51, "b2").addString("1.0.1")))
        .as("a line is small: an index scan, maybe sorted").doesNotContain("Seq Scan").contains("history_groups_by_line");
    assertThat(plan(HistoryReads.GROUPS_OF_RUNTIME_SQL, Tuple.of("app-3", CREATED, Long.MAX_VALUE, 51, "1.0.1")))
        .doesNotContain("Seq Scan");
    assertThat(plan(HistoryReads.GROUP_SQL, Tuple.of("app-3", CREATED, "g23"))).doesNotContain("Seq Scan").contains("history_groups_pkey");
  }
}
