package dev.updraft.ingester;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.updraft.common.Settings;
import dev.updraft.dbschema.SchemaMigrations;
import dev.updraft.events.CheckIn;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.Pool;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The device-set counters the insights read ({@link SetCounts}) written by the real {@link BatchWriter} and
 * the real {@link RetentionJob} into a real PostgreSQL: always equal to a count over the rows they count,
 * whatever the batches' boundaries and order, under redelivery, at 40,000 receipts in full batches, after retention.
 */
@ExtendWith(RealInfrastructure.class)
class SetCountsIT {
  static final Instant NOW = Instant.parse("2026-06-01T12:00:00Z");
  private static final AtomicInteger DATABASES = new AtomicInteger();
  private static final String[] UPDATES = {"u1-ios", "u2-ios", "u1-android"};

  private Vertx vertx;
  private Pool pool;
  private TestDb db;
  private PgConnectOptions options;
  private long nextOffset;

  @BeforeEach
  void freshDatabase(Infra infra) throws Exception {
    String name = infra.database() + "_sc" + DATABASES.incrementAndGet();
    TelemetryIngesterIT.db(infra).execute("CREATE DATABASE " + name);
    vertx = Vertx.vertx();
    options = IngesterConfig.pgOptions(TestDb.postgresUrl(infra.pgHost(), infra.pgPort(), name, infra.pgUser()));
    pool = TelemetryIngester.pool(vertx, options, 2, "set-counts-test");
    TelemetryIngesterIT.await(SchemaMigrations.apply(pool));
    db = new TestDb(infra.pgHost(), infra.pgPort(), name, infra.pgUser());
    nextOffset = 0;
  }

  @AfterEach
  void close() throws Exception {
    TelemetryIngesterIT.await(pool.close());
    TelemetryIngesterIT.await(vertx.close());
  }

  /** One check-in: served {@code served} (or nothing), reporting {@code failed} failed (or nothing). */
  static CheckIn checkIn(String app, String id, String client, String platform, String served, String failed, long at) {
    return CheckIn.builder()
        .checkInId(id).appId(app).platform(platform).runtimeVersion("1.0.0").channel("production").clientId(client)
        .currentUpdateId("emb-" + platform).embeddedUpdateId("emb-" + platform)
        .failedUpdateIds(failed == null ? List.of() : List.of(failed))
        .outcome(served == null ? CheckIn.OUTCOME_NO_UPDATE : CheckIn.OUTCOME_UPDATE)
        .reason(served == null ? CheckIn.REASON_ALREADY_LATEST : CheckIn.REASON_NEW_UPDATE)
        .branch("main").servedUpdateId(served).servedGroupId(served == null ? null : "g").atEpochMillis(at).edgeId("edge-1")
        .build();
  }

  /** Writes {@code checkIns} as consecutive records of one partition, in batches of the given sizes. */
  private void write(List<CheckIn> checkIns, Random sizes, int maxBatch) throws Exception {
    int i = 0;
    while (i < checkIns.size()) {
      int n = Math.min(checkIns.size() - i, 1 + sizes.nextInt(maxBatch));
      TelemetryIngesterIT.await(new BatchWriter(pool, "sets").write(batch(checkIns.subList(i, i + n))));
      i += n;
    }
  }

  private Batch batch(List<CheckIn> checkIns) {
    Batch b = new Batch(false);
    TopicPartition tp = new TopicPartition("sets", 0);
    long start = nextOffset;
    for (CheckIn c : checkIns) {
      b.cover(tp, start, start > 0, nextOffset++);
      b.add(CheckIns.clean(c, 0));
    }
    return b;
  }

