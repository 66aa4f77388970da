package dev.updraft.launcher.backup;

import dev.updraft.common.KafkaClientConfig;
import dev.updraft.controlplane.log.EventLog;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The cluster a restore writes to: checks that its Updraft topics hold nothing, then writes records with an
 * idempotent producer ({@code acks=all}, at most five requests in flight: each partition keeps its order), to
 * the partition they came from, with their timestamps and headers. Records are acknowledged with the offsets
 * they got, which fill the {@link OffsetMap}. Not thread-safe (the producer's callbacks only record offsets
 * and the first failure).
 */
final class Target implements AutoCloseable {
  private final String bootstrap;
  private final Duration timeout;
  private final Admin admin;
  private final KafkaProducer<byte[], byte[]> producer;
  private final AtomicReference<Exception> failed = new AtomicReference<>();

  Target(String bootstrap, KafkaClientConfig kafka, Duration timeout) {
    this.bootstrap = bootstrap;
    this.timeout = timeout;
    Properties a = new Properties();
    a.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    a.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
    a.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) Math.min(timeout.toMillis(), 15_000));
    this.admin = Admin.create(kafka.apply(a));
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 5);
    p.put(ProducerConfig.LINGER_MS_CONFIG, 20);
    p.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
    p.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, EventLog.RECORD_LIMIT_BYTES);
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, (int) timeout.toMillis());
    p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) Math.max(timeout.toMillis(), 30_000));
    p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) Math.min(Math.max(timeout.toMillis(), 30_000) - 1, 30_000));
    p.put(ProducerConfig.CLIENT_ID_CONFIG, "updraft-restore-" + UUID.randomUUID().toString().substring(0, 8));
    this.producer = new KafkaProducer<>(kafka.apply(p), new ByteArraySerializer(), new ByteArraySerializer());
  }

  /**
   * Refuses (naming the topic, partition and end offset) when one of {@code topics} that exists holds records,
   * or when {@code events} exists with another partition count than {@code partitions}.
   */
  void requireEmpty(List<String> topics, String events, int partitions) {
    try {
      Set<String> existing = admin.listTopics().names().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      for (String t : topics) {
        if (!existing.contains(t)) {
          continue;
        }
        TopicDescription d = admin.describeTopics(List.of(t)).allTopicNames().get(timeout.toMillis(), TimeUnit.MILLISECONDS).get(t);
        if (t.equals(events) && d.partitions().size() != partitions) {
          throw new Refusal("topic " + t + " exists with " + d.partitions().size() + " partitions; the backup's events have " + partitions
              + " (an app's events must land in the partition they came from): delete it, or restore into another cluster or --topic-prefix");
        }
        Map<TopicPartition, OffsetSpec> ask = new HashMap<>();
        for (TopicPartitionInfo p : d.partitions()) {
          ask.put(new TopicPartition(t, p.partition()), OffsetSpec.latest());
        }
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends =
            admin.listOffsets(ask).all().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        for (int p = 0; p < d.partitions().size(); p++) {
          ListOffsetsResult.ListOffsetsResultInfo end = ends.get(new TopicPartition(t, p));
          if (end != null && end.offset() > 0) {
            throw new Refusal("topic " + t + " is not empty: partition " + p + " has end offset " + end.offset()
                + "; restore writes only into empty or absent topics: use a new cluster or --topic-prefix, or delete the topics first");
          }
        }
      }
    } catch (ExecutionException e) {
      throw new Refusal("cannot look at the topics at " + bootstrap + ": " + e.getCause().getMessage(), e.getCause());
    } catch (TimeoutException e) {
      throw new Refusal("the Kafka cluster at " + bootstrap + " did not answer within " + timeout, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Refusal("interrupted", e);
    }
  }

  /** Sends one partition's events in their order; their new offsets go into {@code offsets}. Returns how many. */
  long writeEvents(String topic, BackupManifest.Range range, Path file, OffsetMap offsets, Progress progress) throws IOException {
    int partition = range.partition();
    offsets.partition(partition, range.records());
    int i = 0;
    try (RecordFile.Reader in = new RecordFile.Reader(file)) {
      for (RecordFile.Rec r = in.next(); r != null; r = in.next()) {
        if (i >= range.records()) {
          throw new Refusal(file + " holds more records than the manifest's " + range.records());
        }
        offsets.old(partition, i, r.offset());
        int index = i;
        producer.send(record(topic, partition, r), (meta, e) -> {
          if (e != null) {
            failed.compareAndSet(null, e);
          } else {
            offsets.landed(partition, index, meta.offset());
          }
        });
        i++;
        failFast("events");
        progress.tick(topic + " partition " + partition, i, range.records(), "events");
      }
    }
    if (i != range.records()) {
      throw new Refusal(file + " holds " + i + " records; the manifest says " + range.records());
    }
    return i;
  }

  /** Sends the rewritten snapshot records (the topic's default partitioner places them by key). */
  void writeSnapshots(String topic, List<SnapshotRewrite.Out> records) {
    for (SnapshotRewrite.Out o : records) {
      producer.send(new ProducerRecord<>(topic, o.key().getBytes(StandardCharsets.UTF_8), o.value()), (meta, e) -> {
        if (e != null) {
          failed.compareAndSet(null, e);
        }
      });
      failFast("snapshots");
    }
  }

  /** Waits until everything sent is acknowledged; refuses with the first failure. */
  void flush(String what) {
    producer.flush();
    failFast(what);
  }

  private void failFast(String what) {
    Exception e = failed.get();
    if (e != null) {
      throw new Refusal("writing the " + what + " to " + bootstrap + " failed: " + e.getMessage() + ". The topics now hold part of the backup:"
          + " delete them (and the key store directory) before restoring again", e);
    }
  }

  private static ProducerRecord<byte[], byte[]> record(String topic, int partition, RecordFile.Rec r) {
    List<org.apache.kafka.common.header.Header> headers = new ArrayList<>();
    for (RecordFile.Header h : r.headers()) {
      headers.add(new RecordHeader(h.key(), h.value()));
    }
    return new ProducerRecord<>(topic, partition, r.timestamp(), r.key(), r.value(), headers);
  }

  @Override
  public void close() {
    producer.close(Duration.ofSeconds(10));
    admin.close(Duration.ofSeconds(5));
  }
}
