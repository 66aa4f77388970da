package dev.updraft.ingester;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.common.Settings;
import dev.updraft.dbschema.SchemaMigrations;
import dev.updraft.events.CheckIn;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.Pool;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The retention job against a real PostgreSQL, its rows written by the real {@link BatchWriter}: what
 * goes and what stays per table, bounded batches, the device counts against a recount, a check-in racing
 * the deletion of its device (both orders, made to happen with row locks), the advisory lock.
 */
@ExtendWith(RealInfrastructure.class)
class RetentionIT {
  static final Instant NOW = Instant.parse("2026-06-01T12:00:00Z");
  private static final AtomicInteger DATABASES = new AtomicInteger();

  private Vertx vertx;
  private Pool pool;
  private TestDb db;
  private String jdbcUrl;
  private PgConnectOptions options;
  private long nextOffset;

  @BeforeEach
  void freshDatabase(Infra infra) throws Exception {
    String name = infra.database() + "_r" + DATABASES.incrementAndGet();
    TelemetryIngesterIT.db(infra).execute("CREATE DATABASE " + name);
    vertx = Vertx.vertx();
    options = IngesterConfig.pgOptions(TestDb.postgresUrl(infra.pgHost(), infra.pgPort(), name, infra.pgUser()));
    pool = TelemetryIngester.pool(vertx, options, 4, "retention-test-writer");
    TelemetryIngesterIT.await(SchemaMigrations.apply(pool));
    db = new TestDb(infra.pgHost(), infra.pgPort(), name, infra.pgUser());
    jdbcUrl = "jdbc:postgresql://" + infra.pgHost() + ":" + infra.pgPort() + "/" + name + "?user=" + infra.pgUser();
    nextOffset = 0;
  }

  @AfterEach
  void close() throws Exception {
    TelemetryIngesterIT.await(pool.close());
    TelemetryIngesterIT.await(vertx.close());
  }

  private RetentionJob job(Map<String, String> flags, RetentionJob.Hook hook) {
    RetentionConfig config = RetentionConfig.from(Settings.of(flags, Map.of()));
    return new RetentionJob(vertx, options, config, new RetentionMetrics(new SimpleMeterRegistry()),
        Clock.fixed(NOW, ZoneOffset.UTC), hook);
  }

  /** Writes the check-ins as the ingester does: one batch through the real writer. */
  private void write(List<CheckIn> checkIns) throws Exception {
    TelemetryIngesterIT.await(new BatchWriter(pool, "retention").write(batch(checkIns)));
  }

  private Batch batch(List<CheckIn> checkIns) {
    Batch b = new Batch(false);
    TopicPartition tp = new TopicPartition("retention", 0);
    long start = nextOffset;
    for (CheckIn c : checkIns) {
      b.cover(tp, start, start > 0, nextOffset++);
      b.add(CheckIns.clean(c, 0));
    }
    return b;
  }

  /** {@code device_counts} (non-zero rows) as "update|platform|channel|source" to devices. */
  private Map<String, Long> deviceCounts(String app) {
    return db.counts("SELECT update_id || '|' || platform || '|' || channel || '|' || source, devices FROM device_counts"
        + " WHERE app_id = ? AND devices <> 0", app);
  }

  /** The same, counted afresh from the registry. */
  private Map<String, Long> recount(String app) {
    return db.counts("SELECT coalesce(current_update_id, '') || '|' || platform || '|' || coalesce(channel, '') || '|'"
        + " || source, count(*) FROM devices WHERE app_id = ? GROUP BY 1", app);
  }

  private Set<String> strings(String sql, Object... params) {
    Set<String> s = new HashSet<>();
    for (List<Object> r : db.rows(sql, params)) {
      s.add(r.get(0).toString());
    }
    return s;
  }

