package dev.updraft.ingester.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The consumer settings both of the ingester's loops use (telemetry and the history projection): a group
 * member that commits nothing to Kafka (its offsets live in PostgreSQL, in the transaction of the rows),
 * reads only committed records and starts at the log's beginning without stored offsets. Each caller adds
 * what differs (session timeout, poll size, fetch size, topic creation). Both read their lag with {@link #logEnds}.
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

  /**
   * The log end of each of {@code assigned} (for a read-committed consumer, its last stable offset), for a lag
   * gauge. For a partition being fetched it comes from the consumer's own fetch responses ({@code currentLag}
   * plus the position: no request). Only the others are asked of the broker: paused ones (PostgreSQL down:
   * their lag must keep growing) and ones not fetched yet. That request goes on the connection the fetches
   * use, and the broker answers a connection's requests in order: asked while a fetch waits for data ({@code
   * fetch.max.wait.ms}), it would stall the loop until the fetch returns, or time out after 500 ms and leave
   * the gauge stale.
   */
  public static Map<TopicPartition, Long> logEnds(Consumer<?, ?> consumer, Set<TopicPartition> assigned) {
    Map<TopicPartition, Long> end = new HashMap<>();
    Set<TopicPartition> paused = consumer.paused();
    List<TopicPartition> ask = new ArrayList<>();
    for (TopicPartition tp : assigned) {
      OptionalLong lag = paused.contains(tp) ? OptionalLong.empty() : consumer.currentLag(tp);
      if (lag.isPresent()) {
        end.put(tp, consumer.position(tp) + lag.getAsLong()); // a known lag implies a known position
      } else {
        ask.add(tp);
      }
    }
    if (!ask.isEmpty()) {
      end.putAll(consumer.endOffsets(ask, Duration.ofMillis(500)));
    }
    return end;
  }
}
