package dev.updraft.edge;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The delay probe on a real event loop, read as Prometheus scrapes it: a loop held for 300 ms shows a run that
 * late, and its runs are on time again afterwards (Vert.x's periodic timer keeps a fixed rate, which the probe's
 * own due time must follow); an idle loop runs it within milliseconds; a stopped probe records nothing more.
 * Bounds are loose: the machine may be shared.
 */
class EventLoopDelayTest {
  private static final long PERIOD_MS = 20;
  private static final Duration DEADLINE = Duration.ofSeconds(10);
  private static final String SERIES = "updraft_edge_event_loop_delay_seconds";

  private Vertx vertx;
  private PrometheusMeterRegistry registry;
  private Timer timer;
  private EventLoopDelay probe;
  private Context loop;

  @BeforeEach
  void setUp() {
    vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1));
    registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    timer = EventLoopDelay.timer(registry, 0);
    probe = new EventLoopDelay(timer, PERIOD_MS);
    loop = vertx.getOrCreateContext();
    onLoop(() -> probe.start(vertx));
  }

  @AfterEach
  void tearDown() {
    Edges.await(vertx.close());
    registry.close();
  }

  /** Runs {@code r} on the probe's event loop and waits for it to end. */
  private void onLoop(Runnable r) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    loop.runOnContext(v -> {
      try {
        r.run();
        done.complete(null);
      } catch (RuntimeException e) {
        done.completeExceptionally(e);
      }
    });
    done.orTimeout(DEADLINE.toSeconds(), TimeUnit.SECONDS).join();
  }

  private static void hold(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Runs recorded so far, and those of them at most 50 ms late, as scraped. */
  private double[] countAndOnTime() {
    String text = registry.scrape();
    return new double[] {
      CheckInIT.metric(text, SERIES + "_count{loop=\"0\"}"),
      CheckInIT.metric(text, SERIES + "_bucket{loop=\"0\",le=\"0.05\"}")
    };
  }

  @Test
  void aLoopHeldFor300MillisecondsShowsARunThatLateThenRunsOnTimeAgain() {
    Edges.until("a few runs of the probe", () -> timer.count() >= 3, DEADLINE);
    onLoop(() -> hold(300)); // the runs falling due meanwhile wait for the loop
    long afterHold = timer.count();
    Edges.until("runs after the hold", () -> timer.count() >= afterHold + 2, DEADLINE);

    // the first run after the hold was due at most a period after it began; every figure below is read from
    // one scrape, since runs go on between two scrapes (a slow one on a shared machine let nine through)
    assertThat(timer.max(TimeUnit.MILLISECONDS)).as("largest delay, ms").isGreaterThanOrEqualTo(250.0);
    String text = registry.scrape();
    assertThat(CheckInIT.metric(text, SERIES + "_max{loop=\"0\"}")).as("scraped max, s").isGreaterThanOrEqualTo(0.25);
    double[] seen = {
      CheckInIT.metric(text, SERIES + "_count{loop=\"0\"}"),
      CheckInIT.metric(text, SERIES + "_bucket{loop=\"0\",le=\"0.05\"}")
    };
    assertThat(seen[0]).as("runs").isGreaterThan(0);
    assertThat(CheckInIT.metric(text, SERIES + "_bucket{loop=\"0\",le=\"0.25\"}")).as("runs at most 250 ms late")
        .isLessThan(seen[0]);
    // runs held back are not skipped: about one a period went by during the hold
    assertThat(seen[0]).as("runs, one a period whatever the loop did").isGreaterThanOrEqualTo(3 + 300 / PERIOD_MS - 3);
    // and each is recorded as late as it was: those due in the hold's first 200 ms ran over 100 ms late (about ten)
    assertThat(seen[0] - CheckInIT.metric(text, SERIES + "_bucket{loop=\"0\",le=\"0.1\"}")).as("runs over 100 ms late")
        .isGreaterThanOrEqualTo(5);

    // afterwards the runs are on time again: the probe's due time moved with the timer's
    Edges.until("ten more runs", () -> timer.count() >= seen[0] + 10, DEADLINE);
    double[] later = countAndOnTime();
    double runs = later[0] - seen[0];
    assertThat(later[1] - seen[1]).as("of %s runs after the hold, those at most 50 ms late", runs)
        .isGreaterThanOrEqualTo(runs / 2);
  }

  @Test
  void anIdleLoopRunsTheProbeWithinMilliseconds() {
    Edges.until("20 runs of the probe", () -> timer.count() >= 20, DEADLINE);
    double[] seen = countAndOnTime();
    assertThat(seen[1]).as("of %s runs, those at most 50 ms late (p50 under 50 ms)", seen[0])
        .isGreaterThanOrEqualTo(seen[0] / 2);
    assertThat(timer.totalTime(TimeUnit.MILLISECONDS) / timer.count()).as("mean delay, ms").isLessThan(50.0);
  }

  @Test
  void aStoppedProbeRecordsNothingMore() {
    Edges.until("a run of the probe", () -> timer.count() >= 1, DEADLINE);
    onLoop(() -> probe.stop(vertx));
    long stopped = timer.count();
    hold(10 * PERIOD_MS); // ten periods in which a live probe would have run
    assertThat(timer.count()).isEqualTo(stopped);
    onLoop(() -> probe.stop(vertx)); // twice is harmless
  }

  @Test
  void eachLoopIsASeriesOfItsOwnWithHistogramBuckets() {
    EventLoopDelay.timer(registry, 1);
    String text = registry.scrape();
    assertThat(text).contains(SERIES + "_bucket{loop=\"0\",le=\"0.001\"}", SERIES + "_bucket{loop=\"1\",le=\"5.0\"}",
        SERIES + "_count{loop=\"1\"}", SERIES + "_max{loop=\"1\"}");
  }
}
