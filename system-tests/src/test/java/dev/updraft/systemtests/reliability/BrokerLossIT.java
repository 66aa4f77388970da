package dev.updraft.systemtests.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.updraft.controlplane.ControlPlane;
import dev.updraft.edge.EdgeNode;
import dev.updraft.events.Decoded;
import dev.updraft.events.EventCodec;
import dev.updraft.events.EventEnvelope;
import dev.updraft.events.EventPayload;
import dev.updraft.events.EventType;
import dev.updraft.events.Topics;
import dev.updraft.ingester.TelemetryIngester;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.KafkaCluster;
import dev.updraft.testing.RealInfrastructure;
import dev.updraft.testing.protocol.SignatureVerifier;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Kafka cluster of three brokers loses one, twice: first the leader of the events partition of the
 * app, then (after it came back) the leader of the most telemetry partitions, each for {@link #DOWN},
 * while a publisher publishes through the real CLI and API every {@link LogPublisher#PAUSE_MS} ms and
 * devices poll two edges. The topics are the control plane's own: replication 3, {@code
 * min.insync.replicas=2}.
 *
 * <p>What must hold: every publish the API acknowledged is in the log exactly once (its idempotency key
 * once, with the group the API answered), per-app sequences have no gap and no repeat, and nothing a
 * transaction aborted is visible to a {@code read_committed} reader; both edges end with the same image
 * ({@code /readyz} counts) and serve the newest publish; every check-in an edge handed to Kafka (its
 * {@code updraft_edge_checkins_sent_total}) is counted exactly once in PostgreSQL by the ingester; and
 * once the restarted brokers have caught up and lead again (a preferred-leader election), the log, the
 * edges and PostgreSQL are unchanged.
 */
@ExtendWith(RealInfrastructure.class)
class BrokerLossIT {
  static final String APP = "loss";
  static final String PREFIX = "loss.";
  static final Duration DOWN = Duration.ofSeconds(6); // twice the brokers' 3 s session: fenced, leaders move

  @Test
  void losingALeaderLosesNoAcknowledgedPublishAndNoCheckIn(Infra infra, @TempDir Path dir) throws Exception {
    Vertx vertx = Vertx.vertx();
    KafkaCluster kafka = KafkaCluster.start(3);
    String bootstrap = kafka.bootstrapServers();
    String events = Topics.events(PREFIX);
    String telemetry = Topics.telemetry(PREFIX);
    List<EdgeNode> edges = new ArrayList<>();
    ControlPlane cp = null;
    TelemetryIngester ingester = null;
    DeviceLoad load = null;
    LogPublisher publisher = null;
    try {
      cp = Services.controlPlane(vertx, bootstrap, PREFIX, dir.resolve("cp"));
      String server = "http://127.0.0.1:" + cp.port();
      Publishing.appWithUpdate(server, APP, true, "main");
      for (String topic : List.of(events, telemetry)) {
        assertThat(kafka.describe(topic).partitions()).allMatch(p -> p.replicas().size() == 3);
      }
      for (String id : List.of("loss-edge-a", "loss-edge-b")) {
        edges.add(Services.readyEdge(vertx, bootstrap, PREFIX, id));
      }
      ingester = Services.ingester(vertx, bootstrap, PREFIX, Services.postgresUrl(infra.pgPort(), infra.database(), infra.pgUser()));
      IntSupplier[] ports = edges.stream().map(e -> (IntSupplier) e::port).toArray(IntSupplier[]::new);
      load = new DeviceLoad(APP, "main", ports, 1, 300, 5_000, r -> r.status() == 200 ? null : "not 200: " + r.text());
      publisher = new LogPublisher(server, APP);
      DeviceLoad l = load;
      LogPublisher pub = publisher;
      TelemetryIngester ing = ingester;
      Services.until("publishes and check-ins flow", () -> pub.acknowledged() >= 3 && records(ing) > 200, Duration.ofSeconds(60));

      // 1. the leader of the app's events partition
      int eventsPartition = eventsPartition(bootstrap, events);
      int eventsLeader = kafka.leader(events, eventsPartition);
      Fault first = lose(kafka, eventsLeader, "events-leader-down", l, pub);
      kafka.awaitInSync(events, Duration.ofSeconds(60));
      kafka.awaitInSync(telemetry, Duration.ofSeconds(60));

      // 2. the leader of the most telemetry partitions
      int telemetryLeader = busiestLeader(kafka, telemetry);
      Fault second = lose(kafka, telemetryLeader, "telemetry-leader-down", l, pub);
      kafka.awaitInSync(events, Duration.ofSeconds(60));
      kafka.awaitInSync(telemetry, Duration.ofSeconds(60));
      l.phase("after");
      Services.until("publishes and devices after both faults", () -> l.answered("after") > 300 && pub.acknowledged() >= first.acknowledged + second.acknowledged + 2, Duration.ofSeconds(60));
      publisher.close();
      load.close();
      load = null;

      assertThat(l.examples).as("failed device requests").isEmpty();
      assertThat(l.failures.get()).isZero();
      assertThat(publisher.unacknowledged()).as("publishes never acknowledged, even when retried with their key").isEmpty();

      // the log: each acknowledged publish once, with the group the API answered; sequences 1..n; nothing aborted visible
      Snapshot before = Snapshot.take(kafka, infra, edges, APP);
      Map<String, String> acked = publisher.groupsByKey();
      assertThat(before.groupsByKey).as("publishes in the log, by idempotency key").containsAllEntriesOf(acked);
      assertThat(before.keyCount.values()).as("each idempotency key in the log once").allMatch(n -> n == 1);
      List<Long> sequences = before.sequences;
      for (int i = 0; i < sequences.size(); i++) {
        assertThat(sequences.get(i)).as("sequence %d of %s", i, APP).isEqualTo(i + 1L);
      }
      assertThat(before.abortedGroupIds).as("groups of aborted transactions that a publish was answered with").doesNotContainAnyElementsOf(acked.values());

      // the edges converge on the log's image and serve its newest publish
      SignatureVerifier verifier = SignatureVerifier.fromCertificatePem(Fixtures.certificatePem());
      String newest = before.newestIosUpdateId;
      for (EdgeNode e : edges) {
        Services.until("edge " + e.port() + " serves the newest publish", () -> {
          Publishing.assertServesSigned(e.port(), APP, "main", newest, verifier);
          return true;
        }, Duration.ofSeconds(60));
        JsonNode ready = EdgeMetrics.readyz(e);
        // every group of the one line, up to the retention window an edge holds (events-schema Retention)
        assertThat(ready.path("groups").asInt()).as("groups in the image of edge %d", e.port())
            .isEqualTo(Math.min(before.groupsByKey.size() + 1, dev.updraft.events.Retention.EDGE_WINDOW));
      }
      // the same image: every field of /readyz but the clock's (staleness and the image's age, how long each one's start took)
      assertThat(imageFields(EdgeMetrics.readyz(edges.get(0)))).isEqualTo(imageFields(EdgeMetrics.readyz(edges.get(1))));

      // check-ins: every one an edge handed to Kafka, once in PostgreSQL
      long sent = 0;
      for (EdgeNode e : edges) {
        Services.until("edge delivered what it held", () -> EdgeMetrics.of(e).settled(), Duration.ofSeconds(120));
        EdgeMetrics m = EdgeMetrics.of(e);
        assertThat(m.dropped()).as("check-ins dropped by edge %d", e.port()).isZero();
        sent += m.sent();
      }
      long expected = sent;
      Services.until(() -> "the ingester stored every check-in: " + records(ing) + " of " + expected,
          () -> records(ing) == expected, Duration.ofSeconds(120));
      Snapshot stored = Snapshot.take(kafka, infra, edges, APP);
      assertThat(stored.telemetryRecords).as("check-ins on Kafka").isEqualTo(sent);
      assertThat(stored.checkInsStored).as("check-ins in PostgreSQL").isEqualTo(sent);
      for (Map.Entry<String, java.util.concurrent.atomic.AtomicLong> c : l.byClient.entrySet()) {
        assertThat(stored.checkInsByClient.get(c.getKey())).as("check-ins of %s", c.getKey()).isEqualTo(c.getValue().get());
      }

      // the restarted brokers lead again: nothing changes
      try (Admin admin = kafka.admin()) {
        admin.electLeaders(ElectionType.PREFERRED, null).all().get(30, TimeUnit.SECONDS);
      } catch (java.util.concurrent.ExecutionException e) {
        // ElectionNotNeeded for partitions already led by their preferred replica
      }
      Services.until("every partition led by its preferred replica", () -> preferredLead(kafka, events) && preferredLead(kafka, telemetry),
          Duration.ofSeconds(30));
      Snapshot after = Snapshot.take(kafka, infra, edges, APP);
      assertThat(after).as("log, edges and PostgreSQL once the restarted brokers lead").isEqualTo(stored);

      assertThat(Api.get(server + "/healthz", null).status()).as("the control plane is still the healthy writer").isEqualTo(200);
      String cpMetrics = Metrics.scrape(server + "/metrics");
      long refused = (long) (Metrics.value(cpMetrics, "updraft_control_commands_total{command=\"publish\",outcome=\"failed\"}"));
      System.out.printf("broker loss: 3 brokers, topics replicated 3 with min.insync.replicas=2; broker %d (events leader) down %d ms,"
              + " broker %d (leader of %d of 4 telemetry partitions) down %d ms%n",
          eventsLeader, first.downMs, telemetryLeader, second.leaderOf, second.downMs);
      System.out.printf("broker loss: %d publishes acknowledged (%d while a leader was down; slowest %d ms), %d refused by the control"
              + " plane (503) and retried by the CLI, %d CLI runs repeated with their key; 0 lost, 0 twice, sequences 1..%d;"
              + " %d records of aborted transactions in the log, none a group a publisher was answered with; %d device requests"
              + " on 2 edges, failed 0; check-ins sent %d, on Kafka %d, in PostgreSQL %d; unchanged once the restarted brokers"
              + " led again%n",
          acked.size(), first.acknowledged + second.acknowledged, publisher.slowestMs(), refused, publisher.retried(), sequences.size(),
          before.abortedGroupIds.size(),
          l.answered.get(), sent, stored.telemetryRecords, stored.checkInsStored);
    } finally {
      if (publisher != null) {
        publisher.close();
      }
      if (load != null) {
        load.close();
      }
      List<Future<Void>> closing = new ArrayList<>();
      for (EdgeNode e : edges) {
        closing.add(e.close());
      }
      if (ingester != null) {
        closing.add(ingester.close());
      }
      if (cp != null) {
        closing.add(cp.close());
      }
      closing.forEach(Services::await);
      Services.await(vertx.close());
      kafka.close();
    }
  }

  /** One broker lost and restarted; what happened meanwhile. */
  private record Fault(long downMs, long acknowledged, int leaderOf) {}

  private static Fault lose(KafkaCluster kafka, int broker, String phase, DeviceLoad load, LogPublisher publisher)
      throws InterruptedException {
    int leaderOf = 0;
    for (TopicPartitionInfo p : kafka.describe(Topics.telemetry(PREFIX)).partitions()) {
      leaderOf += p.leader() != null && p.leader().id() == broker ? 1 : 0;
    }
    load.phase(phase);
    long ackedBefore = publisher.acknowledged();
    long t0 = System.nanoTime();
    kafka.stopBroker(broker);
    Thread.sleep(DOWN.toMillis()); // the fault itself: the broker stays down this long while everything goes on
    kafka.startBroker(broker);
    long downMs = (System.nanoTime() - t0) / 1_000_000;
    load.phase("between");
    return new Fault(downMs, publisher.acknowledged() - ackedBefore, leaderOf);
  }

  private static int eventsPartition(String bootstrap, String topic) {
    int[] partition = {-1};
    Logs.readAll(bootstrap, topic, r -> partition[0] = r.partition());
    assertThat(partition[0]).as("the app's events are on a partition").isNotNegative();
    return partition[0];
  }

  private static int busiestLeader(KafkaCluster kafka, String topic) {
    Map<Integer, Integer> led = new TreeMap<>();
    for (TopicPartitionInfo p : kafka.describe(topic).partitions()) {
      led.merge(p.leader().id(), 1, Integer::sum);
    }
    return led.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow().getKey();
  }

  private static boolean preferredLead(KafkaCluster kafka, String topic) {
    for (TopicPartitionInfo p : kafka.describe(topic).partitions()) {
      if (p.leader() == null || p.leader().id() != p.replicas().get(0).id()) {
        return false;
      }
    }
    return true;
  }

  /**
   * Groups of {@code update.published} records a {@code read_uncommitted} reader sees and a {@code
   * read_committed} one does not: what aborted transactions wrote.
   */
  private static List<String> readAborted(String bootstrap, String topic, java.util.Collection<String> committed) {
    List<String> out = new ArrayList<>();
    java.util.Properties p = new java.util.Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted");
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> tps = new ArrayList<>();
      c.partitionsFor(topic, Duration.ofSeconds(30)).forEach(i -> tps.add(new TopicPartition(topic, i.partition())));
      c.assign(tps);
      c.seekToBeginning(tps);
      Map<TopicPartition, Long> end = c.endOffsets(tps, Duration.ofSeconds(30));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (tps.stream().anyMatch(tp -> c.position(tp) < end.get(tp)) && System.nanoTime() < deadline) {
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
          Decoded d = EventCodec.decode(r.value());
          if (d instanceof Decoded.Known && ((Decoded.Known) d).envelope().payload() instanceof EventPayload.UpdatePublished) {
            String g = ((EventPayload.UpdatePublished) ((Decoded.Known) d).envelope().payload()).group().groupId();
            if (!committed.contains(g)) {
              out.add(g);
            }
          }
        }
      }
    }
    return out;
  }

  private static double records(TelemetryIngester ingester) {
    return Metrics.value(ingester.scrape(), "updraft_ingest_records_total");
  }

  /** What the log, the edges and PostgreSQL hold. */
  private record Snapshot(
      Map<String, String> groupsByKey,
      Map<String, Integer> keyCount,
      List<Long> sequences,
      List<String> abortedGroupIds,
      String newestIosUpdateId,
      long telemetryRecords,
      long checkInsStored,
      Map<String, Long> checkInsByClient,
      List<String> readyz) {

    static Snapshot take(KafkaCluster kafka, Infra infra, List<EdgeNode> edges, String app) {
      String bootstrap = kafka.bootstrapServers();
      Map<String, String> byKey = new TreeMap<>();
      Map<String, Integer> keyCount = new TreeMap<>();
      List<Long> sequences = new ArrayList<>();
      String newest = null;
      java.util.Set<String> committed = new java.util.HashSet<>();
      for (EventEnvelope e : Logs.events(bootstrap, PREFIX, app)) {
        sequences.add(e.sequence());
        if (e.type() == EventType.UPDATE_PUBLISHED) {
          EventPayload.UpdateGroup g = ((EventPayload.UpdatePublished) e.payload()).group();
          committed.add(g.groupId());
          newest = g.platforms().stream().filter(p -> p.platform().equals("ios")).findFirst().orElseThrow().updateId();
          if (g.idempotencyKey() != null && g.idempotencyKey().startsWith(LogPublisher.KEY_PREFIX)) {
            byKey.put(g.idempotencyKey(), g.groupId());
            keyCount.merge(g.idempotencyKey(), 1, Integer::sum);
          }
        }
      }
      List<String> aborted = readAborted(bootstrap, Topics.events(PREFIX), committed);
      long telemetryRecords = Logs.checkIns(bootstrap, Topics.telemetry(PREFIX)).size();
      Map<String, Long> byClient = Logs.deviceCheckIns(infra.jdbcUrl(), infra.pgUser(), app);
      long stored = byClient.values().stream().mapToLong(Long::longValue).sum();
      List<String> ready = new ArrayList<>();
      for (EdgeNode e : edges) {
        ready.add(EdgeMetrics.readyz(e).toString().replaceAll(",\"logStalenessSeconds\":[0-9.]+", "")
            .replaceAll(",\"ageSeconds\":[0-9.]+", ""));
      }
      return new Snapshot(byKey, keyCount, sequences, aborted, newest, telemetryRecords, stored, new TreeMap<>(byClient), ready);
    }
  }

  private static JsonNode imageFields(JsonNode readyz) {
    ObjectNode copy = readyz.deepCopy();
    copy.remove("logStalenessSeconds");
    copy.remove("startMillis");
    if (copy.get("image") instanceof ObjectNode image) {
      image.remove("ageSeconds"); // the clock's too: the seconds since each edge last heard from the log
    }
    return copy;
  }
}