  @Test
  void deletesWhatIsOlderThanEachTablesRetentionAndKeepsTheRestWithExactDeviceCounts() throws Exception {
    String app = "app-ages";
    RetentionFleet fleet = RetentionFleet.generate(app, NOW, 11, 400);
    write(fleet.checkIns);
    // rejected records age by the time they were stored
    write(List.of(RetentionFleet.checkIn(app, "r", "dev-r", "ios", null, "u1-ios", List.of(), false, NOW.toEpochMilli())));
    db.execute("INSERT INTO ingest_rejects (topic, kafka_partition, record_offset, error, rejected_at) VALUES"
        + " ('t', 0, 1, 'bad', '2026-01-01T00:00:00Z'), ('t', 0, 2, 'bad', '2026-05-30T00:00:00Z'),"
        + " ('t', 1, 1, 'bad', '2025-01-01T00:00:00Z')");
    Duration devices = Duration.ofDays(90);
    Duration receipts = Duration.ofDays(60);
    Duration failures = Duration.ofDays(30);
    Duration hourly = Duration.ofDays(180);
    Map<String, String> flags = Map.of("postgres-retention", "90d", "postgres-retention-receipts", "60d",
        "postgres-retention-failures", "30d", "postgres-retention-hourly", "180d", "postgres-retention-rejects", "30d");
    RetentionFleet expected = RetentionFleet.generate(app, NOW, 11, 400);
    expected.checkIns.add(RetentionFleet.checkIn(app, "r", "dev-r", "ios", null, "u1-ios", List.of(), false, NOW.toEpochMilli()));
    assertThat(expected.devices(devices).size()).as("the fleet has old and young devices").isBetween(100, 300);
    assertThat(deviceCounts(app)).as("before: every device counted").isEqualTo(expected.deviceCounts(null));

    RetentionJob.Run run = job(flags, RetentionJob.Hook.NONE).runOnce();

    assertThat(run.outcome()).isEqualTo(RetentionJob.Outcome.COMPLETED);
    assertThat(strings("SELECT client_id FROM devices WHERE app_id = ?", app))
        .as("devices last seen within 90 days").isEqualTo(expected.devices(devices).keySet());
    assertThat(deviceCounts(app)).as("device_counts: the devices that remain").isEqualTo(expected.deviceCounts(devices))
        .isEqualTo(recount(app));
    assertThat(db.scalar("SELECT count(*) FROM device_counts WHERE devices = 0")).as("no empty counters left").isZero();
    assertThat(strings("SELECT update_id || '|' || client_id FROM update_receipts WHERE app_id = ?", app))
        .as("receipts first served within 60 days").isEqualTo(expected.receipts(receipts));
    assertThat(strings("SELECT update_id || '|' || client_id FROM update_failures WHERE app_id = ?", app))
        .as("failures last reported within 30 days").isEqualTo(expected.failures(failures));
    assertThat(strings("SELECT update_id || '|' || (extract(epoch FROM hour) * 1000)::bigint || '|' || platform || '|'"
        + " || channel FROM update_hourly WHERE app_id = ?", app))
        .as("hours not wholly older than 180 days").isEqualTo(expected.hours(hourly));
    assertThat(strings("SELECT kafka_partition || ':' || record_offset FROM ingest_rejects")).containsExactly("0:2");
    assertThat(run.deleted(RetainedTable.DEVICES))
        .isEqualTo(expected.devices(null).size() - expected.devices(devices).size());
    assertThat(run.deleted(RetainedTable.REJECTS)).isEqualTo(2);
    assertThat(run.deleted(RetainedTable.RECEIPTS)).isPositive();
    assertThat(run.deleted(RetainedTable.HOURLY)).isPositive();

    RetentionJob.Run again = job(flags, RetentionJob.Hook.NONE).runOnce();
    assertThat(again.outcome()).isEqualTo(RetentionJob.Outcome.COMPLETED);
    for (RetainedTable t : RetainedTable.values()) {
      assertThat(again.deleted(t)).as("a second run finds nothing more in %s", t.table).isZero();
    }
  }

