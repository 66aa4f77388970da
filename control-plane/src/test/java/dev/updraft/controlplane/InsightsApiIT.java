package dev.updraft.controlplane;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.updraft.controlplane.insights.InsightsExtension;
import dev.updraft.embedded.Ports;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The insights routes as mounted into a real control plane: who may call them, their 404s, their answer
 * for a group no device has reported on yet, and a control plane whose PostgreSQL cannot be reached
 * (503 on insights only; publishing and the guard's errors do not stop anything). The numbers themselves
 * are checked end to end in system-tests ({@code TelemetryEndToEndIT}).
 */
@ExtendWith(RealInfrastructure.class)
class InsightsApiIT {
  static Vertx vertx;
  static ControlPlane cp;
  static Http admin;

  @BeforeAll
  static void start(Infra infra, @TempDir Path dir) {
    vertx = Vertx.vertx();
    String pg = "postgresql://" + infra.pgUser() + "@" + infra.pgHost() + ":" + infra.pgPort() + "/" + infra.database();
    cp = TestSupport.await(
        ControlPlane.start(vertx, TestSupport.config(infra, dir, "postgres-url", pg), List.of(InsightsExtension.withGuardInterval(Duration.ofMillis(200)))));
    admin = new Http("http://127.0.0.1:" + cp.port(), TestSupport.ADMIN);
  }

  @AfterAll
  static void stop() {
    TestSupport.await(cp.close());
    TestSupport.await(vertx.close());
  }

  static String publish(Http http, String app, Path export, String branch) {
    ExportFixture.upload(http, app, export);
    Http.Resp r = http.post("/v1/apps/" + app + "/updates", ExportFixture.publishBody(export, branch, "1.0.0"));
    assertThat(r.status()).as(r.toString()).isEqualTo(201);
    return r.json().get("groupId").asText();
  }

  static String token(String app, String role) {
    ObjectNode b = Http.JSON.createObjectNode();
    b.put("role", role);
    Http.Resp r = admin.post("/v1/apps/" + app + "/tokens", b);
    assertThat(r.status()).as(r.toString()).isEqualTo(201);
    return r.json().get("token").asText();
  }

  static void createApp(Http http, String app) {
    ObjectNode b = Http.JSON.createObjectNode();
    b.put("appId", app);
    assertThat(http.post("/v1/apps", b).status()).isEqualTo(201);
  }

  @Test
  void readTokensOfTheAppMayReadInsightsAndNobodyElse() {
    createApp(admin, "ins-auth");
    createApp(admin, "ins-other");
    String group = publish(admin, "ins-auth", Fixtures.update1(), "main");
    List<String> paths =
        List.of("/v1/apps/ins-auth/insights/updates/" + group, "/v1/apps/ins-auth/insights/channels/main", "/v1/apps/ins-auth/devices/nobody");

    for (String p : paths) {
      Http.Resp none = admin.as(null).get(p);
      assertThat(none.status()).as(p).isEqualTo(401);
      assertThat(none.errorCode()).isEqualTo("unauthorized");
      assertThat(none.header("www-authenticate")).isEqualTo("Bearer");

      Http.Resp other = admin.as(token("ins-other", "admin")).get(p);
      assertThat(other.status()).as(p).isEqualTo(403);
      assertThat(other.errorCode()).isEqualTo("forbidden");
      assertThat(other.errorMessage()).contains("cannot act on app ins-auth");
    }
    Http read = admin.as(token("ins-auth", "read"));
    assertThat(read.get(paths.get(0)).status()).isEqualTo(200);
    assertThat(read.get(paths.get(1)).status()).isEqualTo(200);
    assertThat(read.get(paths.get(2)).status()).as("the read token gets past auth to the data's own 404").isEqualTo(404);
  }

  @Test
  void unknownAppsGroupsAndDevicesAre404sNamingWhatIsMissing() {
    createApp(admin, "ins-404");
    Http.Resp app = admin.get("/v1/apps/no-such-app/insights/channels/main");
    assertThat(app.status()).isEqualTo(404);
    assertThat(app.errorCode()).isEqualTo("app-not-found");
    assertThat(admin.get("/v1/apps/no-such-app/devices/x").errorCode()).isEqualTo("app-not-found");

    Http.Resp group = admin.get("/v1/apps/ins-404/insights/updates/0b6c2f0e-9f3a-4c1e-8d7b-5a4e3c2b1a00");
    assertThat(group.status()).isEqualTo(404);
    assertThat(group.errorCode()).isEqualTo("update-not-found");
    assertThat(group.errorMessage()).contains("0b6c2f0e-9f3a-4c1e-8d7b-5a4e3c2b1a00").contains("ins-404");

    Http.Resp device = admin.get("/v1/apps/ins-404/devices/ABC-never-seen");
    assertThat(device.status()).isEqualTo(404);
    assertThat(device.errorCode()).isEqualTo("device-not-found");
    assertThat(device.errorMessage()).contains("abc-never-seen").contains("ins-404");

    Http.Resp route = admin.get("/v1/apps/ins-404/insights/elsewhere");
    assertThat(route.status()).isEqualTo(404);
    assertThat(route.errorCode()).as("the router's own 404 for a route that does not exist").isEqualTo("not-found");
  }

  @Test
  void aGroupNoDeviceReportedOnYetHasItsPlatformsAndZeros() throws Exception {
    createApp(admin, "ins-empty");
    String group = publish(admin, "ins-empty", Fixtures.update1(), "main");
    JsonNode published = admin.get("/v1/apps/ins-empty/updates/" + group).json();
    Instant before = Instant.now();
    Http.Resp r = admin.get("/v1/apps/ins-empty/insights/updates/" + group);
    assertThat(r.status()).as(r.toString()).isEqualTo(200);
    assertThat(r.header("content-type")).isEqualTo("application/json");
    JsonNode n = r.json();
    assertThat(n.get("appId").asText()).isEqualTo("ins-empty");
    assertThat(n.get("groupId").asText()).isEqualTo(group);
    Instant asOf = Instant.parse(n.get("asOf").asText());
    assertThat(asOf).isBetween(before.minusSeconds(1), Instant.now());
    // whole hours: 24 h starts 23 hours before asOf's hour, 7 d 167 hours before it
    Instant hour = Instant.ofEpochSecond(asOf.getEpochSecond() / 3600 * 3600);
    assertThat(Instant.parse(n.get("since24h").asText())).isEqualTo(hour.minusSeconds(23 * 3600));
    assertThat(Instant.parse(n.get("since7d").asText())).isEqualTo(hour.minusSeconds(167 * 3600));
    assertThat(n.get("platforms")).hasSize(published.get("platforms").size());
    for (int i = 0; i < published.get("platforms").size(); i++) {
      JsonNode p = n.get("platforms").get(i);
      assertThat(p.get("platform").asText()).isEqualTo(published.get("platforms").get(i).get("platform").asText());
      assertThat(p.get("updateId").asText()).isEqualTo(published.get("platforms").get(i).get("updateId").asText());
      assertThat(p.get("devicesNow").asLong() + p.get("launches7d").asLong() + p.get("receivedDevices").asLong()).isZero();
      assertThat(p.get("failureRatePercent").isNull()).as("no devices: no rate").isTrue();
    }
    assertThat(n.get("total").get("platform").isNull()).isTrue();
    assertThat(n.get("total").get("launches24h").asLong()).isZero();

    JsonNode c = admin.get("/v1/apps/ins-empty/insights/channels/main").json();
    assertThat(c.get("channel").asText()).isEqualTo("main");
    assertThat(c.get("devices").asLong()).isZero();
    assertThat(c.get("updates")).isEmpty();
  }

  @Test
  void theHourlySeriesCountsEachHourAndTheAdoptionAndRateAsTheyStoodWithTheGuardsThreshold(Infra infra) throws Exception {
    createApp(admin, "ins-hourly");
    publish(admin, "ins-hourly", Fixtures.update1(), "main");
    ExportFixture.upload(admin, "ins-hourly", Fixtures.update2());
    ObjectNode body = ExportFixture.publishBody(Fixtures.update2(), "main", "1.0.0");
    body.put("rolloutPercentage", 50);
    ObjectNode guard = body.putObject("rolloutGuard");
    guard.put("maxFailureRatePercent", 2.5);
    guard.put("minDevices", 1000); // never fires here
    guard.put("windowSeconds", 3600);
    Http.Resp published = admin.post("/v1/apps/ins-hourly/updates", body);
    assertThat(published.status()).as(published.toString()).isEqualTo(201);
    String group = published.json().get("groupId").asText();
    String ios = null;
    for (JsonNode p : admin.get("/v1/apps/ins-hourly/updates/" + group).json().get("platforms")) {
      if (p.get("platform").asText().equals("ios")) {
        ios = p.get("updateId").asText();
      }
    }
    if (Instant.now().getEpochSecond() % 3600 > 3590) {
      Thread.sleep(11_000); // not across an hour boundary between the rows and the request
    }
    Instant hour = Instant.ofEpochSecond(Instant.now().getEpochSecond() / 3600 * 3600);
    io.vertx.sqlclient.Pool pool =
        io.vertx.pgclient.PgBuilder.pool()
            .connectingTo(new io.vertx.pgclient.PgConnectOptions().setHost(infra.pgHost()).setPort(infra.pgPort()).setDatabase(infra.database())
                .setUser(infra.pgUser()).setPassword(infra.pgPassword()))
            .using(vertx)
            .build();
    try {
      String hourly = "INSERT INTO update_hourly (app_id, update_id, hour, platform, channel, launches, embedded_launches, failure_reports, served)"
          + " VALUES ('ins-hourly', $1, $2, 'ios', $3, $4, 0, $5, $6)";
      sql(pool, hourly, ios, utc(hour.minusSeconds(2 * 3600)), "main", 7L, 1L, 3L);
      sql(pool, hourly, ios, utc(hour), "main", 3L, 0L, 0L);
      sql(pool, hourly, ios, utc(hour), "beta", 2L, 0L, 0L);
      sql(pool, hourly, ios, utc(hour.minusSeconds(200 * 3600)), "main", 99L, 0L, 0L); // before the window
      String receipt = "INSERT INTO update_receipts (app_id, update_id, client_id, platform, first_served) VALUES ('ins-hourly', $1, $2, 'ios', $3)";
      sql(pool, receipt, ios, "d-early", utc(hour.minusSeconds(8 * 24 * 3600)));
      sql(pool, receipt, ios, "d-a", utc(hour.minusSeconds(3 * 3600 - 600)));
      sql(pool, receipt, ios, "d-b", utc(hour.minusSeconds(2 * 3600 - 300)));
      sql(pool, receipt, ios, "d-c", utc(hour));
      sql(pool, "INSERT INTO update_failures (app_id, update_id, client_id, platform, first_reported, last_reported, reports)"
          + " VALUES ('ins-hourly', $1, 'd-b', 'ios', $2, $2, 3)", ios, utc(hour.minusSeconds(2 * 3600 - 1800)));
      seedCounters(pool, "ins-hourly");
    } finally {
      TestSupport.await(pool.close());
    }

    Http.Resp r = admin.get("/v1/apps/ins-hourly/insights/updates/" + group + "/hourly");
    assertThat(r.status()).as(r.toString()).isEqualTo(200);
    JsonNode n = r.json();
    assertThat(n.get("groupId").asText()).isEqualTo(group);
    assertThat(n.get("hours").asInt()).isEqualTo(168);
    assertThat(n.get("maxFailureRatePercent").asDouble()).as("the guard's threshold").isEqualTo(2.5);
    assertThat(Instant.parse(n.get("since").asText())).isEqualTo(hour.minusSeconds(167 * 3600));
    JsonNode iosSeries = null;
    for (JsonNode p : n.get("platforms")) {
      assertThat(p.get("points")).hasSize(168);
      assertThat(Instant.parse(p.get("points").get(167).get("hour").asText())).isEqualTo(hour);
      if (p.get("platform").asText().equals("ios")) {
        iosSeries = p;
      } else {
        for (JsonNode pt : p.get("points")) {
          assertThat(pt.get("launches").asLong() + pt.get("devices").asLong()).as("android has nothing").isZero();
          assertThat(pt.get("failureRatePercent").isNull()).isTrue();
        }
      }
    }
    assertThat(iosSeries.get("updateId").asText()).isEqualTo(ios);
    JsonNode pts = iosSeries.get("points");
    long launches = 0;
    for (JsonNode pt : pts) {
      launches += pt.get("launches").asLong();
    }
    assertThat(launches).as("launches inside the window only, channels summed").isEqualTo(12);
    assertThat(pts.get(165).get("launches").asLong()).isEqualTo(7);
    assertThat(pts.get(165).get("served").asLong()).isEqualTo(3);
    assertThat(pts.get(165).get("failureReports").asLong()).isEqualTo(1);
    assertThat(pts.get(167).get("launches").asLong()).isEqualTo(5);
    // adoption as it stood at each hour's end: the device served before the window counts from the start
    assertThat(pts.get(0).get("devices").asLong()).isEqualTo(1);
    assertThat(pts.get(163).get("devices").asLong()).isEqualTo(1);
    assertThat(pts.get(164).get("devices").asLong()).isEqualTo(2);
    assertThat(pts.get(165).get("devices").asLong()).isEqualTo(3);
    assertThat(pts.get(166).get("devices").asLong()).isEqualTo(3);
    assertThat(pts.get(167).get("devices").asLong()).isEqualTo(4);
    assertThat(pts.get(164).get("failedDevices").asLong()).isZero();
    assertThat(pts.get(164).get("failureRatePercent").asDouble()).isZero();
    assertThat(pts.get(165).get("failedDevices").asLong()).isEqualTo(1);
    assertThat(pts.get(165).get("failureRatePercent").asDouble()).isCloseTo(100.0 / 3, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(pts.get(167).get("failureRatePercent").asDouble()).isEqualTo(25.0);
    // the group answer agrees with the series' last point
    JsonNode g = admin.get("/v1/apps/ins-hourly/insights/updates/" + group).json();
    for (JsonNode p : g.get("platforms")) {
      if (p.get("platform").asText().equals("ios")) {
        assertThat(p.get("failureRatePercent").asDouble()).isEqualTo(25.0);
        assertThat(p.get("launches7d").asLong()).isEqualTo(12);
      }
    }
    assertThat(admin.get("/v1/apps/ins-hourly/insights/updates/nope/hourly").errorCode()).isEqualTo("update-not-found");
  }

  private static java.time.OffsetDateTime utc(Instant t) {
    return java.time.OffsetDateTime.ofInstant(t, java.time.ZoneOffset.UTC);
  }

  private static void sql(io.vertx.sqlclient.Pool pool, String sql, Object... params) {
    TestSupport.await(pool.preparedQuery(sql).execute(io.vertx.sqlclient.Tuple.from(params)));
  }

  @Test
  void withPostgresUnreachableInsightsAnswer503AndTheRestOfTheControlPlaneWorks(Infra infra, @TempDir Path dir) throws Exception {
    int deadPort = Ports.freePort(); // nothing listens there
    Vertx v = Vertx.vertx();
    ControlPlane down =
        TestSupport.await(
            ControlPlane.start(
                v,
                TestSupport.config(infra, dir, "postgres-url", "postgresql://postgres:secret@127.0.0.1:" + deadPort + "/updraft",
                    "topic-prefix", infra.topicPrefix() + "down."),
                List.of(InsightsExtension.withGuardInterval(Duration.ofMillis(100)))));
    try {
      Http http = new Http("http://127.0.0.1:" + down.port(), TestSupport.ADMIN);
      createApp(http, "ins-down");
      String first = publish(http, "ins-down", Fixtures.update1(), "main");
      // a guarded rollout gives the guard something to evaluate, which it cannot
      ExportFixture.upload(http, "ins-down", Fixtures.update2());
      ObjectNode body = ExportFixture.publishBody(Fixtures.update2(), "main", "1.0.0");
      body.put("rolloutPercentage", 10);
      body.putObject("rolloutGuard").put("maxFailureRatePercent", 5.0).put("minDevices", 1).put("windowSeconds", 3600);
      Http.Resp rollout = http.post("/v1/apps/ins-down/updates", body);
      assertThat(rollout.status()).as(rollout.toString()).isEqualTo(201);

      for (String p : List.of("/v1/apps/ins-down/insights/updates/" + first, "/v1/apps/ins-down/insights/channels/main",
          "/v1/apps/ins-down/devices/d1")) {
        Http.Resp r = http.get(p);
        assertThat(r.status()).as(p + ": " + r).isEqualTo(503);
        assertThat(r.errorCode()).isEqualTo("insights-unavailable");
        assertThat(r.errorMessage()).contains("PostgreSQL at 127.0.0.1:" + deadPort + "/updraft").contains("--postgres-url")
            .doesNotContain("secret");
        assertThat(r.header("retry-after")).isEqualTo("10");
      }
      // unknown things are still 404s: the state answers them without PostgreSQL
      assertThat(http.get("/v1/apps/ins-down/insights/updates/0b6c2f0e-9f3a-4c1e-8d7b-5a4e3c2b1a00").errorCode()).isEqualTo("update-not-found");

      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (TestSupport.metric(http, "updraft_guard_errors_total{stage=\"evaluate\"}") < 2) {
        assertThat(System.nanoTime()).as("the guard tried and counted its errors").isLessThan(deadline);
        Thread.sleep(50);
      }
      assertThat(TestSupport.metric(http, "updraft_insights_unavailable_total")).isEqualTo(3.0);
      assertThat(TestSupport.metric(http, "updraft_guard_reverts_total")).isZero();
      assertThat(TestSupport.metric(http, "updraft_guard_standby_passes_total")).as("the writer is not on standby").isZero();
      assertThat(http.get("/healthz").status()).isEqualTo(200);
      assertThat(http.get("/v1/apps/ins-down/updates/" + rollout.json().get("groupId").asText()).json().get("rollout").get("status").asText())
          .isEqualTo("active");
      Http.Resp finish = http.post("/v1/apps/ins-down/updates/" + rollout.json().get("groupId").asText() + "/rollout/finish", Http.JSON.createObjectNode());
      assertThat(finish.status()).as(finish.toString()).isEqualTo(200);
    } finally {
      TestSupport.await(down.close());
      TestSupport.await(v.close());
    }
  }

  /**
   * The counters the ingester keeps beside the rows it writes ({@code update_device_totals},
   * {@code receipt_minutes}), for rows a test wrote straight into the tables: computed from those rows as
   * the V4 migration's backfill does.
   */
  static void seedCounters(io.vertx.sqlclient.Pool pool, String app) {
    sql(pool, "DELETE FROM update_device_totals WHERE app_id = $1", app);
    sql(pool, "DELETE FROM receipt_minutes WHERE app_id = $1", app);
    sql(pool, "INSERT INTO update_device_totals (app_id, update_id, platform, received, failed, received_failed)"
        + " SELECT app_id, update_id, platform, sum(received), sum(failed), sum(received_failed) FROM ("
        + " SELECT r.app_id, r.update_id, r.platform, 1 AS received, 0 AS failed, CASE WHEN f.client_id IS NULL THEN 0 ELSE 1 END AS received_failed"
        + " FROM update_receipts r LEFT JOIN update_failures f ON f.app_id = r.app_id AND f.update_id = r.update_id AND f.client_id = r.client_id"
        + " WHERE r.app_id = $1"
        + " UNION ALL SELECT app_id, update_id, platform, 0, 1, 0 FROM update_failures WHERE app_id = $1"
        + ") x GROUP BY app_id, update_id, platform", app);
    sql(pool, "INSERT INTO receipt_minutes (app_id, update_id, minute, platform, received, failed)"
        + " SELECT r.app_id, r.update_id, to_timestamp(floor(extract(epoch FROM r.first_served) / 60) * 60), r.platform, count(*), count(f.client_id)"
        + " FROM update_receipts r LEFT JOIN update_failures f ON f.app_id = r.app_id AND f.update_id = r.update_id AND f.client_id = r.client_id"
        + " WHERE r.app_id = $1 GROUP BY 1, 2, 3, 4", app);
  }
}
