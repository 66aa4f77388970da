package dev.updraft.systemtests.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.updraft.edge.EdgeNode;
import dev.updraft.embedded.Ports;
import dev.updraft.events.EventEnvelope;
import dev.updraft.events.UpdateEvents.PlatformUpdate;
import dev.updraft.events.UpdateEvents.UpdateGroup;
import dev.updraft.events.UpdateEvents.UpdatePublished;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import dev.updraft.testing.protocol.SignatureVerifier;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The control plane, run as its own process ({@code updraft control-plane}), is killed with SIGKILL in
 * the middle of a publish made by the real CLI through a proxy (a load balancer), at three points, each
 * with one outcome: after it committed but before its answer left (the answer is held): visible; before
 * the request reached it (the request is held): absent; after it wrote the publish's event into its open
 * Kafka transaction, before the commit (a produce quota on the broker holds the commit back for seconds, so
 * the kill lands there every time; the test sees the event uncommitted in the log first): absent, the
 * transaction aborted when the restarted control plane takes over the transactional id. Each time, before
 * the CLI's retry gets through, the update is fully visible (one event with every platform, served by the
 * edge) or absent (the edge serves the previous one) as the point says; then the CLI's own retry, with the
 * same idempotency key, makes it visible exactly once.
 */
@ExtendWith(RealInfrastructure.class)
class ControlPlaneKillIT {
  static final String APP = "cp-kill";

  @Test
  void aPublishCutByAKillIsVisibleOnceAfterTheClisRetryAndNeverHalfVisible(Infra infra, @TempDir Path dir) throws Exception {
    int port = Ports.freePort();
    String direct = "http://127.0.0.1:" + port;
    String[] cpArgs = {"control-plane", "--kafka-bootstrap", infra.kafkaBootstrap(), "--topic-prefix", infra.topicPrefix(),
        "--control-port", Integer.toString(port), "--bind", "127.0.0.1", "--admin-token", Services.ADMIN,
        "--data-dir", dir.resolve("cp-data").toString(), "--asset-encoding", "fast"};
    AtomicReference<ChildJvm> cp = new AtomicReference<>(ChildJvm.start(dir.resolve("cp-0.log"), Map.of("UPDRAFT_MASTER_KEY", Fixtures.masterKey()), cpArgs));
    Vertx vertx = Vertx.vertx();
    EdgeNode edge = null;
    try (HoldingProxy proxy = new HoldingProxy(port)) {
      cp.get().awaitOk(direct + "/healthz", Duration.ofSeconds(120));
      String served = Publishing.updateIds(Publishing.appWithUpdate(direct, APP, true, "main")).get(0);
      edge = Services.readyEdge(vertx, infra.kafkaBootstrap(), infra.topicPrefix(), "cp-kill-edge");
      SignatureVerifier verifier = SignatureVerifier.fromCertificatePem(Fixtures.certificatePem());
      int edgePort = edge.port();
      List<String> report = new ArrayList<>();

      for (HoldingProxy.Mode mode : List.of(HoldingProxy.Mode.HOLD_RESPONSE, HoldingProxy.Mode.HOLD_REQUEST, HoldingProxy.Mode.ACT_AFTER_REQUEST)) {
        String key = "reliability-" + mode.name().toLowerCase(java.util.Locale.ROOT);
        boolean midTransaction = mode == HoldingProxy.Mode.ACT_AFTER_REQUEST;
        // mid-transaction: every producer's writes throttled, so that the control plane's commit waits seconds
        ProduceQuota quota = midTransaction ? ProduceQuota.everyClient(infra.kafkaBootstrap(), 100, infra.topicPrefix() + "quota-probe") : null;
        AtomicReference<Throwable> actionFailed = new AtomicReference<>();
        CountDownLatch killed = proxy.arm(mode, "POST /v1/apps/" + APP + "/updates ", () -> {
          proxy.closeGate(); // the CLI's retry waits at the load balancer until the test has looked
          try {
            if (midTransaction) {
              awaitOpenTransaction(infra, key); // its event written, not committed: the commit waits out the throttle
            }
          } catch (Throwable t) {
            actionFailed.set(t);
          } finally {
            cp.get().kill();
          }
        });
        AtomicReference<CliRun> result = new AtomicReference<>();
        Thread cli = new Thread(() -> result.set(CliRun.run("http://127.0.0.1:" + proxy.port(), Services.ADMIN, "publish", "--app", APP,
            "--branch", "main", "--runtime-version", "1.0.0", "--dist", Fixtures.update2().toString(), "--idempotency-key", key,
            "--json", "--no-progress")), "cli-" + key);
        cli.start();
        assertThat(killed.await(120, TimeUnit.SECONDS)).as("the proxy saw the publish request (%s)", mode).isTrue();
        assertThat(cp.get().alive()).isFalse();
        if (quota != null) {
          quota.close();
        }
        assertThat(actionFailed.get()).as("the event of the publish seen uncommitted before the kill").isNull();

        cp.set(ChildJvm.start(dir.resolve("cp-" + mode + ".log"), Map.of("UPDRAFT_MASTER_KEY", Fixtures.masterKey()), cpArgs));
        long restartMs = cp.get().awaitOk(direct + "/healthz", Duration.ofSeconds(120));

        // before the retry: fully visible or absent
        List<UpdateGroup> withKey = groups(infra, key);
        assertThat(withKey).as("groups published with key %s before the retry", key).hasSizeLessThanOrEqualTo(1);
        boolean visible = withKey.size() == 1;
        if (mode == HoldingProxy.Mode.HOLD_RESPONSE) {
          assertThat(visible).as("committed before the kill").isTrue();
        } else if (mode == HoldingProxy.Mode.HOLD_REQUEST) {
          assertThat(visible).as("never reached the server").isFalse();
        } else {
          assertThat(visible).as("written in a transaction the kill left open, aborted by the restarted writer").isFalse();
        }
        String before = served;
        if (visible) {
          UpdateGroup g = withKey.get(0);
          assertThat(g.platforms()).extracting(PlatformUpdate::platform).containsExactlyInAnyOrder("ios", "android");
          String ios = g.platforms().stream().filter(p -> p.platform().equals("ios")).findFirst().orElseThrow().updateId();
          Services.until("the edge serves the committed update", () -> ios.equals(servedId(edgePort, verifier)), Duration.ofSeconds(60));
        } else {
          assertThat(servedId(edgePort, verifier)).as("the edge still serves the previous update").isEqualTo(before);
        }

        proxy.openGate();
        cli.join(180_000);
        CliRun run = result.get();
        assertThat(run).as("the CLI finished").isNotNull();
        assertThat(run.status()).as("CLI exit status; stderr: %s", run.err()).isZero();
        JsonNode out = run.json();
        assertThat(out.path("replayed").asBoolean()).as("answered from the earlier commit").isEqualTo(visible);
        List<UpdateGroup> after = groups(infra, key);
        assertThat(after).as("exactly one group with key %s after the retry", key).hasSize(1);
        assertThat(after.get(0).groupId()).isEqualTo(out.path("groupId").asText());
        String ios = Publishing.updateIds(out).get(0);
        Services.until("the edge serves the update the CLI reported", () -> ios.equals(servedId(edgePort, verifier)), Duration.ofSeconds(60));
        served = ios;
        report.add(mode + ": " + (visible ? "committed before the kill, the retry was answered from it"
                : midTransaction ? "written in an open transaction, aborted, the retry published it" : "not committed, the retry published it")
            + " (restart to healthy " + restartMs + " ms)");
      }

      // the whole log of the app: every publish once, sequences without gaps or repeats
      List<EventEnvelope> events = Logs.events(infra.kafkaBootstrap(), infra.topicPrefix(), APP);
      for (int i = 0; i < events.size(); i++) {
        assertThat(events.get(i).sequence()).isEqualTo(i + 1L);
      }
      List<String> keys = new ArrayList<>();
      for (EventEnvelope e : events) {
        if (e.payload() instanceof UpdatePublished) {
          keys.add(((UpdatePublished) e.payload()).group().idempotencyKey());
        }
      }
      assertThat(keys).hasSize(4).doesNotHaveDuplicates();
      assertThat(new HashSet<>(keys)).contains("reliability-hold_response", "reliability-hold_request", "reliability-act_after_request");
      System.out.println("control-plane kill: " + String.join("; ", report) + "; update.published events " + keys.size()
          + " for 4 publishes, sequences 1.." + events.size() + " without gaps");
    } finally {
      if (edge != null) {
        Services.await(edge.close());
      }
      Services.await(vertx.close());
      cp.get().close();
    }
  }