  @Test
  void ageOutErrorReportsCrashesFunnelRowsKeyAsksPatchOutcomesAndDeadLettersByTheirOwnFlags() throws Exception {
    // per table: rows aged 2, 20, 45 and 400 days; flags 7d (funnel, dead letters: only the 2-day rows stay),
    // 30d (errors, crashes, key asks: 2 and 20 stay) and 60d (patch outcomes: 2, 20 and 45 stay)
    int[] ages = {2, 20, 45, 400};
    for (int i = 0; i < ages.length; i++) {
      String at = "'" + NOW.minus(Duration.ofDays(ages[i])) + "'";
      for (int d = 0; d < 3; d++) { // three rows per age, so the key walk (batch 2) crosses ages
        String id = ages[i] + "-" + d;
        db.execute("INSERT INTO error_reports (report_id, app_id, group_key, source, fatal, occurred_at, received_at)"
            + " VALUES ('r" + id + "', 'app', 'g', 'otlp-logs', false, " + at + ", " + at + ")");
        db.execute("INSERT INTO update_funnel VALUES ('app', 'u" + d + "', 'served', 'dev-" + id + "', 'ios', " + at + ")");
        db.execute("INSERT INTO update_crashes VALUES ('app', 'u" + d + "', 'dev-" + id + "', 'ios', " + at + ", " + at + ", 1, 'b')");
        db.execute("INSERT INTO key_asks VALUES ('app', 'main', 'dev-" + id + "', " + at + ")");
        db.execute("INSERT INTO patch_outcomes VALUES ('app', 'b" + id + "', 'u', 'ios', false, 3, 1, " + at + ")");
        db.execute("INSERT INTO ingest_dead_letters (topic, kafka_partition, record_offset, error, attempts, dead_lettered_at)"
            + " VALUES ('t', " + i + ", " + d + ", 'bad', 3, " + at + ")");
      }
    }
    Map<String, String> flags = Map.of("postgres-retention-funnel", "7d", "postgres-retention-dead-letters", "7d",
        "postgres-retention-errors", "30d", "postgres-retention-crashes", "30d", "postgres-retention-key-asks", "30d", "postgres-retention-patch-outcomes", "60d",
        "postgres-retention-batch", "2");

    RetentionJob.Run run = job(flags, RetentionJob.Hook.NONE).runOnce();

    assertThat(run.outcome()).isEqualTo(RetentionJob.Outcome.COMPLETED);
    assertThat(strings("SELECT report_id FROM error_reports")).containsExactlyInAnyOrder("r2-0", "r2-1", "r2-2", "r20-0",
        "r20-1", "r20-2");
    assertThat(strings("SELECT client_id FROM update_funnel")).containsExactlyInAnyOrder("dev-2-0", "dev-2-1", "dev-2-2");
    assertThat(strings("SELECT client_id FROM update_crashes")).containsExactlyInAnyOrder("dev-2-0", "dev-2-1", "dev-2-2",
        "dev-20-0", "dev-20-1", "dev-20-2");
    assertThat(strings("SELECT client_id FROM key_asks")).containsExactlyInAnyOrder("dev-2-0", "dev-2-1", "dev-2-2",
        "dev-20-0", "dev-20-1", "dev-20-2");
    assertThat(strings("SELECT base_update_id FROM patch_outcomes")).containsExactlyInAnyOrder("b2-0", "b2-1", "b2-2",
        "b20-0", "b20-1", "b20-2", "b45-0", "b45-1", "b45-2");
    assertThat(strings("SELECT kafka_partition || ':' || record_offset FROM ingest_dead_letters"))
        .containsExactlyInAnyOrder("0:0", "0:1", "0:2");
    assertThat(run.deleted(RetainedTable.ERRORS)).isEqualTo(6);
    assertThat(run.deleted(RetainedTable.FUNNEL)).isEqualTo(9);
    assertThat(run.deleted(RetainedTable.CRASHES)).isEqualTo(6);
    assertThat(run.deleted(RetainedTable.KEY_ASKS)).isEqualTo(6);
    assertThat(run.deleted(RetainedTable.PATCH_OUTCOMES)).isEqualTo(3);
    assertThat(run.deleted(RetainedTable.DEAD_LETTERS)).isEqualTo(9);
    assertThat(run.batches(RetainedTable.ERRORS)).as("by the time index, 2 at a time: three full, then one that finds none")
        .isEqualTo(4);
    assertThat(run.deleted(RetainedTable.DEVICES)).as("no flag, nothing deleted").isZero();
  }

