package dev.updraft.ingester;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.events.CheckIn;
import dev.updraft.events.CheckInBinary;
import dev.updraft.events.Topics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

/** One record into a batch: pure logic, no Kafka or database. */
class IntakeTest {
  private static final TopicPartition P0 = new TopicPartition("updraft.telemetry", 0);
  private static final long T = 1_767_261_600_000L;
  private static final long LINGER_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

  private static ConsumerRecord<byte[], byte[]> record(long offset, String client, RecordHeaders headers) {
    CheckIn c = CheckIn.builder().checkInId(client + "@" + offset).appId("app").platform("ios").runtimeVersion("1.0.0")
        .channel("production").clientId(client).outcome(CheckIn.OUTCOME_NO_UPDATE).reason("latest").branch("main")
        .atEpochMillis(T).edgeId("edge-1").build();
    byte[] value = new CheckInBinary().encode(c);
    return new ConsumerRecord<>(P0.topic(), P0.partition(), offset, T, TimestampType.CREATE_TIME, client.length(), value.length,
        client.getBytes(StandardCharsets.UTF_8), value, headers, Optional.empty());
  }

  @Test
  void anEdgesWarmUpCheckInMovesTheOffsetAndIsNeitherStoredNorRejected() {
    IngestMetrics metrics = new IngestMetrics(new SimpleMeterRegistry());
    Intake intake = new Intake(P0.topic(), metrics, LINGER_NANOS);
    Batch batch = new Batch(false);
    Partitions.Position pos = new Partitions.Position(10, true);

    intake.accept(batch, P0, pos, record(10, "device-1", new RecordHeaders()));
    RecordHeaders warm = new RecordHeaders();
    warm.add(Topics.WARMUP_HEADER, "updraft-edge-e1".getBytes(StandardCharsets.UTF_8));
    intake.accept(batch, P0, pos, record(11, "warm-device", warm));

    assertThat(pos.next).as("past both records").isEqualTo(12);
    assertThat(batch.devices().keySet()).containsExactly(new Batch.DeviceKey("app", "device-1"));
    assertThat(batch.rejects()).isEmpty();
    assertThat(metrics.warmupSkipped.count()).isEqualTo(1.0);
    assertThat(metrics.decodeErrors.count()).isZero();
  }

  @Test
  void aRecordsWaitComesFromItsTimestampAndNeverExceedsTheLinger() {
    long linger = TimeUnit.MILLISECONDS.toNanos(250);
    long now = 1_700_000_000_000L;
    assertThat(Intake.waitedNanos(now - 120, now, linger)).isEqualTo(TimeUnit.MILLISECONDS.toNanos(120));
    assertThat(Intake.waitedNanos(now - 60_000, now, linger)).as("a backlog's record, or a clock behind ours: due at once")
        .isEqualTo(linger);
    assertThat(Intake.waitedNanos(now + 5_000, now, linger)).as("a clock ahead of ours: lingers as if just arrived").isZero();
    assertThat(Intake.waitedNanos(-1, now, linger)).as("a record without a timestamp").isZero();
  }

  @Test
  void aRecordSentLongerAgoThanTheLingerMakesItsBatchDueAtOnce() {
    Intake intake = new Intake(P0.topic(), new IngestMetrics(new SimpleMeterRegistry()), LINGER_NANOS);
    Batch batch = new Batch(false);
    intake.accept(batch, P0, new Partitions.Position(10, true), record(10, "device-1", new RecordHeaders()));
    assertThat(batch.firstRecordNanos() - batch.producedNanos()).as("its timestamp is months old: the whole linger")
        .isEqualTo(LINGER_NANOS);
  }
}
