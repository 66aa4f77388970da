package dev.updraft.ingester;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.updraft.dbschema.SchemaMigrations;
import dev.updraft.events.CheckIn;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The offset condition that makes every batch apply at most once, against a real PostgreSQL. */
@ExtendWith(RealInfrastructure.class)
class BatchWriterIT {
  private static Vertx vertx;
  private static Pool pool;
  private static TestDb db;
  private static PgConnectOptions options;

  @BeforeAll
  static void connect(Infra infra) throws Exception {
    vertx = Vertx.vertx();
    options = IngesterConfig.pgOptions(TestDb.postgresUrl(infra.pgHost(), infra.pgPort(), infra.database(), infra.pgUser()));
    pool = TelemetryIngester.pool(vertx, options, 2, "test");
    TelemetryIngesterIT.await(SchemaMigrations.apply(pool));
    db = TelemetryIngesterIT.db(infra);
  }

  @AfterAll
  static void close() throws Exception {
    TelemetryIngesterIT.await(pool.close());
    TelemetryIngesterIT.await(vertx.close());
  }

  private static Batch batch(String topic, long expected, boolean expectedRow, long first, int count, String app) {
    Batch b = new Batch(false);
    TopicPartition tp = new TopicPartition(topic, 0);
    for (int i = 0; i < count; i++) {
      b.cover(tp, expected, expectedRow, first + i);
      b.add(CheckIns.clean(TelemetryIngesterIT.checkIn(app, "c" + (first + i), "device-" + i), 0));
    }
    return b;
  }