  @Test
  void deletesMoreRowsThanOneBatchInSeveralBoundedBatches() throws Exception {
    String app = "app-batches";
    List<CheckIn> checkIns = new ArrayList<>();
    for (int i = 0; i < 150; i++) {
      boolean old = i % 3 != 0; // 100 old, 50 young
      long at = NOW.toEpochMilli() - (old ? 100 : 1) * RetentionFleet.DAY - i * 1_000L;
      checkIns.add(RetentionFleet.checkIn(app, "b" + i, String.format("dev-%03d", i), "ios", "production",
          i % 2 == 0 ? "u1-ios" : "u2-ios", List.of(), true, at));
    }
    write(checkIns);
    List<Long> devicesAtEachCommit = new ArrayList<>();
    List<Long> receiptsAtEachCommit = new ArrayList<>();
    RetentionJob.Hook watch = (table, n) -> {
      // what other sessions see right before this batch commits: the previous batches' work
      if (table == RetainedTable.DEVICES) {
        devicesAtEachCommit.add(db.scalar("SELECT count(*) FROM devices"));
      } else if (table == RetainedTable.RECEIPTS) {
        receiptsAtEachCommit.add(db.scalar("SELECT count(*) FROM update_receipts"));
      }
    };
    RetentionJob.Run run =
        job(Map.of("postgres-retention-devices", "30d", "postgres-retention-receipts", "30d", "postgres-retention-batch", "7"),
            watch).runOnce();

    assertThat(run.outcome()).isEqualTo(RetentionJob.Outcome.COMPLETED);
    assertThat(run.deleted(RetainedTable.DEVICES)).isEqualTo(100);
    assertThat(run.deleted(RetainedTable.RECEIPTS)).isEqualTo(100);
    assertThat(db.scalar("SELECT count(*) FROM devices")).isEqualTo(50);
    assertThat(db.scalar("SELECT count(*) FROM update_receipts")).isEqualTo(50);
    // the registry is walked 7 keys at a time: 150 rows, 22 ranges (the walk's end needs no transaction)
    assertThat(run.batches(RetainedTable.DEVICES)).isEqualTo(22);
    // receipts by their time index: 14 full batches of 7 and one of 2
    assertThat(run.batches(RetainedTable.RECEIPTS)).isEqualTo(15);
    devicesAtEachCommit.add(50L);
    receiptsAtEachCommit.add(50L);
    for (List<Long> seen : List.of(devicesAtEachCommit, receiptsAtEachCommit)) {
      assertThat(seen.get(0)).isEqualTo(150);
      for (int i = 1; i < seen.size(); i++) {
        assertThat(seen.get(i - 1) - seen.get(i)).as("rows one transaction deleted").isBetween(0L, 7L);
      }
    }
    assertThat(deviceCounts(app)).isEqualTo(recount(app)).isEqualTo(Map.of("u1-ios|ios|production|ota", 25L,
        "u2-ios|ios|production|ota", 25L));
  }