  /**
   * Devices served some updates and reporting some failed, within two hours before {@link #NOW}, in a
   * shuffled order: a pair's failure may come before, after or in the same batch as its receipt.
   */
  private static List<CheckIn> fleet(String app, long seed, int devices, Map<String, Set<String>> received,
      Map<String, Set<String>> failed) {
    Random rnd = new Random(seed);
    List<CheckIn> out = new ArrayList<>();
    for (int d = 0; d < devices; d++) {
      String client = "dev-" + d;
      for (String u : UPDATES) {
        String platform = u.endsWith("ios") ? "ios" : "android";
        long at = NOW.toEpochMilli() - rnd.nextInt(7_200_000);
        if (rnd.nextInt(3) == 0) {
          out.add(checkIn(app, client + u + "s", client, platform, u, null, at));
          out.add(checkIn(app, client + u + "r", client, platform, u, null, at + 1000)); // a repeat: nothing new
          received.computeIfAbsent(u, k -> new HashSet<>()).add(client);
        }
        if (rnd.nextInt(4) == 0) {
          out.add(checkIn(app, client + u + "f", client, platform, null, u, at + rnd.nextInt(600_000) - 300_000));
          failed.computeIfAbsent(u, k -> new HashSet<>()).add(client);
        }
      }
    }
    Collections.shuffle(out, rnd);
    return out;
  }

  private Map<String, List<Long>> totals(String app) {
    Map<String, List<Long>> m = new HashMap<>();
    for (List<Object> r : db.rows("SELECT update_id, sum(received), sum(failed), sum(received + failed - received_failed)"
        + " FROM update_device_totals WHERE app_id = ? GROUP BY update_id", app)) {
      m.put((String) r.get(0), List.of(((Number) r.get(1)).longValue(), ((Number) r.get(2)).longValue(),
          ((Number) r.get(3)).longValue()));
    }
    return m;
  }

  private static Map<String, List<Long>> expected(Map<String, Set<String>> received, Map<String, Set<String>> failed) {
    Map<String, List<Long>> m = new HashMap<>();
    for (String u : UPDATES) {
      Set<String> r = received.getOrDefault(u, Set.of());
      Set<String> f = failed.getOrDefault(u, Set.of());
      Set<String> union = new HashSet<>(r);
      union.addAll(f);
      if (!union.isEmpty()) {
        m.put(u, List.of((long) r.size(), (long) f.size(), (long) union.size()));
      }
    }
    return m;
  }

  @Test
  void countersEqualARecountWhateverTheBatchBoundaries() throws Exception {
    String app = "app-sets";
    Map<String, Set<String>> received = new HashMap<>();
    Map<String, Set<String>> failed = new HashMap<>();
    List<CheckIn> list = fleet(app, 7, 300, received, failed);
    write(list, new Random(3), 80);

    assertThat(totals(app)).as("received, failed, received or failed per update").isEqualTo(expected(received, failed));
    SetCountsRecount.assertMatches(db, app);
  }

  @Test
  void aRedeliveredCheckInCountsNothingTwice() throws Exception {
    String app = "app-redelivered";
    Map<String, Set<String>> received = new HashMap<>();
    Map<String, Set<String>> failed = new HashMap<>();
    List<CheckIn> list = fleet(app, 11, 200, received, failed);
    write(list, new Random(5), 60);
    Set<String> totals = SetCountsRecount.strings(db, SetCountsRecount.TOTALS_SQL, app);
    Set<String> minutes = SetCountsRecount.strings(db, SetCountsRecount.MINUTES_SQL, app);

    // the same batch again at the offsets it was written at: refused whole
    nextOffset -= 10;
    Batch replay = batch(list.subList(list.size() - 10, list.size()));
    assertThatThrownBy(() -> TelemetryIngesterIT.await(new BatchWriter(pool, "sets").write(replay)))
        .hasRootCauseInstanceOf(BatchWriter.StaleBatchException.class);
    // every check-in again at new offsets (a producer's retry, an edge's resend): applied, counting nothing new
    write(list, new Random(6), 90);

    assertThat(SetCountsRecount.strings(db, SetCountsRecount.TOTALS_SQL, app)).as("totals unchanged").isEqualTo(totals);
    assertThat(SetCountsRecount.strings(db, SetCountsRecount.MINUTES_SQL, app)).as("minutes unchanged").isEqualTo(minutes);
    assertThat(totals(app)).isEqualTo(expected(received, failed));
    SetCountsRecount.assertMatches(db, app);
  }

