package dev.updraft.edge.log;

import dev.updraft.events.SnapshotSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads {@code updraft.snapshots} from its start to its end ({@code read_committed}) before the edge reads
 * the events: the snapshots to build the image from, and where to start each events partition. A topic
 * that does not exist (a control plane older than snapshots) or cannot be read means no snapshots: the
 * edge then reads the events from offset 0.
 */
final class SnapshotLoader {
  private static final Logger LOG = LoggerFactory.getLogger(SnapshotLoader.class);
  private static final Duration TIMEOUT = Duration.ofMinutes(2);

  private SnapshotLoader() {}

  static SnapshotSet.Result read(String bootstrap, String topic, String clientId) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId + "-snapshots");
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "50");
    SnapshotSet set = new SnapshotSet();
    long records = 0;
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    try (KafkaConsumer<String, byte[]> c = new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer())) {
      List<PartitionInfo> infos = c.partitionsFor(topic, Duration.ofSeconds(10));
      if (infos == null || infos.isEmpty()) {
        LOG.info("no topic {}: reading the events from offset 0", topic);
        return set.result();
      }
      List<TopicPartition> tps = new ArrayList<>();
      for (PartitionInfo i : infos) {
        tps.add(new TopicPartition(topic, i.partition()));
      }
      c.assign(tps);
      c.seekToBeginning(tps);
      Map<TopicPartition, Long> end = c.endOffsets(tps, TIMEOUT);
      while (!reached(c, end)) {
        if (System.nanoTime() > deadline) {
          LOG.warn("reading {} did not reach its end offsets {} within {}: reading the events from offset 0", topic, end, TIMEOUT);
          return new SnapshotSet().result();
        }
        for (ConsumerRecord<String, byte[]> r : c.poll(Duration.ofMillis(200))) {
          set.accept(r.key(), r.value());
          records++;
        }
      }
    } catch (org.apache.kafka.common.KafkaException e) {
      LOG.warn("cannot read {} ({}): reading the events from offset 0", topic, e.toString());
      return new SnapshotSet().result();
    }
    LOG.info("read {} records of {}", records, topic);
    return set.result();
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