  @Test
  void aCheckInWaitingForItsDevicesDeletionRecreatesTheDeviceCountedOnce() throws Exception {
    String app = "app-race-a";
    long old = NOW.toEpochMilli() - 100 * RetentionFleet.DAY;
    write(List.of(
        RetentionFleet.checkIn(app, "a1", "dev-a", "ios", "production", "u1-ios", List.of(), false, old),
        RetentionFleet.checkIn(app, "b1", "dev-b", "ios", "production", "u1-ios", List.of(), false, old),
        RetentionFleet.checkIn(app, "c1", "dev-c", "ios", "production", "u1-ios", List.of(), false, NOW.toEpochMilli())));
    CountDownLatch deletedNotCommitted = new CountDownLatch(1);
    CountDownLatch commit = new CountDownLatch(1);
    RetentionJob job = job(Map.of("postgres-retention-devices", "30d"), (table, n) -> {
      deletedNotCommitted.countDown();
      await(commit);
    });
    CompletableFuture<RetentionJob.Run> run = CompletableFuture.supplyAsync(job::runOnce);
    await(deletedNotCommitted);
    assertThat(db.scalar("SELECT count(*) FROM devices WHERE app_id = ?", app)).as("not committed yet").isEqualTo(3);

    // dev-a checks in again on another update while its deletion is in flight: the upsert waits for it
    Batch checkIn = batch(List.of(
        RetentionFleet.checkIn(app, "a2", "dev-a", "ios", "production", "u2-ios", List.of(), false, NOW.toEpochMilli())));
    CompletableFuture<Integer> written =
        new BatchWriter(pool, "retention").write(checkIn).toCompletionStage().toCompletableFuture();
    awaitLockWait("retention-test-writer");
    assertThat(written).isNotDone();
    commit.countDown();

    assertThat(run.get(60, TimeUnit.SECONDS).deleted(RetainedTable.DEVICES)).isEqualTo(2);
    assertThat(written.get(60, TimeUnit.SECONDS)).isEqualTo(1);
    assertThat(db.rows("SELECT client_id, current_update_id, check_ins FROM devices WHERE app_id = ? ORDER BY client_id", app))
        .as("dev-a is back as a new device, dev-b is gone")
        .containsExactly(List.of("dev-a", "u2-ios", 1L), List.of("dev-c", "u1-ios", 1L));
    assertThat(deviceCounts(app)).isEqualTo(recount(app))
        .isEqualTo(Map.of("u1-ios|ios|production|ota", 1L, "u2-ios|ios|production|ota", 1L));
  }

  @Test
  void aDeviceBeingWrittenIsSkippedNotWaitedForAndItsCountsStayExact() throws Exception {
    String app = "app-race-b";
    long old = NOW.toEpochMilli() - 100 * RetentionFleet.DAY;
    // dev-b on a counter of its own: retention waits (briefly, in key order) for a counter row an ingester
    // holds, which here would be held until the end of the test
    write(List.of(
        RetentionFleet.checkIn(app, "a1", "dev-a", "ios", "production", "u1-ios", List.of(), false, old),
        RetentionFleet.checkIn(app, "b1", "dev-b", "ios", "beta", "u1-ios", List.of(), false, old),
        RetentionFleet.checkIn(app, "c1", "dev-c", "ios", "staging", "u2-ios", List.of(), false, NOW.toEpochMilli())));
    try (Connection holder = DriverManager.getConnection(jdbcUrl); Statement st = holder.createStatement()) {
      // an ingester's batch moving dev-a to u2 on staging gets stuck on that counter (held here), after its
      // device upsert: dev-a's row is locked by a transaction that has not committed
      holder.setAutoCommit(false);
      st.execute("SELECT devices FROM device_counts WHERE app_id = '" + app + "' AND update_id = 'u2-ios'"
          + " AND channel = 'staging' FOR UPDATE");
      Batch checkIn = batch(List.of(
          RetentionFleet.checkIn(app, "a2", "dev-a", "ios", "staging", "u2-ios", List.of(), false, NOW.toEpochMilli())));
      CompletableFuture<Integer> written =
          new BatchWriter(pool, "retention").write(checkIn).toCompletionStage().toCompletableFuture();
      awaitLockWait("retention-test-writer");

      RetentionJob.Run run = CompletableFuture.supplyAsync(job(Map.of("postgres-retention-devices", "30d"),
          RetentionJob.Hook.NONE)::runOnce).get(30, TimeUnit.SECONDS);
      assertThat(run.outcome()).as("finished without waiting for the ingester").isEqualTo(RetentionJob.Outcome.COMPLETED);
      assertThat(run.deleted(RetainedTable.DEVICES)).as("dev-b only: dev-a was locked").isEqualTo(1);
      holder.commit();
      assertThat(written.get(60, TimeUnit.SECONDS)).isEqualTo(1);
    }
    assertThat(strings("SELECT client_id FROM devices WHERE app_id = ?", app)).containsExactlyInAnyOrder("dev-a", "dev-c");
    assertThat(deviceCounts(app)).isEqualTo(recount(app)).isEqualTo(Map.of("u2-ios|ios|staging|ota", 2L));
    // dev-a is young now: the next run leaves it
    assertThat(job(Map.of("postgres-retention-devices", "30d"), RetentionJob.Hook.NONE).runOnce()
        .deleted(RetainedTable.DEVICES)).isZero();
  }

