package dev.updraft.systemtests.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.controlplane.ControlPlane;
import dev.updraft.edge.EdgeNode;
import dev.updraft.ingester.TelemetryIngester;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import dev.updraft.testing.TcpProxy;
import dev.updraft.testing.protocol.SignatureVerifier;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * PostgreSQL slow, twice: the tables the insights read held under an exclusive lock (queries run and wait
 * on the server), then the network to it stalled (a proxy that holds every byte: queries never even
 * arrive, no cancel can be sent). With {@code --insights-timeout 1s}, each insights request, and each of
 * {@link #BURST} at once while the pool's four connections are taken, is answered 503
 * {@code insights-unavailable} (JSON) within {@link #BOUND}; meanwhile a publish succeeds and both the
 * edge's device answers and the ingester carry on; once PostgreSQL answers again, insights do too and every
 * check-in is stored once.
 */
@ExtendWith(RealInfrastructure.class)
class SlowPostgresIT {
  static final String APP = "slow-pg";
  static final Duration TIMEOUT = Duration.ofSeconds(1);
  /** What "answered quickly" means here: the timeout and some margin for a busy machine, far below the wait without one. */
  static final Duration BOUND = Duration.ofSeconds(5);
  static final int BURST = 12;

  @Test
  void insightsAnswer503QuicklyWhilePostgresIsSlowAndPublishingAndDevicesDoNotNotice(Infra infra, @TempDir Path dir) throws Exception {
    Vertx vertx = Vertx.vertx();
    TcpProxy pg = TcpProxy.start("postgres", infra::pgPort);
    ExecutorService clients = Executors.newFixedThreadPool(BURST);
    ControlPlane cp = null;
    EdgeNode edge = null;
    TelemetryIngester ingester = null;
    DeviceLoad load = null;
    try (Connection sql = DriverManager.getConnection(infra.jdbcUrl(), infra.pgUser(), "")) {
      cp = Services.controlPlaneWithInsights(vertx, infra.kafkaBootstrap(), infra.topicPrefix(), dir.resolve("cp"),
          Services.postgresUrl(pg.port(), infra.database(), infra.pgUser()), "insights-timeout", "1s", "guard-interval", "0s");
      String server = "http://127.0.0.1:" + cp.port();
      Publishing.appWithUpdate(server, APP, true, "main");
      edge = Services.readyEdge(vertx, infra.kafkaBootstrap(), infra.topicPrefix(), "slow-pg-edge");
      ingester = Services.ingester(vertx, infra.kafkaBootstrap(), infra.topicPrefix(), Services.postgresUrl(infra.pgPort(), infra.database(), infra.pgUser()));
      EdgeNode e = edge;
      load = new DeviceLoad(APP, "main", new IntSupplier[] {e::port}, 1, 200, 5_000, r -> r.status() == 200 ? null : "not 200: " + r.status());
      DeviceLoad l = load;
      Services.until("the load's devices checked in", () -> l.byClient.size() == 200, Duration.ofSeconds(60));
      String client = l.byClient.keySet().iterator().next();
      String device = server + "/v1/apps/" + APP + "/devices/" + client;
      String channel = server + "/v1/apps/" + APP + "/insights/channels/main";
      Services.until("insights answer", () -> Api.get(device, Services.ADMIN).status() == 200, Duration.ofSeconds(60));
      SignatureVerifier verifier = SignatureVerifier.fromCertificatePem(Fixtures.certificatePem());

      // 1. locks on the tables the insights read: the queries run and wait in PostgreSQL (statement_timeout ends them)
      sql.setAutoCommit(false);
      try (Statement st = sql.createStatement()) {
        st.execute("LOCK TABLE devices, device_counts, update_hourly IN ACCESS EXCLUSIVE MODE");
      }
      Slow locked = slow(device, channel, clients, server, 2, edge, verifier);
      sql.rollback();
      sql.setAutoCommit(true);
      Services.until("insights answer once the lock is gone", () -> Api.get(device, Services.ADMIN).status() == 200, Duration.ofSeconds(30));

      // 2. the network to PostgreSQL stalls: nothing arrives, nothing can be cancelled
      pg.stall();
      Slow stalled = slow(device, channel, clients, server, 1, edge, verifier);
      pg.restore();
      Services.until("insights answer once the network flows again", () -> Api.get(device, Services.ADMIN).status() == 200, Duration.ofSeconds(30));

      load.close();
      load = null;
      assertThat(l.failures.get()).as("failed device requests").isZero();
      EdgeNode drained = edge;
      Services.until("the edge delivered what it held", () -> EdgeMetrics.of(drained).settled(), Duration.ofSeconds(60));
      long sent = EdgeMetrics.of(edge).sent();
      Services.until("every check-in stored once", () -> Logs.deviceCheckIns(infra.jdbcUrl(), infra.pgUser(), APP).values().stream()
          .mapToLong(Long::longValue).sum() == sent, Duration.ofSeconds(60));
      System.out.printf("slow postgres: --insights-timeout 1s; insights tables locked: 503 in %d ms, %d at once (pool of 4) all 503 within"
              + " %d ms, a publish took %d ms and the edge served it; network to PostgreSQL stalled: 503 in %d ms, %d at once within %d ms,"
              + " a publish took %d ms; %d device requests, failed 0; %d check-ins sent, all stored once%n",
          locked.firstMs, BURST, locked.burstMs, locked.publishMs, stalled.firstMs, BURST, stalled.burstMs, stalled.publishMs,
          l.answered.get(), sent);
    } finally {
      if (load != null) {
        load.close();
      }
      clients.shutdownNow();
      pg.close();
      List<io.vertx.core.Future<Void>> closing = new ArrayList<>();
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
      Services.await(vertx.close());
    }
  }

  /** How long the insights refusals and a publish took while PostgreSQL was slow. */
  private record Slow(long firstMs, long burstMs, long publishMs) {}

  /** While PostgreSQL is slow: one insights request, then a burst, each 503 within the bound; a publish the edge serves. */
  private static Slow slow(String device, String channel, ExecutorService clients, String server, int update, EdgeNode edge,
      SignatureVerifier verifier) throws Exception {
    long first = refusedQuickly(device);
    List<CompletableFuture<Long>> burst = new ArrayList<>();
    for (int i = 0; i < BURST; i++) {
      String url = i % 2 == 0 ? device : channel;
      burst.add(CompletableFuture.supplyAsync(() -> refusedQuickly(url), clients));
    }
    long slowest = 0;
    for (CompletableFuture<Long> f : burst) {
      slowest = Math.max(slowest, f.get(60, TimeUnit.SECONDS));
    }
    long t0 = System.nanoTime();
    String published = Publishing.updateIds(Publishing.publish(server, APP, "main", update)).get(0);
    long publishMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    assertThat(Duration.ofMillis(publishMs)).as("a publish while PostgreSQL is slow").isLessThan(Duration.ofSeconds(30));
    Services.until("the edge serves the publish", () -> {
      Publishing.assertServesSigned(edge.port(), APP, "main", published, verifier);
      return true;
    }, Duration.ofSeconds(30));
    return new Slow(first, slowest, publishMs);
  }

  /** {@code GET url} answered 503 {@code insights-unavailable} within {@link #BOUND}; returns how long it took. */
  private static long refusedQuickly(String url) {
    long t0 = System.nanoTime();
    Api.Resp r = Api.get(url, Services.ADMIN);
    long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    assertThat(r.status()).as("%s while PostgreSQL is slow: %s", url, r).isEqualTo(503);
    assertThat(r.errorCode()).isEqualTo("insights-unavailable");
    assertThat(r.header("retry-after")).isEqualTo("10");
    assertThat(Duration.ofMillis(ms)).as("answered within the bound").isLessThan(BOUND);
    return ms;
  }
}
