package dev.updraft.systemtests.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.updraft.controlplane.ControlPlane;
import dev.updraft.ingester.TelemetryIngester;
import dev.updraft.systemtests.reliability.Api;
import dev.updraft.systemtests.reliability.CliRun;
import dev.updraft.systemtests.reliability.Services;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import dev.updraft.testing.TestCa;
import dev.updraft.testing.TlsPostgres;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ingester and the control plane's insights on a PostgreSQL that takes TLS connections only
 * ({@link TlsPostgres}): with {@code --postgres-ssl-mode verify-full} and the CA that signed the server's
 * certificate they work (and their sessions are encrypted); without TLS, with another CA, or against a
 * certificate for another host, the ingester does not start, and says why.
 */
@ExtendWith(RealInfrastructure.class)
class PostgresTlsIT {

  @Test
  void verifyFullWorksWithTheRightCaAndIsRefusedWithAClearReasonOtherwise(Infra infra, @TempDir Path dir) throws Exception {
    TestCa ca = TestCa.create("updraft-pg-test");
    String caFile = ca.writeRoot(dir.resolve("ca.crt")).toString();
    String otherCa = TestCa.create("another-ca").writeRoot(dir.resolve("other-ca.crt")).toString();
    Vertx vertx = Vertx.vertx();
    try (TlsPostgres pg = TlsPostgres.start(dir.resolve("good"), ca, List.of("localhost"), List.of("127.0.0.1"));
        TlsPostgres elsewhere = TlsPostgres.start(dir.resolve("elsewhere"), ca, List.of("db.example.com"), List.of())) {
      String prefix = infra.topicPrefix();
      TelemetryIngester ingester = Services.ingester(vertx, infra.kafkaBootstrap(), prefix, pg.url(),
          "postgres-ssl-mode", "verify-full", "postgres-ssl-ca", caFile);
      ControlPlane cp = Services.controlPlaneWithInsights(vertx, infra.kafkaBootstrap(), prefix, dir.resolve("cp"), pg.url(),
          "postgres-ssl-mode", "verify-full", "postgres-ssl-ca", caFile);
      try {
        String server = "http://127.0.0.1:" + cp.port();
        CliRun.ok(server, Services.ADMIN, "apps", "create", "pgtls");
        Api.Resp insights = Api.get(server + "/v1/apps/pgtls/insights/channels/production", Services.ADMIN);
        assertThat(insights.status()).as("insights read over TLS: %s", insights).isEqualTo(200);
        try (Connection c = DriverManager.getConnection(pg.jdbcUrl());
            Statement st = c.createStatement();
            ResultSet rs = st.executeQuery("SELECT a.application_name, s.ssl FROM pg_stat_activity a JOIN pg_stat_ssl s USING (pid)"
                + " WHERE a.application_name IN ('updraft-ingester', 'updraft-insights')")) {
          int sessions = 0;
          while (rs.next()) {
            sessions++;
            assertThat(rs.getBoolean(2)).as("session of %s encrypted", rs.getString(1)).isTrue();
          }
          assertThat(sessions).as("sessions of the ingester and the insights").isGreaterThanOrEqualTo(2);
        }
      } finally {
        Services.await(cp.close());
        Services.await(ingester.close());
      }

      assertThatThrownBy(() -> Services.ingester(vertx, infra.kafkaBootstrap(), prefix, pg.url()))
          .as("no TLS").hasMessageContaining("requires TLS").hasMessageContaining("--postgres-ssl-mode verify-full");
      assertThatThrownBy(() -> Services.ingester(vertx, infra.kafkaBootstrap(), prefix, pg.url(),
          "postgres-ssl-mode", "verify-full", "postgres-ssl-ca", otherCa))
          .as("another CA").hasMessageContaining("TLS verification failed").hasMessageContaining("--postgres-ssl-ca");
      assertThatThrownBy(() -> Services.ingester(vertx, infra.kafkaBootstrap(), prefix, elsewhere.url(),
          "postgres-ssl-mode", "verify-full", "postgres-ssl-ca", caFile))
          .as("a certificate for db.example.com").hasMessageContaining("TLS verification failed")
          .hasMessageContaining("names the host of --postgres-url");
      // verify-ca checks the signature only: the same certificate for another host is accepted
      TelemetryIngester lenient = Services.ingester(vertx, infra.kafkaBootstrap(), prefix, elsewhere.url(),
          "postgres-ssl-mode", "verify-ca", "postgres-ssl-ca", caFile, "consumer-group", prefix + "verify-ca-ingester",
          "history-consumer-group", prefix + "verify-ca-history");
      Services.await(lenient.close());
    } finally {
      Services.await(vertx.close());
    }
  }
}
