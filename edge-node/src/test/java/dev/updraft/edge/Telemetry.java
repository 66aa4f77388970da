package dev.updraft.edge;

import dev.updraft.events.CheckIn;
import dev.updraft.events.CheckInCodec;
import dev.updraft.events.Topics;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
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

/** Reads every check-in on the telemetry topic, from offset 0 to the end offsets of now. */
final class Telemetry {
  /** A check-in read back, with whether it carried the edge's warm-up mark ({@code Topics.WARMUP_HEADER}). */
  record Received(String key, CheckIn checkIn, boolean warmup) {}

  private Telemetry() {}

  static List<Received> readAll(String bootstrap, String prefix) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    String topic = Topics.telemetry(prefix);
    List<Received> out = new ArrayList<>();
    try (KafkaConsumer<String, byte[]> c = new KafkaConsumer<>(p)) {
      List<TopicPartition> parts = new ArrayList<>();
      for (PartitionInfo i : c.partitionsFor(topic, Duration.ofSeconds(10))) {
        parts.add(new TopicPartition(topic, i.partition()));
      }
      c.assign(parts);
      c.seekToBeginning(parts);
      Map<TopicPartition, Long> end = new HashMap<>(c.endOffsets(parts));
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (!reached(c, end)) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError("telemetry not read to its end offsets " + end);
        }
        for (ConsumerRecord<String, byte[]> r : c.poll(Duration.ofMillis(200))) {
          try {
            out.add(new Received(r.key(), CheckInCodec.decode(r.value()),
                r.headers().lastHeader(dev.updraft.events.Topics.WARMUP_HEADER) != null));
          } catch (IOException e) {
            throw new AssertionError("undecodable check-in at offset " + r.offset() + ": " + e.getMessage(), e);
          }
        }
      }
    }
    return out;
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
