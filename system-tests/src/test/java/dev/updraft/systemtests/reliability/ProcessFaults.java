package dev.updraft.systemtests.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.edge.EdgeNode;
import dev.updraft.events.EventEnvelope;
import dev.updraft.events.EventPayload;
import dev.updraft.testing.Infra;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/** What {@link KafkaProcessFaultsIT}'s cases share: writes that may be refused, and the checks of the log and PostgreSQL. */
final class ProcessFaults {
  /** What a bound adds to the configured timeout it comes from: scheduling on a small shared machine. */
  static final Duration MARGIN = Duration.ofSeconds(3);

  private ProcessFaults() {}

  /** {@code timeout} plus {@link #MARGIN}. */
  static Duration bound(Duration timeout) {
    return timeout.plus(MARGIN);
  }

  /** Waits 50 ms between two attempts of a write; always true. */
  static boolean pause() {
    java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
    return true;
  }

  static long since(long nanos) {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - nanos);
  }

  /** One write to the control plane and its answer. */
  record Write(String key, int status, String code, String retryAfter, long ms, String body) {
    boolean acknowledged() {
      return status == 200 || status == 201;
    }

    @Override
    public String toString() {
      return key + " -> " + status + " " + code + " retry-after " + retryAfter + " in " + ms + " ms";
    }
  }

  /** A roll back to the embedded update of {@code app}'s {@code main} (a write command) with idempotency key {@code key}. */
  static Write rollback(String server, String app, String key) {
    long t0 = System.nanoTime();
    Api.Resp r = Api.post(server + "/v1/apps/" + app + "/rollbacks", Services.ADMIN,
        "{\"branch\":\"main\",\"runtimeVersion\":\"1.0.0\",\"embedded\":true,\"idempotencyKey\":\"" + key + "\"}");
    long ms = since(t0);
    String code = r.status() >= 400 ? r.errorCode() : null;
    return new Write(key, r.status(), code, r.header("retry-after"), ms, r.text());
  }

  /** The partition of {@code topic} that holds {@code app}'s events (keyed by the app id). */
  static int eventsPartition(String bootstrap, String topic, String app) {
    int[] partition = {-1};
    byte[] key = app.getBytes(StandardCharsets.UTF_8);
    Logs.readAll(bootstrap, topic, r -> {
      if (java.util.Arrays.equals(r.key(), key)) {
        partition[0] = r.partition();
      }
    });
    assertThat(partition[0]).as("the events of %s are on a partition", app).isNotNegative();
    return partition[0];
  }

  /** The idempotency keys of {@code app}'s publishes and roll backs, each with how many times it is in the log. */
  static Map<String, Integer> keysInLog(String bootstrap, String prefix, String app) {
    Map<String, Integer> out = new TreeMap<>();
    for (EventEnvelope e : Logs.events(bootstrap, prefix, app)) {
      EventPayload.UpdateGroup g = group(e.payload());
      if (g != null && g.idempotencyKey() != null) {
        out.merge(g.idempotencyKey(), 1, Integer::sum);
      }
    }
    return out;
  }

  private static EventPayload.UpdateGroup group(EventPayload p) {
    if (p instanceof EventPayload.UpdatePublished u) {
      return u.group();
    }
    if (p instanceof EventPayload.RolledBackToEmbedded r) {
      return r.group();
    }
    return null;
  }

  /**
   * Every publish acknowledged ({@code groupsByKey}: idempotency key to the group the API answered) is in the
   * log once with that group; the app's sequences are 1..n without gap or repeat.
   */
  static void assertEachAcknowledgedPublishOnce(String bootstrap, String prefix, String app, Map<String, String> groupsByKey) {
    Map<String, String> inLog = new TreeMap<>();
    Map<String, Integer> count = new TreeMap<>();
    List<Long> sequences = new ArrayList<>();
    for (EventEnvelope e : Logs.events(bootstrap, prefix, app)) {
      sequences.add(e.sequence());
      EventPayload.UpdateGroup g = group(e.payload());
      if (g != null && g.idempotencyKey() != null && g.idempotencyKey().startsWith(LogPublisher.KEY_PREFIX)) {
        inLog.put(g.idempotencyKey(), g.groupId());
        count.merge(g.idempotencyKey(), 1, Integer::sum);
      }
    }
    assertThat(inLog).as("acknowledged publishes in the log, by idempotency key").containsAllEntriesOf(groupsByKey);
    assertThat(count.values()).as("each idempotency key in the log once").allMatch(n -> n == 1);
    for (int i = 0; i < sequences.size(); i++) {
      assertThat(sequences.get(i)).as("sequence %d of %s", i, app).isEqualTo(i + 1L);
    }
  }

  /**
   * Every device request of {@code load} the edge answered is stored once in PostgreSQL: waits (bounded) until the
   * app's stored check-ins reach the answers, then compares each device's count; and the edge dropped none.
   */
  static void assertEveryAnswerStoredOnce(Infra infra, String app, DeviceLoad load, EdgeNode edge, Duration timeout) {
    long answered = 0;
    for (AtomicLong n : load.byClient.values()) {
      answered += n.get();
    }
    long expected = answered;
    Services.until(() -> "the ingester stored every check-in of " + app + ": " + storedOf(infra, app, load) + " of " + expected,
        () -> storedOf(infra, app, load) >= expected, timeout);
    Map<String, Long> stored = Logs.deviceCheckIns(infra.jdbcUrl(), infra.pgUser(), app);
    for (Map.Entry<String, AtomicLong> c : load.byClient.entrySet()) {
      assertThat(stored.get(c.getKey())).as("check-ins of device %s", c.getKey()).isEqualTo(c.getValue().get());
    }
    assertThat(EdgeMetrics.of(edge).dropped()).as("check-ins the edge dropped").isZero();
  }

  private static long storedOf(Infra infra, String app, DeviceLoad load) {
    Map<String, Long> stored = Logs.deviceCheckIns(infra.jdbcUrl(), infra.pgUser(), app);
    long n = 0;
    for (String client : load.byClient.keySet()) {
      n += stored.getOrDefault(client, 0L);
    }
    return n;
  }
}
