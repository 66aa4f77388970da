package dev.updraft.common;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.BiConsumer;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Reads every partition of a topic from its start to the end offsets seen when reading begins (the
 * snapshots topic, read by the control plane and the edges at start), handing each record to a sink.
 * Kafka's own failures propagate as {@code KafkaException}s; the caller decides what a missing topic or a
 * read that did not finish in time means.
 */
public final class TopicToEnd {
  /** How a read ended: no such topic, or the records read and whether the end offsets were reached in time. */
  public record Read(boolean topicExists, boolean complete, long records, Map<TopicPartition, Long> endOffsets) {}

  private TopicToEnd() {}

  /**
   * @param consumer the consumer's configuration (bootstrap, isolation level, client id...); keys and
   *     values are read as a UTF-8 string and bytes
   */
  public static Read read(Properties consumer, String topic, Duration timeout, BiConsumer<String, byte[]> sink) {
    long deadline = System.nanoTime() + timeout.toNanos();
    long records = 0;
    KafkaConsumer<String, byte[]> c = new KafkaConsumer<>(consumer, new StringDeserializer(), new ByteArrayDeserializer());
    try {
      List<PartitionInfo> infos = c.partitionsFor(topic, Duration.ofSeconds(10));
      if (infos == null || infos.isEmpty()) {
        return new Read(false, true, 0, Map.of());
      }
      List<TopicPartition> tps = new ArrayList<>();
      for (PartitionInfo i : infos) {
        tps.add(new TopicPartition(topic, i.partition()));
      }
      c.assign(tps);
      c.seekToBeginning(tps);
      Map<TopicPartition, Long> end = c.endOffsets(tps, timeout);
      while (!reached(c, end)) {
        if (System.nanoTime() > deadline) {
          return new Read(true, false, records, end);
        }
        for (ConsumerRecord<String, byte[]> r : c.poll(Duration.ofMillis(200))) {
          sink.accept(r.key(), r.value());
          records++;
        }
      }
      return new Read(true, true, records, end);
    } finally {
      c.close(CloseOptions.timeout(Duration.ofSeconds(5)));
    }
  }

  private static boolean reached(KafkaConsumer<String, byte[]> c, Map<TopicPartition, Long> end) {
    for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
      if (c.position(e.getKey()) < e.getValue()) {
        return false;
      }
    }
    return true;
  }
}
