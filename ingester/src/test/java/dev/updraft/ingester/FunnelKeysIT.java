package dev.updraft.ingester;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.common.Settings;
import dev.updraft.dbschema.SchemaMigrations;
import dev.updraft.events.CheckIn;
import dev.updraft.ingester.funnel.FunnelKeys;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.Pool;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The funnel keys an ingester remembers ({@link FunnelKeys}, {@code --ingest-funnel-cache}) against a real PostgreSQL,
 * written by the real {@link BatchWriter}: what each write sends is seen by a trigger of this test on
 * {@code update_funnel} that notes every row an insert proposes (a {@code BEFORE INSERT} trigger fires for a row that
 * then conflicts too), what is stored by reading the table. Repeated check-ins send their rows once; rows deleted by
 * retention (run by another ingester) or by hand are written again by the next check-in; a partition that moves between
 * ingesters loses nothing, and a write refused as stale teaches nothing. A database of its own per test.
 */
@ExtendWith(RealInfrastructure.class)
class FunnelKeysIT {
  static final Instant NOW = Instant.parse("2026-06-01T12:00:00Z");
  static final String APP = "app-funnel-keys";
  static final String U1 = "11111111-0000-4000-8000-000000000001";
  static final String U2 = "22222222-0000-4000-8000-000000000002";
  private static final AtomicInteger DATABASES = new AtomicInteger();

  private Vertx vertx;
  private Pool pool;
  private TestDb db;
  private PgConnectOptions options;
  private int checkIns;

  @BeforeEach
  void freshDatabase(Infra infra) throws Exception {
    String name = infra.database() + "_fk" + DATABASES.incrementAndGet();
    TelemetryIngesterIT.db(infra).execute("CREATE DATABASE " + name);
    vertx = Vertx.vertx();
    options = IngesterConfig.pgOptions(TestDb.postgresUrl(infra.pgHost(), infra.pgPort(), name, infra.pgUser()));
    pool = TelemetryIngester.pool(vertx, options, 4, "funnel-keys-test");
    TelemetryIngesterIT.await(SchemaMigrations.apply(pool));
    db = new TestDb(infra.pgHost(), infra.pgPort(), name, infra.pgUser());
    db.execute("CREATE TABLE funnel_proposed (update_id text, stage text, client_id text)");
    db.execute("CREATE FUNCTION note_funnel_proposal() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
        + " INSERT INTO funnel_proposed VALUES (NEW.update_id, NEW.stage, NEW.client_id); RETURN NEW; END $$");
    db.execute("CREATE TRIGGER note_funnel_proposal BEFORE INSERT ON update_funnel FOR EACH ROW"
        + " EXECUTE FUNCTION note_funnel_proposal()");
  }

  @AfterEach
  void close() throws Exception {
    TelemetryIngesterIT.await(pool.close());
    TelemetryIngesterIT.await(vertx.close());
  }

  /** A manifest request from a device running U1, answered with U2: its rows are U1 launched and U2 served. */
  private CheckIn checkIn(String client, Instant at) {
    return CheckIn.builder()
        .checkInId("fk-" + checkIns++)
        .appId(APP)
        .platform("ios")
        .runtimeVersion("1.0.0")
        .channel("production")
        .clientId(client)
        .currentUpdateId(U1)
        .embeddedUpdateId("e")
        .outcome(CheckIn.OUTCOME_UPDATE)
        .reason(CheckIn.REASON_NEW_UPDATE)
        .servedUpdateId(U2)
        .servedGroupId("g2")
        .rolloutBucket(1)
        .branch("production")
        .atEpochMillis(at.toEpochMilli())
        .edgeId("edge-1")
        .build();
  }

