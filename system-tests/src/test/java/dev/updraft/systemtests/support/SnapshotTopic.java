package dev.updraft.systemtests.support;

import dev.updraft.events.AppSnapshot;
import dev.updraft.events.SnapshotSet;
import dev.updraft.events.Topics;
import dev.updraft.testing.Infra;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.LongPredicate;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The {@code updraft.snapshots} topic of a test's {@link Infra}, read as an edge reads it (from its start to
 * its end, committed records only, the latest record of each key), and written to by hand to hand an edge
 * a damaged snapshot. Waits are for a snapshot's sequence number, never for a time.
 */
public final class SnapshotTopic {
  private SnapshotTopic() {}

  /** The latest record of every key (a null value deletes the key, as compaction will). */
  public static Map<String, byte[]> records(Infra infra) {
    Properties p = new Properties();
    p.put("bootstrap.servers", infra.kafkaBootstrap());
    p.put("isolation.level", "read_committed");
    String topic = Topics.snapshots(infra.topicPrefix());
    Map<String, byte[]> latest = new java.util.TreeMap<>();
    try (KafkaConsumer<String, byte[]> c = new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> parts = new ArrayList<>();
      for (PartitionInfo info : c.partitionsFor(topic)) {
        parts.add(new TopicPartition(topic, info.partition()));
      }
      c.assign(parts);
      c.seekToBeginning(parts);
      Map<TopicPartition, Long> end = c.endOffsets(parts);
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (parts.stream().anyMatch(tp -> c.position(tp) < end.get(tp))) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError("could not read " + topic + " to its end offsets " + end + " within 30 s");
        }
        for (ConsumerRecord<String, byte[]> r : c.poll(Duration.ofMillis(200))) {
          if (r.key() == null) {
            continue;
          }
          if (r.value() == null) {
            latest.remove(r.key());
          } else {
            latest.put(r.key(), r.value());
          }
        }
      }
    }
    return latest;
  }

  /** The app's current usable snapshot in the topic, or null. */
  public static AppSnapshot read(Infra infra, String app) {
    SnapshotSet set = new SnapshotSet();
    records(infra).forEach(set::accept);
    return set.result().snapshots().get(app);
  }

  /**
   * Waits (60 s at most, polling the topic) until the app's snapshot's last sequence satisfies {@code done};
   * returns that snapshot.
   *
   * @param what what is waited for, for the failure message
   */
  public static AppSnapshot await(Infra infra, String app, String what, LongPredicate done) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    AppSnapshot last = null;
    while (System.nanoTime() < deadline) {
      last = read(infra, app);
      if (last != null && done.test(last.lastSequence())) {
        return last;
      }
      Thread.sleep(200);
    }
    throw new AssertionError("no snapshot of " + app + " within 60 s such that " + what + "; last: "
        + (last == null ? "none" : "sequence " + last.lastSequence()));
  }

  /** Writes records to the topic, plain (not in a transaction: committed as soon as written), and waits for the acks. */
  public static void write(Infra infra, Map<String, byte[]> records) throws Exception {
    Properties p = new Properties();
    p.put("bootstrap.servers", infra.kafkaBootstrap());
    p.put("acks", "all");
    String topic = Topics.snapshots(infra.topicPrefix());
    try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer())) {
      List<java.util.concurrent.Future<?>> sent = new ArrayList<>();
      for (Map.Entry<String, byte[]> r : records.entrySet()) {
        sent.add(producer.send(new ProducerRecord<>(topic, r.getKey(), r.getValue())));
      }
      for (java.util.concurrent.Future<?> f : sent) {
        f.get();
      }
    }
  }
}
