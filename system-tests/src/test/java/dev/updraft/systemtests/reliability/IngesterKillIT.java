package dev.updraft.systemtests.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.controlplane.ControlPlane;
import dev.updraft.edge.EdgeNode;
import dev.updraft.embedded.Ports;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ingester, a process of its own ({@code updraft ingest}), is {@code SIGKILL}ed in the middle of a
 * batch while devices keep checking in: the test holds a lock on {@code update_hourly}, which every batch
 * writes last, so each batch transaction stops there having written its offsets, device rows and
 * receipts; the kill comes once the ingester reports a batch in flight
 * ({@code updraft_ingest_batch_inflight_records}) and PostgreSQL shows its transaction waiting on that
 * lock. PostgreSQL then rolls that transaction back; a new ingester started on the same group reads on
 * from the offsets committed with the last whole batch, and every device's stored check-in count is
 * exactly the number of requests it made.
 *
 * <p>Kafka and PostgreSQL are the shared ones; control plane and edge run in this JVM.
 */
@ExtendWith(RealInfrastructure.class)
class IngesterKillIT {
  static final String APP = "ingest-kill";

  @Test
  void anIngesterKilledInTheMiddleOfABatchLosesAndDoublesNothing(Infra infra, @TempDir Path dir) throws Exception {
    Vertx vertx = Vertx.vertx();
    ControlPlane cp = null;
    EdgeNode edge = null;
    DeviceLoad load = null;
    ChildJvm ingester = null;
    String group = "ingest-kill-" + UUID.randomUUID();
    int metricsPort = Ports.freePort();
    String metrics = "http://127.0.0.1:" + metricsPort + "/metrics";
    String[] flags = {"ingest", "--kafka-bootstrap", infra.kafkaBootstrap(), "--topic-prefix", infra.topicPrefix(),
        "--postgres-url", Services.postgresUrl(infra.pgPort(), infra.database(), infra.pgUser()), "--consumer-group", group,
        "--metrics-port", Integer.toString(metricsPort), "--bind", "127.0.0.1", "--ingest-batch-size", "2000"};
    try (Connection sql = DriverManager.getConnection(infra.jdbcUrl(), infra.pgUser(), "")) {
      cp = Services.controlPlane(vertx, infra.kafkaBootstrap(), infra.topicPrefix(), dir.resolve("cp"));
      Publishing.appWithUpdate("http://127.0.0.1:" + cp.port(), APP, true, "main");
      edge = Services.readyEdge(vertx, infra.kafkaBootstrap(), infra.topicPrefix(), "ingest-kill-edge");
      ingester = ChildJvm.start(dir.resolve("ingester-1.log"), Map.of(), flags);
      ingester.awaitOk("http://127.0.0.1:" + metricsPort + "/healthz", Duration.ofSeconds(120));
      EdgeNode e = edge;
      load = new DeviceLoad(APP, "main", new IntSupplier[] {e::port}, 2, 400, 4_000, r -> r.status() == 200 ? null : "not 200: " + r.status());
      DeviceLoad l = load;
      Services.until("check-ins stored before the kill", () -> value(metrics, "updraft_ingest_records_total") > 500, Duration.ofSeconds(60));

      // hold the last table every batch writes: the next batch stops there, half written, uncommitted
      sql.setAutoCommit(false);
      try (Statement st = sql.createStatement()) {
        st.execute("LOCK TABLE update_hourly IN EXCLUSIVE MODE");
      }
      long committedAtLock = stored(infra);
      AtomicLong inflight = new AtomicLong();
      Services.until("a batch in flight, its transaction waiting on the lock", () -> {
        inflight.set((long) value(metrics, "updraft_ingest_batch_inflight_records"));
        return inflight.get() > 0 && waitingOnLock(infra) > 0;
      }, Duration.ofSeconds(60));
      int waiting = waitingOnLock(infra);
      long killedAt = System.nanoTime();
      ingester.kill(); // SIGKILL: no shutdown hook, no rollback sent, the connections just drop
      assertThat(ingester.alive()).isFalse();
      assertThat(stored(infra)).as("nothing committed while the lock was held").isEqualTo(committedAtLock);
      sql.rollback(); // the lock goes; PostgreSQL finds the killed ingester's transactions without a client and rolls them back
      sql.setAutoCommit(true);
      Services.until("the killed ingester's transactions are gone", () -> ingesterBackends(infra) == 0, Duration.ofSeconds(30));
      assertThat(stored(infra)).as("the half-written batch was rolled back").isEqualTo(committedAtLock);

      ingester = ChildJvm.start(dir.resolve("ingester-2.log"), Map.of(), flags);
      ingester.awaitOk("http://127.0.0.1:" + metricsPort + "/healthz", Duration.ofSeconds(120));
      long restartMs = (System.nanoTime() - killedAt) / 1_000_000;
      Services.until("check-ins stored by the restarted ingester", () -> value(metrics, "updraft_ingest_records_total") > 0, Duration.ofSeconds(60));
      long resumedMs = (System.nanoTime() - killedAt) / 1_000_000;
      load.close();
      load = null;
      assertThat(l.failures.get()).as("failed device requests").isZero();

      EdgeNode drained = edge;
      Services.until("the edge delivered what it held", () -> EdgeMetrics.of(drained).settled(), Duration.ofSeconds(60));
      long sent = EdgeMetrics.of(edge).sent();
      assertThat(EdgeMetrics.of(edge).dropped()).isZero();
      Services.until(() -> "every check-in stored: " + stored(infra) + " of " + sent, () -> stored(infra) == sent, Duration.ofSeconds(120));
      Map<String, Long> byClient = Logs.deviceCheckIns(infra.jdbcUrl(), infra.pgUser(), APP);
      for (Map.Entry<String, AtomicLong> c : l.byClient.entrySet()) {
        assertThat(byClient.get(c.getKey())).as("check-ins of %s", c.getKey()).isEqualTo(c.getValue().get());
      }
      Thread.sleep(1_000); // nothing more arrives: no batch is applied twice
      assertThat(stored(infra)).isEqualTo(sent);
      System.out.printf("ingester kill: SIGKILL with a batch of %d records in flight (%d transactions waiting on the held lock);"
              + " %d check-ins committed before, none of the half-written batch; restarted to healthy in %d ms, storing again %d ms after the kill;"
              + " %d device requests, %d check-ins sent, %d stored, each of %d devices exact%n",
          inflight.get(), waiting, committedAtLock, restartMs, resumedMs, l.answered.get(), sent, stored(infra), l.byClient.size());
    } finally {
      if (load != null) {
        load.close();
      }
      if (ingester != null) {
        ingester.close();
      }
      if (edge != null) {
        Services.await(edge.close());
      }
      if (cp != null) {
        Services.await(cp.close());
      }
      Services.await(vertx.close());
    }
  }

  private static double value(String url, String series) {
    return Metrics.value(Metrics.scrape(url), series);
  }

  /** Check-ins PostgreSQL holds for the app (committed). */
  private static long stored(Infra infra) {
    return Logs.deviceCheckIns(infra.jdbcUrl(), infra.pgUser(), APP).values().stream().mapToLong(Long::longValue).sum();
  }

  /** The ingester's sessions in a transaction that waits for a lock. */
  private static int waitingOnLock(Infra infra) {
    return count(infra, "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
        + " AND application_name = 'updraft-ingester' AND wait_event_type = 'Lock' AND xact_start IS NOT NULL");
  }

  private static int ingesterBackends(Infra infra) {
    return count(infra, "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
        + " AND application_name = 'updraft-ingester'");
  }

  private static int count(Infra infra, String query) {
    int[] n = {0};
    Logs.query(infra.jdbcUrl(), infra.pgUser(), query, (ResultSet rs) -> n[0] = rs.getInt(1));
    return n[0];
  }
}