  @Test
  void onlyOneInstanceWorksAtATimeAndAFailureIsAValue() throws Exception {
    String app = "app-lock";
    write(List.of(RetentionFleet.checkIn(app, "a1", "dev-a", "ios", null, "u1-ios", List.of(), false,
        NOW.toEpochMilli() - 100 * RetentionFleet.DAY)));
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    RetentionJob job = new RetentionJob(vertx, options, RetentionConfig.from(Settings.of(Map.of("postgres-retention-devices",
        "30d"), Map.of())), new RetentionMetrics(meters), Clock.fixed(NOW, ZoneOffset.UTC), RetentionJob.Hook.NONE);
    try (Connection other = DriverManager.getConnection(jdbcUrl); Statement st = other.createStatement()) {
      st.execute("SELECT pg_advisory_lock(" + RetentionJob.LOCK_KEY + ")"); // another ingester's run
      RetentionJob.Run skipped = job.runOnce();
      assertThat(skipped.outcome()).isEqualTo(RetentionJob.Outcome.SKIPPED);
      assertThat(db.scalar("SELECT count(*) FROM devices")).isEqualTo(1);
      st.execute("SELECT pg_advisory_unlock(" + RetentionJob.LOCK_KEY + ")");
    }
    assertThat(job.runOnce().outcome()).isEqualTo(RetentionJob.Outcome.COMPLETED);
    assertThat(db.scalar("SELECT count(*) FROM devices")).isZero();
    assertThat(db.scalar("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'"
        + " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())")).as("released with the run").isZero();

    PgConnectOptions nowhere = new PgConnectOptions(options).setPort(dev.updraft.embedded.Ports.freePort());
    SimpleMeterRegistry downMeters = new SimpleMeterRegistry();
    RetentionJob down = new RetentionJob(vertx, nowhere, RetentionConfig.from(Settings.of(Map.of("postgres-retention-devices",
        "30d"), Map.of())), new RetentionMetrics(downMeters), Clock.fixed(NOW, ZoneOffset.UTC), RetentionJob.Hook.NONE);
    RetentionJob.Run failed = down.runOnce();
    assertThat(failed.outcome()).isEqualTo(RetentionJob.Outcome.FAILED);
    assertThat(failed.error()).containsIgnoringCase("connect");
    assertThat(downMeters.get("updraft.retention.runs").tag("outcome", "failed").counter().count()).isEqualTo(1.0);
    assertThat(downMeters.get("updraft.retention.last.completed").gauge().value()).isZero();
    assertThat(meters.get("updraft.retention.runs").tag("outcome", "completed").counter().count()).isEqualTo(1.0);
    assertThat(meters.get("updraft.retention.runs").tag("outcome", "skipped").counter().count()).isEqualTo(1.0);
    assertThat(meters.get("updraft.retention.runs").tag("outcome", "failed").counter().count()).isZero();
    assertThat(meters.get("updraft.retention.rows").tag("table", "devices").counter().count()).isEqualTo(1.0);
    assertThat(meters.get("updraft.retention.last.completed").gauge().value()).isEqualTo(NOW.getEpochSecond());
    assertThat(meters.get("updraft.retention.duration").timer().count()).isEqualTo(1);
  }

  /** Waits until a session of {@code application} waits for a row lock. */
  private void awaitLockWait(String application) {
    TestDb.await(() -> db.scalar("SELECT count(*) FROM pg_stat_activity WHERE application_name = ? AND wait_event_type = 'Lock'",
        application) > 0, Duration.ofSeconds(30), () -> application + " never waited for a lock");
  }

  private static void await(CountDownLatch latch) {
    try {
      if (!latch.await(60, TimeUnit.SECONDS)) {
        throw new AssertionError("latch not released in 60 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }
}
