package dev.updraft.ingester;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.embedded.Ports;
import dev.updraft.events.CheckIn;
import dev.updraft.events.Topics;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import io.vertx.core.Vertx;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Retention inside a running ingester, against real Kafka and PostgreSQL: it runs on its schedule and
 * reports itself on {@code /metrics}, and while check-ins keep arriving (devices expiring, old devices
 * checking in again, new ones) the device counts always end equal to a recount of the registry.
 */
@ExtendWith(RealInfrastructure.class)
class RetentionIngesterIT {
  private static final Duration TIMEOUT = Duration.ofSeconds(90);
  private static final long DAY = Duration.ofDays(1).toMillis();

  private Vertx vertx;

  @BeforeEach
  void startVertx() {
    vertx = Vertx.vertx();
  }

  @AfterEach
  void stopVertx() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
  }

  @Test
  void runsOnItsScheduleAndShowsOnMetrics(Infra infra) throws Exception {
    String prefix = infra.topicPrefix() + "sched.";
    String topic = Topics.telemetry(prefix);
    TestKafka.createTopic(infra.kafkaBootstrap(), topic, 1);
    int port = Ports.freePort();
    TestDb db = TelemetryIngesterIT.db(infra);
    try (TestKafka kafka = new TestKafka(infra.kafkaBootstrap())) {
      long old = System.currentTimeMillis() - 40 * DAY;
      kafka.send(topic, List.of(
          RetentionFleet.checkIn("app-sched", "s1", "dev-old", "ios", null, "u1-ios", List.of(), false, old),
          RetentionFleet.checkIn("app-sched", "s2", "dev-new", "ios", null, "u1-ios", List.of(), false,
              System.currentTimeMillis())));
    }
    TelemetryIngester ingester = TelemetryIngesterIT.await(TelemetryIngester.start(vertx, TelemetryIngesterIT.config(infra,
        prefix, Map.of("postgres-retention", "30d", "metrics-port", String.valueOf(port), "bind", "127.0.0.1"))));
    try {
      assertThat(ingester.retention()).isNotNull();
      db.awaitConsumed(topic, 2, TIMEOUT);
      // the first run comes shortly after start, by itself
      TestDb.await(() -> ingester.registry().get("updraft.retention.runs").tag("outcome", "completed").counter().count() >= 1,
          TIMEOUT, () -> "no scheduled retention run completed");
      HttpResponse<String> metrics = HttpClient.newHttpClient().send(
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).timeout(Duration.ofSeconds(10)).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(metrics.body())
          .contains("updraft_retention_rows_total{table=\"devices\"}")
          .contains("updraft_retention_rows_total{table=\"update_receipts\"}")
          .contains("updraft_retention_runs_total{outcome=\"completed\"}")
          .contains("updraft_retention_duration_seconds_count")
          .contains("updraft_retention_last_completed_seconds");
      // the scheduled run may have come before the check-ins were written: one more, then only the young device is left
      assertThat(ingester.retention().runOnce().outcome()).isEqualTo(RetentionJob.Outcome.COMPLETED);
      assertThat(db.rows("SELECT client_id FROM devices WHERE app_id = 'app-sched'")).containsExactly(List.of("dev-new"));
    } finally {
      TelemetryIngesterIT.await(ingester.close());
    }
    assertThat(ingester.retention().close().toCompletionStage().toCompletableFuture().isDone())
        .as("the job's thread ended with the ingester").isTrue();
  }

  @Test
  void deviceCountsEqualARecountWhileCheckInsArriveDuringTheRuns(Infra infra) throws Exception {
    String prefix = infra.topicPrefix() + "live.";
    String topic = Topics.telemetry(prefix);
    TestKafka.createTopic(infra.kafkaBootstrap(), topic, 2);
    String app = "app-live";
    TestDb db = TelemetryIngesterIT.db(infra);
    Random rnd = new Random(5);
    List<CheckIn> sent = new ArrayList<>();
    List<String> oldDevices = new ArrayList<>();
    long now = System.currentTimeMillis();
    for (int d = 0; d < 600; d++) {
      boolean old = d < 400;
      String client = String.format("dev-%04d", d);
      if (old) {
        oldDevices.add(client);
      }
      sent.add(checkIn(app, "seed-" + d, client, rnd, old ? now - 40 * DAY - d * 1_000L : now - DAY));
    }
    TelemetryIngester ingester = TelemetryIngesterIT.await(TelemetryIngester.start(vertx, TelemetryIngesterIT.config(infra,
        prefix, Map.of("postgres-retention", "30d", "postgres-retention-batch", "25", "ingest-batch-size", "40"))));
    try (TestKafka kafka = new TestKafka(infra.kafkaBootstrap())) {
      kafka.send(topic, sent);
      db.awaitConsumed(topic, sent.size(), TIMEOUT);

      // while retention runs over and over, in batches of 25: old devices check in again (some before their
      // deletion, some while it is in flight, some after), new devices arrive already old, others young
      List<CheckIn> live = new ArrayList<>();
      CompletableFuture<Void> producer = CompletableFuture.runAsync(() -> {
        for (int round = 0; round < 30; round++) {
          List<CheckIn> chunk = new ArrayList<>();
          for (int i = 0; i < 20; i++) {
            String client = oldDevices.get(rnd.nextInt(oldDevices.size()));
            chunk.add(checkIn(app, "again-" + round + "-" + i, client, rnd, System.currentTimeMillis()));
          }
          for (int i = 0; i < 10; i++) {
            String client = "late-" + round + "-" + i;
            chunk.add(checkIn(app, "late-" + round + "-" + i, client, rnd, System.currentTimeMillis() - 45 * DAY));
            oldDevices.add(client);
          }
          kafka.send(topic, chunk);
          live.addAll(chunk);
          sleep(50);
        }
      });
      int runs = 0;
      long deleted = 0;
      while (!producer.isDone() || runs < 3) {
        RetentionJob.Run run = ingester.retention().runOnce();
        assertThat(run.outcome()).isEqualTo(RetentionJob.Outcome.COMPLETED);
        deleted += run.deleted(RetainedTable.DEVICES);
        runs++;
      }
      producer.get(60, TimeUnit.SECONDS);
      sent.addAll(live);
      db.awaitConsumed(topic, sent.size(), TIMEOUT);
      deleted += ingester.retention().runOnce().deleted(RetainedTable.DEVICES);

      Map<String, CheckIn> latest = new LinkedHashMap<>();
      for (CheckIn c : sent) {
        latest.put(c.clientId(), c);
      }
      long cutoff = System.currentTimeMillis() - 30 * DAY;
      Set<String> kept = new HashSet<>();
      Map<String, Long> counts = new HashMap<>();
      for (CheckIn c : latest.values()) {
        if (c.atEpochMillis() >= cutoff) {
          kept.add(c.clientId());
          counts.merge(RetentionFleet.countingKey(c), 1L, Long::sum);
        }
      }
      assertThat(runs).isGreaterThanOrEqualTo(3);
      assertThat(latest).hasSize(900);
      assertThat(kept.size()).as("young, and old ones seen again").isBetween(300, 800);
      assertThat(deleted).as("every device not kept was deleted, some twice").isGreaterThanOrEqualTo(latest.size() - kept.size());
      Set<String> stored = new HashSet<>();
      for (List<Object> r : db.rows("SELECT client_id FROM devices WHERE app_id = ?", app)) {
        stored.add((String) r.get(0));
      }
      assertThat(stored).as("the devices seen within 30 days, and only them").isEqualTo(kept);
      Map<String, Long> deviceCounts = db.counts("SELECT update_id || '|' || platform || '|' || channel || '|' || source,"
          + " devices FROM device_counts WHERE app_id = ? AND devices <> 0", app);
      assertThat(deviceCounts).as("device_counts after the runs").isEqualTo(counts)
          .isEqualTo(db.counts("SELECT coalesce(current_update_id, '') || '|' || platform || '|' || coalesce(channel, '')"
              + " || '|' || source, count(*) FROM devices WHERE app_id = ? GROUP BY 1", app));
      assertThat(db.scalar("SELECT count(*) FROM device_counts WHERE devices < 0")).isZero();
    } finally {
      TelemetryIngesterIT.await(ingester.close());
    }
  }

  private static CheckIn checkIn(String app, String id, String client, Random rnd, long at) {
    String platform = client.hashCode() % 2 == 0 ? "ios" : "android";
    String[] updates = {"u1-" + platform, "u2-" + platform, "emb-" + platform};
    String channel = rnd.nextInt(4) == 0 ? null : "production";
    return RetentionFleet.checkIn(app, id, client, platform, channel, updates[rnd.nextInt(3)], List.of(), rnd.nextInt(4) == 0, at);
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
