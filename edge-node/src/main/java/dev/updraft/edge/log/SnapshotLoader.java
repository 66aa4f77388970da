package dev.updraft.edge.log;

import dev.updraft.common.TopicToEnd;
import dev.updraft.events.SnapshotSet;
import java.time.Duration;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
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
    TopicToEnd.Read read;
    try {
      read = TopicToEnd.read(p, topic, TIMEOUT, set::accept);
    } catch (org.apache.kafka.common.KafkaException e) {
      LOG.warn("cannot read {} ({}): reading the events from offset 0", topic, e.toString());
      return new SnapshotSet().result();
    }
    if (!read.topicExists()) {
      LOG.info("no topic {}: reading the events from offset 0", topic);
      return set.result();
    }
    if (!read.complete()) {
      LOG.warn("reading {} did not reach its end offsets {} within {}: reading the events from offset 0", topic, read.endOffsets(), TIMEOUT);
      return new SnapshotSet().result();
    }
    LOG.info("read {} records of {}", read.records(), topic);
    return set.result();
  }
}
