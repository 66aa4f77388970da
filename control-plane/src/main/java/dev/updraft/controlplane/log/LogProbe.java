package dev.updraft.controlplane.log;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeTopicsOptions;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartitionInfo;

/**
 * Asks Kafka, before a write, whether the events topic can take one: its description comes back within a
 * timeout and every partition has a leader. A write that would only wait for Kafka and then fail (an outage,
 * every broker down or unreachable) is refused before anything is sent, so nothing of it can become visible
 * later and the writer stays usable once Kafka is back. A broker lost while this answers yes is the writer's
 * own business ({@link EventLog#append}: abort, or settle an unknown commit).
 */
final class LogProbe {
  private LogProbe() {}

  /** Whether {@code topic}'s description arrives within {@code timeout} with a leader for every partition. */
  static boolean leadersKnown(Admin admin, String topic, Duration timeout) {
    try {
      TopicDescription d = admin.describeTopics(List.of(topic), new DescribeTopicsOptions().timeoutMs((int) timeout.toMillis()))
          .allTopicNames().get(timeout.toMillis(), TimeUnit.MILLISECONDS).get(topic);
      if (d == null || d.partitions().isEmpty()) {
        return false;
      }
      for (TopicPartitionInfo p : d.partitions()) {
        if (p.leader() == null || p.leader().isEmpty()) {
          return false;
        }
      }
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } catch (ExecutionException | java.util.concurrent.TimeoutException | org.apache.kafka.common.KafkaException e) {
      return false;
    }
  }
}
