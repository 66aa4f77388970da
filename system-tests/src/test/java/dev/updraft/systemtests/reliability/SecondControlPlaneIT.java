package dev.updraft.systemtests.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.updraft.controlplane.ControlPlane;
import dev.updraft.events.EventEnvelope;
import dev.updraft.events.AppEvents.TokenIssued;
import dev.updraft.events.UpdateEvents.UpdatePublished;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A second control plane (same configuration, same transactional id) starts beside the first while
 * publishers keep writing to the first: the first is fenced (every later write refused with 503
 * {@code fenced}, saying nothing was written; {@code /healthz} 503), the publishers move to the second,
 * and in the log every acknowledged write is there exactly once, nothing refused as fenced is there, and
 * the app's sequence has no gap and no repeat. Writes: token issues (not idempotent: retried only when
 * refused as fenced) and republishes with idempotency keys (retried with the same key after any failure).
 *
 * <p>The first must say {@code fenced} even when Kafka's coordinator answers its last commit, which raced
 * the second's {@code initTransactions}, with an invalid state rather than "fenced" (the control plane
 * then settles that write from the log and the coordinator: {@code EventLogFenceIT} makes that race
 * happen every time).
 */
@ExtendWith(RealInfrastructure.class)
class SecondControlPlaneIT {
  static final String APP = "twin";

  final Map<String, String> outcome = new ConcurrentHashMap<>();
  final ConcurrentLinkedQueue<String> unexpected = new ConcurrentLinkedQueue<>();
  final AtomicInteger fencedRefusals = new AtomicInteger();
  final ConcurrentLinkedQueue<Throwable> writerErrors = new ConcurrentLinkedQueue<>();

