package dev.updraft.systemtests.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.controlplane.ControlPlane;
import dev.updraft.controlplane.commands.CommandProcessor;
import dev.updraft.edge.EdgeNode;
import dev.updraft.events.Topics;
import dev.updraft.ingester.TelemetryIngester;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.KafkaProcesses;
import dev.updraft.testing.RealInfrastructure;
import dev.updraft.testing.TcpProxy;
import dev.updraft.testing.protocol.SignatureVerifier;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Faults as real processes: a Kafka cluster of three brokers and a three-node KRaft controller quorum, each node an
 * OS process of its own ({@link KafkaProcesses}), topics replicated 3 with {@code min.insync.replicas} 2, shared by
 * the cases in order (each starts with every node up and in sync). The control plane, an edge and the ingester run
 * in this JVM against real PostgreSQL; the control plane and the ingester reach Kafka only through a
 * {@link TcpProxy} per broker, the edge directly.
 *
 * <ol>
 *   <li>The events partition's leader, then the active controller, SIGKILLed while the real CLI publishes and
 *       devices check in: every acknowledged publish in the log once, sequences without gap, every device request
 *       the edge answered stored once in PostgreSQL.
 *   <li>Two brokers SIGKILLed at once: writes are refused 503 {@code log-unavailable} (with {@code retry-after})
 *       within the bound of {@link FaultBounds}, nothing of them visible after recovery unless retried; once one
 *       broker is back, writes succeed within the bound the configured timeouts give.
 *   <li>The control plane and the ingester cut off from every broker (the proxies drop every connection) while the
 *       edge is not: writes refused 503 within the probe timeout; the ingester stores nothing more and counts
 *       nothing lost; when the proxies forward again both resume by themselves, the counts exact.
 * </ol>
 */
