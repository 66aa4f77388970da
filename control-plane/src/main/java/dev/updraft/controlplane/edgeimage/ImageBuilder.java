package dev.updraft.controlplane.edgeimage;

import dev.updraft.common.KafkaClientConfig;
import dev.updraft.common.TopicToEnd;
import dev.updraft.events.SnapshotSet;
import dev.updraft.events.StoredImage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Builds the image an edge would build at start, from Kafka ({@code read_committed}): the latest record of each key
 * of {@code updraft.snapshots}, then every events partition from where those snapshots leave it (their markers) to
 * its last stable offset, so the image holds only whole, committed transactions. The result is the edge's own
 * format ({@link StoredImage}), with the partitions' positions as its offsets; an edge started from it catches up
 * from them. Blocking; its own consumers, closed before it returns.
 */
final class ImageBuilder {
  private final Properties props;
  private final String eventsTopic;
  private final String snapshotsTopic;
  private final Duration timeout;

  ImageBuilder(String bootstrap, KafkaClientConfig kafka, String eventsTopic, String snapshotsTopic, Duration timeout) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.CLIENT_ID_CONFIG, "updraft-control-plane-edge-image");
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "50");
    p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "2000");
    this.props = kafka.apply(p);
    this.eventsTopic = eventsTopic;
    this.snapshotsTopic = snapshotsTopic;
    this.timeout = timeout;
  }

  /** The log's end: the snapshots' and events' end offsets (what changes when there is something new to write). */
  Map<String, Long> ends() {
    Map<String, Long> out = new TreeMap<>();
    try (KafkaConsumer<byte[], byte[]> c = consumer()) {
      for (String topic : List.of(eventsTopic, snapshotsTopic)) {
        List<TopicPartition> tps = partitions(c, topic);
        c.endOffsets(tps, timeout).forEach((tp, o) -> out.put(tp.toString(), o));
      }
    }
    return out;
  }

  /**
   * The image as of now.
   *
   * @throws IllegalStateException when a topic cannot be read to its end within the timeout, or the events topic is missing
   */
  StoredImage build() {
    Map<String, byte[]> latest = new HashMap<>();
    SnapshotSet set = new SnapshotSet();
    Properties p = new Properties();
    p.putAll(props);
    p.put(ConsumerConfig.CLIENT_ID_CONFIG, "updraft-control-plane-edge-image-snapshots");
    TopicToEnd.Read read = TopicToEnd.read(p, snapshotsTopic, timeout, (k, v) -> {
      set.accept(k, v);
      if (k != null) {
        if (v == null) {
          latest.remove(k);
        } else {
          latest.put(k, v);
        }
      }
    });
    if (read.topicExists() && !read.complete()) {
      throw new IllegalStateException("reading " + snapshotsTopic + " did not reach its end offsets " + read.endOffsets() + " within " + timeout);
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    try (KafkaConsumer<byte[], byte[]> c = consumer()) {
      List<TopicPartition> tps = partitions(c, eventsTopic);
      if (tps.isEmpty()) {
        throw new IllegalStateException("no topic " + eventsTopic);
      }
      List<Integer> ids = new ArrayList<>();
      tps.forEach(tp -> ids.add(tp.partition()));
      Map<Integer, Long> from = set.result().startOffsets(ids);
      c.assign(tps);
      c.seekToBeginning(tps);
      for (TopicPartition tp : tps) {
        if (from.getOrDefault(tp.partition(), 0L) > 0) {
          c.seek(tp, from.get(tp.partition()));
        }
      }
      Map<TopicPartition, Long> end = c.endOffsets(tps, timeout);
      List<StoredImage.EventRecord> events = new ArrayList<>();
      while (!reached(c, end)) {
        if (System.nanoTime() - deadline > 0) {
          throw new IllegalStateException("reading " + eventsTopic + " did not reach its end offsets " + end + " within " + timeout);
        }
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
          events.add(new StoredImage.EventRecord(r.partition(), r.offset(), r.key(), r.value()));
        }
      }
      Map<Integer, Long> next = new TreeMap<>();
      for (TopicPartition tp : tps) {
        next.put(tp.partition(), c.position(tp));
      }
      long now = System.currentTimeMillis();
      return new StoredImage(now, now, eventsTopic, next, latest, events);
    }
  }

  private KafkaConsumer<byte[], byte[]> consumer() {
    return new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }

  private List<TopicPartition> partitions(KafkaConsumer<byte[], byte[]> c, String topic) {
    List<TopicPartition> out = new ArrayList<>();
    List<PartitionInfo> infos = c.partitionsFor(topic, timeout);
    if (infos != null) {
      for (PartitionInfo i : infos) {
        out.add(new TopicPartition(topic, i.partition()));
      }
    }
    return out;
  }

  private static boolean reached(KafkaConsumer<byte[], byte[]> c, Map<TopicPartition, Long> end) {
    for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
      if (c.position(e.getKey()) < e.getValue()) {
        return false;
      }
    }
    return true;
  }
}
