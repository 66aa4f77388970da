package dev.updraft.systemtests.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.updraft.controlplane.ControlPlane;
import dev.updraft.embedded.EmbeddedPostgresServer;
import dev.updraft.ingester.TelemetryIngester;
import dev.updraft.systemtests.reliability.ChildJvm;
import dev.updraft.systemtests.reliability.Publishing;
import dev.updraft.systemtests.reliability.Services;
import dev.updraft.systemtests.support.CliRunner;
import dev.updraft.systemtests.support.Http;
import dev.updraft.embedded.Ports;
import dev.updraft.systemtests.support.Stack;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The history projection with a control plane, an ingester and an edge: after 300 republishes on one branch
 * the edge holds a handful of groups while the audit API lists every event and the update API every group
 * (the old ones from PostgreSQL, which can still be shown, republished, pinned and deleted), also from a
 * control plane started from a snapshot; exactly once across an ingester killed mid-stream; a 503 from the
 * audit while PostgreSQL is down, publishing unaffected.
 */
@ExtendWith(RealInfrastructure.class)
class HistoryIT {
  static final String APP = "hist";
  private static final Pattern GROUPS = Pattern.compile("^updraft_edge_image_groups\\S*\\s+([0-9.]+)", Pattern.MULTILINE);

  @TempDir Path work;

  @Test
  void afterThreeHundredRepublishesTheEdgeHoldsAFewGroupsAndTheApiShowsTheWholeHistory(Infra infra) throws Exception {
    Path data = work.resolve("data");
    try (Stack stack = Stack.start(infra, data, Map.of("snapshot-interval-events", "40"))) {
      CliRunner cli = new CliRunner(stack.controlUrl(), Stack.ADMIN_TOKEN);
      Api api = new Api(stack.controlUrl(), Stack.ADMIN_TOKEN);
      cli.json("apps", "create", APP);
      JsonNode first = cli.json("publish", "--app", APP, "--branch", "main", "--runtime-version", "1.0.0", "--dist", Fixtures.update1().toString());
      List<String> groups = new ArrayList<>();
      groups.add(first.get("groupId").asText());
      for (int i = 0; i < 300; i++) {
        Api.Resp r = api.call("POST", "/v1/apps/" + APP + "/rollbacks",
            Map.of("branch", "main", "runtimeVersion", "1.0.0", "toGroupId", groups.get(0)));
        assertThat(r.status()).as(r.toString()).isEqualTo(201);
        groups.add(r.json().get("groupId").asText());
      }
      assertThat(awaitEdgeGroupsAtMost(stack, 8)).as("groups the edge holds after 300 republishes").isBetween(1, 8);

      long last = api.call("GET", "/v1/apps/" + APP, null).json().get("lastSequence").asLong();
      assertThat(last).as("app.created, a publish, 300 republishes and what the patch worker recorded").isGreaterThanOrEqualTo(302);
      assertThat(auditSequences(api, 100)).as("every event, newest first").isEqualTo(descending(last));

      // a group the control plane no longer holds: shown, listed, republished, pinned and deleted from PostgreSQL
      String old = groups.get(5);
      Api.Resp shown = api.call("GET", "/v1/apps/" + APP + "/updates/" + old, null);
      assertThat(shown.status()).as(shown.toString()).isEqualTo(200);
      assertThat(shown.json().get("republishedFrom").asText()).isEqualTo(groups.get(0));
      assertThat(shown.json().get("platforms").get(0).get("body").asText()).contains("launchAsset");
      assertThat(listed(api)).as("all 301 groups, newest first").hasSize(301).first().isEqualTo(groups.get(300));
      Api.Resp again = api.call("POST", "/v1/apps/" + APP + "/rollbacks", Map.of("branch", "main", "runtimeVersion", "1.0.0", "toGroupId", old));
      assertThat(again.status()).as(again.toString()).isEqualTo(201);
      assertThat(again.json().get("republishedFrom").asText()).isEqualTo(old);
      Api.Resp pin = api.call("PUT", "/v1/apps/" + APP + "/updates/" + groups.get(6) + "/pin", null);
      assertThat(pin.status()).as(pin.toString()).isEqualTo(200);
      assertThat(pin.json().get("pinned").asBoolean()).isTrue();
      Api.Resp deleted = api.call("DELETE", "/v1/apps/" + APP + "/updates/" + groups.get(7), null);
      assertThat(deleted.status()).as(deleted.toString()).isEqualTo(200);
      assertThat(api.call("GET", "/v1/apps/" + APP + "/updates/" + groups.get(7), null).status()).isEqualTo(404);
      List<String> listed = listed(api);
      assertThat(listed).hasSize(301).doesNotContain(groups.get(7)).first().isEqualTo(again.json().get("groupId").asText());
      assertThat(api.call("GET", "/v1/apps/" + APP + "/updates/not-a-group", null).status()).isEqualTo(404);

      // a control plane started from a snapshot holds the live groups only, and lists the whole history
      awaitSnapshot(stack);
      stack.restartControlPlane(data, Map.of("snapshot-interval-events", "40"));
      assertThat(metric(Http.get(stack.controlUrl() + "/metrics").body(), "updraft_control_snapshot_apps")).isEqualTo(1.0);
      Api fresh = new Api(stack.controlUrl(), Stack.ADMIN_TOKEN);
      long now = fresh.call("GET", "/v1/apps/" + APP, null).json().get("lastSequence").asLong();
      assertThat(auditSequences(fresh, 500)).isEqualTo(descending(now));
      assertThat(fresh.call("GET", "/v1/apps/" + APP + "/updates/" + groups.get(8), null).status()).isEqualTo(200);
      assertThat(listed(fresh)).isEqualTo(listed);

      // the new writer continues the sequence, and the audit shows its event at once, by its actor
      assertThat(fresh.call("PUT", "/v1/apps/" + APP + "/channels/staging", Map.of("branch", "staging")).status()).isEqualTo(200);
      JsonNode audit = fresh.call("GET", "/v1/apps/" + APP + "/audit?limit=3", null).json();
      assertThat(audit.get("items")).hasSize(3);
      assertThat(audit.get("items").get(0).get("sequence").asLong()).isEqualTo(now + 1);
      assertThat(audit.get("items").get(0).get("type").asText()).isEqualTo("channel.mapped");
      assertThat(audit.get("items").get(0).get("actor").asText()).isEqualTo("admin");
      assertThat(audit.get("items").get(0).get("summary").asText()).isEqualTo("mapped channel staging to branch staging");
      assertThat(audit.get("nextBefore").asLong()).isEqualTo(now - 1);
    }
  }

