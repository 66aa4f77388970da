package dev.updraft.systemtests.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.updraft.systemtests.telemetry.Ledger.Sent;
import dev.updraft.systemtests.telemetry.TelemetryStack.Answer;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every service as a production user runs it: only addresses, identities and credentials given, every other
 * setting its default (the edge's warm-up on, best asset encodings, the ingester's default batch size and
 * linger, the guard's interval). The edge starts after a publish, so its warm-up exercises the app's line with
 * thousands of requests whose check-ins go through Kafka to the ingester; none of them may leave a trace: not a
 * row in PostgreSQL, not a device or launch in the insights, not a device the device route knows. What the
 * insights and PostgreSQL hold is exactly what the test's devices sent.
 */
@ExtendWith(RealInfrastructure.class)
class ProductionDefaultsIT {
  static final String APP = "prod-defaults";
  static final String EMBEDDED = "e0000000-0000-4000-8000-00000000003c";
  /** The client ids of the edge's warm-up requests: {@code new UUID(0x5741524d, k)} (edge-node Warmup). */
  static final String WARMUP_ID_PREFIX = "00000000-5741-524d-";

  @Test
  void warmUpTrafficLeavesNoTraceInPostgresTheInsightsOrTheDeviceRoute(Infra infra, @TempDir Path dir) throws Exception {
    try (TelemetryStack stack = TelemetryStack.startWithDefaults(infra.kafkaBootstrap(), infra.topicPrefix(),
        infra.pgHost() + ":" + infra.pgPort() + "/" + infra.database(), infra.pgUser(), dir)) {
      stack.ok("apps", "create", APP, "--certificate", Fixtures.certificatePem().toString(), "--private-key",
          Fixtures.privateKeyPkcs1Pem().toString());
      JsonNode group = stack.ok("publish", "--app", APP, "--branch", "production", "--runtime-version", TelemetryStack.RUNTIME,
          "--dist", Fixtures.update1().toString(), "--json").json();
      Map<String, String> ids = new LinkedHashMap<>();
      group.get("platforms").forEach(p -> ids.put(p.get("platform").asText(), p.get("updateId").asText()));

      stack.startEdgeWithDefaults("prod-edge"); // ready only once warmed up on the app's line
      TelemetryStack.poll(() -> stack.ingesterMetric("updraft_ingest_warmup_skipped_total") > 0,
          () -> "the ingester saw no check-in of the edge's warm-up");

      // devices: each launches from its embedded bundle and gets the update, then runs it
      Ledger ledger = new Ledger();
      List<String> clients = new ArrayList<>();
      for (int i = 0; i < 24; i++) {
        String platform = i % 2 == 0 ? "ios" : "android";
        String id = String.format(Locale.ROOT, "d%07d-0000-4000-8000-%012d", i, i);
        clients.add(id);
        Answer first = stack.device(APP, id, platform, "production", EMBEDDED, EMBEDDED, List.of());
        assertThat(first.kind()).as("device %s", id).isEqualTo("manifest");
        assertThat(first.updateId()).isEqualTo(ids.get(platform));
        ledger.add(new Sent(id, platform, "production", EMBEDDED, EMBEDDED, List.of(), first.updateId()));
        if (i % 3 != 0) {
          Answer second = stack.device(APP, id, platform, "production", first.updateId(), EMBEDDED, List.of());
          assertThat(second.kind()).isEqualTo("noUpdateAvailable");
          ledger.add(new Sent(id, platform, "production", first.updateId(), EMBEDDED, List.of(), null));
        }
      }
      stack.awaitCheckInsSent(ledger.size()); // the edge counts device check-ins only: the warm-up's are apart
      // every record of the telemetry topic consumed: the devices' stored, every other one skipped as the warm-up's
      TelemetryStack.poll(() -> {
        long on = stack.checkInsOnTopic();
        return stack.checkInsCommitted() == on && stack.ingesterMetric("updraft_ingest_warmup_skipped_total") == on - ledger.size();
      }, () -> "the ingester did not consume the telemetry topic (" + stack.checkInsOnTopic() + " records) as " + ledger.size()
          + " device check-ins and the rest skipped warm-up ones: committed " + stack.checkInsCommitted() + ", skipped "
          + stack.ingesterMetric("updraft_ingest_warmup_skipped_total"));
      long onTopic = stack.checkInsOnTopic();
      assertThat(stack.ingesterMetric("updraft_ingest_records_total")).as("check-ins stored").isEqualTo((double) ledger.size());

      // PostgreSQL: every client id in every table is one of the devices'
      Set<String> stored = clientIdsInPostgres(stack.jdbcUrl());
      assertThat(stored).as("client ids stored in PostgreSQL").isEqualTo(new TreeSet<>(clients));
      assertThat(rowCount(stack.jdbcUrl(), "devices")).as("devices stored").isEqualTo(clients.size());

      // the insights count the devices' check-ins only, exactly
      ledger.assertGroup(stack.get("/v1/apps/" + APP + "/insights/updates/" + group.get("groupId").asText()), ids);
      ledger.assertChannel(stack.get("/v1/apps/" + APP + "/insights/channels/production"), "production");

      // the device route knows the devices and none of the warm-up's clients
      assertThat(stack.get("/v1/apps/" + APP + "/devices/" + clients.get(1)).path("platform").asText()).isEqualTo("android");
      for (int k = 0; k < 8; k++) {
        String warm = new UUID(0x5741524dL, k).toString();
        assertThat(warm).startsWith(WARMUP_ID_PREFIX);
        assertThat(stack.api("/v1/apps/" + APP + "/devices/" + warm).status()).as("the device route for warm-up client %s", warm).isEqualTo(404);
      }
      System.out.printf("production defaults: the warm-up's %d check-ins skipped by the ingester, none stored; %d devices' %d check-ins"
          + " stored and counted exactly by the insights%n", onTopic - ledger.size(), clients.size(), ledger.size());
    }
  }

  /** Every value of every column named like a client id, in every table of the database's public schema. */
  static Set<String> clientIdsInPostgres(String jdbcUrl) throws Exception {
    Set<String> out = new TreeSet<>();
    try (Connection c = DriverManager.getConnection(jdbcUrl); Statement st = c.createStatement()) {
      List<String[]> columns = new ArrayList<>();
      try (ResultSet rs = st.executeQuery("SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'public'"
          + " AND column_name LIKE '%client%'")) {
        while (rs.next()) {
          columns.add(new String[] {rs.getString(1), rs.getString(2)});
        }
      }
      assertThat(columns).as("columns holding client ids").isNotEmpty();
      for (String[] col : columns) {
        try (ResultSet rs = st.executeQuery("SELECT DISTINCT \"" + col[1] + "\"::text FROM \"" + col[0] + "\" WHERE \"" + col[1] + "\" IS NOT NULL")) {
          while (rs.next()) {
            out.add(rs.getString(1));
          }
        }
      }
    }
    return out;
  }

  static long rowCount(String jdbcUrl, String table) throws Exception {
    try (Connection c = DriverManager.getConnection(jdbcUrl); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT count(*) FROM " + table)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