  /** One batch of partition 0 of {@code topic} from offset {@code first}: each device's check-in at {@code at}. */
  private Batch batch(String topic, long first, Instant at, String... clients) {
    Batch b = new Batch(false);
    TopicPartition tp = new TopicPartition(topic, 0);
    long offset = first;
    for (String c : clients) {
      b.cover(tp, first, first > 0, offset++);
      b.add(CheckIns.clean(checkIn(c, at), 0));
    }
    return b;
  }

  private static void write(BatchWriter w, Batch b) throws Exception {
    TelemetryIngesterIT.await(w.write(b));
  }

  /** "update|stage|client" to the rows its inserts proposed. */
  private Map<String, Long> proposed() {
    return db.counts("SELECT update_id || '|' || stage || '|' || client_id, count(*) FROM funnel_proposed GROUP BY 1");
  }

  /** "update|stage|client" to first_at, epoch milliseconds. */
  private Map<String, Long> stored() {
    return db.counts("SELECT update_id || '|' || stage || '|' || client_id, (extract(epoch FROM first_at) * 1000)::bigint"
        + " FROM update_funnel");
  }

  /** Every device's two rows with one number. */
  private static Map<String, Long> each(long n, String... clients) {
    Map<String, Long> m = new HashMap<>();
    for (String c : clients) {
      m.put(U1 + "|launched|" + c, n);
      m.put(U2 + "|served|" + c, n);
    }
    return m;
  }

  private static long millis(Instant at) {
    return at.toEpochMilli();
  }

  private RetentionJob.Run retention(String funnel) {
    RetentionConfig config = RetentionConfig.from(Settings.of(Map.of("postgres-retention-funnel", funnel), Map.of()));
    return new RetentionJob(vertx, options, config, new RetentionMetrics(new SimpleMeterRegistry()),
        Clock.fixed(NOW, ZoneOffset.UTC), RetentionJob.Hook.NONE).runOnce();
  }

  @Test
  void repeatedCheckInsOfTheSameDevicesSendTheirFunnelRowsOnce() throws Exception {
    AtomicLong skipped = new AtomicLong();
    BatchWriter w = new BatchWriter(pool, "repeat", new FunnelKeys(1_000), skipped::addAndGet);
    Instant t0 = NOW.minus(Duration.ofHours(3));
    for (int b = 0; b < 3; b++) {
      write(w, batch("repeat", 3L * b, t0.plus(Duration.ofHours(b)), "d1", "d2", "d3"));
    }
    assertThat(proposed()).as("rows proposed to PostgreSQL over three batches").isEqualTo(each(1, "d1", "d2", "d3"));
    assertThat(stored()).as("each device's rows, at its first check-in").isEqualTo(each(millis(t0), "d1", "d2", "d3"));
    assertThat(skipped.get()).as("rows skipped: six in each of the last two batches").isEqualTo(12);

    // a device reaching a new stage is sent that row only
    write(w, batch("repeat", 9, NOW, "d1", "d4"));
    assertThat(proposed()).isEqualTo(each(1, "d1", "d2", "d3", "d4"));
    assertThat(skipped.get()).isEqualTo(14);

    // the control: a writer that remembers nothing proposes every row of every batch (PostgreSQL keeps the first)
    db.execute("DELETE FROM funnel_proposed");
    BatchWriter plain = new BatchWriter(pool, "plain");
    for (int b = 0; b < 3; b++) {
      write(plain, batch("plain", 3L * b, t0.plus(Duration.ofHours(b)), "d5", "d6", "d7"));
    }
    assertThat(proposed()).isEqualTo(each(3, "d5", "d6", "d7"));
    assertThat(stored()).containsAllEntriesOf(each(millis(t0), "d5", "d6", "d7"));
  }