  @Test
  void theAuditAnswers503WhilePostgresIsDownAndPublishingGoesOn(Infra infra) throws Exception {
    Vertx vertx = Vertx.vertx();
    EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(work.resolve("pg"), 0, false);
    pg.createDatabase("history");
    String url = Services.postgresUrl(pg.port(), "history", EmbeddedPostgresServer.USER);
    String prefix = infra.topicPrefix() + "down.";
    ControlPlane cp = null;
    TelemetryIngester ingester = null;
    try {
      cp = Services.controlPlane(vertx, infra.kafkaBootstrap(), prefix, work.resolve("cp"), "postgres-url", url);
      ingester = Services.ingester(vertx, infra.kafkaBootstrap(), prefix, url);
      String server = "http://127.0.0.1:" + cp.port();
      Publishing.appWithUpdate(server, "down", false, "main");
      Api api = new Api(server, Services.ADMIN);
      assertThat(api.call("GET", "/v1/apps/down/audit", null).json().get("items").size()).isEqualTo(2);

      pg.stop();
      Api.Resp r = api.call("GET", "/v1/apps/down/audit", null);
      assertThat(r.status()).as(r.toString()).isEqualTo(503);
      assertThat(r.code()).isEqualTo("history-unavailable");
      assertThat(r.message()).contains("PostgreSQL").contains("--postgres-url").contains("publishing is not affected");
      JsonNode published = Publishing.publish(server, "down", "main", 2);
      assertThat(published.get("groupId").asText()).isNotEmpty();
      Api.Resp list = api.call("GET", "/v1/apps/down/updates", null);
      assertThat(list.status()).as("the held groups, from memory").isEqualTo(200);
      assertThat(list.json().get("items").get(0).get("groupId").asText()).isEqualTo(published.get("groupId").asText());

      pg.restart();
      long last = api.call("GET", "/v1/apps/down", null).json().get("lastSequence").asLong();
      Services.until("the audit lists the publish made while PostgreSQL was down", () -> {
        Api.Resp a = api.call("GET", "/v1/apps/down/audit", null);
        return a.status() == 200 && a.json().get("items").size() == last;
      }, Duration.ofSeconds(90));
    } finally {
      if (ingester != null) {
        Services.await(ingester.close());
      }
      if (cp != null) {
        Services.await(cp.close());
      }
      Services.await(vertx.close());
      pg.stop();
    }
  }

