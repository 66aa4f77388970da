package dev.updraft.ingester.history;

import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The consumer settings both of the ingester's loops use (telemetry and the history projection): a group
 * member that commits nothing to Kafka (its offsets live in PostgreSQL, in the transaction of the rows),
 * reads only committed records and starts at the log's beginning without stored offsets. Each caller adds
 * what differs (session timeout, poll size, fetch size, topic creation).
 */
public final class ReadCommittedConsumer {
  private ReadCommittedConsumer() {}

  /** The shared settings; {@code clientIdPrefix} names the loop in the broker's logs. */
  public static Map<String, Object> properties(String bootstrap, String group, String clientIdPrefix, int sessionTimeoutMs, int maxPollRecords) {
    Map<String, Object> p = new HashMap<>();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    p.put(ConsumerConfig.CLIENT_ID_CONFIG, clientIdPrefix + UUID.randomUUID().toString().substring(0, 8));
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, sessionTimeoutMs);
    p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, maxPollRecords);
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    return p;
  }
}
