package dev.updraft.ingester;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.common.Settings;
import dev.updraft.embedded.Ports;
import dev.updraft.events.CheckIn;
import dev.updraft.events.CheckInCodec;
import dev.updraft.events.Topics;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import io.vertx.core.Vertx;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The ingester against real Kafka and PostgreSQL: exact counts, several instances, bad records, HTTP. */
@ExtendWith(RealInfrastructure.class)
class TelemetryIngesterIT {
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

  static IngesterConfig config(Infra infra, String prefix, Map<String, String> extra) {
    Map<String, String> flags = new HashMap<>();
    flags.put("kafka-bootstrap", infra.kafkaBootstrap());
    flags.put("topic-prefix", prefix);
    flags.put("postgres-url", TestDb.postgresUrl(infra.pgHost(), infra.pgPort(), infra.database(), infra.pgUser()));
    flags.put("consumer-group", prefix + "ingester");
    flags.put("metrics-port", "0");
    flags.putAll(extra);
    return IngesterConfig.from(Settings.of(flags, Map.of()));
  }

  static TestDb db(Infra infra) {
    return new TestDb(infra.pgHost(), infra.pgPort(), infra.database(), infra.pgUser());
  }

  static <T> T await(io.vertx.core.Future<T> f) throws Exception {
    return f.toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
  }

  @Test
  void storesEveryCheckInExactlyOnceWithTwoInstancesSharingThePartitions(Infra infra) throws Exception {
    String prefix = infra.topicPrefix() + "two.";
    String topic = Topics.telemetry(prefix);
    TestKafka.createTopic(infra.kafkaBootstrap(), topic, 4);
    CheckInScenario s = CheckInScenario.generate("app-two", 42, 4_000, 300, 1_767_261_585_000L);
    List<CheckIn> firstHalf = s.checkIns.subList(0, 2_000);
    List<CheckIn> secondHalf = s.checkIns.subList(2_000, 4_000);
    IngesterConfig config = config(infra, prefix, Map.of("ingest-batch-size", "250"));
    TestDb db = db(infra);

    List<TelemetryIngester> running = new java.util.ArrayList<>();
    try (TestKafka kafka = new TestKafka(infra.kafkaBootstrap())) {
      TelemetryIngester a = await(TelemetryIngester.start(vertx, config));
      running.add(a);
      kafka.send(topic, firstHalf);
      // a second instance joins while the first is busy: the partitions are split between them
      TelemetryIngester b = await(TelemetryIngester.start(vertx, config));
      running.add(b);
      TestDb.await(
          () -> gauge(a, "updraft.ingest.partitions") > 0 && gauge(b, "updraft.ingest.partitions") > 0
              && gauge(a, "updraft.ingest.partitions") + gauge(b, "updraft.ingest.partitions") == 4,
          TIMEOUT, () -> "the 4 partitions are not spread over the two instances");
      kafka.send(topic, secondHalf);
      db.awaitConsumed(topic, s.checkIns.size(), TIMEOUT);

      StoredTelemetry.assertExactly(db, s);
      // hand-checked facts of this scenario, beyond the per-key comparisons
      assertThat(s.devices()).hasSizeGreaterThan(250);
      assertThat(s.anonymous()).isPositive();
      // the loops count a batch once they have seen its commit, a moment after PostgreSQL has it
      TestDb.await(() -> counter(a, "updraft.ingest.records") + counter(b, "updraft.ingest.records") == 4_000.0, TIMEOUT,
          () -> "check-ins counted by the two instances: " + (counter(a, "updraft.ingest.records")
              + counter(b, "updraft.ingest.records")));
      assertThat(counter(a, "updraft.ingest.device.rows") + counter(b, "updraft.ingest.device.rows"))
          .as("repeated check-ins of a device in a batch collapse into one row write")
          .isLessThan(4_000.0 - s.anonymous());
      assertThat(counter(b, "updraft.ingest.records")).as("the second instance wrote its share").isPositive();
      assertThat(counter(a, "updraft.ingest.funnel.rows.skipped") + counter(b, "updraft.ingest.funnel.rows.skipped"))
          .as("funnel rows the instances knew written and did not send (the funnel rows are all there: assertExactly)")
          .isPositive();
    } finally {
      for (TelemetryIngester i : running) {
        await(i.close());
      }
    }
  }

