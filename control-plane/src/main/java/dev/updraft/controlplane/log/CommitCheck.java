package dev.updraft.controlplane.log;

import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads whether an append's records were committed, with a {@code read_committed} consumer of its own:
 * once their transaction has ended (the partition's last stable offset is past them) such a reader
 * returns committed records and skips aborted ones. Not thread-safe (the consumer is not).
 */
final class CommitCheck {
  private static final Logger LOG = LoggerFactory.getLogger(CommitCheck.class);

  private CommitCheck() {}

  /**
   * Whether the records are committed: true when a {@code read_committed} read returns them, false when
   * their transaction has ended (the last stable offset is past them) and it skips them, null while their
   * transaction is still open or the log cannot be read.
   */
  static Boolean committed(KafkaConsumer<String, byte[]> reader, List<RecordMetadata> records) {
    Map<TopicPartition, long[]> range = new HashMap<>();
    Set<String> wanted = new HashSet<>();
    for (RecordMetadata m : records) {
      long[] r = range.computeIfAbsent(new TopicPartition(m.topic(), m.partition()), k -> new long[] {Long.MAX_VALUE, -1});
      r[0] = Math.min(r[0], m.offset());
      r[1] = Math.max(r[1], m.offset());
      wanted.add(m.partition() + ":" + m.offset());
    }
    try {
      Map<TopicPartition, Long> stable = reader.endOffsets(range.keySet(), Duration.ofSeconds(5));
      for (Map.Entry<TopicPartition, long[]> r : range.entrySet()) {
        if (stable.get(r.getKey()) <= r.getValue()[1]) {
          return null;
        }
      }
      reader.assign(range.keySet());
      range.forEach((tp, r) -> reader.seek(tp, r[0]));
      Set<String> seen = new HashSet<>();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (!past(reader, range)) {
        if (System.nanoTime() > deadline) {
          return null;
        }
        for (ConsumerRecord<String, byte[]> r : reader.poll(Duration.ofMillis(100))) {
          if (wanted.contains(r.partition() + ":" + r.offset())) {
            seen.add(r.partition() + ":" + r.offset());
          }
        }
      }
      if (!seen.isEmpty() && seen.size() != wanted.size()) {
        LOG.error("a transaction committed part of its records: {} of {} ({})", seen.size(), wanted.size(), records);
        return null;
      }
      return !seen.isEmpty();
    } catch (KafkaException e) {
      LOG.debug("cannot read back the records {}: {}", records, e.toString());
      return null;
    }
  }

  private static boolean past(KafkaConsumer<String, byte[]> reader, Map<TopicPartition, long[]> range) {
    for (Map.Entry<TopicPartition, long[]> r : range.entrySet()) {
      if (reader.position(r.getKey()) <= r.getValue()[1]) {
        return false;
      }
    }
    return true;
  }

}
