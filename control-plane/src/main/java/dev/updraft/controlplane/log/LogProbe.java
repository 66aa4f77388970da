package dev.updraft.controlplane.log;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.DescribeTopicsOptions;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.ConfigResource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Asks Kafka, before a write, whether the events topic can take one: its description comes back within a
 * timeout, every partition has a leader and at least the topic's {@code min.insync.replicas} in-sync replicas. A
 * write that would only wait for Kafka and then fail (an outage, every broker down or unreachable, or so many
 * brokers down that Kafka refuses {@code acks=all} writes with "not enough replicas") is refused before anything
 * is sent, so nothing of it can become visible later and the writer stays usable once Kafka is back. A broker
 * lost while this answers yes is the writer's own business ({@link EventLog#append}: abort, or settle an unknown
 * commit).
 */
final class LogProbe {
  private static final Logger LOG = LoggerFactory.getLogger(LogProbe.class);

  private LogProbe() {}

  /**
   * Why {@code topic} cannot take a write now, or null when it can: its description arrives within {@code timeout}
   * with a leader and at least {@code minInsync} in-sync replicas for every partition.
   */
  static String unwritable(Admin admin, String topic, int minInsync, Duration timeout) {
    return start(admin, topic, minInsync, timeout).get();
  }

  /**
   * Asks now; the answer ({@link #unwritable}'s) is read from the supplier, which waits for it until {@code timeout}
   * after this call. A command asks before it decides, so the round trip to Kafka overlaps the decision.
   */
  static Supplier<String> start(Admin admin, String topic, int minInsync, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    KafkaFuture<Map<String, TopicDescription>> asked;
    try {
      asked = admin.describeTopics(List.of(topic), new DescribeTopicsOptions().timeoutMs((int) timeout.toMillis())).allTopicNames();
    } catch (org.apache.kafka.common.KafkaException e) {
      return () -> noAnswer(timeout);
    }
    return () -> answer(asked, topic, minInsync, timeout, deadline);
  }

  private static String answer(KafkaFuture<Map<String, TopicDescription>> asked, String topic, int minInsync, Duration timeout,
      long deadline) {
    try {
      TopicDescription d = asked.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS).get(topic);
      if (d == null || d.partitions().isEmpty()) {
        return "the event log (Kafka) has no partitions of topic " + topic;
      }
      for (TopicPartitionInfo p : d.partitions()) {
        if (p.leader() == null || p.leader().isEmpty()) {
          return "partition " + p.partition() + " of the event log (" + topic + ") has no leader (brokers down)";
        }
        if (p.isr().size() < minInsync) {
          return "partition " + p.partition() + " of the event log (" + topic + ") has " + p.isr().size() + " in-sync replica(s), fewer than"
              + " its min.insync.replicas=" + minInsync + " (brokers down): Kafka refuses writes until a broker is back";
        }
      }
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "interrupted while asking Kafka";
    } catch (ExecutionException | java.util.concurrent.TimeoutException | org.apache.kafka.common.KafkaException e) {
      return noAnswer(timeout);
    }
  }

  private static String noAnswer(Duration timeout) {
    return "the event log (Kafka) did not answer within " + timeout.toSeconds() + " s (a Kafka outage)";
  }

  /** The {@code min.insync.replicas} {@code topic}'s brokers apply (its own or theirs); 1, with a warning, when it cannot be read. */
  static int minInsyncReplicas(Admin admin, String topic) {
    ConfigResource r = new ConfigResource(ConfigResource.Type.TOPIC, topic);
    try {
      ConfigEntry e = admin.describeConfigs(List.of(r)).all().get(10, TimeUnit.SECONDS).get(r).get("min.insync.replicas");
      return e == null || e.value() == null ? 1 : Integer.parseInt(e.value());
    } catch (ExecutionException | java.util.concurrent.TimeoutException | NumberFormatException e) {
      LOG.warn("cannot read min.insync.replicas of topic={} ({}): writes are probed for a leader per partition only", topic,
          e instanceof ExecutionException ? e.getCause() : e);
      return 1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while reading the configuration of topic=" + topic, e);
    }
  }
}