  @Test
  void rowsDeletedByRetentionOrByHandAreWrittenAgainByTheNextCheckIn() throws Exception {
    BatchWriter w = new BatchWriter(pool, "deleted", new FunnelKeys(1_000), n -> {});
    Instant old = NOW.minus(Duration.ofDays(30));
    write(w, batch("deleted", 0, old, "d1", "d2"));

    // a retention run that deletes nothing (rows are kept 60 days) leaves what the ingester knows true
    assertThat(retention("60d").deleted(RetainedTable.FUNNEL)).isZero();
    write(w, batch("deleted", 2, NOW.minus(Duration.ofDays(29)), "d1", "d2"));
    assertThat(proposed()).as("the second check-ins sent nothing").isEqualTo(each(1, "d1", "d2"));

    // another ingester's retention deletes the four rows, first reached 30 days ago
    assertThat(retention("7d").deleted(RetainedTable.FUNNEL)).isEqualTo(4);
    assertThat(stored()).isEmpty();
    Instant back = NOW.minus(Duration.ofDays(1));
    write(w, batch("deleted", 4, back, "d1", "d2"));
    assertThat(stored()).as("written again, at the check-in after the deletion").isEqualTo(each(millis(back), "d1", "d2"));
    assertThat(proposed()).isEqualTo(each(2, "d1", "d2"));

    // an operator deletes one row by hand: the next write sends every row of its batch, PostgreSQL keeps the others
    db.execute("DELETE FROM update_funnel WHERE client_id = 'd1' AND stage = 'launched'");
    Instant later = NOW.minus(Duration.ofHours(1));
    write(w, batch("deleted", 6, later, "d1", "d2"));
    Map<String, Long> expected = each(millis(back), "d1", "d2");
    expected.put(U1 + "|launched|d1", millis(later));
    assertThat(stored()).isEqualTo(expected);
    assertThat(proposed()).isEqualTo(each(3, "d1", "d2"));

    // and knows them all again
    write(w, batch("deleted", 8, NOW, "d1", "d2"));
    assertThat(proposed()).isEqualTo(each(3, "d1", "d2"));
    assertThat(stored()).isEqualTo(expected);
  }

  @Test
  void aPartitionMovingBetweenIngestersLosesNothingAndAStaleWriteTeachesNothing() throws Exception {
    FunnelKeys a = new FunnelKeys(1_000);
    BatchWriter ingesterA = new BatchWriter(pool, "moves", a, n -> {});
    BatchWriter ingesterB = new BatchWriter(pool, "moves", new FunnelKeys(1_000), n -> {});
    Instant t1 = NOW.minus(Duration.ofDays(30));
    write(ingesterA, batch("moves", 0, t1, "d1", "d2"));

    // the partition moves to B, which starts from the offset A stored: it knows nothing and sends its rows; PostgreSQL
    // keeps A's
    write(ingesterB, batch("moves", 2, NOW.minus(Duration.ofDays(29)), "d1", "d2"));
    assertThat(stored()).isEqualTo(each(millis(t1), "d1", "d2"));

    // A still holds a batch of the partition from before it lost it: refused, rolled back, and d3 not learnt
    Throwable stale = BatchWriterIT.failure(ingesterA, batch("moves", 2, NOW.minus(Duration.ofDays(29)), "d1", "d3"));
    assertThat(stale).isInstanceOf(BatchWriter.StaleBatchException.class);
    assertThat(stored()).doesNotContainKey(U1 + "|launched|d3");

    // retention, run by a third ingester, deletes every row; the partition comes back to A, which still remembers d1 and d2
    assertThat(retention("7d").deleted(RetainedTable.FUNNEL)).isEqualTo(4);
    Instant t3 = NOW.minus(Duration.ofDays(1));
    write(ingesterA, batch("moves", 4, t3, "d1", "d2", "d3"));
    assertThat(stored()).as("nothing lost").isEqualTo(each(millis(t3), "d1", "d2", "d3"));
    Map<String, Long> proposals = each(3, "d1", "d2");
    proposals.putAll(each(1, "d3"));
    assertThat(proposed()).isEqualTo(proposals);
    assertThat(a.size()).as("keys A remembers: what it wrote last").isEqualTo(6);
  }
}
