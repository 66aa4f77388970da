package dev.updraft.ingester;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.events.CheckIn;
import dev.updraft.events.CheckInCodec;
import dev.updraft.events.Topics;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A check-in PostgreSQL refuses every time does not stall its partition: after {@code --ingest-max-attempts} failed
 * writes of its batch, the ingester stores the batch's other check-ins, sets the refused one aside in
 * {@code ingest_dead_letters} with its error, counts it, and reads on. The refused check-in is one CheckIns.clean
 * lets through: a refusal whose key (app, reason, runtime version, embedded update, client) is within every length
 * limit in characters, but in three-byte characters makes a {@code refused_devices} index row larger than a B-tree
 * page allows (SQLSTATE 54000). Real Kafka and PostgreSQL.
 */
@ExtendWith(RealInfrastructure.class)
class DeadLetterIT {
  private static final Duration TIMEOUT = Duration.ofSeconds(90);
  private static final int MAX_ATTEMPTS = 3;

  private Vertx vertx;

  @BeforeEach
  void startVertx() {
    vertx = Vertx.vertx();
  }

  @AfterEach
  void stopVertx() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
  }

  @Test
  void aCheckInPostgresAlwaysRefusesIsSetAsideAndTheRestOfItsBatchIsStoredAndThePartitionReadsOn(Infra infra) throws Exception {
    String prefix = infra.topicPrefix() + "deadletter.";
    String topic = Topics.telemetry(prefix);
    TestKafka.createTopic(infra.kafkaBootstrap(), topic, 2);
    TestDb db = TelemetryIngesterIT.db(infra);
    String app = "app-dead-letter";
    List<CheckIn> good = new ArrayList<>();
    for (int i = 0; i < 350; i++) {
      good.add(TelemetryIngesterIT.checkIn(app, "dl-" + i, "device-" + i));
    }
    CheckIn poison = CheckIn.builder()
        .checkInId("dl-poison")
        .appId(cjk(CheckIns.MAX_ID))
        .platform("web") // refused for its platform: counted among the refusals only
        .outcome(CheckIn.OUTCOME_ERROR)
        .reason(cjk(CheckIns.MAX_NAME))
        .runtimeVersion(cjk(CheckIns.MAX_NAME))
        .embeddedUpdateId(cjk(CheckIns.MAX_ID))
        .clientId(cjk(CheckIns.MAX_ID))
        .atEpochMillis(1_767_261_600_000L)
        .edgeId("edge-1")
        .build();
    assertThat(CheckIns.clean(poison, 0)).as("a check-in the ingester's own checks let through").isNotNull();
    long poisonOffset;
    // all in the topic before the ingester starts: its first poll brings the poison and good check-ins in one batch
    try (TestKafka kafka = new TestKafka(infra.kafkaBootstrap())) {
      kafka.send(topic, good.subList(0, 150));
      poisonOffset = kafka.send(topic, 0, poison);
      kafka.send(topic, good.subList(150, 300));
    }
    IngesterConfig config = TelemetryIngesterIT.config(infra, prefix,
        Map.of("ingest-max-attempts", Integer.toString(MAX_ATTEMPTS), "ingest-consumers", "1"));
    TelemetryIngester ingester = TelemetryIngesterIT.await(TelemetryIngester.start(vertx, config));
    try {
      db.awaitConsumed(topic, 301, TIMEOUT);
      // the partition reads on: check-ins sent after the poison's batch are stored too
      try (TestKafka kafka = new TestKafka(infra.kafkaBootstrap())) {
        kafka.send(topic, good.subList(300, 350));
      }
      db.awaitConsumed(topic, 351, TIMEOUT);

      Map<String, Long> stored = db.counts("SELECT client_id, check_ins FROM devices WHERE app_id = ?", app);
      assertThat(stored).as("every good check-in stored once").hasSize(350).allSatisfy((client, n) -> assertThat(n).isEqualTo(1L));
      List<List<Object>> letters = db.rows("SELECT kafka_partition, record_offset, sql_state, error, attempts, record_value"
          + " FROM ingest_dead_letters WHERE topic = ?", topic);
      assertThat(letters).as("dead letters").hasSize(1);
      List<Object> letter = letters.get(0);
      assertThat(letter.get(0)).as("partition").isEqualTo(0);
      assertThat(letter.get(1)).as("offset").isEqualTo(poisonOffset);
      assertThat(letter.get(2)).as("SQLSTATE").isEqualTo("54000");
      assertThat((String) letter.get(3)).as("error").contains("index row size").contains("refused_devices");
      assertThat((Integer) letter.get(4)).as("attempts").isGreaterThan(MAX_ATTEMPTS);
      assertThat((byte[]) letter.get(5)).as("the record as it was in the topic").isEqualTo(CheckInCodec.encode(poison));
      assertThat(db.scalar("SELECT count(*) FROM refusals WHERE app_id = ?", poison.appId())).as("nothing of the poison stored").isZero();
      assertThat(TelemetryIngesterIT.counter(ingester, "updraft.ingest.dead.letters")).isEqualTo(1.0);
      TelemetryIngesterIT.assertCounterReaches(ingester, "updraft.ingest.records", 350.0, "check-ins stored");
      assertThat(TelemetryIngesterIT.gauge(ingester, "updraft.ingest.paused")).as("not paused").isZero();
      assertThat(ingester.scrape()).contains("updraft_ingest_dead_letters_total 1.0");
      System.out.printf("dead letter: 1 check-in refused by PostgreSQL (SQLSTATE 54000) set aside at offset %d after %s"
          + " writes; 350 good check-ins stored once each, the partition read on%n", poisonOffset, letter.get(4));
    } finally {
      TelemetryIngesterIT.await(ingester.close());
    }
  }

  /** {@code n} random CJK ideographs: three bytes each in UTF-8, one UTF-16 unit each, barely compressible. */
  private static String cjk(int n) {
    StringBuilder sb = new StringBuilder(n);
    for (int i = 0; i < n; i++) {
      sb.append((char) ThreadLocalRandom.current().nextInt(0x4E00, 0x9FA0));
    }
    return sb.toString();
  }
}