  @Test
  void skipsRecordsThatAreNotCheckInsAndIngestsTheOnesAfterThem(Infra infra) throws Exception {
    String prefix = infra.topicPrefix() + "poison.";
    String topic = Topics.telemetry(prefix);
    TestKafka.createTopic(infra.kafkaBootstrap(), topic, 1);
    String app = "app-poison";
    TestDb db = db(infra);
    TelemetryIngester ingester = await(TelemetryIngester.start(vertx, config(infra, prefix, Map.of())));
    try (TestKafka kafka = new TestKafka(infra.kafkaBootstrap())) {
      long o0 = kafka.send(topic, 0, checkIn(app, "c0", "d1"));
      long o1 = kafka.sendRaw(topic, 0, "this is not json".getBytes(StandardCharsets.UTF_8));
      long o2 = kafka.send(topic, 0, checkIn(app, "c2", "d2"));
      long o3 = kafka.sendRaw(topic, 0, CheckInCodec.encode(checkIn(null, "c3", "d9"))); // JSON without appId
      long o4 = kafka.sendRaw(topic, 0, new byte[0]);
      long o5 = kafka.send(topic, 0, checkIn(app, "c5", "x".repeat(500)));
      long o6 = kafka.send(topic, 0, checkIn(app, "c6", "d3"));
      assertThat(List.of(o0, o1, o2, o3, o4, o5, o6)).containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L);
      db.awaitConsumed(topic, 7, TIMEOUT);

      assertThat(db.counts("SELECT client_id, check_ins FROM devices WHERE app_id = ?", app))
          .as("the check-ins around the bad records are all stored")
          .isEqualTo(Map.of("d1", 1L, "d2", 1L, "d3", 1L));
      assertThat(db.scalar("SELECT sum(launches) FROM update_hourly WHERE app_id = ?", app)).isEqualTo(3);
      assertThat(db.rows("SELECT record_offset FROM ingest_rejects WHERE topic = ? ORDER BY record_offset", topic))
          .as("not JSON, JSON without appId, empty, a client id too long for the registry")
          .containsExactly(List.of(1L), List.of(3L), List.of(4L), List.of(5L));
      assertThat(counter(ingester, "updraft.ingest.decode.errors")).isEqualTo(4.0);
      TestDb.await(() -> counter(ingester, "updraft.ingest.records") == 3.0, TIMEOUT,
          () -> "records counted: " + counter(ingester, "updraft.ingest.records"));
      assertThat(ingester.running()).isTrue();
    } finally {
      await(ingester.close());
    }
  }

  @Test
  void startsFromTheOffsetsStoredInPostgresNotFromKafkasCommittedOffsets(Infra infra) throws Exception {
    String prefix = infra.topicPrefix() + "truth.";
    String topic = Topics.telemetry(prefix);
    TestKafka.createTopic(infra.kafkaBootstrap(), topic, 1);
    IngesterConfig config = config(infra, prefix, Map.of());
    try (TestKafka kafka = new TestKafka(infra.kafkaBootstrap())) {
      for (int i = 0; i < 5; i++) {
        kafka.send(topic, 0, checkIn("app-truth", "t" + i, "dev-" + i));
      }
    }
    // the group's committed offset in Kafka says "all 5 done"; PostgreSQL has nothing
    try (var consumer = new org.apache.kafka.clients.consumer.KafkaConsumer<byte[], byte[]>(
        Map.of("bootstrap.servers", infra.kafkaBootstrap(), "group.id", config.consumerGroup(),
            "key.deserializer", org.apache.kafka.common.serialization.ByteArrayDeserializer.class.getName(),
            "value.deserializer", org.apache.kafka.common.serialization.ByteArrayDeserializer.class.getName()))) {
      var tp = new org.apache.kafka.common.TopicPartition(topic, 0);
      consumer.assign(List.of(tp));
      consumer.commitSync(Map.of(tp, new org.apache.kafka.clients.consumer.OffsetAndMetadata(5)));
    }
    TelemetryIngester ingester = await(TelemetryIngester.start(vertx, config));
    try {
      db(infra).awaitConsumed(topic, 5, TIMEOUT);
      assertThat(db(infra).scalar("SELECT count(*) FROM devices WHERE app_id = 'app-truth'")).isEqualTo(5);
    } finally {
      await(ingester.close());
    }
  }

  @Test
  void servesPrometheusMetricsAndHealthOverHttp(Infra infra) throws Exception {
    String prefix = infra.topicPrefix() + "http.";
    String topic = Topics.telemetry(prefix);
    TestKafka.createTopic(infra.kafkaBootstrap(), topic, 2);
    int port = Ports.freePort();
    TelemetryIngester ingester =
        await(TelemetryIngester.start(vertx, config(infra, prefix, Map.of("metrics-port", String.valueOf(port), "bind", "127.0.0.1"))));
    HttpClient http = HttpClient.newHttpClient();
    try (TestKafka kafka = new TestKafka(infra.kafkaBootstrap())) {
      kafka.send(topic, List.of(checkIn("app-http", "h1", "dev-1"), checkIn("app-http", "h2", "dev-1")));
      db(infra).awaitConsumed(topic, 2, TIMEOUT);
      assertThat(ingester.metricsPort()).isEqualTo(port);

      TestDb.await(() -> counter(ingester, "updraft.ingest.records") == 2.0, TIMEOUT, () -> "2 records not counted");
      HttpResponse<String> metrics = http.send(get(port, "/metrics"), HttpResponse.BodyHandlers.ofString());
      assertThat(metrics.statusCode()).isEqualTo(200);
      assertThat(metrics.body())
          .contains("updraft_ingest_records_total 2.0")
          .contains("updraft_ingest_lag_records")
          .contains("updraft_ingest_paused 0.0")
          .contains("updraft_ingest_pg_time_seconds_count");
      HttpResponse<String> health = http.send(get(port, "/healthz"), HttpResponse.BodyHandlers.ofString());
      assertThat(health.statusCode()).isEqualTo(200);
      assertThat(health.body()).contains("\"status\":\"ok\"").contains("\"paused\":false");
      HttpResponse<String> missing = http.send(get(port, "/nope"), HttpResponse.BodyHandlers.ofString());
      assertThat(missing.statusCode()).isEqualTo(404);
      assertThat(missing.body()).contains("\"code\":\"not_found\"");
    } finally {
      await(ingester.close());
    }
  }

  @Test
  void metricsNeedTheMetricsTokenWhenOneIsSet(Infra infra) throws Exception {
    String token = "ingest-scrape-secret-0123456789";
    int port = Ports.freePort();
    TelemetryIngester ingester = await(TelemetryIngester.start(vertx, config(infra, infra.topicPrefix() + "guarded.",
        Map.of("metrics-port", String.valueOf(port), "bind", "127.0.0.1", "metrics-token", token))));
    HttpClient http = HttpClient.newHttpClient();
    try {
      for (String auth : new String[] {null, "Bearer wrong-token-0123456789", token}) {
        HttpRequest.Builder b = HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + port + "/metrics"));
        if (auth != null) {
          b.header("Authorization", auth);
        }
        HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as("authorization " + auth).isEqualTo(401);
        assertThat(r.headers().firstValue("content-type")).contains("application/json");
        assertThat(r.body()).contains("\"code\":\"unauthorized\"").doesNotContain("updraft_ingest");
      }
      HttpResponse<String> ok = http.send(HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + port + "/metrics"))
          .header("Authorization", "Bearer " + token).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(ok.statusCode()).isEqualTo(200);
      assertThat(ok.body()).contains("updraft_ingest_lag_records");
      assertThat(http.send(get(port, "/healthz"), HttpResponse.BodyHandlers.ofString()).statusCode())
          .as("/healthz stays open for probes").isEqualTo(200);
    } finally {
      await(ingester.close());
    }
  }

  @Test
  void instancesStartingTogetherApplyTheSchemaOnce(Infra infra) throws Exception {
    String fresh = infra.database() + "_schema";
    db(infra).execute("CREATE DATABASE " + fresh);
    Infra other = new Infra(infra.kafkaBootstrap(), infra.topicPrefix(), infra.pgHost(), infra.pgPort(), fresh,
        infra.pgUser(), infra.pgPassword());
    IngesterConfig config = config(other, infra.topicPrefix() + "schema.", Map.of());
    var a = TelemetryIngester.start(vertx, config);
    var b = TelemetryIngester.start(vertx, config);
    var c = TelemetryIngester.start(vertx, config);
    for (var f : List.of(a, b, c)) {
      await(await(f).close());
    }
    assertThat(db(other).rows("SELECT version, description FROM schema_version ORDER BY version"))
        .containsExactly(List.of(1, "telemetry"), List.of(2, "refusals and skipped updates"),
            List.of(3, "telemetry retention"), List.of(4, "insights counters"), List.of(5, "receipt lookup by key"),
            List.of(6, "history projection"), List.of(7, "patch outcomes"), List.of(8, "ingest dead letters"),
            List.of(9, "key asks"), List.of(10, "failure address bucket"), List.of(11, "error reports"),
            List.of(12, "update funnel"), List.of(13, "update crashes"), List.of(14, "update funnel deletions"));
  }

  private static HttpRequest get(int port, String path) {
    return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(10)).build();
  }

  static CheckIn checkIn(String app, String id, String client) {
    return CheckIn.builder()
        .checkInId(id)
        .appId(app)
        .platform("ios")
        .runtimeVersion("1.0.0")
        .channel("production")
        .clientId(client)
        .currentUpdateId("11111111-0000-4000-8000-000000000001")
        .embeddedUpdateId("11111111-0000-4000-8000-000000000001")
        .outcome(CheckIn.OUTCOME_NO_UPDATE)
        .reason(CheckIn.REASON_ALREADY_LATEST)
        .branch("production")
        .atEpochMillis(1_767_261_600_000L)
        .edgeId("edge-1")
        .build();
  }

  static double counter(TelemetryIngester i, String name) {
    return i.registry().get(name).counter().count();
  }

  /**
   * Waits until counter {@code name} of {@code i} reaches {@code expected} and asserts it is exactly that: a
   * batch's counters move in its commit's callback, a moment after PostgreSQL shows its offsets stored.
   */
  static void assertCounterReaches(TelemetryIngester i, String name, double expected, String what) {
    TestDb.await(() -> counter(i, name) >= expected, TIMEOUT, () -> what + ": " + counter(i, name) + ", expected " + expected);
    assertThat(counter(i, name)).as(what).isEqualTo(expected);
  }

  static double gauge(TelemetryIngester i, String name) {
    return i.registry().get(name).gauge().value();
  }
}
