package dev.updraft.controlplane.insights;

import dev.updraft.common.Settings;
import dev.updraft.events.CheckIn;
import dev.updraft.events.CheckInCodec;
import dev.updraft.events.Topics;
import dev.updraft.ingester.IngesterConfig;
import dev.updraft.ingester.TelemetryIngester;
import dev.updraft.testing.Infra;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.Pool;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Check-ins put through the real path (Kafka, the ingester, PostgreSQL) and a pool to query the result
 * with. Uses only public APIs of the ingest package.
 */
final class TelemetryFixture implements AutoCloseable {
  final Vertx vertx;
  final Pool pool;

  private TelemetryFixture(Vertx vertx, Pool pool) {
    this.vertx = vertx;
    this.pool = pool;
  }

  static <T> T await(Future<T> f) throws Exception {
    return f.toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
  }

  /** Sends {@code checkIns} to a fresh telemetry topic and waits until one ingester has committed them all. */
  static TelemetryFixture ingest(Infra infra, String name, List<CheckIn> checkIns) throws Exception {
    String prefix = infra.topicPrefix() + name + ".";
    String topic = Topics.telemetry(prefix);
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", infra.kafkaBootstrap()))) {
      admin.createTopics(List.of(new NewTopic(topic, 2, (short) 1))).all().get(30, TimeUnit.SECONDS);
      // produce only once both partitions have a leader (an election in progress can stall a producer)
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (!leadersReady(admin, topic)) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("no leader for the partitions of " + topic);
        }
        Thread.sleep(50);
      }
    }
    Vertx vertx = Vertx.vertx();
    String url = "postgresql://" + infra.pgUser() + "@" + infra.pgHost() + ":" + infra.pgPort() + "/" + infra.database();
    IngesterConfig config =
        IngesterConfig.from(
            Settings.of(
                Map.of(
                    "kafka-bootstrap", infra.kafkaBootstrap(),
                    "topic-prefix", prefix,
                    "postgres-url", url,
                    "consumer-group", prefix + "ingester",
                    "metrics-port", "0"),
                Map.of()));
    TelemetryIngester ingester = await(TelemetryIngester.start(vertx, config));
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(
            Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, infra.kafkaBootstrap(),
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName(),
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName()))) {
      List<java.util.concurrent.Future<?>> sent = new java.util.ArrayList<>();
      for (CheckIn c : checkIns) {
        byte[] key = c.clientId() == null ? null : c.clientId().getBytes(StandardCharsets.UTF_8);
        sent.add(producer.send(new ProducerRecord<>(topic, key, CheckInCodec.encode(c))));
      }
      producer.flush();
      for (java.util.concurrent.Future<?> f : sent) {
        f.get(60, TimeUnit.SECONDS); // a lost send fails here, not as a wait for records that never come
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (ingester.registry().get("updraft.ingest.records").counter().count() < checkIns.size()) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError("ingester did not commit " + checkIns.size() + " check-ins");
        }
        Thread.sleep(50);
      }
    } finally {
      await(ingester.close());
    }
    PgConnectOptions options =
        new PgConnectOptions()
            .setHost(infra.pgHost())
            .setPort(infra.pgPort())
            .setDatabase(infra.database())
            .setUser(infra.pgUser())
            .setPassword(infra.pgPassword());
    return new TelemetryFixture(vertx, PgBuilder.pool().connectingTo(options).using(vertx).build());
  }

  private static boolean leadersReady(Admin admin, String topic) throws InterruptedException {
    try {
      return admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic).partitions()
          .stream().allMatch(p -> p.leader() != null && !p.leader().isEmpty());
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      return false; // metadata not propagated yet
    }
  }

  /** A check-in of app {@code app} at {@code at}. */
  static CheckIn checkIn(
      String app,
      String client,
      String platform,
      String channel,
      String current,
      String embedded,
      List<String> failed,
      String outcome,
      String reason,
      String served,
      Instant at) {
    return CheckIn.builder()
        .checkInId(client + "@" + at.toEpochMilli() + "#" + Math.abs((long) (current + failed + outcome).hashCode()))
        .appId(app)
        .platform(platform)
        .runtimeVersion("1.0.0")
        .channel(channel)
        .clientId(client)
        .currentUpdateId(current)
        .embeddedUpdateId(embedded)
        .failedUpdateIds(failed)
        .outcome(outcome)
        .reason(reason)
        .branch(channel == null ? "main" : channel)
        .rolloutBucket(served == null ? null : 4_242)
        .servedUpdateId(served)
        .servedGroupId(served == null ? null : "group-" + served)
        .atEpochMillis(at.toEpochMilli())
        .edgeId("edge-1")
        .build();
  }

  @Override
  public void close() {
    try {
      await(pool.close());
      await(vertx.close());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      throw new IllegalStateException("cannot close the test's Vert.x", e);
    }
  }
}
