package dev.updraft.edge.log;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The partitions of the events topic the reader assigns itself: found when the topic exists, and any added later. */
final class EventsPartitions {
  private static final Logger LOG = LoggerFactory.getLogger(EventsPartitions.class);

  private EventsPartitions() {}

  /** The topic's partitions, or none while it does not exist (or the metadata does not come within {@code timeout}). */
  static List<TopicPartition> of(KafkaConsumer<byte[], byte[]> c, String topic, Duration timeout) {
    List<TopicPartition> out = new ArrayList<>();
    try {
      List<PartitionInfo> infos = c.partitionsFor(topic, timeout);
      if (infos != null) {
        for (PartitionInfo p : infos) {
          out.add(new TopicPartition(topic, p.partition()));
        }
      }
    } catch (org.apache.kafka.common.errors.TimeoutException
        | org.apache.kafka.common.errors.UnknownTopicOrPartitionException e) {
      // not there yet
    }
    return out;
  }

  /** Assigns partitions the topic gained since the reader started, read from offset 0. */
  static void addNew(KafkaConsumer<byte[], byte[]> c, String topic) {
    Set<TopicPartition> now = new HashSet<>(c.assignment());
    List<TopicPartition> added = new ArrayList<>();
    for (TopicPartition tp : of(c, topic, Duration.ofSeconds(5))) {
      if (now.add(tp)) {
        added.add(tp);
      }
    }
    if (!added.isEmpty()) {
      c.assign(now);
      c.seekToBeginning(added);
      LOG.info("topic {} gained partitions {}; reading them from offset 0", topic, added);
    }
  }
}
