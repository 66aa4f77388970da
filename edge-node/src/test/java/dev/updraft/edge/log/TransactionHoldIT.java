package dev.updraft.edge.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.edge.image.AppImage;
import dev.updraft.edge.image.LiveImage;
import dev.updraft.events.EventCodec;
import dev.updraft.events.EventEnvelope;
import dev.updraft.events.EventPayload;
import dev.updraft.events.Topics;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A command's events are one transaction; an edge reading the log one record per poll (the smallest fetch
 * there is: a transaction larger than a fetch is read over several polls) publishes no image with part of
 * one when the writer marks its events "more follow", and still publishes what older writers wrote.
 */
@ExtendWith(RealInfrastructure.class)
class TransactionHoldIT {
  static final String APP = "txn-app";

  @Test
  void anImageNeverShowsPartOfATransactionReadOverSeveralPolls(Infra infra) throws Exception {
    String topic = Topics.events(infra.topicPrefix());
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", infra.kafkaBootstrap()))) {
      admin.createTopics(Set.of(new NewTopic(topic, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
    }
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    LiveImage live = new LiveImage();
    try (KafkaProducer<String, byte[]> producer = producer(infra.kafkaBootstrap());
        EventLogReader reader = new EventLogReader(infra.kafkaBootstrap(), topic, "txn-edge", live, registry)) {
      reader.consumerProperty(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "1");
      write(producer, topic, List.of(event(1, new EventPayload.AppCreated("Transactions"))), true);
      reader.start();
      awaitSequence(live, 1);
      // ready once the reader's position passed the log end seen at start, which with one record per poll can take a
      // poll after the record that made sequence 1 visible (the transaction's commit marker is read on its own)
      long readyBy = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (!live.ready() && System.nanoTime() - readyBy < 0) {
        Thread.sleep(20);
      }
      assertThat(live.ready()).as("ready within 20 s of the first record").isTrue();

      // a command of three events, marked as the control plane writes them: one image, with all three
      long before = live.version();
      write(producer, topic, List.of(mapped(2, "alpha"), mapped(3, "beta"), mapped(4, "gamma")), true);
      awaitSequence(live, 4);
      assertThat(live.version() - before).as("images published for one three-event transaction").isEqualTo(1);

      // the same from a writer that predates the header: each poll's image is published, as before
      before = live.version();
      write(producer, topic, List.of(mapped(5, "delta"), mapped(6, "epsilon"), mapped(7, "zeta")), false);
      awaitSequence(live, 7);
      assertThat(live.version() - before).as("images published for an unmarked transaction read one record per poll").isEqualTo(3);

      // a last record that says more follow while the log holds no more: published anyway, counted
      ProducerRecord<String, byte[]> lying = record(topic, mapped(8, "eta"));
      lying.headers().add(Topics.MORE_HEADER, "1".getBytes(StandardCharsets.US_ASCII));
      producer.beginTransaction();
      producer.send(lying).get(30, TimeUnit.SECONDS);
      producer.commitTransaction();
      awaitSequence(live, 8);
      assertThat(registry.counter("updraft.edge.transactions.unfinished").count()).isEqualTo(1.0);
    }
  }

  private static void awaitSequence(LiveImage live, long sequence) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (System.nanoTime() < deadline) {
      AppImage app = live.image().app(APP);
      if (app != null && app.lastSequence() >= sequence) {
        assertThat(app.lastSequence()).isEqualTo(sequence);
        return;
      }
      Thread.sleep(20);
    }
    AppImage app = live.image().app(APP);
    throw new AssertionError("the image did not reach sequence " + sequence + " of " + APP + " within 20 s (at "
        + (app == null ? "no app" : app.lastSequence()) + ")");
  }

  private static EventEnvelope mapped(long sequence, String channel) {
    return event(sequence, new EventPayload.ChannelMapped(channel, "main", null));
  }

  private static EventEnvelope event(long sequence, EventPayload payload) {
    return EventEnvelope.of(APP, sequence, Instant.now(), "test", payload);
  }

  private static ProducerRecord<String, byte[]> record(String topic, EventEnvelope e) {
    return new ProducerRecord<>(topic, e.appId(), EventCodec.encode(e));
  }

  /** One transaction; {@code marked}: every event but the last carries how many follow, as the control plane writes. */
  private static void write(KafkaProducer<String, byte[]> producer, String topic, List<EventEnvelope> events, boolean marked)
      throws Exception {
    producer.beginTransaction();
    for (int i = 0; i < events.size(); i++) {
      ProducerRecord<String, byte[]> r = record(topic, events.get(i));
      int more = events.size() - 1 - i;
      if (marked && more > 0) {
        r.headers().add(Topics.MORE_HEADER, Integer.toString(more).getBytes(StandardCharsets.US_ASCII));
      }
      producer.send(r).get(30, TimeUnit.SECONDS);
    }
    producer.commitTransaction();
  }

  private static KafkaProducer<String, byte[]> producer(String bootstrap) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "txn-hold-test");
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    KafkaProducer<String, byte[]> producer = new KafkaProducer<>(p);
    producer.initTransactions();
    return producer;
  }
}