  @Test
  void anIngesterKilledMidStreamLosesAndDoublesNoAuditRow(Infra infra) throws Exception {
    Vertx vertx = Vertx.vertx();
    String prefix = infra.topicPrefix() + "kill.";
    String pgUrl = Services.postgresUrl(infra.pgPort(), infra.database(), infra.pgUser());
    int port = Ports.freePort();
    String[] flags = {"ingest", "--kafka-bootstrap", infra.kafkaBootstrap(), "--topic-prefix", prefix, "--postgres-url", pgUrl,
        "--consumer-group", "kill-" + UUID.randomUUID(), "--history-consumer-group", "kill-history-" + UUID.randomUUID(),
        "--metrics-port", Integer.toString(port), "--bind", "127.0.0.1"};
    ControlPlane cp = Services.controlPlane(vertx, infra.kafkaBootstrap(), prefix, work.resolve("cp"), "postgres-url", pgUrl);
    ChildJvm ingester = null;
    AtomicBoolean publishing = new AtomicBoolean(true);
    AtomicInteger published = new AtomicInteger();
    Thread stream = null;
    try (Connection sql = DriverManager.getConnection(infra.jdbcUrl(), infra.pgUser(), "")) {
      String server = "http://127.0.0.1:" + cp.port();
      String g0 = Publishing.appWithUpdate(server, "kill", false, "main").get("groupId").asText();
      Api api = new Api(server, Services.ADMIN);
      stream = new Thread(() -> {
        for (int i = 0; i < 400 && publishing.get(); i++) {
          Api.Resp r = api.call("POST", "/v1/apps/kill/rollbacks", Map.of("branch", "main", "runtimeVersion", "1.0.0", "toGroupId", g0));
          if (r.status() != 201) {
            throw new AssertionError(r.toString());
          }
          published.incrementAndGet();
        }
      }, "history-kill-stream");
      stream.start();
      ingester = ChildJvm.start(work.resolve("ingester-1.log"), Map.of(), flags);
      ingester.awaitOk("http://127.0.0.1:" + port + "/healthz", Duration.ofSeconds(120));
      Services.until("audit rows before the kill", () -> count(sql, "SELECT count(*) FROM history_audit WHERE app_id = 'kill'") > 50,
          Duration.ofSeconds(60));
      ingester.kill(); // SIGKILL mid-stream: whatever transaction was open is rolled back by PostgreSQL
      long atKill = count(sql, "SELECT count(*) FROM history_audit WHERE app_id = 'kill'");
      Thread.sleep(500); // events go on meanwhile
      ingester = ChildJvm.start(work.resolve("ingester-2.log"), Map.of(), flags);
      ingester.awaitOk("http://127.0.0.1:" + port + "/healthz", Duration.ofSeconds(120));
      publishing.set(false);
      stream.join(120_000);
      long last = api.call("GET", "/v1/apps/kill", null).json().get("lastSequence").asLong();
      Services.until("every event projected", () -> count(sql, "SELECT count(*) FROM history_audit WHERE app_id = 'kill'") == last,
          Duration.ofSeconds(90));
      assertThat(atKill).as("killed with events left to project").isLessThan(last);
      assertThat(count(sql, "SELECT count(DISTINCT sequence) FROM history_audit WHERE app_id = 'kill'")).isEqualTo(last);
      assertThat(count(sql, "SELECT min(sequence) FROM history_audit WHERE app_id = 'kill'")).isEqualTo(1);
      assertThat(count(sql, "SELECT max(sequence) FROM history_audit WHERE app_id = 'kill'")).isEqualTo(last);
      assertThat(count(sql, "SELECT count(*) FROM history_groups WHERE app_id = 'kill'")).as("a row per group").isEqualTo(published.get() + 1);
    } finally {
      publishing.set(false);
      if (stream != null) {
        stream.join(120_000);
      }
      if (ingester != null) {
        ingester.close();
      }
      Services.await(cp.close());
      Services.await(vertx.close());
    }
  }

