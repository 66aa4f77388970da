package dev.updraft.controlplane.snapshots;

import dev.updraft.common.KafkaClientConfig;
import dev.updraft.common.TopicToEnd;
import dev.updraft.events.SnapshotSet;
import java.time.Duration;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Reads {@code updraft.snapshots} from its start to its end ({@code read_committed}) at start. */
final class SnapshotStore {
  private static final Logger LOG = LoggerFactory.getLogger(SnapshotStore.class);

  private SnapshotStore() {}

  /** What the topic holds; empty when it does not exist. */
  static SnapshotSet.Result read(String bootstrap, KafkaClientConfig kafka, String topic, Duration timeout) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 50);
    p.put(ConsumerConfig.CLIENT_ID_CONFIG, "updraft-control-plane-snapshots-" + UUID.randomUUID().toString().substring(0, 8));
    SnapshotSet set = new SnapshotSet();
    TopicToEnd.Read read;
    try {
      read = TopicToEnd.read(kafka.apply(p), topic, timeout, set::accept);
    } catch (org.apache.kafka.common.errors.TimeoutException e) {
      LOG.warn("cannot read topic {} ({}): starting without snapshots", topic, e.getMessage());
      return new SnapshotSet().result();
    }
    if (!read.topicExists()) {
      LOG.info("no topic {}: starting without snapshots", topic);
    } else if (!read.complete()) {
      throw new IllegalStateException("reading topic=" + topic + " did not reach its end offsets=" + read.endOffsets() + " within " + timeout);
    } else {
      LOG.info("read topic={} records={}", topic, read.records());
    }
    return set.result();
  }
}
