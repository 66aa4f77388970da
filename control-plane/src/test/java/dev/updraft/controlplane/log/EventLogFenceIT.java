package dev.updraft.controlplane.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.updraft.common.KafkaClientConfig;
import dev.updraft.events.EventEnvelope;
import dev.updraft.events.AppEvents.AppCreated;
import dev.updraft.events.AppEvents.TokenIssued;
import dev.updraft.events.Topics;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The race SecondControlPlaneIT met now and then, made to happen every time: a new producer with the same
 * {@code transactional.id} initialises while the writer's transaction is open (its records in the log),
 * and the writer's commit reaches the coordinator after the new producer's {@code InitProducerId} aborted
 * that transaction and before its retry. Kafka answers that commit with INVALID_TXN_STATE, not
 * "fenced", so the writer does not know the outcome; settling it must find both what happened to the
 * write (not committed) and that another producer took over.
 *
 * <p>The new producer retries its {@code InitProducerId} only after 3 s ({@code retry.backoff.ms}), which
 * holds the window open; the writer's commit is sent once the coordinator shows the abort.
 */
@ExtendWith(RealInfrastructure.class)
class EventLogFenceIT {
  static final Duration T = Duration.ofSeconds(30);
  static final AtomicInteger appends = new AtomicInteger();

  @Test
  void aCommitThatRacedANewProducersInitIsSettledAsFencedWithNothingWritten(Infra infra) throws Exception {
    String topic = Topics.events(infra.topicPrefix());
    String tid = infra.topicPrefix() + "fence-race";
    AtomicReference<Thread> fencer = new AtomicReference<>();
    AtomicReference<Throwable> fencerFailed = new AtomicReference<>();
    try (Admin admin = Admin.create(adminProps(infra));
        EventLog log = new EventLog(infra.kafkaBootstrap(), KafkaClientConfig.none(), topic, tid, () -> fenceAndAwaitAbort(infra, tid, admin, fencer, fencerFailed))) {
      admin.createTopics(List.of(new NewTopic(topic, 3, (short) 1))).all().get(T.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
      log.startWriter(T);
      log.replay(r -> { }, T);
      // the first append commits before any new producer (the hook fences on the second)
      List<EventEnvelope> first = List.of(EventEnvelope.of("race", 1, Instant.now(), "admin", new AppCreated("Race")));
      assertThat(log.append(first)).hasSize(1);

      List<EventEnvelope> second = List.of(EventEnvelope.of("race", 2, Instant.now(), "admin", new TokenIssued("tok_000000000001", "read", "00", "raced", null)));
      LogWriteException uncertain = (LogWriteException) catchAppend(log, second);
      assertThat(uncertain.kind()).as(uncertain.toString()).isEqualTo(LogWriteException.Kind.UNCERTAIN);
      assertThat(uncertain.getCause()).hasMessageContaining("invalid state");

      Settlement s = log.settle(uncertain, Duration.ofSeconds(15));
      assertThat(s.outcome()).as(s.reason()).isEqualTo(Settlement.Outcome.FENCED_NOTHING_WRITTEN);
      assertThat(s.records()).isEmpty();
      fencer.get().join(T.toMillis());
      assertThat(fencerFailed.get()).as("the new producer's initTransactions").isNull();
      // the writer is closed: a further append is refused as fenced, and nothing was committed
      assertThatThrownBy(() -> log.append(second)).isInstanceOf(LogWriteException.class)
          .satisfies(e -> assertThat(((LogWriteException) e).kind()).isEqualTo(LogWriteException.Kind.FENCED));
    }
    List<String> committed = new ArrayList<>();
    try (EventLog reader = new EventLog(infra.kafkaBootstrap(), KafkaClientConfig.none(), topic, tid + "-reader")) {
      reader.replay(r -> committed.add(r.key() + "@" + r.offset()), T);
    }
    assertThat(committed).as("only the first append is in the log").hasSize(1);
  }

  private static Throwable catchAppend(EventLog log, List<EventEnvelope> events) {
    try {
      log.append(events);
    } catch (LogWriteException e) {
      return e;
    }
    throw new AssertionError("the append raced by a new producer succeeded");
  }

  /** On the second append only: a new producer initialises; returns once its InitProducerId aborted the open transaction. */
  private static void fenceAndAwaitAbort(Infra infra, String tid, Admin admin, AtomicReference<Thread> fencer, AtomicReference<Throwable> failed) {
    if (appends.incrementAndGet() != 2) {
      return;
    }
    TransactionDescription open = describe(admin, tid);
    if (open.topicPartitions().isEmpty() || open.state() != TransactionState.ONGOING) {
      throw new AssertionError("no open transaction to race: " + open);
    }
    Thread t = new Thread(() -> {
      Properties p = new Properties();
      p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, infra.kafkaBootstrap());
      p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, tid);
      p.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, 3_000);
      p.put(ProducerConfig.RETRY_BACKOFF_MAX_MS_CONFIG, 3_000);
      try (KafkaProducer<String, byte[]> p2 = new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer())) {
        p2.initTransactions();
      } catch (RuntimeException e) {
        failed.set(e);
      }
    }, "new-producer");
    fencer.set(t);
    t.start();
    long deadline = System.nanoTime() + T.toNanos();
    while (describe(admin, tid).state() != TransactionState.COMPLETE_ABORT) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("the new producer did not abort the open transaction: " + describe(admin, tid));
      }
      sleep(10);
    }
  }

  private static TransactionDescription describe(Admin admin, String tid) {
    try {
      return admin.describeTransactions(List.of(tid)).description(tid).get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError("cannot describe " + tid, e);
    }
  }

  private static Properties adminProps(Infra infra) {
    Properties p = new Properties();
    p.put("bootstrap.servers", infra.kafkaBootstrap());
    return p;
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }
}
