package dev.updraft.controlplane;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.updraft.controlplane.config.ControlPlaneConfig;
import dev.updraft.events.EventEnvelope;
import dev.updraft.events.UpdateEvents.UpdatePublished;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * One writer at a time: a second control plane fences the first, whose next write fails cleanly with
 * 503; and a publish whose answer was lost after its commit is returned, not repeated, when retried
 * with the same idempotency key against the next instance.
 */
@ExtendWith(RealInfrastructure.class)
class SingleWriterIT {
  static Vertx vertx;

  @BeforeAll
  static void start() {
    vertx = Vertx.vertx();
  }

  @AfterAll
  static void stop() {
    TestSupport.await(vertx.close());
  }

  @Test
  void aSecondControlPlaneFencesTheFirstWhoseNextWriteFailsWith503(Infra infra, @TempDir Path dir) {
    ControlPlaneConfig config = TestSupport.config(infra, dir);
    ControlPlane first = TestSupport.start(vertx, config);
    ControlPlane second = null;
    try {
      Http a = new Http("http://127.0.0.1:" + first.port(), TestSupport.ADMIN);
      assertThat(a.post("/v1/apps", Map.of("appId", "fence")).status()).isEqualTo(201);
      assertThat(a.post("/v1/apps/fence/tokens", Map.of("role", "read", "label", "before")).status()).isEqualTo(201);

      second = TestSupport.start(vertx, config);
      Http b = new Http("http://127.0.0.1:" + second.port(), TestSupport.ADMIN);

      Http.Resp refused = a.post("/v1/apps/fence/tokens", Map.of("role", "read", "label", "lost?"));
      assertThat(refused.status()).isEqualTo(503);
      assertThat(refused.errorCode()).isEqualTo("fenced");
      assertThat(refused.errorMessage()).contains("replaced by a newer one").contains("nothing was written");
      Http.Resp health = a.get("/healthz");
      assertThat(health.status()).isEqualTo(503);
      assertThat(health.json().get("status").asText()).isEqualTo("fenced");
      // it stops folding the log: its figure of the URLs' life left would only decay while the new writer renews them
      assertThat(TestSupport.metric(a, "updraft_control_presigned_url_life_left_ratio")).isNaN();
      assertThat(TestSupport.metric(b, "updraft_control_presigned_url_life_left_ratio")).isEqualTo(1.0);
      // it stays fenced: a later write is refused the same way
      Http.Resp later = a.post("/v1/apps", Map.of("appId", "fence-2"));
      assertThat(later.errorCode()).isEqualTo("fenced");
      assertThat(later.errorMessage()).as("a client may retry a write refused this way").contains("nothing was written");

      // the new writer has everything the first committed, and goes on
      assertThat(b.get("/healthz").status()).isEqualTo(200);
      assertThat(b.get("/v1/apps/fence/tokens").json().get("items")).hasSize(1);
      assertThat(b.post("/v1/apps/fence/tokens", Map.of("role", "read", "label", "after")).status()).isEqualTo(201);

      List<EventEnvelope> events = TestSupport.events(infra, "fence");
      assertThat(events).extracting(e -> e.type().wireName()).containsExactly("app.created", "token.issued", "token.issued");
      assertThat(events).extracting(EventEnvelope::sequence).containsExactly(1L, 2L, 3L);
      assertThat(TestSupport.events(infra)).noneMatch(e -> e.appId().equals("fence-2"));
      assertThat(first.state().app("fence").lastSequence()).isEqualTo(2);
      assertThat(second.state().app("fence").lastSequence()).isEqualTo(3);
    } finally {
      TestSupport.await(first.close());
      if (second != null) {
        TestSupport.await(second.close());
      }
    }
  }

  @Test
  void aPublishRetriedAfterACrashBetweenCommitAndAnswerIsVisibleOnce(Infra infra, @TempDir Path dir) {
    ControlPlaneConfig config = TestSupport.config(infra, dir);
    AtomicBoolean crash = new AtomicBoolean();
    Runnable hook =
        () -> {
          if (crash.getAndSet(false)) {
            throw new IllegalStateException("simulated crash after commit");
          }
        };
    ControlPlane first = TestSupport.start(vertx, config, new Hooks(Clock.systemUTC(), hook, null));
    ControlPlane second = null;
    try {
      Http a = new Http("http://127.0.0.1:" + first.port(), TestSupport.ADMIN);
      assertThat(a.post("/v1/apps", Map.of("appId", "crash")).status()).isEqualTo(201);
      ExportFixture.upload(a, "crash", Fixtures.update1());
      ObjectNode body = ExportFixture.publishBody(Fixtures.update1(), "production", "1.0.0");
      body.put("idempotencyKey", "ci-run-7");

      crash.set(true);
      Http.Resp lost = a.post("/v1/apps/crash/updates", body);
      assertThat(lost.status()).isEqualTo(503);
      assertThat(a.get("/healthz").json().get("status").asText()).isEqualTo("broken");
      TestSupport.await(first.close());

      second = TestSupport.start(vertx, config);
      Http b = new Http("http://127.0.0.1:" + second.port(), TestSupport.ADMIN);
      Http.Resp retried = b.post("/v1/apps/crash/updates", body);
      assertThat(retried.status()).as(retried.toString()).isEqualTo(200);
      assertThat(retried.json().get("replayed").asBoolean()).isTrue();

      List<EventEnvelope> published =
          TestSupport.events(infra, "crash").stream().filter(e -> e.payload() instanceof UpdatePublished).toList();
      assertThat(published).hasSize(1);
      assertThat(((UpdatePublished) published.get(0).payload()).group().idempotencyKey()).isEqualTo("ci-run-7");
      assertThat(retried.json().get("groupId").asText()).isEqualTo(((UpdatePublished) published.get(0).payload()).group().groupId());
      // and a third try, now answered from the live state, is the same group again
      assertThat(b.post("/v1/apps/crash/updates", body).json().get("groupId").asText()).isEqualTo(retried.json().get("groupId").asText());
      assertThat(TestSupport.events(infra, "crash").stream().filter(e -> e.payload() instanceof UpdatePublished).count()).isEqualTo(1);
    } finally {
      TestSupport.await(first.close());
      if (second != null) {
        TestSupport.await(second.close());
      }
    }
  }
}
