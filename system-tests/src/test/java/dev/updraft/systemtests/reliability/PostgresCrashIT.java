package dev.updraft.systemtests.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.controlplane.ControlPlane;
import dev.updraft.edge.EdgeNode;
import dev.updraft.embedded.EmbeddedPostgresServer;
import dev.updraft.events.Topics;
import dev.updraft.ingester.TelemetryIngester;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * PostgreSQL crashes during ingest: its postmaster is SIGKILLed (a real process kill, no shutdown checkpoint) while
 * devices poll an edge and their check-ins flow through Kafka into the ingester, with fsync, synchronous_commit and
 * full_page_writes on. PostgreSQL is started again on the same data directory (crash recovery from the WAL); the
 * ingester, never restarted, stores again within its longest retry backoff plus a margin, and every device's stored
 * count is exactly the number of requests it was answered: no committed batch lost, none applied twice.
 */
@ExtendWith(RealInfrastructure.class)
class PostgresCrashIT {
  static final String APP = "pg-crash";
  static final String PROBE = "00000000-0000-4000-8000-00000000abcf";
  /** What the recovery may take beyond the ingester's longest backoff: a pool reconnect and a batch's linger and write. */
  static final Duration MARGIN = Duration.ofSeconds(10);

  @Test
  void afterAPostmasterKillAndCrashRecoveryTheIngesterResumesByItselfAndEveryDeviceIsCountedExactly(Infra infra, @TempDir Path dir)
      throws Exception {
    Vertx vertx = Vertx.vertx();
    EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(dir.resolve("pg"), 0, true);
    pg.createDatabase("telemetry");
    ControlPlane cp = null;
    EdgeNode edge = null;
    TelemetryIngester ingester = null;
    DeviceLoad load = null;
    try {
      assertThat(settings(pg, "fsync", "synchronous_commit", "full_page_writes"))
          .as("a durable PostgreSQL").containsExactly(Map.entry("fsync", "on"), Map.entry("synchronous_commit", "on"),
              Map.entry("full_page_writes", "on"));
      cp = Services.controlPlane(vertx, infra.kafkaBootstrap(), infra.topicPrefix(), dir.resolve("cp"));
      Publishing.appWithUpdate("http://127.0.0.1:" + cp.port(), APP, true, "main");
      edge = Services.readyEdge(vertx, infra.kafkaBootstrap(), infra.topicPrefix(), "pg-crash-edge");
      ingester = Services.ingester(vertx, infra.kafkaBootstrap(), infra.topicPrefix(),
          Services.postgresUrl(pg.port(), "telemetry", EmbeddedPostgresServer.USER), "ingest-batch-size", "200");
      byte[] expected;
      try (RawHttp c = new RawHttp(edge.port(), 10_000)) {
        RawHttp.Response r = c.exchange(Publishing.deviceRequest(APP, "main", PROBE));
        assertThat(r.status()).isEqualTo(200);
        expected = r.body();
      }
      EdgeNode e = edge;
      TelemetryIngester ing = ingester;
      load = new DeviceLoad(APP, "main", new IntSupplier[] {e::port}, 2, 300, 2_000,
          r -> r.status() == 200 && Arrays.equals(r.body(), expected) ? null : "not the image's manifest: " + r.status());
      DeviceLoad l = load;
      Services.until("check-ins stored before the crash", () -> metric(ing, "updraft_ingest_records_total") > 300, Duration.ofSeconds(60));

      // the crash lands in the middle of a batch's transaction: a lock on update_hourly, the table every batch writes
      // last, holds it there once it has written its offsets and device rows (nothing can commit meanwhile)
      Connection lock = DriverManager.getConnection(pg.jdbcUrl("telemetry"));
      lock.setAutoCommit(false);
      try (Statement st = lock.createStatement()) {
        st.execute("LOCK TABLE update_hourly IN EXCLUSIVE MODE");
      }
      Services.until("a batch in flight, its transaction waiting on the lock",
          () -> metric(ing, "updraft_ingest_batch_inflight_records") > 0 && count(pg, WAITING_ON_LOCK) > 0, Duration.ofSeconds(60));
      long committedAtCrash = count(pg, STORED_OFFSETS);
      load.phase("crash");
      long killed = pg.kill();
      lock.close();
      assertThat(ProcessHandle.of(killed)).as("the postmaster is gone").isEmpty();
      Services.until("the ingester pauses", () -> metric(ing, "updraft_ingest_paused") == 1, Duration.ofSeconds(60));
      double storedAtCrash = metric(ing, "updraft_ingest_records_total");
      Services.until("check-ins wait in Kafka", () -> metric(ing, "updraft_ingest_lag_records") > 200, Duration.ofSeconds(60));

      pg.restart(); // crash recovery: replays the WAL from the last checkpoint
      long restartedNanos = System.nanoTime();
      // every commit acknowledged before the crash survived it (with synchronous_commit off the last ones could be
      // lost); the ingester may already have stored more, never less
      long committedAfter = count(pg, STORED_OFFSETS);
      assertThat(committedAfter).as("offsets committed before the crash, after recovery").isGreaterThanOrEqualTo(committedAtCrash);
      Duration bound = TelemetryIngester.MAX_PG_RETRY_BACKOFF.plus(MARGIN);
      Services.until("the ingester stores again within " + bound.toMillis() + " ms of PostgreSQL's restart",
          () -> metric(ing, "updraft_ingest_paused") == 0 && metric(ing, "updraft_ingest_records_total") > storedAtCrash, bound);
      long recoveredMs = (System.nanoTime() - restartedNanos) / 1_000_000;
      load.phase("after");
      Services.until("devices polled after the restart", () -> l.answered("after") > 300, Duration.ofSeconds(60));
      load.close();
      load = null;

      assertThat(l.examples).as("failed device requests").isEmpty();
      assertThat(l.failures.get() + l.connectionErrors.get()).isZero();
      Services.until("the edge sent every check-in", () -> Metrics.value(scrape(e), "updraft_edge_checkins_sent_total") == l.answered.get() + 1,
          Duration.ofSeconds(60));
      assertThat(Metrics.value(scrape(e), "updraft_edge_checkins_dropped_total{reason=\"queue-full\"}")).isZero();
      long sent = l.answered.get() + 1;
      // every check-in is acknowledged, so the topic's end offsets cover them all: PostgreSQL holds them once its
      // stored offsets reach those ends. Not the lag gauge: it is sampled once a second per consumer loop, from the
      // loop's last fetch, and can read 0 while the last check-ins acknowledged are not even fetched yet
      long onTopic = Logs.endOffsets(infra.kafkaBootstrap(), Topics.telemetry(infra.topicPrefix())).values().stream()
          .mapToLong(Long::longValue).sum();
      Services.until(() -> "PostgreSQL's stored offsets reach the topic's end " + onTopic + ": at " + count(pg, STORED_OFFSETS),
          () -> count(pg, STORED_OFFSETS) == onTopic, Duration.ofSeconds(120));
      Services.until("lag back to 0", () -> metric(ing, "updraft_ingest_lag_records") == 0, Duration.ofSeconds(120));
      assertThat(ingester.running()).as("the ingester was never restarted").isTrue();
      assertThat(metric(ing, "updraft_ingest_pg_failures_total")).as("the crash was seen").isPositive();

      Map<String, Long> stored = Logs.deviceCheckIns(pg.jdbcUrl("telemetry"), EmbeddedPostgresServer.USER, APP);
      assertThat(stored.remove(PROBE)).isEqualTo(1L);
      assertThat(stored).hasSize(l.byClient.size());
      l.byClient.forEach((client, n) -> assertThat(stored.get(client)).as("check-ins stored for %s", client).isEqualTo(n.get()));
      assertThat(stored.values().stream().mapToLong(Long::longValue).sum() + 1).as("check-ins stored").isEqualTo(sent);
      System.out.printf("postgres crash: postmaster pid %d SIGKILLed with a batch's transaction in flight (fsync, synchronous_commit,"
              + " full_page_writes on); %.0f check-ins stored before, all still there after crash recovery; the ingester stored again %d ms after the restart"
              + " (bound %d ms); %d check-ins stored, each device's count exact (%d devices), %d requests answered, none failed%n",
          killed, storedAtCrash, recoveredMs, bound.toMillis(), sent, stored.size(), l.answered.get());
    } finally {
      if (load != null) {
        load.close();
      }
      if (ingester != null) {
        Services.await(ingester.close());
      }
      if (edge != null) {
        Services.await(edge.close());
      }
      if (cp != null) {
        Services.await(cp.close());
      }
      Services.await(vertx.close());
      pg.close();
    }
  }

