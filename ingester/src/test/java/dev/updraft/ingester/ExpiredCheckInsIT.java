package dev.updraft.ingester;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.events.Topics;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Loss is never silent: check-ins the telemetry topic's retention deleted while the ingester was away (its
 * stored offset below the log start) are counted as expired, exactly, and the ingester stores the rest and
 * goes on. The deletion is Kafka's own ({@code deleteRecords} moves the log start as retention does), on a
 * real broker.
 */
@ExtendWith(RealInfrastructure.class)
class ExpiredCheckInsIT {
  private static final Duration TIMEOUT = Duration.ofSeconds(90);

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
  void checkInsDeletedBeforeTheyWereStoredAreCountedAsExpiredAndTheRestStored(Infra infra) throws Exception {
    String prefix = infra.topicPrefix() + "expiry.";
    String topic = Topics.telemetry(prefix);
    TestKafka.createTopic(infra.kafkaBootstrap(), topic, 1);
    TopicPartition tp = new TopicPartition(topic, 0);
    TestDb db = TelemetryIngesterIT.db(infra);
    IngesterConfig config = TelemetryIngesterIT.config(infra, prefix, Map.of());
    CheckInScenario s = CheckInScenario.generate("app-expiry", 5, 300, 300, 1_767_261_590_000L);

    try (TestKafka kafka = new TestKafka(infra.kafkaBootstrap())) {
      kafka.send(topic, s.checkIns.subList(0, 100));
    }
    TelemetryIngester first = TelemetryIngesterIT.await(TelemetryIngester.start(vertx, config));
    try {
      db.awaitConsumed(topic, 100, TIMEOUT);
    } finally {
      TelemetryIngesterIT.await(first.close());
    }

    // while no ingester runs: 200 more arrive, and the log start moves past 150 of them (offsets 100..249)
    try (TestKafka kafka = new TestKafka(infra.kafkaBootstrap())) {
      kafka.send(topic, s.checkIns.subList(100, 300));
    }
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", infra.kafkaBootstrap()))) {
      admin.deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(250))).all().get(30, TimeUnit.SECONDS);
    }

    TelemetryIngester second = TelemetryIngesterIT.await(TelemetryIngester.start(vertx, config));
    try {
      db.awaitConsumed(topic, 300, TIMEOUT);
      assertThat(TelemetryIngesterIT.counter(second, "updraft.ingest.checkins.expired")).as("check-ins expired before they were stored")
          .isEqualTo(150.0);
      TelemetryIngesterIT.assertCounterReaches(second, "updraft.ingest.records", 50.0, "check-ins the second ingester stored");
      // the devices of the stored check-ins, and none of the expired ones (devices whose every check-in expired are unknown)
      java.util.Set<String> expected = new java.util.TreeSet<>();
      java.util.Set<String> expiredOnly = new java.util.TreeSet<>();
      for (int i = 0; i < 300; i++) {
        String client = s.checkIns.get(i).clientId();
        if (client != null) { // the scenario's check-ins without a client id are stored without a device row
          (i < 100 || i >= 250 ? expected : expiredOnly).add(client);
        }
      }
      expiredOnly.removeAll(expected);
      java.util.Set<String> stored = new java.util.TreeSet<>();
      for (List<Object> row : db.rows("SELECT client_id FROM devices WHERE app_id = ?", s.appId)) {
        stored.add(String.valueOf(row.get(0)));
      }
      assertThat(stored).as("devices in PostgreSQL").isEqualTo(expected);
      assertThat(stored).as("no device seen only in expired check-ins").doesNotContainAnyElementsOf(expiredOnly);
      System.out.printf("expired check-ins: 150 of 300 deleted by the log start before they were stored, counted as expired;"
          + " %d devices stored, none of the %d seen only in expired check-ins%n", stored.size(), expiredOnly.size());
    } finally {
      TelemetryIngesterIT.await(second.close());
    }
    assertThat(TelemetryIngesterIT.counter(first, "updraft.ingest.checkins.expired")).as("nothing expired while the first ran").isZero();
    List.of(first, second).forEach(i -> assertThat(i.running()).isFalse());
  }
}
