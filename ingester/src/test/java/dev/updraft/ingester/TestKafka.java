package dev.updraft.ingester;

import dev.updraft.events.CheckIn;
import dev.updraft.events.CheckInCodec;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** Creates telemetry topics and writes check-ins to them the way an edge does (key = client id). */
final class TestKafka implements AutoCloseable {
  private final KafkaProducer<byte[], byte[]> producer;

  TestKafka(String bootstrap) {
    producer =
        new KafkaProducer<>(
            Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.ACKS_CONFIG, "all",
                // not idempotent: on a just-created partition an idempotent producer that met NOT_LEADER
                // sometimes retried one batch with an out-of-order sequence until it expired (120 s), on a
                // loaded machine; the ingester counts each check-in id once, so a retried duplicate is harmless
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false,
                ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1,
                ProducerConfig.LINGER_MS_CONFIG, 5,
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName(),
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName()));
  }

  /**
   * Creates a topic and waits until every partition has a leader: producing into a partition whose
   * leader is still being elected can leave an idempotent producer retrying a batch for minutes.
   */
  static void createTopic(String bootstrap, String topic, int partitions) {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
      admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get(30, TimeUnit.SECONDS);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (true) {
        TopicDescription d = null;
        try {
          d = admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic);
        } catch (ExecutionException notYet) {
          // metadata not propagated yet
        }
        if (d != null && d.partitions().size() == partitions
            && d.partitions().stream().allMatch(p -> p.leader() != null && !p.leader().isEmpty())) {
          return;
        }
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("partitions of " + topic + " have no leader after 30 s: " + d);
        }
        Thread.sleep(50);
      }
    } catch (Exception e) {
      throw new IllegalStateException("cannot create topic " + topic, e);
    }
  }

  /**
   * Sends every check-in (key = client id, none for anonymous ones) and waits until all are acknowledged.
   *
   * @throws IllegalStateException when any send failed: a test must never wait for records that were lost
   */
  void send(String topic, List<CheckIn> checkIns) {
    send(topic, checkIns, null);
  }

  /** {@link #send(String, List)} with every record's Kafka timestamp set to {@code timestampMillis} (null: now). */
  void send(String topic, List<CheckIn> checkIns, Long timestampMillis) {
    List<Future<RecordMetadata>> sent = new ArrayList<>(checkIns.size());
    for (CheckIn c : checkIns) {
      byte[] key = c.clientId() == null ? null : c.clientId().getBytes(StandardCharsets.UTF_8);
      sent.add(producer.send(new ProducerRecord<>(topic, null, timestampMillis, key, CheckInCodec.encode(c))));
    }
    producer.flush();
    for (Future<RecordMetadata> f : sent) {
      try {
        f.get(60, TimeUnit.SECONDS);
      } catch (Exception e) {
        throw new IllegalStateException("a check-in was not written to " + topic, e);
      }
    }
  }

  /** Sends one raw value to one partition and returns its offset. */
  long sendRaw(String topic, int partition, byte[] value) {
    try {
      return producer.send(new ProducerRecord<>(topic, partition, null, value)).get(30, TimeUnit.SECONDS).offset();
    } catch (Exception e) {
      throw new IllegalStateException("cannot send to " + topic + "/" + partition, e);
    }
  }

  /** Sends one check-in to one partition and returns its offset. */
  long send(String topic, int partition, CheckIn c) {
    return sendRaw(topic, partition, CheckInCodec.encode(c));
  }

  @Override
  public void close() {
    producer.close();
  }
}
