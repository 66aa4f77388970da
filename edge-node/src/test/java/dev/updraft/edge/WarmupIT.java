package dev.updraft.edge;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.updraft.events.EventPayload;
import dev.updraft.events.UpdateEvents.UpdateGroup;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import io.vertx.core.Vertx;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;

/**
 * Warm before ready: {@code /readyz} answers 200 only after the edge has answered its own warm-up requests
 * (all of them); those requests count in no request metric, and their check-ins reach the telemetry topic
 * marked as the warm-up's, so that the producer has run before the first device's check-in.
 */
@ExtendWith(RealInfrastructure.class)
class WarmupIT {
  static final String APP = "warmup-app";
  static final int WARMUP = 3_000;
  static Vertx vertx;
  static String bootstrap;
  static String prefix;

  @BeforeAll
  static void start(Infra infra) {
    vertx = Edges.vertx();
    bootstrap = infra.kafkaBootstrap();
    prefix = infra.topicPrefix();
  }

  @AfterAll
  static void stop() {
    Edges.await(vertx.close());
  }

  /** The manifest requests the edge answered so far, from its metrics. */
  static long answered(EdgeHttp http) {
    String text = new String(http.get("/metrics").body(), StandardCharsets.UTF_8);
    long n = 0;
    for (String line : text.split("\n")) {
      if (line.startsWith("updraft_edge_requests_total{")) {
        n += (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return n;
  }

  @Test
  void notReadyBeforeTheWarmUpHasRunAndTheWarmUpsCheckInsAreMarked() {
    String client = "real-" + UUID.randomUUID();
    long edgeWarmupSent = 0;
    try (TestLog log = new TestLog(bootstrap, prefix)) {
      Instant t = Instant.now().truncatedTo(ChronoUnit.MILLIS).minusSeconds(600);
      log.publish(APP, new EventPayload.AppCreated("Warm-up app"));
      UpdateGroup g = FixtureManifests.group("production", "1.0.0", Fixtures.update1(), t, null, null);
      log.publish(APP, new EventPayload.UpdatePublished(g));

      ListAppender<ILoggingEvent> lines = new ListAppender<>();
      lines.start();
      ((Logger) LoggerFactory.getLogger(Warmup.class)).addAppender(lines);
      EdgeNode edge = Edges.start(vertx, log, "warmup-edge", "warmup-requests", Integer.toString(WARMUP),
          "warmup-timeout", "120s", "warmup-until-flat", "false");
      EdgeHttp http = new EdgeHttp(edge.port());
      int status;
      boolean sawWarmingUp = false;
      long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
      do {
        EdgeHttp.Response r = http.get("/readyz");
        status = r.status();
        if (status == 503 && warmingUp(r)) {
          sawWarmingUp = true;
        }
        assertThat(System.nanoTime() - deadline).as("ready within 120 s").isNegative();
      } while (status != 200);
      long warmupAnswers = edge.warmupAnswered();
      ((Logger) LoggerFactory.getLogger(Warmup.class)).detachAppender(lines);
      List<String> said = lines.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
      assertThat(said).as("what the warm-up logs").isNotEmpty();
      assertThat(said.get(0)).as("a line when it starts, saying how long it may take and how to skip it")
          .startsWith("warm-up: up to " + WARMUP + " requests over").contains("at most 120 s").contains("--warmup-requests 0");
      assertThat(said.get(said.size() - 2)).as("and one when its requests end").contains("; ready;");
      // then it settles: a collection, and the JIT's compile queue empty (or its 10 s bound reached) before ready
      java.util.regex.Matcher settled = java.util.regex.Pattern.compile("warm-up settled in (\\d+) ms: ([1-9]\\d*) garbage collection\\(s\\),"
          + " then \\d+ compilations running or queued at the warm-up's end, and (the JIT's compile queue empty|[1-9]\\d* compilations still running or queued after 10 s) before ready")
          .matcher(said.get(said.size() - 1));
      assertThat(settled.matches()).as("the last line, before /readyz said 200: " + said.get(said.size() - 1)).isTrue();
      if (!settled.group(3).startsWith("the JIT")) {
        assertThat(Long.parseLong(settled.group(1))).as("held back by its bound only").isGreaterThanOrEqualTo(Settle.MAX.toMillis());
      }
      assertThat(http.get("/readyz").json().path("startMillis").has("settle")).as("/readyz says how long the settling took").isTrue();

      assertThat(warmupAnswers).as("answered by the time /readyz says 200: the whole warm-up").isGreaterThanOrEqualTo(WARMUP);
      assertThat(answered(http)).as("the warm-up's requests are not in the request metrics").isZero();
      assertThat(edge.ready()).isTrue();
      assertThat(sawWarmingUp).as("/readyz answered 503 warming-up while the warm-up ran").isTrue();
      assertThat(http.get("/apps/" + APP + "/manifest", Device.ios().client(client).headers()).status()).isEqualTo(200);
      Edges.await(edge.close()); // delivers what the emitter holds
      edgeWarmupSent = edge.warmupCheckInsSent();
    }

    List<Telemetry.Received> mine = Telemetry.readAll(bootstrap, prefix).stream()
        .filter(x -> "warmup-edge".equals(x.checkIn().edgeId())).toList();
    List<Telemetry.Received> devices = mine.stream().filter(x -> !x.warmup()).toList();
    assertThat(devices).as("unmarked check-ins of this edge: the one real request").hasSize(1);
    assertThat(devices.get(0).checkIn().clientId()).isEqualTo(client);
    // the warm-up ran the whole path to Kafka: its check-ins are there, each marked for ingesters to skip (one
    // request in Warmup.OPS_EVERY asks /readyz or /metrics instead, as balancers and scrapers do)
    int deviceRequests = WARMUP - WARMUP / Warmup.OPS_EVERY;
    assertThat(mine.size() - devices.size()).as("marked warm-up check-ins").isGreaterThanOrEqualTo(deviceRequests);
    assertThat(edgeWarmupSent).as("acknowledged warm-up check-ins, counted apart").isGreaterThanOrEqualTo(deviceRequests);
  }

  @Test
  void withTheEarlyEndOnTheEdgeTurnsReadyOnlyOnceTheHotPathHasItsTopTierCode() throws InterruptedException {
    // the default early end (--warmup-until-flat true) with bounds far away: what ends it is the curve, the
    // JIT and the hot path's compiled state; C2 needs some 10,000-15,000 invocations and seconds of compile
    // time on two cores, which a flat-latency rule alone did not wait for (cold-start.md, runs 9 and 10)
    try (TestLog log = new TestLog(bootstrap, prefix)) {
      Instant t = Instant.now().truncatedTo(ChronoUnit.MILLIS).minusSeconds(600);
      log.publish("hot-app", new EventPayload.AppCreated("Hot path app"));
      log.publish("hot-app", new EventPayload.UpdatePublished(FixtureManifests.group("production", "1.0.0", Fixtures.update1(), t, null, null)));
      ListAppender<ILoggingEvent> lines = new ListAppender<>();
      lines.start();
      ((Logger) LoggerFactory.getLogger(Warmup.class)).addAppender(lines);
      EdgeNode edge = Edges.start(vertx, log, "hot-path-edge", "warmup-requests", "10000000", "warmup-timeout", "300s");
      EdgeHttp http = new EdgeHttp(edge.port());
      long deadline = System.nanoTime() + Duration.ofSeconds(330).toNanos();
      List<String> states = new java.util.ArrayList<>(); // each /readyz state once, in the order seen
      EdgeHttp.Response r;
      do {
        r = http.get("/readyz");
        String state = r.status() == 200 ? "ready" : warmingUp(r) ? "warming-up" : r.status() + " " + new String(r.body(), StandardCharsets.UTF_8);
        if (states.isEmpty() || !states.get(states.size() - 1).equals(state)) {
          states.add(state);
        }
        assertThat(System.nanoTime() - deadline).as("ready within 330 s").isNegative();
        Thread.sleep(20);
      } while (r.status() != 200);
      long answered = edge.warmupAnswered();
      ((Logger) LoggerFactory.getLogger(Warmup.class)).detachAppender(lines);
      assertThat(HotPath.pending()).as("hot path methods without top-tier code when /readyz said 200").isEmpty();
      // the warm-up takes seconds of C2 compiling: /readyz says so (503 warming-up), and only then ready
      assertThat(states).as("the /readyz states seen").contains("warming-up").endsWith("ready");
      assertThat(states.subList(states.indexOf("warming-up"), states.size())).as("after the warm-up started").containsExactly("warming-up", "ready");
      // what ended it: the curve (flat and compiled), not the request count nor --warmup-timeout
      List<String> said = lines.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
      String end = said.stream().filter(l -> l.contains("; ready;")).findFirst().orElse("(no end line in " + said + ")");
      assertThat(end).as("the warm-up's last line").contains(", stopped when flat after ").doesNotContain("--warmup-timeout");
      assertThat(answered).as("ended by the curve, before its bounds").isLessThan(10_000_000L);
      System.out.println("hot path compiled at ready after " + answered + " warm-up requests: " + end);
      Edges.await(edge.close());
    }
  }

  /** Whether {@code r} is the 503 {@code warming-up} of {@code /readyz}: a JSON error with that code. */
  static boolean warmingUp(EdgeHttp.Response r) {
    return r.status() == 503 && new String(r.body(), StandardCharsets.UTF_8).contains("\"code\":\"warming-up\"");
  }
}