  @Test
  void theFirstIsFencedAndNoWriteIsLostOrWrittenTwice(Infra infra, @TempDir Path dir) throws Exception {
    Vertx vertx = Vertx.vertx();
    ControlPlane first = Services.controlPlane(vertx, infra.kafkaBootstrap(), infra.topicPrefix(), dir);
    ControlPlane second = null;
    AtomicBoolean writing = new AtomicBoolean(true);
    List<Thread> writers = new ArrayList<>();
    try {
      String url1 = "http://127.0.0.1:" + first.port();
      JsonNode created = Publishing.appWithUpdate(url1, APP, false, "main");
      String groupId = created.path("groupId").asText();
      AtomicReference<String> target = new AtomicReference<>(url1);
      AtomicInteger acked = new AtomicInteger();
      writers.add(new Thread(() -> {
        for (int n = 0; writing.get(); n++) {
          String label = "token-" + n;
          while (true) {
            Api.Resp r = Api.post(target.get() + "/v1/apps/" + APP + "/tokens", Services.ADMIN, "{\"role\":\"read\",\"label\":\"" + label + "\"}");
            if (r.status() == 201) {
              outcome.put(label, "acked");
              acked.incrementAndGet();
              break;
            }
            if (r.status() == 503 && "fenced".equals(r.errorCode())) {
              fencedRefusals.incrementAndGet();
              waitForOther(target, r);
              continue; // "nothing was written; retry": the same write, against the active instance
            }
            outcome.put(label, "unknown"); // not idempotent: the outcome is unknown, do not retry
            unexpected.add(label + ": " + r);
            break;
          }
        }
      }, "writer-tokens"));
      writers.add(new Thread(() -> {
        for (int n = 0; writing.get(); n++) {
          String key = "republish-" + n;
          while (true) {
            Api.Resp r = Api.post(target.get() + "/v1/apps/" + APP + "/rollbacks", Services.ADMIN,
                "{\"branch\":\"main\",\"runtimeVersion\":\"1.0.0\",\"toGroupId\":\"" + groupId + "\",\"idempotencyKey\":\"" + key + "\"}");
            if (r.status() == 201 || r.status() == 200) {
              outcome.put(key, "acked");
              acked.incrementAndGet();
              break;
            }
            if (r.status() == 503 && "fenced".equals(r.errorCode())) {
              fencedRefusals.incrementAndGet();
              waitForOther(target, r);
            } else {
              unexpected.add(key + ": " + r); // idempotent: retried with the same key
            }
          }
        }
      }, "writer-republishes"));
      for (Thread t : writers) {
        t.setUncaughtExceptionHandler((th, e) -> writerErrors.add(e));
        t.start();
      }
      Services.until("writes acknowledged by the first", () -> acked.get() >= 40, Duration.ofSeconds(60));

      second = Services.controlPlane(vertx, infra.kafkaBootstrap(), infra.topicPrefix(), dir);
      String url2 = "http://127.0.0.1:" + second.port();
      int ackedWhenSecondStarted = acked.get();
      otherUrl.set(url2); // the writers keep going to the first until it refuses them
      Services.until("writes acknowledged by the second", () -> acked.get() >= ackedWhenSecondStarted + 40, Duration.ofSeconds(60));
      writing.set(false);
      for (Thread t : writers) {
        t.join(60_000);
      }

      assertThat(writerErrors).as("failures in the writers").isEmpty();
      assertThat(fencedRefusals.get()).as("writes the first refused as fenced").isPositive();
      Api.Resp health1 = Api.get(url1 + "/healthz", null);
      assertThat(health1.status()).isEqualTo(503);
      assertThat(health1.json().path("status").asText()).isEqualTo("fenced");
      assertThat(Api.get(url2 + "/healthz", null).status()).isEqualTo(200);
      assertThat(Api.post(url1 + "/v1/apps/" + APP + "/tokens", Services.ADMIN, "{\"role\":\"read\",\"label\":\"late\"}").errorCode())
          .isEqualTo("fenced");

      List<EventEnvelope> events = Logs.events(infra.kafkaBootstrap(), infra.topicPrefix(), APP);
      for (int i = 0; i < events.size(); i++) {
        assertThat(events.get(i).sequence()).as("sequence of event %d", i).isEqualTo(i + 1L);
      }
      List<String> written = new ArrayList<>();
      for (EventEnvelope e : events) {
        if (e.payload() instanceof TokenIssued) {
          written.add(((TokenIssued) e.payload()).label());
        } else if (e.payload() instanceof UpdatePublished && ((UpdatePublished) e.payload()).group().idempotencyKey() != null
            && ((UpdatePublished) e.payload()).group().idempotencyKey().startsWith("republish-")) {
          written.add(((UpdatePublished) e.payload()).group().idempotencyKey());
        }
      }
      assertThat(written).as("writes in the log").doesNotHaveDuplicates().doesNotContain("late");
      Set<String> ackedWrites = new HashSet<>();
      outcome.forEach((k, v) -> {
        if (v.equals("acked")) {
          ackedWrites.add(k);
        }
      });
      assertThat(written).as("every acknowledged write is in the log").containsAll(ackedWrites);
      for (String w : written) {
        assertThat(outcome).as("a write in the log that was never sent").containsKey(w);
      }
      assertThat(unexpected).as("answers other than success or fenced").isEmpty();
      // every write ended acknowledged (a write refused as fenced was retried until it was), and the log
      // holds exactly those: none refused as fenced was written, none acknowledged is missing
      assertThat(outcome).as("the outcome of every write").allSatisfy((k, v) -> assertThat(v).as(k).isEqualTo("acked"));
      assertThat(written).as("the writes in the log are the acknowledged ones").containsExactlyInAnyOrderElementsOf(ackedWrites);
      System.out.printf("second control plane: %d writes acknowledged (%d before the second started), %d refused by the first"
              + " as fenced and retried on the second, %d events in the log, each write once, sequences 1..%d%n",
          ackedWrites.size(), ackedWhenSecondStarted, fencedRefusals.get(), written.size(), events.size());
    } finally {
      writing.set(false);
      for (Thread t : writers) {
        t.join(60_000);
      }
      Services.await(first.close());
      if (second != null) {
        Services.await(second.close());
      }
      Services.await(vertx.close());
    }
  }

  /** The second instance's URL, once it is up. */
  final AtomicReference<String> otherUrl = new AtomicReference<>();

  /** After a fenced refusal: move to the other instance (a client retrying reaches the active one). */
  private void waitForOther(AtomicReference<String> target, Api.Resp refusal) {
    assertThat(refusal.json().path("error").path("message").asText()).contains("nothing was written");
    Services.until("the second instance's address", () -> otherUrl.get() != null, Duration.ofSeconds(60));
    target.set(otherUrl.get());
  }
}
