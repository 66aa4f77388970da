package dev.updraft.ingester;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.events.CheckIn;
import dev.updraft.events.Topics;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code --ingest-linger} at a steady low rate: a transaction carries a linger's worth of check-ins rather
 * than the few one poll brings, and no check-in waits much longer than the linger for its commit.
 */
@ExtendWith(RealInfrastructure.class)
class IngestLingerIT {
  private static final Duration TIMEOUT = Duration.ofSeconds(90);
  private static final long LINGER_MS = 500;
  /**
   * Kafka's delivery, one write of a small batch, and a shared machine's scheduling (2.5 s seen with a build
   * running beside the test). What it must catch is a batch waiting to fill: at ~150 check-ins/s a full batch
   * (10,000) would take a minute.
   */
  private static final long MARGIN_MS = 4_500;

  private Vertx vertx;

  @BeforeEach
  void startVertx() {
    vertx = Vertx.vertx();
  }

  @AfterEach
  void stopVertx() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
  }

  /** Every committed check-in's wait from its stamp to the commit: how many, the longest and the shortest. */
  private static final class Commits implements IngestLoop.CommitListener {
    final AtomicLong committed = new AtomicLong();
    final AtomicLong worst = new AtomicLong();
    final AtomicLong best = new AtomicLong(Long.MAX_VALUE);

    @Override
    public void committed(long commitMillis, long[] checkInTimes) {
      for (long t : checkInTimes) {
        worst.accumulateAndGet(commitMillis - t, Math::max);
        best.accumulateAndGet(commitMillis - t, Math::min);
      }
      committed.addAndGet(checkInTimes.length);
    }
  }

  private static String topic(Infra infra, String name) {
    return Topics.telemetry(infra.topicPrefix() + name);
  }

  /** A one-partition telemetry topic of its own and one ingester with one consumer and {@code lingerMs}. */
  private TelemetryIngester start(Infra infra, String name, long lingerMs, Commits commits) throws Exception {
    TestKafka.createTopic(infra.kafkaBootstrap(), topic(infra, name), 1);
    IngesterConfig config = TelemetryIngesterIT.config(infra, infra.topicPrefix() + name,
        Map.of("ingest-linger", lingerMs + "ms", "ingest-consumers", "1"));
    return TelemetryIngesterIT.await(TelemetryIngester.start(vertx, config, IngestLoop.Hook.NONE, commits));
  }

  @Test
  void batchesALingersWorthOfCheckInsAtALowRateAndCommitsEachWithinTheLinger(Infra infra) throws Exception {
    String topic = topic(infra, "linger.");
    String app = "app-linger";
    Commits commits = new Commits();
    TestDb db = TelemetryIngesterIT.db(infra);
    TelemetryIngester ingester = start(infra, "linger.", LINGER_MS, commits);
    int sent = 0;
    try (TestKafka kafka = new TestKafka(infra.kafkaBootstrap())) {
      // ~200 check-ins/s for 3 s, five every 25 ms, each stamped with its send time
      long end = System.currentTimeMillis() + 3_000;
      while (System.currentTimeMillis() < end) {
        List<CheckIn> burst = new ArrayList<>();
        for (int i = 0; i < 5; i++, sent++) {
          burst.add(TelemetryIngesterIT.checkIn(app, "c" + sent, "d" + (sent % 50)).toBuilder()
              .atEpochMillis(System.currentTimeMillis()).build());
        }
        kafka.send(topic, burst);
        Thread.sleep(25);
      }
      db.awaitConsumed(topic, sent, TIMEOUT);
      int total = sent;
      TestDb.await(() -> commits.committed.get() == total, TIMEOUT, () -> "check-ins seen committed: " + commits.committed.get() + " of " + total);

      assertThat(db.scalar("SELECT sum(check_ins) FROM devices WHERE app_id = ?", app)).as("counts stay exact")
          .isEqualTo((long) sent);
      double batches = TelemetryIngesterIT.counter(ingester, "updraft.ingest.batches");
      double mean = ingester.registry().get("updraft.ingest.batch.size").summary().mean();
      assertThat(mean)
          .as("records per committed batch (%s batches for %s check-ins): a poll brings about five, a linger of %d ms about 100",
              batches, sent, LINGER_MS)
          .isGreaterThanOrEqualTo(40.0);
      assertThat(commits.worst.get()).as("longest wait of a check-in from its send to its commit, in ms")
          .isLessThan(LINGER_MS + MARGIN_MS);
    } finally {
      TelemetryIngesterIT.await(ingester.close());
    }
  }

  @Test
  void countsTheTimeACheckInSpentInKafkaAsPartOfItsLinger(Infra infra) throws Exception {
    long linger = 5_000;
    String topic = topic(infra, "linger-sent.");
    String app = "app-linger-sent";
    Commits commits = new Commits();
    TelemetryIngester ingester = start(infra, "linger-sent.", linger, commits);
    try (TestKafka kafka = new TestKafka(infra.kafkaBootstrap())) {
      // sent by an edge 10 s ago (its Kafka timestamp) and read only now, as after a slow fetch or a backlog:
      // its linger is over, so it is written at the end of the poll that brings it
      List<CheckIn> waited = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        waited.add(TelemetryIngesterIT.checkIn(app, "w" + i, "d" + i).toBuilder().atEpochMillis(System.currentTimeMillis()).build());
      }
      kafka.send(topic, waited, System.currentTimeMillis() - 10_000);
      TestDb.await(() -> commits.committed.get() == 20, TIMEOUT, () -> "check-ins seen committed: " + commits.committed.get() + " of 20");
      assertThat(commits.worst.get()).as("ms from handing the waited check-ins to Kafka to their commit, linger %d ms", linger)
          .isLessThan(linger - 1_000);

      // sent now: the whole linger still applies
      List<CheckIn> fresh = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        fresh.add(TelemetryIngesterIT.checkIn(app, "f" + i, "d" + i).toBuilder().atEpochMillis(System.currentTimeMillis()).build());
      }
      commits.best.set(Long.MAX_VALUE);
      kafka.send(topic, fresh, null);
      TestDb.await(() -> commits.committed.get() == 40, TIMEOUT, () -> "check-ins seen committed: " + commits.committed.get() + " of 40");
      assertThat(commits.best.get()).as("ms from sending fresh check-ins to their commit, linger %d ms", linger)
          .isGreaterThanOrEqualTo(linger - 200);
    } finally {
      TelemetryIngesterIT.await(ingester.close());
    }
  }
}
