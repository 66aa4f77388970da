package dev.updraft.ingester;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.common.Settings;
import dev.updraft.embedded.EmbeddedPostgresServer;
import dev.updraft.events.Topics;
import dev.updraft.ingester.kafka.ReadCommittedConsumer;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The group moves partitions while PostgreSQL is down: the ingester holds a batch it could not write (and
 * check-ins it polled after it) when another member joins its consumer group and takes partitions away, and
 * again when that member leaves and hands them back. Check-ins are sent before the outage, during it before
 * the member joins, while it holds partitions, and after it left. Once PostgreSQL is back, every check-in is
 * stored exactly once: nothing dropped at a revocation is skipped, nothing written before it is written
 * again. The other member is a plain consumer of the group that commits nothing (as a second ingester that
 * cannot reach PostgreSQL would); PostgreSQL is a server of this test's own, Kafka the shared one.
 */
@ExtendWith(RealInfrastructure.class)
class OutageRebalanceIT {
  private static final Duration TIMEOUT = Duration.ofSeconds(90);
  private static final int PARTITIONS = 4;

  @Test
  void checkInsPolledBeforeARebalanceDuringAPostgresOutageAreStoredOnceWhenItIsBack(Infra infra, @TempDir Path dir)
      throws Exception {
    String prefix = infra.topicPrefix() + "outage-rebalance.";
    String topic = Topics.telemetry(prefix);
    String group = prefix + "ingester";
    TestKafka.createTopic(infra.kafkaBootstrap(), topic, PARTITIONS);
    CheckInScenario s = CheckInScenario.generate("app-outage-rebalance", 13, 4_000, 300, 1_767_261_595_000L);
    List<dev.updraft.events.CheckIn> all = s.checkIns;
    int before = 1_000;
    int downEarly = 2_000;
    int whileMoved = 3_000;

    Vertx vertx = Vertx.vertx();
    EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(dir.resolve("pg"), 0, false);
    try (TestKafka kafka = new TestKafka(infra.kafkaBootstrap())) {
      pg.createDatabase("telemetry");
      TestDb db = new TestDb("127.0.0.1", pg.port(), "telemetry", EmbeddedPostgresServer.USER);
      IngesterConfig config = IngesterConfig.from(Settings.of(Map.of(
          "kafka-bootstrap", infra.kafkaBootstrap(),
          "topic-prefix", prefix,
          "postgres-url", TestDb.postgresUrl("127.0.0.1", pg.port(), "telemetry", EmbeddedPostgresServer.USER),
          "consumer-group", group,
          "ingest-batch-size", "200",
          "metrics-port", "0"), Map.of()));
      TelemetryIngester ingester = TelemetryIngesterIT.await(TelemetryIngester.start(vertx, config));
      try {
        kafka.send(topic, all.subList(0, before));
        db.awaitConsumed(topic, before, TIMEOUT);
        TestDb.await(() -> TelemetryIngesterIT.gauge(ingester, "updraft.ingest.partitions") == PARTITIONS, TIMEOUT,
            () -> "the ingester never held all " + PARTITIONS + " partitions");

        pg.stop();
        kafka.send(topic, all.subList(before, downEarly));
        TestDb.await(() -> TelemetryIngesterIT.counter(ingester, "updraft.ingest.pg.retries") >= 2, TIMEOUT,
            () -> "no batch held and retried while PostgreSQL was down");
        assertThat(TelemetryIngesterIT.gauge(ingester, "updraft.ingest.paused")).as("paused").isEqualTo(1.0);

        // another member joins the group: the ingester's consumers give partitions up with a failed batch held
        int taken;
        try (KafkaConsumer<byte[], byte[]> other = new KafkaConsumer<>(
            ReadCommittedConsumer.properties(infra.kafkaBootstrap(), group, "other-member-", 10_000, 50))) {
          other.subscribe(List.of(topic));
          long deadline = System.nanoTime() + TIMEOUT.toNanos();
          while (other.assignment().isEmpty() && System.nanoTime() < deadline) {
            other.poll(Duration.ofMillis(100));
          }
          taken = other.assignment().size();
          assertThat(taken).as("partitions the other member took").isPositive();
          int left = PARTITIONS - taken;
          while (TelemetryIngesterIT.gauge(ingester, "updraft.ingest.partitions") != left && System.nanoTime() < deadline) {
            other.poll(Duration.ofMillis(100)); // stays in the group while the ingester settles
          }
          assertThat(TelemetryIngesterIT.gauge(ingester, "updraft.ingest.partitions")).as("partitions the ingester kept")
              .isEqualTo(left);
          kafka.send(topic, all.subList(downEarly, whileMoved));
          for (int i = 0; i < 10; i++) {
            other.poll(Duration.ofMillis(100)); // what it reads it never stores: the partitions' offsets stay in PostgreSQL
          }
        }
        // it left: the partitions come back, still with PostgreSQL down
        TestDb.await(() -> TelemetryIngesterIT.gauge(ingester, "updraft.ingest.partitions") == PARTITIONS, TIMEOUT,
            () -> "the partitions never came back to the ingester");
        kafka.send(topic, all.subList(whileMoved, all.size()));
        assertThat(ingester.running()).isTrue();

        pg.restart();
        db.awaitConsumed(topic, all.size(), TIMEOUT);
        StoredTelemetry.assertExactly(db, s);
        assertThat(TelemetryIngesterIT.counter(ingester, "updraft.ingest.pg.failures")).as("the outage was seen").isPositive();
        System.out.printf("outage rebalance: %d check-ins, %d partitions moved to another member and back while PostgreSQL was"
            + " down; all stored exactly once%n", all.size(), taken);
      } finally {
        TelemetryIngesterIT.await(ingester.close());
      }
    } finally {
      vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
      pg.close();
    }
  }
}
