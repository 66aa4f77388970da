package dev.updraft.ingester;

import static dev.updraft.ingester.history.HistoryEvents.e;
import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.events.EventCodec;
import dev.updraft.events.EventEnvelope;
import dev.updraft.events.EventPayload;
import dev.updraft.events.AppEvents.AppCreated;
import dev.updraft.events.RolloutEvents.RolloutChanged;
import dev.updraft.events.RolloutEvents.RolloutGuard;
import dev.updraft.events.UpdateEvents.UpdatePublished;
import dev.updraft.events.Topics;
import dev.updraft.ingester.history.HistoryEvents;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import io.vertx.core.Vertx;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The history projection with real Kafka and PostgreSQL: the audit rows and group rows of a log, written
 * once however often the log is read (a lost offset row makes it read everything again), an app deleted and
 * created again, and records that are not events.
 */
@ExtendWith(RealInfrastructure.class)
class HistoryProjectionIT {
  private static final Duration TIMEOUT = Duration.ofSeconds(90);
  private Vertx vertx;

  @BeforeEach
  void startVertx() {
    vertx = Vertx.vertx();
  }

  @AfterEach
  void stopVertx() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
  }

  private static void send(Infra infra, String topic, List<EventEnvelope> events, byte[]... raw) throws Exception {
    try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(Map.of(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, infra.kafkaBootstrap(),
        ProducerConfig.ACKS_CONFIG, "all",
        ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName(),
        ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName()))) {
      for (EventEnvelope ev : events) {
        p.send(new ProducerRecord<>(topic, ev.appId().getBytes(StandardCharsets.UTF_8), EventCodec.encode(ev))).get(30, TimeUnit.SECONDS);
      }
      for (byte[] r : raw) {
        p.send(new ProducerRecord<>(topic, "demo".getBytes(StandardCharsets.UTF_8), r)).get(30, TimeUnit.SECONDS);
      }
    }
  }

  /** {@code events} in one Kafka transaction, as the control plane appends them (a commit marker after the last). */
  private static void sendInTransaction(Infra infra, String topic, List<EventEnvelope> events) throws Exception {
    try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(Map.of(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, infra.kafkaBootstrap(),
        ProducerConfig.TRANSACTIONAL_ID_CONFIG, topic + "-writer",
        ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName(),
        ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName()))) {
      p.initTransactions();
      p.beginTransaction();
      for (EventEnvelope ev : events) {
        p.send(new ProducerRecord<>(topic, ev.appId().getBytes(StandardCharsets.UTF_8), EventCodec.encode(ev)));
      }
      p.commitTransaction();
    }
  }

  /** {@code e} a day later (an app created again is created after it was deleted). */
  private static EventEnvelope later(EventEnvelope e) {
    return new EventEnvelope(java.util.UUID.randomUUID(), e.type(), e.schemaVersion(), e.appId(), e.sequence(), e.occurredAt().plusSeconds(86_400),
        e.actor(), e.payload());
  }

  /** {@code prefix}'s events topic, created with one partition. */
  private static String eventsTopic(Infra infra, String prefix) throws Exception {
    String topic = Topics.events(prefix);
    TestKafka.createTopic(infra.kafkaBootstrap(), topic, 1);
    return topic;
  }

  /** An ingester (its history projection) on {@code prefix}'s topics. */
  private TelemetryIngester projecting(Infra infra, String prefix) throws Exception {
    return TelemetryIngesterIT.await(TelemetryIngester.start(vertx, TelemetryIngesterIT.config(infra, prefix, Map.of())));
  }

  private static void awaitAuditRows(TestDb db, String app, long rows) {
    TestDb.await(() -> db.scalar("SELECT count(*) FROM history_audit WHERE app_id = ?", app) == rows, TIMEOUT,
        () -> "audit rows of app " + app + ": " + db.scalar("SELECT count(*) FROM history_audit WHERE app_id = ?", app));
  }

  private static List<String> summaries(TestDb db, String app) {
    List<String> out = new ArrayList<>();
    for (List<Object> r : db.rows("SELECT summary FROM history_audit WHERE app_id = ? ORDER BY app_created_at, sequence", app)) {
      out.add((String) r.get(0));
    }
    return out;
  }

  @Test
  void projectsTheAuditAndTheGroupsOfALogExactlyOnce(Infra infra) throws Exception {
    String prefix = infra.topicPrefix() + "hist.";
    String topic = Topics.events(prefix);
    TestKafka.createTopic(infra.kafkaBootstrap(), topic, 3);
    List<EventEnvelope> log = new ArrayList<>(HistoryEvents.log());
    RolloutGuard guard = new RolloutGuard(2.5, 100, 3600);
    // the control plane's audit said what a rollout change changed; the projection says the same
    log.add(e("roll", 1, new AppCreated("Roll")));
    log.add(e("roll", 2, new UpdatePublished(HistoryEvents.group("r1", "main", null, "ios"))));
    log.add(e("roll", 3, new UpdatePublished(HistoryEvents.group("r2", "main", new EventPayload.Rollout("x2", 10, "r1", null), "ios"))));
    log.add(e("roll", 4, new RolloutChanged("r2", "x2", 40, null)));
    log.add(e("roll", 5, new RolloutChanged("r2", "x2", 40, guard)));
    log.add(e("roll", 6, new RolloutChanged("r2", "x2", 60, guard)));
    log.add(e("roll", 7, new RolloutChanged("r2", "x2", 60, null)));
    send(infra, topic, log, "not an event".getBytes(StandardCharsets.UTF_8));
    TestDb db = TelemetryIngesterIT.db(infra);
    IngesterConfig config = TelemetryIngesterIT.config(infra, prefix, Map.of());

    TelemetryIngester ingester = TelemetryIngesterIT.await(TelemetryIngester.start(vertx, config));
    try {
      TestDb.await(() -> db.scalar("SELECT count(*) FROM history_audit WHERE app_id IN ('demo', 'roll')") == 16, TIMEOUT,
          () -> "audit rows: " + db.scalar("SELECT count(*) FROM history_audit WHERE app_id IN ('demo', 'roll')"));
      List<String> demo = summaries(db, "demo");
      assertThat(demo).hasSize(9);
      assertThat(demo.get(5)).contains("reverted").contains("bad").contains("g3");
      assertThat(summaries(db, "roll").subList(3, 7)).containsExactly(
          "rollout of group r2 set to 40% (from 10%)",
          "rollout of group r2: guard set: revert above 2.5% failures among at least 100 devices within 3600 s",
          "rollout of group r2 set to 60% (from 40%)",
          "rollout of group r2: guard removed");
      assertThat(db.rows("SELECT group_id, rollout_status, rollout_percentage, reverted_by FROM history_groups WHERE app_id = 'demo'"
          + " ORDER BY sequence")).containsExactly(
              java.util.Arrays.asList("g1", null, null, null), List.of("g2", "reverted", 40, "g3"), java.util.Arrays.asList("g3", null, null, null));
      assertThat(db.scalar("SELECT last_sequence FROM history_apps WHERE app_id = 'demo'")).isEqualTo(9);
      TestDb.await(() -> ingester.scrape().contains("updraft_history_audit_rows_total 16.0"), TIMEOUT, ingester::scrape);
      assertThat(ingester.scrape()).contains("updraft_history_decode_errors_total 1.0").contains("updraft_history_lag_records");
    } finally {
      TelemetryIngesterIT.await(ingester.close());
    }

    // the offsets lost: the log is read again from its start, and nothing is written twice
    db.execute("DELETE FROM history_offsets");
    List<EventEnvelope> more = List.of(
        e(10, new EventPayload.UpdatePinned("g1", true)),
        e(11, new EventPayload.UpdatesDeleted(List.of("g1", "g9"), null)),
        e(12, new EventPayload.AppDeleted("Demo")),
        later(e(1, new AppCreated("Demo again"))),
        later(e(2, new UpdatePublished(HistoryEvents.group("n1", "main", null, "ios")))));
    send(infra, topic, more);
    TelemetryIngester again = TelemetryIngesterIT.await(TelemetryIngester.start(vertx, config));
    try {
      TestDb.await(() -> db.scalar("SELECT count(*) FROM history_audit WHERE app_id IN ('demo', 'roll')") == 21, Duration.ofSeconds(90),
          () -> "audit rows: " + db.scalar("SELECT count(*) FROM history_audit WHERE app_id IN ('demo', 'roll')"));
      Thread.sleep(1_000);
      assertThat(db.scalar("SELECT count(*) FROM history_audit WHERE app_id IN ('demo', 'roll')")).isEqualTo(21);
      assertThat(summaries(db, "demo")).contains("deleted 1 update group g1, g9", "pinned group g1", "created app demo (Demo again)");
      assertThat(db.scalar("SELECT count(DISTINCT app_created_at) FROM history_audit WHERE app_id = 'demo'"))
          .as("two incarnations of the app id").isEqualTo(2);
      assertThat(db.rows("SELECT group_id FROM history_groups WHERE app_id = 'demo' AND deleted_at IS NULL"))
          .as("the deleted app's groups are deleted; the new app's are not").containsExactly(List.of("n1"));
      assertThat(db.scalar("SELECT count(*) FROM history_groups WHERE app_id = 'demo' AND deleted_at IS NOT NULL")).isEqualTo(3);
    } finally {
      TelemetryIngesterIT.await(again.close());
    }
  }

  @Test
  void anEventWithANulCharacterIsStoredWithAReplacementAndTheEventsAfterItAreProjected(Infra infra) throws Exception {
    // builds before 2026-12-03 accepted a NUL in messages, labels and reasons; PostgreSQL's text holds none, so such an
    // event already in a log failed its batch on every retry and the projection stopped there for good
    String prefix = infra.topicPrefix() + "hist-nul.";
    String topic = eventsTopic(infra, prefix);
    EventPayload.UpdateGroup g = HistoryEvents.group("z1", "main", null, "ios");
    EventPayload.UpdateGroup withMessage = new EventPayload.UpdateGroup(g.groupId(), g.kind(), g.branch(), g.runtimeVersion(),
        "fix\0crash", g.gitCommitHash(), g.idempotencyKey(), g.republishedFrom(), g.rollout(), g.platforms());
    EventEnvelope published = e("nul", 3, new UpdatePublished(withMessage));
    List<EventEnvelope> log = List.of(
        e("nul", 1, new AppCreated("Nul")),
        e("nul", 2, new EventPayload.TokenIssued("tok_n", "publish", "bb".repeat(32), "ci\0bot", null)),
        new EventEnvelope(published.eventId(), published.type(), 1, "nul", 3, published.occurredAt(), "token:ci\0bot", published.payload()),
        e("nul", 4, new EventPayload.ChannelMapped("production", "main", null)));
    send(infra, topic, log);
    TestDb db = TelemetryIngesterIT.db(infra);
    TelemetryIngester ingester = projecting(infra, prefix);
    try {
      awaitAuditRows(db, "nul", 4);
      assertThat(db.rows("SELECT message, actor FROM history_groups WHERE app_id = 'nul'"))
          .containsExactly(List.of("fix\uFFFDcrash", "token:ci\uFFFDbot"));
      assertThat(summaries(db, "nul").get(1)).contains("ci\uFFFDbot").doesNotContain("\0");
      assertThat(summaries(db, "nul").get(3)).contains("production");
      assertThat(db.scalar("SELECT last_sequence FROM history_apps WHERE app_id = 'nul'")).isEqualTo(4);
    } finally {
      TelemetryIngesterIT.await(ingester.close());
    }
  }

  @Test
  void theLagIsZeroOnceEveryEventOfATransactionalLogIsProjected(Infra infra) throws Exception {
    // the stored offset is the last event's plus one; the commit marker after it is one more offset in the log
    String prefix = infra.topicPrefix() + "hist-tx.";
    String topic = eventsTopic(infra, prefix);
    sendInTransaction(infra, topic, List.of(e("tx", 1, new AppCreated("Tx")),
        e("tx", 2, new EventPayload.ChannelMapped("production", "main", null))));
    TestDb db = TelemetryIngesterIT.db(infra);
    TelemetryIngester ingester = projecting(infra, prefix);
    try {
      awaitAuditRows(db, "tx", 2);
      TestDb.await(() -> TelemetryIngesterIT.gauge(ingester, "updraft.history.lag") == 0.0, Duration.ofSeconds(10),
          () -> "history lag with every event projected: " + TelemetryIngesterIT.gauge(ingester, "updraft.history.lag"));
    } finally {
      TelemetryIngesterIT.await(ingester.close());
    }
  }
}
