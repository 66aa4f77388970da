package dev.updraft.ingester.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * The lag an operator reads on {@code updraft_ingest_lag_records} and {@code updraft_history_lag_records}:
 * records between what a loop stored in PostgreSQL and the log end, over its partitions (Kafka's mock consumer:
 * pure logic, no broker).
 */
class LagGaugeTest {
  private static final TopicPartition P0 = new TopicPartition("updraft.telemetry", 0);
  private static final TopicPartition P1 = new TopicPartition("updraft.telemetry", 1);

  private final AtomicLong partitions = new AtomicLong(-1);
  private final AtomicLong lag = new AtomicLong(-1);

  /** Both partitions assigned, their logs starting at 10 and 0 and ending at 100 and 50, the consumer at the ends. */
  private static MockConsumer<byte[], byte[]> consumer() {
    MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("earliest");
    consumer.assign(List.of(P0, P1));
    consumer.updateBeginningOffsets(Map.of(P0, 10L, P1, 0L));
    consumer.updateEndOffsets(Map.of(P0, 100L, P1, 50L));
    consumer.seek(P0, 100);
    consumer.seek(P1, 50);
    return consumer;
  }

  @Test
  void countsTheRecordsBetweenTheStoredOffsetsAndTheLogEnds() {
    LagGauge gauge = new LagGauge(partitions, lag, "test");
    gauge.update(consumer(), Map.of(P0, 40L, P1, 45L)::get);
    assertThat(partitions.get()).isEqualTo(2);
    assertThat(lag.get()).as("(100 - 40) + (50 - 45)").isEqualTo(65);
  }

  @Test
  void aPartitionWithoutAStoredOffsetCountsFromTheGroupsCommitElseFromTheLogStart() {
    MockConsumer<byte[], byte[]> consumer = consumer();
    consumer.commitSync(Map.of(P1, new OffsetAndMetadata(20)));
    new LagGauge(partitions, lag, "test").update(consumer, tp -> null);
    assertThat(lag.get()).as("P0 from its log start 10: 90; P1 from its commit at 20: 30").isEqualTo(120);
  }

  @Test
  void anInstanceWithNoPartitionsIsNotBehind() {
    MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("earliest");
    new LagGauge(partitions, lag, "test").update(consumer, tp -> 0L);
    assertThat(partitions.get()).isZero();
    assertThat(lag.get()).isZero();
  }

  @Test
  void refreshesAtMostOnceASecond() {
    MockConsumer<byte[], byte[]> consumer = consumer();
    AtomicLong nanos = new AtomicLong(5_000_000_000L);
    LagGauge gauge = new LagGauge(partitions, lag, "test", nanos::get);
    gauge.update(consumer, tp -> 0L);
    assertThat(lag.get()).isEqualTo(150);
    consumer.updateEndOffsets(Map.of(P0, 1_000L, P1, 1_000L));
    nanos.addAndGet(999_000_000L);
    gauge.update(consumer, tp -> 0L);
    assertThat(lag.get()).as("asked again within the second: unchanged").isEqualTo(150);
    nanos.addAndGet(1_000_000L);
    gauge.update(consumer, tp -> 0L);
    assertThat(lag.get()).as("a second after the last refresh").isEqualTo(2_000);
  }
}
