package dev.updraft.ingester;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.events.Topics;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The ingester dies abruptly in the middle of the stream (its consumer thread stops where it stands,
 * writes nothing more, its connections drop) and a new one takes over: every check-in is counted once.
 */
@ExtendWith(RealInfrastructure.class)
class IngesterCrashIT {
  private static final Duration TIMEOUT = Duration.ofSeconds(90);
  private static final int N = 3_000;

  /** Stands for the process dying: an {@link Error} the loop does not catch. */
  static final class SimulatedCrash extends Error {
    SimulatedCrash(String where) {
      super("simulated crash " + where, null, false, false);
    }
  }

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
  void countsEachCheckInOnceWhenTheIngesterDiesRightAfterACommit(Infra infra) throws Exception {
    AtomicInteger commits = new AtomicInteger();
    AtomicBoolean crashed = new AtomicBoolean();
    // PostgreSQL has committed the 5th batch; the ingester dies before it learns anything from that
    IngestLoop.Hook hook =
        (point, loop) -> {
          if (point == IngestLoop.Point.AFTER_COMMIT && commits.incrementAndGet() == 5) {
            crashed.set(true);
            throw new SimulatedCrash("after the commit of batch 5");
          }
        };
    crashAndRecover(infra, "commit.", hook, crashed);
  }

  @Test
  void countsEachCheckInOnceWhenTheIngesterDiesWithAWriteInFlightAndABatchHalfFull(Infra infra) throws Exception {
    AtomicInteger polls = new AtomicInteger();
    AtomicBoolean crashed = new AtomicBoolean();
    // a transaction is running (it may or may not commit as the connections drop) and the next batch
    // holds records that were consumed but never written
    IngestLoop.Hook hook =
        (point, loop) -> {
          if (point == IngestLoop.Point.AFTER_POLL && loop.writing() && polls.incrementAndGet() == 4) {
            crashed.set(true);
            throw new SimulatedCrash("with a write in flight");
          }
        };
    crashAndRecover(infra, "inflight.", hook, crashed);
  }

  private void crashAndRecover(Infra infra, String name, IngestLoop.Hook hook, AtomicBoolean crashed) throws Exception {
    String prefix = infra.topicPrefix() + name;
    String topic = Topics.telemetry(prefix);
    TestKafka.createTopic(infra.kafkaBootstrap(), topic, 4);
    CheckInScenario s = CheckInScenario.generate("app-" + name, 7, N, 250, 1_767_261_590_000L);
    TestDb db = TelemetryIngesterIT.db(infra);
    IngesterConfig config = TelemetryIngesterIT.config(infra, prefix, Map.of("ingest-batch-size", "100"));
    try (TestKafka kafka = new TestKafka(infra.kafkaBootstrap())) {
      kafka.send(topic, s.checkIns);
    }

    TelemetryIngester first = TelemetryIngesterIT.await(TelemetryIngester.start(vertx, config, hook, null));
    try {
      TestDb.await(() -> !first.running(), TIMEOUT, () -> "the first ingester never crashed");
      assertThat(crashed).as("the fault was injected").isTrue();
    } finally {
      TelemetryIngesterIT.await(first.close());
    }
    long before = db.storedOffsets(topic);
    assertThat(before).as("the crash came in the middle of the stream").isPositive().isLessThan(N);

    TelemetryIngester second = TelemetryIngesterIT.await(TelemetryIngester.start(vertx, config));
    try {
      db.awaitConsumed(topic, N, TIMEOUT);
      StoredTelemetry.assertExactly(db, s);
      // the second ingester wrote exactly what the first had not committed
      TestDb.await(() -> TelemetryIngesterIT.counter(second, "updraft.ingest.records") == N - before, TIMEOUT,
          () -> "second ingester counted " + TelemetryIngesterIT.counter(second, "updraft.ingest.records") + ", expected "
              + (N - before));
    } finally {
      TelemetryIngesterIT.await(second.close());
    }
  }
}