@ExtendWith(RealInfrastructure.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class KafkaProcessFaultsIT {
  static final String PREFIX = "procs.";
  static final String EVENTS = Topics.events(PREFIX);
  static final String TELEMETRY = Topics.telemetry(PREFIX);
  static final Duration SYNC = Duration.ofSeconds(90);
  /**
   * From the proxies forwarding again to the control plane's write and the ingester's store: a cut connection fails
   * at once, the clients reconnect within {@code reconnect.backoff.max.ms} (1 s, Kafka's default), and a probe
   * started just before the restore may still wait out its {@link CommandProcessor#LOG_PROBE_TIMEOUT}; plus the margin.
   */
  static final Duration CUT_RECOVERY_BOUND = ProcessFaults.bound(CommandProcessor.LOG_PROBE_TIMEOUT.plusSeconds(1));
  /**
   * From a returning broker's unfencing to an acknowledged write: it fetches from the leaders (a fetch waits at most
   * {@code replica.fetch.wait.max.ms}, 500 ms), rejoins the in-sync replicas, and the controller's change reaches the
   * brokers within a heartbeat ({@code broker.heartbeat.interval.ms}, 500 ms); plus the margin.
   */
  static final Duration RECOVERY_BOUND = ProcessFaults.bound(KafkaProcesses.REPLICA_FETCH_WAIT.plus(KafkaProcesses.HEARTBEAT));

  private Infra infra;
  private KafkaProcesses kafka;
  private Vertx vertx;
  private ControlPlane cp;
  private EdgeNode edge;
  private TelemetryIngester ingester;
  private String server;
  private final SignatureVerifier verifier = SignatureVerifier.fromCertificatePem(Fixtures.certificatePem());

  @BeforeAll
  void start(Infra infra, @TempDir Path dir) {
    this.infra = infra;
    long t0 = System.nanoTime();
    kafka = KafkaProcesses.start(dir.resolve("kafka"));
    long upMs = (System.nanoTime() - t0) / 1_000_000;
    vertx = Vertx.vertx();
    cp = Services.controlPlane(vertx, kafka.proxiedBootstrapServers(), PREFIX, dir.resolve("cp"));
    server = "http://127.0.0.1:" + cp.port();
    edge = Services.readyEdge(vertx, kafka.bootstrapServers(), PREFIX, "procs-edge");
    ingester = Services.ingester(vertx, kafka.proxiedBootstrapServers(), PREFIX,
        Services.postgresUrl(infra.pgPort(), infra.database(), infra.pgUser()));
    assertThat(kafka.describe(EVENTS).partitions()).allMatch(p -> p.replicas().size() == 3);
    assertThat(kafka.describe(TELEMETRY).partitions()).allMatch(p -> p.replicas().size() == 3);
    System.out.printf("kafka processes: 3 controllers and 3 brokers, each its own process, up in %d ms%n", upMs);
  }

  /** Every node running and every partition in sync, whatever the case before did. */
  @BeforeEach
  void everyNodeUp() {
    List<Integer> all = new ArrayList<>(KafkaProcesses.BROKER_IDS);
    all.addAll(KafkaProcesses.CONTROLLER_IDS);
    for (int id : all) {
      if (!kafka.alive(id)) {
        long since = System.currentTimeMillis();
        kafka.restart(id);
        kafka.awaitBack(id, since, SYNC);
      }
    }
    kafka.proxies().values().forEach(TcpProxy::restore);
    kafka.awaitInSync(EVENTS, SYNC);
    kafka.awaitInSync(TELEMETRY, SYNC);
  }

  @AfterAll
  void stop() {
    List<Future<Void>> closing = new ArrayList<>();
    if (edge != null) {
      closing.add(edge.close());
    }
    if (ingester != null) {
      closing.add(ingester.close());
    }
    if (cp != null) {
      closing.add(cp.close());
    }
    closing.forEach(Services::await);
    if (vertx != null) {
      Services.await(vertx.close());
    }
    if (kafka != null) {
      kafka.close();
    }
  }

  @Test
  @Order(1)
  void killingTheEventsLeaderThenTheActiveControllerLosesNoAcknowledgedPublishAndNoCheckIn() throws Exception {
    String app = "kill";
    Publishing.appWithUpdate(server, app, true, "main");
    DeviceLoad load = new DeviceLoad(app, "main", new IntSupplier[] {edge::port}, 1, 300, 5_000,
        r -> r.status() == 200 ? null : "not 200: " + r.text());
    LogPublisher publisher = new LogPublisher(server, app);
    try {
      Services.until("publishes and check-ins flow", () -> publisher.acknowledged() >= 3 && stored(app) > 200, Duration.ofSeconds(60));

      int partition = ProcessFaults.eventsPartition(kafka.bootstrapServers(), EVENTS, app);
      int leader = kafka.leader(EVENTS, partition);
      load.phase("leader-killed");
      long acked = publisher.acknowledged();
      long t0 = System.nanoTime();
      kafka.kill(leader);
      Services.until("another broker leads the events partition", () -> {
        int now = kafka.leader(EVENTS, partition);
        return now >= 0 && now != leader;
      }, ProcessFaults.bound(KafkaProcesses.SESSION_TIMEOUT));
      long newLeaderMs = ProcessFaults.since(t0);
      Services.until("publishes acknowledged after the leader's kill", () -> publisher.acknowledged() >= acked + 3, Duration.ofSeconds(90));
      long publishingMs = ProcessFaults.since(t0);
      long since = System.currentTimeMillis();
      kafka.restart(leader);
      kafka.awaitBack(leader, since, SYNC);
      kafka.awaitInSync(EVENTS, SYNC);
      kafka.awaitInSync(TELEMETRY, SYNC);

      int controller = kafka.activeController();
      load.phase("controller-killed");
      long acked2 = publisher.acknowledged();
      long t1 = System.nanoTime();
      kafka.kill(controller);
      Services.until("another controller is active", () -> {
        try {
          int now = kafka.activeController();
          return now >= 0 && now != controller;
        } catch (IllegalStateException notYet) {
          return false;
        }
      }, ProcessFaults.bound(KafkaProcesses.QUORUM_FETCH_TIMEOUT.multipliedBy(2)));
      long newControllerMs = ProcessFaults.since(t1);
      Services.until("publishes acknowledged after the controller's kill", () -> publisher.acknowledged() >= acked2 + 3,
          Duration.ofSeconds(90));
      since = System.currentTimeMillis();
      kafka.restart(controller);
      kafka.awaitBack(controller, since, SYNC);
      load.phase("after");
      Services.until("devices polled after both kills", () -> load.answered("after") > 300, Duration.ofSeconds(60));
      publisher.close();
      load.close();

      assertThat(load.examples).as("failed device requests").isEmpty();
      assertThat(load.failures.get()).isZero();
      assertThat(publisher.unacknowledged()).as("publishes never acknowledged, even when retried with their key").isEmpty();
      ProcessFaults.assertEachAcknowledgedPublishOnce(kafka.bootstrapServers(), PREFIX, app, publisher.groupsByKey());
      long answered = load.answered.get();
      ProcessFaults.assertEveryAnswerStoredOnce(infra, app, load, edge, Duration.ofSeconds(120));
      System.out.printf("process kill: broker %d (events leader) SIGKILLed: a new leader in %d ms, publishing again in %d ms;"
              + " controller %d (active) SIGKILLed: a new active controller in %d ms; %d publishes acknowledged, 0 lost, 0 twice;"
              + " %d device requests, failed 0, each stored once in PostgreSQL%n",
          leader, newLeaderMs, publishingMs, controller, newControllerMs, publisher.groupsByKey().size(), answered);
    } finally {
      publisher.close();
      load.close();
    }
  }

  private long stored(String app) {
    return Logs.deviceCheckIns(infra.jdbcUrl(), infra.pgUser(), app).values().stream().mapToLong(Long::longValue).sum();
  }

  @Test
  @Order(2)
  void twoBrokersDownRefuseWritesWith503AndOneBrokerBackLetsThemThroughAgain() {
    String app = "quorum";
    Publishing.appWithUpdate(server, app, true, "main");
    int partition = ProcessFaults.eventsPartition(kafka.bootstrapServers(), EVENTS, app);
    int leader = kafka.leader(EVENTS, partition);
    List<Integer> down = new ArrayList<>(KafkaProcesses.BROKER_IDS);
    down.remove(Integer.valueOf(leader));
    long t0 = System.nanoTime();
    for (int id : down) {
      kafka.kill(id);
    }
    // the controller fences both after the session timeout: every partition is left with one in-sync replica
    Services.until("every events partition down to one in-sync replica", () -> kafka.describe(EVENTS).partitions().stream()
        .allMatch(p -> p.isr().size() == 1), ProcessFaults.bound(KafkaProcesses.SESSION_TIMEOUT));
    long fencedMs = ProcessFaults.since(t0);

    List<ProcessFaults.Write> refused = List.of(ProcessFaults.rollback(server, app, "refused-1"), ProcessFaults.rollback(server, app, "refused-2"));
    for (ProcessFaults.Write w : refused) {
      assertThat(w.status()).as("%s: %s", w, w.body()).isEqualTo(503);
      assertThat(w.code()).as(w.body()).isEqualTo("log-unavailable");
      assertThat(w.retryAfter()).isEqualTo("5");
      assertThat(w.ms()).as("refused within the control plane's probe timeout").isLessThanOrEqualTo(ProcessFaults.bound(CommandProcessor.LOG_PROBE_TIMEOUT).toMillis());
    }
    // the CLI, as a publisher's CI runs it: it retries the 503 a few times, then fails saying why
    long c0 = System.nanoTime();
    CliRun cli = CliRun.run(server, Services.ADMIN, "publish", "--app", app, "--branch", "main", "--runtime-version", "1.0.0",
        "--dist", Fixtures.update2().toString(), "--no-progress", "--idempotency-key", "refused-publish", "--json");
    long cliMs = ProcessFaults.since(c0);
    assertThat(cli.status()).as("the CLI's exit status: %s", cli.err()).isNotZero();
    assertThat(cli.err()).as("what the CLI says").contains("min.insync.replicas").contains("nothing was written").contains("[log-unavailable]");
    assertThat(Api.get(server + "/healthz", null).status()).as("the control plane still the writer, writes refused before any was sent").isEqualTo(200);

    // one broker back: the partitions regain a second in-sync replica, and writes go through
    int returning = down.get(0);
    long restartedAt = System.currentTimeMillis();
    long r0 = System.nanoTime();
    kafka.restart(returning);
    kafka.awaitBack(returning, restartedAt, SYNC);
    long unfencedMs = ProcessFaults.since(r0);
    long back = System.nanoTime();
    int attempts = 0;
    ProcessFaults.Write retried;
    do {
      retried = ProcessFaults.rollback(server, app, "refused-1"); // the publisher retries the first refused write, with its key
      attempts++;
      assertThat(ProcessFaults.since(back)).as("writes acknowledged again after broker %d is back (last: %s)", returning, retried)
          .isLessThanOrEqualTo(RECOVERY_BOUND.toMillis());
    } while (!retried.acknowledged() && ProcessFaults.pause());
    long recoveredMs = ProcessFaults.since(back);

    kafka.restart(down.get(1));
    String last = Publishing.updateIds(Publishing.publish(server, app, "main", 2)).get(0);
    Services.until("the edge serves the publish made after the recovery", () -> {
      Publishing.assertServesSigned(edge.port(), app, "main", last, verifier);
      return true;
    }, Duration.ofSeconds(60));
    Map<String, Integer> keys = ProcessFaults.keysInLog(kafka.bootstrapServers(), PREFIX, app);
    assertThat(keys).as("the refused write retried: once in the log").containsEntry("refused-1", 1);
    assertThat(keys).as("the refused writes not retried: nowhere in the log").doesNotContainKeys("refused-2", "refused-publish");
    assertThat(Logs.uncommittedKeys(kafka.bootstrapServers(), PREFIX, app)).as("not even in an aborted transaction")
        .doesNotContain("refused-2", "refused-publish");
    System.out.printf("two brokers down: brokers %s SIGKILLed (the events leader %d left), every events partition down to one in-sync replica"
            + " in %d ms; writes refused 503 %s in %d and %d ms (retry-after %s), a CLI publish failed after its own retries in %d ms,"
            + " the control plane still healthy; broker %d restarted and unfenced in %d ms, the refused write retried and acknowledged"
            + " %d ms later (attempt %d); the writes not retried nowhere in the log%n",
        down, leader, fencedMs, refused.get(0).code(), refused.get(0).ms(), refused.get(1).ms(), refused.get(0).retryAfter(), cliMs,
        returning, unfencedMs, recoveredMs, attempts);
  }

  @Test
  @Order(3)
  void theControlPlaneAndTheIngesterCutOffFromKafkaRefuseAndPauseThenResumeByThemselves() throws Exception {
    String app = "cut";
    Publishing.appWithUpdate(server, app, true, "main");
    DeviceLoad load = new DeviceLoad(app, "main", new IntSupplier[] {edge::port}, 1, 300, 5_000,
        r -> r.status() == 200 ? null : "not 200: " + r.text());
    try {
      Services.until("check-ins stored before the cut", () -> stored(app) > 200, Duration.ofSeconds(60));
      load.phase("cut");
      long t0 = System.nanoTime();
      kafka.proxies().values().forEach(TcpProxy::cut); // the control plane's and the ingester's only way to the brokers
      ProcessFaults.Write refused = ProcessFaults.rollback(server, app, "cut-1");
      assertThat(refused.status()).as("%s: %s", refused, refused.body()).isEqualTo(503);
      assertThat(refused.code()).as(refused.body()).isEqualTo("log-unavailable");
      assertThat(refused.retryAfter()).isEqualTo("5");
      assertThat(refused.ms()).as("refused within the control plane's probe timeout")
          .isLessThanOrEqualTo(ProcessFaults.bound(CommandProcessor.LOG_PROBE_TIMEOUT).toMillis());

      // the ingester stores nothing while devices keep checking in through the edge, which still reaches Kafka
      Services.until("devices answered during the cut", () -> load.answered("cut") > 300, Duration.ofSeconds(30));
      long storedInCut = stored(app);
      long onKafkaInCut = telemetryEnd();
      Services.until("check-ins reach Kafka during the cut", () -> telemetryEnd() > onKafkaInCut + 300, Duration.ofSeconds(30));
      assertThat(stored(app)).as("check-ins stored while the ingester is cut off").isEqualTo(storedInCut);
      long cutMs = ProcessFaults.since(t0);

      load.phase("after");
      kafka.proxies().values().forEach(TcpProxy::restore);
      long restored = System.nanoTime();
      Services.until("the ingester stores again", () -> stored(app) > storedInCut, CUT_RECOVERY_BOUND);
      long ingesterMs = ProcessFaults.since(restored);
      ProcessFaults.Write retried;
      int attempts = 0;
      do {
        retried = ProcessFaults.rollback(server, app, "cut-1");
        attempts++;
        assertThat(ProcessFaults.since(restored)).as("the control plane writes again after the cut (last: %s)", retried)
            .isLessThanOrEqualTo(CUT_RECOVERY_BOUND.toMillis());
      } while (!retried.acknowledged() && ProcessFaults.pause());
      long cpMs = ProcessFaults.since(restored);
      Services.until("devices polled after the cut", () -> load.answered("after") > 300, Duration.ofSeconds(60));
      load.close();

      assertThat(load.examples).as("failed device requests").isEmpty();
      assertThat(load.failures.get()).isZero();
      long answered = load.answered.get();
      ProcessFaults.assertEveryAnswerStoredOnce(infra, app, load, edge, Duration.ofSeconds(120));
      assertThat(Metrics.value(ingester.scrape(), "updraft_ingest_checkins_expired_total")).as("check-ins the ingester counts as lost").isZero();
      assertThat(ProcessFaults.keysInLog(kafka.bootstrapServers(), PREFIX, app)).as("the refused write, retried: once in the log")
          .containsEntry("cut-1", 1);
      System.out.printf("control plane and ingester cut off: cut %d ms (TCP proxies in front of the 3 brokers); a write refused 503 %s in %d ms"
              + " (retry-after %s); the ingester stored nothing while %d check-ins reached Kafka through the edge; proxies restored: the"
              + " ingester stored again in %d ms, the refused write retried and acknowledged in %d ms (attempt %d); %d device requests,"
              + " failed 0, each stored once in PostgreSQL, 0 counted as lost%n",
          cutMs, refused.code(), refused.ms(), refused.retryAfter(), telemetryEnd() - onKafkaInCut, ingesterMs, cpMs, attempts, answered);
    } finally {
      load.close();
      kafka.proxies().values().forEach(TcpProxy::restore);
    }
  }

  private long telemetryEnd() {
    return Logs.endOffsets(kafka.bootstrapServers(), TELEMETRY).values().stream().mapToLong(Long::longValue).sum();
  }
}
