package dev.updraft.ingester;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.common.Settings;
import dev.updraft.embedded.EmbeddedPostgresServer;
import dev.updraft.events.Topics;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * PostgreSQL stops while check-ins keep arriving and starts again later: the ingester pauses, reports
 * its lag, retries, resumes by itself, and nothing is lost or counted twice. PostgreSQL is a server of
 * this test's own (so it can be stopped); Kafka is the shared one.
 */
@ExtendWith(RealInfrastructure.class)
class PostgresOutageIT {
  private static final Duration TIMEOUT = Duration.ofSeconds(90);

  @Test
  void pausesWhilePostgresIsDownAndResumesWithExactCountsWhenItIsBack(Infra infra, @TempDir Path dir) throws Exception {
    String prefix = infra.topicPrefix();
    String topic = Topics.telemetry(prefix);
    TestKafka.createTopic(infra.kafkaBootstrap(), topic, 4);
    CheckInScenario s = CheckInScenario.generate("app-outage", 11, 3_000, 200, 1_767_261_595_000L);
    int before = 1_000;

    Vertx vertx = Vertx.vertx();
    EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(dir.resolve("pg"), 0, false);
    try (TestKafka kafka = new TestKafka(infra.kafkaBootstrap())) {
      pg.createDatabase("telemetry");
      TestDb db = new TestDb("127.0.0.1", pg.port(), "telemetry", EmbeddedPostgresServer.USER);
      IngesterConfig config =
          IngesterConfig.from(
              Settings.of(
                  Map.of(
                      "kafka-bootstrap", infra.kafkaBootstrap(),
                      "topic-prefix", prefix,
                      "postgres-url", TestDb.postgresUrl("127.0.0.1", pg.port(), "telemetry", EmbeddedPostgresServer.USER),
                      "consumer-group", prefix + "ingester",
                      "ingest-batch-size", "200",
                      "metrics-port", "0"),
                  Map.of()));
      TelemetryIngester ingester = TelemetryIngesterIT.await(TelemetryIngester.start(vertx, config));
      try {
        kafka.send(topic, s.checkIns.subList(0, before));
        db.awaitConsumed(topic, before, TIMEOUT);

        pg.stop();
        kafka.send(topic, s.checkIns.subList(before, s.checkIns.size()));
        TestDb.await(() -> TelemetryIngesterIT.gauge(ingester, "updraft.ingest.paused") == 1.0, TIMEOUT,
            () -> "the ingester did not pause while PostgreSQL was down");
        long behind = s.checkIns.size() - before;
        TestDb.await(() -> TelemetryIngesterIT.gauge(ingester, "updraft.ingest.lag") == behind, TIMEOUT,
            () -> "lag not reported as " + behind + ": " + TelemetryIngesterIT.gauge(ingester, "updraft.ingest.lag"));
        TestDb.await(() -> TelemetryIngesterIT.counter(ingester, "updraft.ingest.pg.retries") >= 2, TIMEOUT,
            () -> "no retries while PostgreSQL was down");
        assertThat(ingester.running()).isTrue();

        pg.restart();
        db.awaitConsumed(topic, s.checkIns.size(), TIMEOUT);
        TestDb.await(() -> TelemetryIngesterIT.gauge(ingester, "updraft.ingest.paused") == 0.0, TIMEOUT,
            () -> "the ingester did not resume");
        StoredTelemetry.assertExactly(db, s);
        assertThat(TelemetryIngesterIT.counter(ingester, "updraft.ingest.pg.failures")).isPositive();
        TestDb.await(() -> TelemetryIngesterIT.counter(ingester, "updraft.ingest.records") == s.checkIns.size(), TIMEOUT,
            () -> "records counted: " + TelemetryIngesterIT.counter(ingester, "updraft.ingest.records"));
        TestDb.await(() -> TelemetryIngesterIT.gauge(ingester, "updraft.ingest.lag") == 0.0, TIMEOUT,
            () -> "lag not back to 0");
      } finally {
        TelemetryIngesterIT.await(ingester.close());
      }
    } finally {
      vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
      pg.close();
    }
  }
}
