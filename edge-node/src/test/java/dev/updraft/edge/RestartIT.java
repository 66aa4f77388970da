package dev.updraft.edge;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.updraft.events.EventPayload;
import dev.updraft.events.UpdateEvents.PlatformUpdate;
import dev.updraft.events.UpdateEvents.UpdateGroup;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * An edge stopped and started again while updates keep being published comes back with the latest
 * state and answers 503, never "no update", until its image has caught up; at least one 503 proves the
 * catch-up window was seen. (In one JVM the "kill" is a
 * close; an edge keeps no state of its own, so a killed edge restarts exactly like this.)
 */
@ExtendWith(RealInfrastructure.class)
class RestartIT {
  static final String APP = "restart-app";
  static final int BACKLOG = 1500;
  /**
   * Padding of each update body: 1,500 bodies of 8 KB (12 MB) take the restarted edge long enough to read
   * back that its catch-up window is always seen (tens of 503s a run, hundreds of milliseconds), while
   * publishing them stays quick.
   */
  static final int PAD = 8_000;

  /** Group {@code n} of the run: one iOS update whose body names its number. */
  static UpdateGroup group(int n) {
    String id = String.format("00000000-0000-4000-8000-%012d", n);
    String body = "{\"id\":\"" + id + "\",\"createdAt\":\"2026-01-01T00:00:00.000Z\",\"runtimeVersion\":\"1.0.0\","
        + "\"launchAsset\":{\"key\":\"k\",\"contentType\":\"application/javascript\",\"url\":\"http://127.0.0.1:9/a\"},"
        + "\"assets\":[],\"metadata\":{},\"extra\":{\"n\":" + n + ",\"pad\":\"" + "x".repeat(PAD) + "\"}}";
    return new UpdateGroup("group-" + n, UpdateGroup.KIND_UPDATE, "production", "1.0.0", null, null, null, null, null,
        List.of(new PlatformUpdate("ios", id, "2026-01-01T00:00:00.000Z", body, null, null, List.of())));
  }

  @Test
  void restartedEdgeAnswers503UntilCaughtUpThenTheLatestAndNeverNoUpdate(Infra infra) throws Exception {
    Vertx vertx = Edges.vertx();
    try (TestLog log = new TestLog(infra.kafkaBootstrap(), infra.topicPrefix())) {
      log.publish(APP, new EventPayload.AppCreated("Restart"));
      for (int n = 1; n <= BACKLOG; n++) {
        log.publish(APP, new EventPayload.UpdatePublished(group(n)));
      }
      EdgeNode first = Edges.startReady(vertx, log, "restart-edge", "checkins", "false");
      EdgeHttp h1 = new EdgeHttp(first.port());
      assertThat(served(h1.get("/apps/" + APP + "/manifest", Device.ios().headers()))).isEqualTo(BACKLOG);

      AtomicInteger published = new AtomicInteger(BACKLOG);
      AtomicBoolean publishing = new AtomicBoolean(true);
      Thread publisher = new Thread(() -> {
        while (publishing.get() && published.get() < BACKLOG + 400) {
          int n = published.get() + 1;
          log.publish(APP, new EventPayload.UpdatePublished(group(n)));
          published.set(n);
        }
      }, "test-publisher");
      publisher.start();
      Edges.until("publishing under way", () -> published.get() > BACKLOG + 20, Duration.ofSeconds(30));

      Edges.await(first.close()); // the edge goes away while updates keep coming
      int publishedBeforeRestart = published.get();
      EdgeNode second = Edges.start(vertx, log, "restart-edge", "checkins", "false");
      try {
        EdgeHttp h2 = new EdgeHttp(second.port());
        List<Integer> statuses = new ArrayList<>();
        int firstServed = -1;
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (true) {
          assertThat(System.nanoTime()).as("the restarted edge answered 200 within 60 s").isLessThan(deadline);
          boolean wasReady = second.ready();
          EdgeHttp.Response r = h2.get("/apps/" + APP + "/manifest", Device.ios().headers());
          statuses.add(r.status());
          if (r.status() == 503) {
            assertThat(wasReady).as("503 only before ready").isFalse();
            assertThat(r.errorCode()).isEqualTo("not-ready");
            continue;
          }
          assertThat(r.status()).as("answer while catching up: %s", r).isEqualTo(200);
          assertThat(r.text()).doesNotContain("noUpdateAvailable");
          firstServed = served(r);
          break;
        }
        // the path this test is about was taken: the restarted edge answered while it was catching up
        long notReady = statuses.stream().filter(s -> s == 503).count();
        assertThat(notReady).as("503 answers while the restarted edge caught up (%d answers before the first 200)", statuses.size() - 1)
            .isPositive();
        // the first answer already reflects everything published before the restart
        assertThat(firstServed).isGreaterThanOrEqualTo(publishedBeforeRestart);
        assertThat(second.ready()).isTrue();

        publishing.set(false);
        publisher.join(30_000);
        int last = published.get();
        Edges.until("the last publish is served", () -> served(h2.get("/apps/" + APP + "/manifest",
            Device.ios().headers())) == last, Duration.ofSeconds(30));
        System.out.printf("restart: %d answers before the first 200 (%d of them 503); first served %d, published"
            + " before restart %d, last %d%n", statuses.size() - 1, notReady,
            firstServed, publishedBeforeRestart, last);
      } finally {
        publishing.set(false);
        publisher.join(30_000);
        Edges.await(second.close());
      }
    } finally {
      Edges.await(vertx.close());
    }
  }

  /** The number of the group a manifest answer carries. */
  static int served(EdgeHttp.Response r) {
    JsonNode m = ManifestConformanceIT.parse(Answers.multipart(r).part("manifest").bodyText());
    return m.path("extra").path("n").asInt();
  }
}
