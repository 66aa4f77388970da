package dev.updraft.ingester;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.updraft.common.ConfigException;
import dev.updraft.common.Settings;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class IngesterConfigTest {

  @Test
  void usesTheDocumentedDefaultsWhenNothingIsGiven() {
    IngesterConfig c = IngesterConfig.from(Settings.of(Map.of(), Map.of()));
    assertThat(c.kafkaBootstrap()).isEqualTo("127.0.0.1:9092");
    assertThat(c.topic()).isEqualTo("updraft.telemetry");
    assertThat(c.postgresUrl()).isEqualTo("postgresql://postgres@127.0.0.1:5432/updraft");
    assertThat(c.consumerGroup()).isEqualTo("updraft-ingester");
    assertThat(c.metricsPort()).isEqualTo(9400);
    assertThat(c.batchSize()).isEqualTo(10_000);
    assertThat(c.batchWait()).isEqualTo(Duration.ofMillis(500));
    assertThat(c.linger()).isEqualTo(Duration.ofMillis(250));
    assertThat(c.consumers()).isEqualTo(2);
    assertThat(c.maxAttempts()).as("--ingest-max-attempts, as docs/operations.md says").isEqualTo(5);
    assertThat(c.pgConnectOptions().getDatabase()).isEqualTo("updraft");
    assertThat(c.pgConnectOptions().getPort()).isEqualTo(5432);
  }

  @Test
  void theHistoryProjectionHasAConsumerGroupOfItsOwn() {
    assertThat(IngesterConfig.from(Settings.of(Map.of(), Map.of())).historyConsumerGroup()).isEqualTo("updraft-history");
    IngesterConfig staging = IngesterConfig.from(Settings.of(Map.of("topic-prefix", "staging."), Map.of()));
    assertThat(staging.historyConsumerGroup()).isEqualTo("staging.updraft-history");
    assertThat(staging.eventsTopic()).isEqualTo("staging.updraft.events");
    assertThat(IngesterConfig.from(Settings.of(Map.of("history-consumer-group", "h"), Map.of())).historyConsumerGroup()).isEqualTo("h");
    assertThatThrownBy(() -> IngesterConfig.from(Settings.of(Map.of("history-consumer-group", "updraft-ingester"), Map.of())))
        .isInstanceOf(ConfigException.class).hasMessageContaining("--history-consumer-group");
  }

  @Test
  void readsFlagsBeforeEnvironmentVariables() {
    IngesterConfig c =
        IngesterConfig.from(
            Settings.of(
                Map.of("topic-prefix", "staging.", "ingest-batch-wait", "250ms", "metrics-port", "0"),
                Map.of("UPDRAFT_TOPIC_PREFIX", "ignored.", "UPDRAFT_INGEST_BATCH_SIZE", "500",
                    "UPDRAFT_CONSUMER_GROUP", "ingest-b")));
    assertThat(c.topic()).isEqualTo("staging.updraft.telemetry");
    assertThat(c.batchSize()).isEqualTo(500);
    assertThat(c.batchWait()).isEqualTo(Duration.ofMillis(250));
    assertThat(c.consumerGroup()).isEqualTo("ingest-b");
    assertThat(c.metricsPort()).isZero();
  }

  @Test
  void aLingerOfZeroWritesAtTheEndOfEachPoll() {
    assertThat(IngesterConfig.from(Settings.of(Map.of("ingest-linger", "0ms"), Map.of())).linger()).isZero();
    assertThat(IngesterConfig.from(Settings.of(Map.of(), Map.of("UPDRAFT_INGEST_LINGER", "1s"))).linger())
        .isEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void theConsumerLetsTheBrokerGatherForTheLingerUpToHalfASecond() {
    Map<String, Object> lingering = TelemetryIngester.consumerProperties(IngesterConfig.from(Settings.of(Map.of(), Map.of())));
    assertThat(lingering).containsEntry("fetch.max.wait.ms", 250).containsEntry("fetch.min.bytes", 256 * 1024);
    Map<String, Object> longLinger =
        TelemetryIngester.consumerProperties(IngesterConfig.from(Settings.of(Map.of("ingest-linger", "2s"), Map.of())));
    assertThat(longLinger).as("Kafka's own default wait caps it").containsEntry("fetch.max.wait.ms", 500);
    Map<String, Object> eager =
        TelemetryIngester.consumerProperties(IngesterConfig.from(Settings.of(Map.of("ingest-linger", "0ms"), Map.of())));
    assertThat(eager).as("Kafka's defaults: a fetch answers as soon as a record is there")
        .doesNotContainKeys("fetch.max.wait.ms", "fetch.min.bytes");
  }

  @Test
  void rejectsAnUnknownFlagByName() {
    assertThatThrownBy(() -> IngesterConfig.from(Settings.of(Map.of("ingest-batch-sise", "10"), Map.of())))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("--ingest-batch-sise");
  }

  @Test
  void rejectsValuesOutOfRangeNamingTheFlag() {
    assertThatThrownBy(() -> IngesterConfig.from(Settings.of(Map.of("ingest-batch-size", "0"), Map.of())))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("--ingest-batch-size");
    assertThatThrownBy(() -> IngesterConfig.from(Settings.of(Map.of("ingest-batch-wait", "2m"), Map.of())))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("--ingest-batch-wait");
    assertThatThrownBy(() -> IngesterConfig.from(Settings.of(Map.of("ingest-linger", "11s"), Map.of())))
        .isInstanceOf(ConfigException.class)
        .hasMessage("--ingest-linger must be between 0ms and 10s: got 11000ms");
    assertThatThrownBy(() -> IngesterConfig.from(Settings.of(Map.of("ingest-linger", "soon"), Map.of())))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("--ingest-linger");
    assertThatThrownBy(() -> IngesterConfig.from(Settings.of(Map.of("ingest-consumers", "0"), Map.of())))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("--ingest-consumers");
    assertThatThrownBy(() -> IngesterConfig.from(Settings.of(Map.of("ingest-max-attempts", "0"), Map.of())))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("--ingest-max-attempts");
    assertThatThrownBy(() -> IngesterConfig.from(Settings.of(Map.of("postgres-url", "mysql://db/x"), Map.of())))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("--postgres-url");
  }

  @Test
  void neverShowsThePostgresPassword() {
    IngesterConfig c =
        IngesterConfig.from(Settings.of(Map.of("postgres-url", "postgresql://ingest:s3cret@db:5432/updraft"), Map.of()));
    assertThat(c.pgConnectOptions().getPassword()).isEqualTo("s3cret");
    assertThat(c.toString()).doesNotContain("s3cret").contains("postgresql://ingest:***@db:5432/updraft");
  }
}
