package dev.updraft.ingester;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.updraft.dbschema.SchemaMigrations;
import dev.updraft.events.CheckIn;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import java.util.List;
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

  @BeforeAll
  static void connect(Infra infra) throws Exception {
    vertx = Vertx.vertx();
    pool = TelemetryIngester.pool(vertx,
        IngesterConfig.pgOptions(TestDb.postgresUrl(infra.pgHost(), infra.pgPort(), infra.database(), infra.pgUser())), 2, "test");
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

  private static Throwable failure(BatchWriter w, Batch b) {
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
}
