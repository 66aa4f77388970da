package dev.updraft.edge;

import dev.updraft.events.EventCodec;
import dev.updraft.events.EventEnvelope;
import dev.updraft.events.EventPayload;
import dev.updraft.events.Topics;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * A test-only publisher: creates the topics as the control plane would (events: 3 partitions,
 * telemetry: 4) and appends events keyed by app id with per-app sequences from 1. "Publish" in these
 * tests means this append being acknowledged by Kafka. Thread-safe.
 */
final class TestLog implements AutoCloseable {
  final String bootstrap;
  final String prefix;
  private final KafkaProducer<String, byte[]> producer;
  private final Map<String, Long> sequences = new HashMap<>();

  TestLog(String bootstrap, String prefix) {
    this(bootstrap, prefix, true);
  }

  /** @param telemetry whether to create the telemetry topic (false leaves check-ins nowhere to go) */
  TestLog(String bootstrap, String prefix, boolean telemetry) {
    this.bootstrap = bootstrap;
    this.prefix = prefix;
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
      List<NewTopic> topics = new ArrayList<>();
      topics.add(new NewTopic(Topics.events(prefix), 3, (short) 1));
      if (telemetry) {
        topics.add(new NewTopic(Topics.telemetry(prefix), 4, (short) 1));
      }
      for (NewTopic t : topics) {
        try {
          admin.createTopics(Set.of(t)).all().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
          if (!(e.getCause() instanceof TopicExistsException)) {
            throw e;
          }
        }
      }
    } catch (Exception e) {
      throw new IllegalStateException("cannot create test topics prefix=" + prefix + ": " + e, e);
    }
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    p.put(ProducerConfig.LINGER_MS_CONFIG, "0");
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    producer = new KafkaProducer<>(p);
  }

  /** Appends one event and waits for Kafka's acknowledgement; returns its sequence. */
  synchronized long publish(String appId, EventPayload payload) {
    long seq = sequences.merge(appId, 1L, Long::sum);
    EventEnvelope e = EventEnvelope.of(appId, seq, Instant.now(), "test", payload);
    send(appId, EventCodec.encode(e));
    return seq;
  }

  /** Appends raw bytes keyed by {@code appId} (malformed or future events). */
  synchronized void publishRaw(String appId, byte[] value) {
    send(appId, value);
  }

  /** Uses up the next sequence of {@code appId} without appending (for an event written raw). */
  synchronized long takeSequence(String appId) {
    return sequences.merge(appId, 1L, Long::sum);
  }

  private void send(String key, byte[] value) {
    try {
      producer.send(new ProducerRecord<>(Topics.events(prefix), key, value)).get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("append failed key=" + key + ": " + e, e);
    }
  }

  @Override
  public void close() {
    producer.close();
  }
}