  private static long count(Connection sql, String query) {
    try (ResultSet rs = sql.createStatement().executeQuery(query)) {
      rs.next();
      return rs.getLong(1);
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Every sequence the audit lists, paging with {@code limit}. */
  static List<Long> auditSequences(Api api, int limit) {
    List<Long> out = new ArrayList<>();
    String cursor = "";
    for (int page = 0; page < 100; page++) {
      Api.Resp r = api.call("GET", "/v1/apps/" + APP + "/audit?limit=" + limit + cursor, null);
      assertThat(r.status()).as(r.toString()).isEqualTo(200);
      r.json().get("items").forEach(i -> out.add(i.get("sequence").asLong()));
      if (r.json().get("nextBefore").isNull()) {
        return out;
      }
      cursor = "&before=" + r.json().get("nextBefore").asLong();
    }
    throw new AssertionError("more than 100 audit pages");
  }

  /** Every group id the update list shows on main, paging by 200. */
  static List<String> listed(Api api) {
    List<String> out = new ArrayList<>();
    String cursor = "";
    for (int page = 0; page < 100; page++) {
      Api.Resp r = api.call("GET", "/v1/apps/" + APP + "/updates?branch=main&limit=200" + cursor, null);
      assertThat(r.status()).as(r.toString()).isEqualTo(200);
      r.json().get("items").forEach(i -> out.add(i.get("groupId").asText()));
      if (r.json().get("nextCursor").isNull()) {
        return out;
      }
      cursor = "&cursor=" + r.json().get("nextCursor").asText();
    }
    throw new AssertionError("more than 100 pages of groups");
  }

  static List<Long> descending(long last) {
    List<Long> out = new ArrayList<>();
    for (long s = last; s >= 1; s--) {
      out.add(s);
    }
    return out;
  }

  static int awaitEdgeGroupsAtMost(Stack stack, int n) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    int last = -1;
    while (System.nanoTime() < deadline) {
      Matcher m = GROUPS.matcher(Http.get(stack.edgeUrl() + "/metrics").body());
      last = m.find() ? (int) Double.parseDouble(m.group(1)) : -1;
      if (last >= 0 && last <= n) {
        return last;
      }
      Thread.sleep(100);
    }
    return last;
  }

  static void awaitSnapshot(Stack stack) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (metric(Http.get(stack.controlUrl() + "/metrics").body(), "updraft_control_snapshots_written_total") < 1) {
      assertThat(System.nanoTime()).as("a snapshot within 60 s").isLessThan(deadline);
      Thread.sleep(200);
    }
    Thread.sleep(1500);
  }

  static double metric(String metrics, String name) {
    Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name) + "(?:\\{[^}]*\\})? ([0-9.eE+-]+)$").matcher(metrics);
    double sum = 0;
    boolean found = false;
    while (m.find()) {
      sum += Double.parseDouble(m.group(1));
      found = true;
    }
    return found ? sum : -1;
  }
}
