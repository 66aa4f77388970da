package dev.updraft.load;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.events.Decoded;
import dev.updraft.events.EventCodec;
import dev.updraft.events.Topics;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import java.time.Duration;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The generated event log lands on a real Kafka topic, keyed by app, in per-app order. */
@ExtendWith(RealInfrastructure.class)
class EventLogKafkaIT {

  @Test
  void appendsTheLogToTheEventsTopicKeyedByApp(Infra infra) {
    java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
    int exit = LoadCommand.run(new String[] {"events", "--apps", "4", "--channels", "2", "--runtime-versions", "1", "--updates", "3",
        "--kafka-bootstrap", infra.kafkaBootstrap(), "--topic-prefix", infra.topicPrefix()}, Map.of(), System.out,
        new java.io.PrintStream(err, true, java.nio.charset.StandardCharsets.UTF_8));
    assertThat(exit).as(err.toString(java.nio.charset.StandardCharsets.UTF_8)).isZero();
    // 4 apps x (1 + 2 + 2 x 1 x 3) = 36 events
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, infra.kafkaBootstrap());
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    String topic = Topics.events(infra.topicPrefix());
    Map<String, Long> lastSeq = new HashMap<>();
    int n = 0;
    try (KafkaConsumer<String, byte[]> c = new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer())) {
      List<PartitionInfo> parts = c.partitionsFor(topic, Duration.ofSeconds(10));
      c.assign(parts.stream().map(i -> new TopicPartition(topic, i.partition())).toList());
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (n < 36 && System.nanoTime() < deadline) {
        for (ConsumerRecord<String, byte[]> r : c.poll(Duration.ofMillis(200))) {
          Decoded d = EventCodec.decode(r.value());
          assertThat(d).isInstanceOf(Decoded.Known.class);
          var e = ((Decoded.Known) d).envelope();
          assertThat(r.key()).isEqualTo(e.appId());
          assertThat(e.sequence()).isEqualTo(lastSeq.getOrDefault(e.appId(), 0L) + 1);
          lastSeq.put(e.appId(), e.sequence());
          n++;
        }
      }
    }
    assertThat(n).isEqualTo(36);
    assertThat(lastSeq).hasSize(4).containsValue(9L);
  }
}
