package dev.updraft.controlplane;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Post-publish jobs (here local storage's encoded copies) wait for a burst of publishes to end: none starts while
 * publishes keep coming less than a second apart, and the burst's work is done once they pause.
 */
@ExtendWith(RealInfrastructure.class)
class PostPublishJobsIT {
  private static final String JOBS = "updraft_control_patch_job_seconds_count";
  /** Publishes sent back to back for this long; the next one always comes well within the 1 s the jobs wait for. */
  private static final Duration BURST = Duration.ofSeconds(4);
  /** A gap this long between two publishes would let a job start legitimately: the burst is then sent again. */
  private static final Duration TOO_LONG_A_GAP = Duration.ofMillis(700);

  private static void awaitJobsAbove(Http http, double jobs) throws InterruptedException {
    long pause = System.nanoTime();
    while (TestSupport.metric(http, JOBS) <= jobs) {
      assertThat(System.nanoTime() - pause).as("the burst's job done within 120 s of the pause").isLessThan(Duration.ofSeconds(120).toNanos());
      Thread.sleep(100);
    }
  }

  /** Until no job has finished for 3 s (at most 120 s): a job the aborted burst left is done. */
  private static void awaitNoNewJobs(Http http) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    double seen = TestSupport.metric(http, JOBS);
    long stillSince = System.nanoTime();
    while (System.nanoTime() - stillSince < Duration.ofSeconds(3).toNanos()) {
      assertThat(System.nanoTime() - deadline).as("post-publish jobs still finishing after 120 s").isNegative();
      Thread.sleep(100);
      double now = TestSupport.metric(http, JOBS);
      if (now != seen) {
        seen = now;
        stillSince = System.nanoTime();
      }
    }
  }

  @Test
  void noJobStartsDuringABurstOfPublishesAndTheBurstsWorkIsDoneOnceTheyPause(Infra infra, @TempDir Path dir) throws Exception {
    Vertx vertx = Vertx.vertx();
    ControlPlane cp = TestSupport.await(ControlPlane.start(vertx, TestSupport.config(infra, dir, "asset-encoding", "fast")));
    try {
      Http admin = new Http("http://127.0.0.1:" + cp.port(), TestSupport.ADMIN);
      assertThat(admin.post("/v1/apps", Map.of("appId", "burst")).status()).isEqualTo(201);
      ExportFixture.upload(admin, "burst", Fixtures.update1());
      int published = 0;
      boolean judged = false;
      for (int attempt = 1; attempt <= 3 && !judged; attempt++) {
        double before = TestSupport.metric(admin, JOBS);
        long start = System.nanoTime();
        long last = start;
        judged = true;
        while (judged && System.nanoTime() - start < BURST.toNanos()) {
          ObjectNode body = ExportFixture.publishBody(Fixtures.update1(), "production", "1.0.0");
          body.put("message", "burst " + attempt + " publish " + (++published));
          assertThat(admin.post("/v1/apps/burst/updates", body).status()).isEqualTo(201);
          long now = System.nanoTime();
          judged = now - last < TOO_LONG_A_GAP.toNanos(); // else a job may start legitimately: this burst says nothing
          last = now;
          if (judged) {
            assertThat(TestSupport.metric(admin, JOBS)).as("jobs done during the burst, after %d publishes", published).isEqualTo(before);
          }
        }
        awaitJobsAbove(admin, before); // the burst's work, once publishes pause
        if (!judged) {
          awaitNoNewJobs(admin); // the aborted burst's last job too, before the next burst counts from zero new
        }
      }
      assertThat(judged).as("a burst with every publish within %s of the one before (this machine too slow three times)",
          TOO_LONG_A_GAP).isTrue();
      assertThat(TestSupport.metric(admin, "updraft_control_encoded_bytes_total")).as("the burst's encoded copies are made").isPositive();
    } finally {
      TestSupport.await(cp.close());
      TestSupport.await(vertx.close());
    }
  }
}