  /** The cause {@code w} fails {@code b}'s write with; null when it succeeds (also used by FunnelKeysIT). */
  static Throwable failure(BatchWriter w, Batch b) {
    try {
      w.write(b).toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
      return null;
    } catch (ExecutionException e) {
      return e.getCause();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void theDeviceUpsertIsPreparedOncePerConnectionNotParsedAgainInEachBatch() throws Exception {
    // one connection, so that pg_prepared_statements below is the writer's own session
    Pool one = TelemetryIngester.pool(vertx, options, 1, "test");
    try {
      BatchWriter w = new BatchWriter(one, "prepared");
      assertThat(TelemetryIngesterIT.await(w.write(batch("prepared", 0, false, 0, 3, "app-prepared")))).isEqualTo(3);
      assertThat(TelemetryIngesterIT.await(w.write(batch("prepared", 3, true, 3, 3, "app-prepared")))).isEqualTo(3);
      Set<String> kept = new HashSet<>();
      for (Row r : TelemetryIngesterIT.await(one.query("SELECT statement FROM pg_prepared_statements").execute())) {
        kept.add(r.getString(0));
      }
      // the device upsert is the longest (over the client's default limit of 2,048 characters); a statement the
      // client does not keep is parsed and planned again in every batch
      assertThat(BatchWriter.DEVICES_SQL.length()).isGreaterThan(2048);
      assertThat(kept).as("statements kept prepared by the writer's connection")
          .contains(BatchWriter.DEVICES_SQL, BatchWriter.OFFSETS_SQL);
    } finally {
      TelemetryIngesterIT.await(one.close());
    }
  }

  @Test
  void appliesABatchOnceAndRefusesItsReplayWithoutChangingAnything() throws Exception {
    BatchWriter w = new BatchWriter(pool, "replay");
    assertThat(TelemetryIngesterIT.await(w.write(batch("replay", 0, false, 0, 3, "app-replay")))).as("device rows").isEqualTo(3);

    // the same records again, as after a commit whose acknowledgement was lost
    Throwable again = failure(w, batch("replay", 0, false, 0, 3, "app-replay"));
    assertThat(again).isInstanceOf(BatchWriter.StaleBatchException.class).hasMessageContaining("matched=0");
    // a batch overlapping the committed one
    assertThat(failure(w, batch("replay", 2, true, 2, 2, "app-replay"))).isInstanceOf(BatchWriter.StaleBatchException.class);
    // the next batch, starting where the first ended
    assertThat(TelemetryIngesterIT.await(w.write(batch("replay", 3, true, 3, 2, "app-replay")))).isEqualTo(2);

    assertThat(db.scalar("SELECT sum(launches) FROM update_hourly WHERE app_id = 'app-replay'")).isEqualTo(5);
    assertThat(db.scalar("SELECT sum(check_ins) FROM devices WHERE app_id = 'app-replay'")).isEqualTo(5);
    assertThat(db.rows("SELECT kafka_partition, next_offset FROM ingest_offsets WHERE topic = 'replay'"))
        .containsExactly(List.of(0, 5L));
  }

  @Test
  void refusesTheWholeBatchWhenOnlyOneOfItsPartitionsMoved() throws Exception {
    BatchWriter w = new BatchWriter(pool, "two");
    Batch first = batch("two", 0, false, 0, 1, "app-two");
    TelemetryIngesterIT.await(w.write(first));
    // partition 1 is new, partition 0 claims a start PostgreSQL no longer holds
    Batch mixed = new Batch(false);
    mixed.cover(new TopicPartition("two", 1), 0, false, 0);
    mixed.add(CheckIns.clean(TelemetryIngesterIT.checkIn("app-two", "p1", "device-p1"), 0));
    mixed.cover(new TopicPartition("two", 0), 0, true, 0);
    mixed.add(CheckIns.clean(TelemetryIngesterIT.checkIn("app-two", "p0", "device-p0"), 0));
    assertThat(failure(w, mixed)).isInstanceOf(BatchWriter.StaleBatchException.class);
    assertThat(db.scalar("SELECT count(*) FROM ingest_offsets WHERE topic = 'two'")).as("no row for partition 1").isEqualTo(1);
    assertThat(db.scalar("SELECT count(*) FROM devices WHERE app_id = 'app-two'")).isEqualTo(1);
  }

  @Test
  void keepsTheDeviceCountsExactWhenDevicesMoveBetweenUpdates() throws Exception {
    BatchWriter w = new BatchWriter(pool, "moves");
    String app = "app-moves";
    TopicPartition tp = new TopicPartition("moves", 0);
    Batch one = new Batch(false);
    one.cover(tp, 0, false, 0);
    one.add(CheckIns.clean(onUpdate(app, "d1", "u1", 1), 0));
    one.cover(tp, 0, false, 1);
    one.add(CheckIns.clean(onUpdate(app, "d2", "u1", 2), 0));
    TelemetryIngesterIT.await(w.write(one));
    // d1 moves to u2 (twice in the batch: counted once), d2 stays, d3 arrives on u2
    Batch two = new Batch(false);
    two.cover(tp, 2, true, 2);
    two.add(CheckIns.clean(onUpdate(app, "d1", "u2", 3), 0));
    two.cover(tp, 2, true, 3);
    two.add(CheckIns.clean(onUpdate(app, "d1", "u2", 4), 0));
    two.cover(tp, 2, true, 4);
    two.add(CheckIns.clean(onUpdate(app, "d2", "u1", 5), 0));
    two.cover(tp, 2, true, 5);
    two.add(CheckIns.clean(onUpdate(app, "d3", "u2", 6), 0));
    TelemetryIngesterIT.await(w.write(two));

    assertThat(db.counts("SELECT update_id, devices FROM device_counts WHERE app_id = ? AND devices <> 0", app))
        .isEqualTo(java.util.Map.of("u1", 1L, "u2", 2L));
    assertThat(db.scalar("SELECT count(*) FROM device_counts WHERE app_id = ? AND devices < 0", app)).isZero();
  }

  private static CheckIn onUpdate(String app, String client, String update, long at) {
    return CheckIn.builder()
        .checkInId(client + at)
        .appId(app)
        .platform("ios")
        .runtimeVersion("1.0.0")
        .channel("production")
        .clientId(client)
        .currentUpdateId(update)
        .embeddedUpdateId("emb")
        .outcome(CheckIn.OUTCOME_NO_UPDATE)
        .reason(CheckIn.REASON_ALREADY_LATEST)
        .branch("production")
        .atEpochMillis(1_767_261_600_000L + at)
        .edgeId("edge-1")
        .build();
  }

  @Test
  void storedOffsetsAreWhatALoopStartsFrom() throws Exception {
    BatchWriter w = new BatchWriter(pool, "load");
    TelemetryIngesterIT.await(w.write(batch("load", 0, false, 0, 4, "app-load")));
    assertThat(TelemetryIngesterIT.await(w.loadOffsets(List.of(0, 1, 2)))).containsExactly(java.util.Map.entry(0, 4L));
    assertThatThrownBy(() -> TelemetryIngesterIT.await(new BatchWriter(pool, "load").write(batch("load", 0, false, 0, 1, "x"))))
        .hasCauseInstanceOf(BatchWriter.StaleBatchException.class);
  }

  @Test
  void storesEveryFieldInItsColumnAndMergesAnExistingRowByTheColumnsRules() throws Exception {
    BatchWriter w = new BatchWriter(pool, "fields");
    String app = "app-fields";
    long t = 1_767_261_600_000L; // 2026-01-01T10:00:00Z
    TopicPartition tp = new TopicPartition("fields", 0);
    // every field a distinct value, so that two columns swapped or one left out cannot go unnoticed
    CheckIn crashed = CheckIn.builder()
        .checkInId("ci-1").appId(app).platform("ios").runtimeVersion("1.0.0").channel("staging").clientId("dev-f")
        .currentUpdateId("emb-f").embeddedUpdateId("emb-f").failedUpdateIds(List.of("fail-1"))
        .outcome(CheckIn.OUTCOME_NO_UPDATE).reason(CheckIn.REASON_PREVIOUSLY_FAILED).branch("branch-1")
        .fatalError("TypeError: boom").atEpochMillis(t).edgeId("edge-1")
        .build();
    CheckIn newest = CheckIn.builder()
        .checkInId("ci-2").appId(app).platform("android").runtimeVersion("2.0.0").channel("production").clientId("dev-f")
        .currentUpdateId("cur-2").embeddedUpdateId("emb-2").failedUpdateIds(List.of("fail-2", "fail-3"))
        .outcome(CheckIn.OUTCOME_UPDATE).reason(CheckIn.REASON_NEW_UPDATE).branch("branch-2").inBranchRollout(true)
        .rolloutBucket(4_321).servedUpdateId("served-2").servedGroupId("group-2").atEpochMillis(t + 5_000)
        .edgeId("edge-2")
        .build();
    Batch one = new Batch(false);
    one.cover(tp, 0, false, 0);
    one.add(CheckIns.clean(crashed, 0));
    one.cover(tp, 0, false, 1);
    one.reject(tp, 1, "not a check-in: bad", "{\"x\":1}");
    TelemetryIngesterIT.await(w.write(one));
    Batch two = new Batch(false);
    two.cover(tp, 2, true, 2);
    two.add(CheckIns.clean(newest, 0));
    TelemetryIngesterIT.await(w.write(two));

    assertThat(db.rows("SELECT client_id, platform, runtime_version, channel, current_update_id, embedded_update_id,"
            + " source, check_ins, last_check_in_id, outcome, reason, branch, in_branch_rollout, rollout_bucket,"
            + " served_update_id, served_group_id, array_to_string(failed_update_ids, ','), fatal_error, edge_id,"
            + " (extract(epoch FROM first_seen) * 1000)::bigint, (extract(epoch FROM last_seen) * 1000)::bigint,"
            + " (extract(epoch FROM fatal_error_at) * 1000)::bigint, prev_update_id, prev_platform, prev_channel,"
            + " prev_source FROM devices WHERE app_id = ?", app))
        .as("the newest check-in's fields, the counts added up, the fatal error kept, the previous counting key")
        .containsExactly(List.of("dev-f", "android", "2.0.0", "production", "cur-2", "emb-2", Batch.SOURCE_OTA, 2L,
            "ci-2", CheckIn.OUTCOME_UPDATE, CheckIn.REASON_NEW_UPDATE, "branch-2", true, 4_321, "served-2", "group-2",
            "fail-2,fail-3", "TypeError: boom", "edge-2", t, t + 5_000, t, "emb-f", "ios", "staging",
            Batch.SOURCE_EMBEDDED));
    assertThat(db.counts("SELECT update_id || '|' || platform || '|' || channel || '|' || source, devices"
            + " FROM device_counts WHERE app_id = ? AND devices <> 0", app))
        .as("the device moved from its old counting key to its new one")
        .isEqualTo(Map.of("cur-2|android|production|" + Batch.SOURCE_OTA, 1L));
    assertThat(db.rows("SELECT update_id, platform, channel, (extract(epoch FROM hour) * 1000)::bigint, launches,"
            + " embedded_launches, failure_reports, served FROM update_hourly WHERE app_id = ? ORDER BY update_id", app))
        .containsExactly(
            List.of("cur-2", "android", "production", t, 1L, 0L, 0L, 0L),
            List.of("emb-f", "ios", "staging", t, 1L, 1L, 0L, 0L),
            List.of("fail-1", "ios", "staging", t, 0L, 0L, 1L, 0L),
            List.of("fail-2", "android", "production", t, 0L, 0L, 1L, 0L),
            List.of("fail-3", "android", "production", t, 0L, 0L, 1L, 0L),
            List.of("served-2", "android", "production", t, 0L, 0L, 0L, 1L));
    assertThat(db.rows("SELECT update_id, client_id, platform, (extract(epoch FROM first_reported) * 1000)::bigint,"
            + " (extract(epoch FROM last_reported) * 1000)::bigint, reports FROM update_failures WHERE app_id = ?"
            + " ORDER BY update_id", app))
        .containsExactly(
            List.of("fail-1", "dev-f", "ios", t, t, 1L),
            List.of("fail-2", "dev-f", "android", t + 5_000, t + 5_000, 1L),
            List.of("fail-3", "dev-f", "android", t + 5_000, t + 5_000, 1L));
    assertThat(db.rows("SELECT update_id, client_id, platform, (extract(epoch FROM first_served) * 1000)::bigint"
            + " FROM update_receipts WHERE app_id = ?", app))
        .containsExactly(List.of("served-2", "dev-f", "android", t + 5_000));
    assertThat(db.rows("SELECT topic, kafka_partition, record_offset, error, value_excerpt FROM ingest_rejects"
            + " WHERE topic = 'fields'"))
        .containsExactly(List.of("fields", 0, 1L, "not a check-in: bad", "{\"x\":1}"));
  }

  private static CheckIn refused(String app, String client, String reason, String runtime, String embedded, long at) {
    return CheckIn.builder()
        .checkInId(app + "-" + client + "-" + at)
        .appId(app)
        .platform("android")
        .runtimeVersion(runtime)
        .clientId(client)
        .currentUpdateId(embedded)
        .embeddedUpdateId(embedded)
        .outcome(CheckIn.OUTCOME_ERROR)
        .reason(reason)
        .atEpochMillis(1_767_261_600_000L + at)
        .edgeId("edge-1")
        .build();
  }

  @Test
  void countsRefusedRequestsAndDistinctDevicesPerReasonRuntimeAndEmbeddedUpdate() throws Exception {
    BatchWriter w = new BatchWriter(pool, "refusals");
    String app = "app-refusals";
    long t = 1_767_261_600_000L;
    TopicPartition tp = new TopicPartition("refusals", 0);
    List<CheckIn> first = List.of(
        refused(app, "d1", "missing-channel", "1.0.0", "e1", 1),
        refused(app, "d1", "missing-channel", "1.0.0", "e1", 2),
        refused(app, "d1", "missing-channel", "1.0.0", "e1", 3),
        refused(app, "d2", "missing-channel", "1.0.0", "e1", 4),
        refused(app, null, "missing-channel", "1.0.0", "e1", 5), // no client id: a request, not a device
        refused(app, "d3", "missing-channel", "2.0.0", "e2", 6),
        refused(app, "d3", "missing-runtime-version", null, null, 7),
        // no platform: the edge refused it for that; counted, but no device row (the registry is per platform)
        refused(app, "d5", "invalid-platform", "1.0.0", null, 8).toBuilder().platform(null).build(),
        // a platform that is not ios or android (web, or anything sent): the same, not a device of a "web" fleet
        refused(app, "d6", "invalid-platform", "1.0.0", null, 9).toBuilder().platform("web").build(),
        refused(app, "d7", "invalid-platform", "1.0.0", null, 12).toBuilder().platform("p".repeat(200)).build(),
        // refused for something checked before the platform, with a platform that is not one: counted, no device row
        refused(app, "d8", "unsupported-protocol-version", "1.0.0", null, 13).toBuilder().platform("x".repeat(300)).build(),
        TelemetryIngesterIT.checkIn(app, "served-1", "d1")); // answered: not a refusal
    Batch one = new Batch(false);
    for (int i = 0; i < first.size(); i++) {
      one.cover(tp, 0, false, i);
      one.add(CheckIns.clean(first.get(i), 0));
    }
    TelemetryIngesterIT.await(w.write(one));
    Batch two = new Batch(false);
    List<CheckIn> second = List.of(
        refused(app, "d1", "missing-channel", "1.0.0", "e1", 10), // refused again: the same device
        refused(app, "d4", "missing-channel", "1.0.0", "e1", 11));
    for (int i = 0; i < second.size(); i++) {
      two.cover(tp, first.size(), true, first.size() + i);
      two.add(CheckIns.clean(second.get(i), 0));
    }
    TelemetryIngesterIT.await(w.write(two));

    assertThat(db.rows("SELECT reason, runtime_version, embedded_update_id, devices, requests,"
            + " (extract(epoch FROM first_seen) * 1000)::bigint, (extract(epoch FROM last_seen) * 1000)::bigint"
            + " FROM refusals WHERE app_id = ? ORDER BY reason, runtime_version", app))
        .containsExactly(
            List.of("invalid-platform", "1.0.0", "", 3L, 3L, t + 8, t + 12),
            List.of("missing-channel", "1.0.0", "e1", 3L, 7L, t + 1, t + 11),
            List.of("missing-channel", "2.0.0", "e2", 1L, 1L, t + 6, t + 6),
            List.of("missing-runtime-version", "", "", 1L, 1L, t + 7, t + 7),
            List.of("unsupported-protocol-version", "1.0.0", "", 1L, 1L, t + 13, t + 13));
    assertThat(db.scalar("SELECT count(*) FROM refused_devices WHERE app_id = ?", app)).isEqualTo(9);
    assertThat(db.scalar("SELECT sum(requests) FROM refusals WHERE app_id = ?", app)).isEqualTo(13);
    assertThat(db.scalar("SELECT count(*) FROM devices WHERE app_id = ? AND client_id IN ('d5', 'd6', 'd7', 'd8')", app)).isZero();
    assertThat(db.scalar("SELECT count(*) FROM devices WHERE app_id = ? AND platform NOT IN ('ios', 'android')", app)).isZero();
  }

  @Test
  void keepsTheEntriesTheEdgePassedOverForADevice() throws Exception {
    BatchWriter w = new BatchWriter(pool, "skipped");
    String app = "app-skipped";
    TopicPartition tp = new TopicPartition("skipped", 0);
    CheckIn c = CheckIn.builder()
        .checkInId("sk-1").appId(app).platform("ios").runtimeVersion("1.0.0").channel("production").clientId("dev-s")
        .currentUpdateId("emb").embeddedUpdateId("emb").failedUpdateIds(List.of("u3", "u2"))
        .outcome(CheckIn.OUTCOME_UPDATE).reason(CheckIn.REASON_SKIPPED_FAILED).branch("production")
        .servedUpdateId("u1").skippedUpdateIds(List.of("u3", "u2")).atEpochMillis(1_767_261_600_000L).edgeId("edge-1")
        .build();
    Batch b = new Batch(false);
    b.cover(tp, 0, false, 0);
    b.add(CheckIns.clean(c, 0));
    TelemetryIngesterIT.await(w.write(b));

    assertThat(db.rows("SELECT reason, served_update_id, array_to_string(skipped_update_ids, ',') FROM devices"
            + " WHERE app_id = ?", app))
        .containsExactly(List.of(CheckIn.REASON_SKIPPED_FAILED, "u1", "u3,u2"));
  }

  private static CheckIn patch(String app, String client, String base, String embedded, String reason, long at) {
    return CheckIn.builder()
        .checkInId(app + "-" + client + "-" + reason + "-" + at).appId(app).platform("ios").runtimeVersion("1.0.0").clientId(client)
        .currentUpdateId(base).embeddedUpdateId(embedded).servedUpdateId("u2").outcome(CheckIn.OUTCOME_PATCH).reason(reason)
        .atEpochMillis(1_767_261_600_000L + at).edgeId("edge-1").build();
  }

  @Test
  void countsPatchesServedAndFailedPerBaseAndUpdateWithoutCountingThemAsLaunches() throws Exception {
    BatchWriter w = new BatchWriter(pool, "patches");
    String app = "app-patches";
    TopicPartition tp = new TopicPartition("patches", 0);
    List<CheckIn> all = List.of(
        patch(app, "d1", "u1", "emb", CheckIn.REASON_PATCH_SERVED, 1),
        patch(app, "d2", "u1", "emb", CheckIn.REASON_PATCH_SERVED, 2),
        patch(app, "d2", "u1", "emb", CheckIn.REASON_PATCH_FAILED, 3),
        patch(app, "d3", "emb", "emb", CheckIn.REASON_PATCH_SERVED, 4),
        patch(app, "d3", "emb", "emb", CheckIn.REASON_PATCH_FAILED, 5));
    Batch b = new Batch(false);
    for (int i = 0; i < all.size(); i++) {
      b.cover(tp, 0, false, i);
      b.add(CheckIns.clean(all.get(i), 0));
    }
    TelemetryIngesterIT.await(w.write(b));
    Batch more = new Batch(false);
    more.cover(tp, all.size(), true, all.size());
    more.add(CheckIns.clean(patch(app, "d4", "emb", "emb", CheckIn.REASON_PATCH_FAILED, 6), 0));
    // the full bundle sent (the fallback, and a plain full download): the download funnel's, never a patch served
    more.cover(tp, all.size(), true, all.size() + 1);
    more.add(CheckIns.clean(patch(app, "d4", "emb", "emb", CheckIn.REASON_FULL_SERVED, 7), 0));
    more.cover(tp, all.size(), true, all.size() + 2);
    more.add(CheckIns.clean(patch(app, "d5", "u1", "emb", CheckIn.REASON_FULL_SERVED, 8), 0));
    TelemetryIngesterIT.await(w.write(more));

    assertThat(db.rows("SELECT base_update_id, update_id, platform, from_embedded, served, failed FROM patch_outcomes"
            + " WHERE app_id = ? ORDER BY base_update_id", app))
        .containsExactly(List.of("emb", "u2", "ios", true, 1L, 2L), List.of("u1", "u2", "ios", false, 2L, 1L));
    assertThat(db.scalar("SELECT count(*) FROM devices WHERE app_id = ?", app)).as("no device row").isZero();
    assertThat(db.scalar("SELECT count(*) FROM update_hourly WHERE app_id = ?", app)).as("no launch").isZero();
    assertThat(db.rows("SELECT stage, client_id FROM update_funnel WHERE app_id = ? AND update_id = 'u2' ORDER BY stage, client_id", app))
        .as("the download funnel: each device's fetch of u2").containsExactly(List.of("full", "d4"), List.of("full", "d5"),
            List.of("patch", "d1"), List.of("patch", "d2"), List.of("patch", "d3"));
  }

  @Test
  void everyColumnOfTheWrittenTablesIsWrittenFromTheColumnTables() {
    Map<String, Upsert<?>> written = Map.ofEntries(
        Map.entry("update_device_totals", SetCounts.TOTALS),
        Map.entry("receipt_minutes", SetCounts.MINUTES),
        Map.entry("devices", Tables.DEVICES),
        Map.entry("device_counts", Tables.DEVICE_COUNTS),
        Map.entry("update_hourly", Tables.UPDATE_HOURLY),
        Map.entry("update_failures", Tables.UPDATE_FAILURES),
        Map.entry("update_crashes", Tables.UPDATE_CRASHES),
        Map.entry("update_receipts", Tables.UPDATE_RECEIPTS),
        Map.entry("ingest_rejects", Tables.INGEST_REJECTS),
        Map.entry("refusals", Tables.REFUSALS),
        Map.entry("refused_devices", Tables.REFUSED_DEVICES),
        Map.entry("patch_outcomes", Tables.PATCH_OUTCOMES));
    // columns no batch sends: set from the existing row on conflict, or by a DEFAULT
    Map<String, Set<String>> notSent = Map.of(
        "devices", Set.of("prev_update_id", "prev_platform", "prev_channel", "prev_source"),
        "ingest_rejects", Set.of("rejected_at"));
    for (Map.Entry<String, Upsert<?>> e : written.entrySet()) {
      Set<String> expected = new TreeSet<>(notSent.getOrDefault(e.getKey(), Set.of()));
      for (Upsert.Column<?> c : e.getValue().columns()) {
        expected.add(c.name());
      }
      Set<String> inDb = new HashSet<>();
      for (List<Object> r : db.rows("SELECT column_name FROM information_schema.columns"
          + " WHERE table_schema = current_schema() AND table_name = ?", e.getKey())) {
        inDb.add((String) r.get(0));
      }
      assertThat(new TreeSet<>(inDb))
          .as("columns of %s in the migrated schema vs the lines of its column table (Tables)", e.getKey())
          .isEqualTo(expected);
    }
  }
}