  @Test
  void receiptsInFullBatchesAreCountedExactly() throws Exception {
    String app = "app-fleet";
    // 40,000 devices in full batches of 10,000 (200,000 took three minutes on a loaded 2-core machine:
    // sizes beyond this belong in load/bench/insights-scale.sh)
    int devices = 40_000;
    List<CheckIn> list = new ArrayList<>(devices + devices / 7 + 1);
    long failing = 0;
    for (int d = 0; d < devices; d++) {
      String platform = d % 4 == 0 ? "android" : "ios";
      String update = "big-" + platform;
      long at = NOW.toEpochMilli() - (d * 37L) % 86_400_000L;
      list.add(checkIn(app, "s" + d, "dev-" + d, platform, update, null, at));
      if (d % 7 == 0) {
        list.add(checkIn(app, "f" + d, "dev-" + d, platform, null, update, at + 60_000));
        failing++;
      }
    }
    for (int i = 0; i < list.size(); i += 10_000) {
      TelemetryIngesterIT.await(new BatchWriter(pool, "sets").write(batch(list.subList(i, Math.min(list.size(), i + 10_000)))));
    }

    assertThat(db.scalar("SELECT sum(received) FROM update_device_totals WHERE app_id = ?", app))
        .isEqualTo(db.scalar("SELECT count(*) FROM update_receipts WHERE app_id = ?", app)).isEqualTo(devices);
    assertThat(db.scalar("SELECT sum(failed) FROM update_device_totals WHERE app_id = ?", app))
        .isEqualTo(db.scalar("SELECT count(*) FROM update_failures WHERE app_id = ?", app)).isEqualTo(failing);
    assertThat(db.scalar("SELECT sum(received) FROM receipt_minutes WHERE app_id = ?", app)).isEqualTo(devices);
    assertThat(db.scalar("SELECT sum(failed) FROM receipt_minutes WHERE app_id = ?", app)).isEqualTo(failing);
    SetCountsRecount.assertMatches(db, app);
  }

  @Test
  void retentionTakesTheRowsItDeletesOutOfTheCounters() throws Exception {
    String app = "app-aged";
    RetentionFleet fleet = RetentionFleet.generate(app, NOW, 13, 400);
    // failures of updates served earlier, so that pairs lose their receipt first, their failure later, or both
    List<CheckIn> list = new ArrayList<>(fleet.checkIns);
    Random rnd = new Random(17);
    for (int d = 0; d < 200; d++) {
      long served = NOW.toEpochMilli() - (20 + rnd.nextInt(60)) * RetentionFleet.DAY;
      list.add(checkIn(app, "x-s" + d, "old-" + d, "ios", "u3-ios", null, served));
      list.add(checkIn(app, "x-f" + d, "old-" + d, "ios", null, "u3-ios", served + rnd.nextInt(30) * RetentionFleet.DAY));
    }
    write(list, new Random(19), 150);
    SetCountsRecount.assertMatches(db, app);

    RetentionConfig config = RetentionConfig.from(Settings.of(Map.of("postgres-retention-receipts", "40d",
        "postgres-retention-failures", "30d", "postgres-retention-batch", "97"), Map.of()));
    RetentionJob.Run run = new RetentionJob(vertx, options, config, new RetentionMetrics(new SimpleMeterRegistry()),
        Clock.fixed(NOW, ZoneOffset.UTC), RetentionJob.Hook.NONE).runOnce();

    assertThat(run.outcome()).isEqualTo(RetentionJob.Outcome.COMPLETED);
    assertThat(run.deleted(RetainedTable.RECEIPTS)).as("receipts deleted").isPositive();
    assertThat(run.deleted(RetainedTable.FAILURES)).as("failures deleted").isPositive();
    SetCountsRecount.assertMatches(db, app);
    assertThat(db.scalar("SELECT count(*) FROM receipt_minutes WHERE received = 0 AND failed = 0"))
        .as("no empty minute left").isZero();
  }
}