  private static List<UpdateGroup> groups(Infra infra, String key) {
    List<UpdateGroup> out = new ArrayList<>();
    for (EventEnvelope e : Logs.events(infra.kafkaBootstrap(), infra.topicPrefix(), APP)) {
      if (e.payload() instanceof UpdatePublished && key.equals(((UpdatePublished) e.payload()).group().idempotencyKey())) {
        out.add(((UpdatePublished) e.payload()).group());
      }
    }
    return out;
  }

  /**
   * Waits (60 s at most) until the publish with {@code key} is in the events topic for a {@code read_uncommitted}
   * reader and not for a {@code read_committed} one: written in a transaction not yet committed.
   */
  private static void awaitOpenTransaction(Infra infra, String key) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (!Logs.uncommittedKeys(infra.kafkaBootstrap(), infra.topicPrefix(), APP).contains(key)) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("the publish with key " + key + " was not written (uncommitted) within 60 s");
      }
      Thread.sleep(20);
    }
    assertThat(groups(infra, key)).as("the publish with key %s, for a read_committed reader, while its transaction is open", key).isEmpty();
  }

  private static String servedId(int port, SignatureVerifier verifier) {
    try (RawHttp c = new RawHttp(port, 10_000)) {
      return Publishing.servedId(c.exchange(Publishing.deviceRequest(APP, "main", UUID.randomUUID().toString())), verifier);
    } catch (IOException e) {
      return "";
    }
  }
}