  /** Where the ingester's consumers stand, summed over the partitions: the check-ins PostgreSQL holds. */
  static final String STORED_OFFSETS = "SELECT coalesce(sum(next_offset), 0) FROM ingest_offsets";

  /** The ingester's sessions in a transaction waiting for a lock. */
  static final String WAITING_ON_LOCK = "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
      + " AND application_name = 'updraft-ingester' AND wait_event_type = 'Lock' AND xact_start IS NOT NULL";

  private static long count(EmbeddedPostgresServer pg, String query) {
    try (Connection c = DriverManager.getConnection(pg.jdbcUrl("telemetry")); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(query)) {
      rs.next();
      return rs.getLong(1);
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException(query + ": " + e.getMessage(), e);
    }
  }

  private static Map<String, String> settings(EmbeddedPostgresServer pg, String... names) throws Exception {
    Map<String, String> out = new LinkedHashMap<>();
    try (Connection c = DriverManager.getConnection(pg.jdbcUrl("telemetry")); Statement st = c.createStatement()) {
      for (String n : names) {
        try (ResultSet rs = st.executeQuery("SHOW " + n)) {
          rs.next();
          out.put(n, rs.getString(1));
        }
      }
    }
    return out;
  }

  private static double metric(TelemetryIngester ingester, String series) {
    return Metrics.value(ingester.scrape(), series);
  }

  private static String scrape(EdgeNode e) {
    return Metrics.scrape("http://127.0.0.1:" + e.port() + "/metrics");
  }
}
