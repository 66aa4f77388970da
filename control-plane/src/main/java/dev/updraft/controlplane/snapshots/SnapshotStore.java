package dev.updraft.controlplane.snapshots;

import dev.updraft.events.SnapshotSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Reads {@code updraft.snapshots} from its start to its end ({@code read_committed}) at start. */
final class SnapshotStore {
  private static final Logger LOG = LoggerFactory.getLogger(SnapshotStore.class);

  private SnapshotStore() {}

  /** What the topic holds; empty when it does not exist. */
  static SnapshotSet.Result read(String bootstrap, String topic, Duration timeout) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 50);
    p.put(ConsumerConfig.CLIENT_ID_CONFIG, "updraft-control-plane-snapshots-" + UUID.randomUUID().toString().substring(0, 8));
    SnapshotSet set = new SnapshotSet();
    long deadline = System.nanoTime() + timeout.toNanos();
    long records = 0;
    try (KafkaConsumer<String, byte[]> c = new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer())) {
      List<PartitionInfo> infos = c.partitionsFor(topic, Duration.ofSeconds(10));
      if (infos == null || infos.isEmpty()) {
        LOG.info("no topic {}: starting without snapshots", topic);
        return set.result();
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
          throw new IllegalStateException("reading topic=" + topic + " did not reach its end offsets=" + end + " within " + timeout);
        }
        for (ConsumerRecord<String, byte[]> r : c.poll(Duration.ofMillis(200))) {
          set.accept(r.key(), r.value());
          records++;
        }
      }
      c.close(CloseOptions.timeout(Duration.ofSeconds(5)));
    } catch (org.apache.kafka.common.errors.TimeoutException e) {
      LOG.warn("cannot read topic {} ({}): starting without snapshots", topic, e.getMessage());
      return new SnapshotSet().result();
    }
    LOG.info("read topic={} records={}", topic, records);
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
